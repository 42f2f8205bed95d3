// Reading a run's result lines and comparing them with the expected values, in the Node process
// (outside every sandbox). The lines come from a process the candidate shares, so they are
// treated as untrusted data: anything malformed, duplicated, out of range or missing fails the
// grade; a value passes only if it equals the expected canonical text (or, for the one test
// that uses pytest.approx, passes it as pytest.approx would: approxScalar.ts; or, for a held-out
// case of a program whose answer is not unique, is a valid answer for the case's input).
import { approxEqual, parseTypedNumber } from "./approxScalar.ts";
import type { CaseComparison } from "./publicCases.ts";
import { isRecord } from "../../core/isRecord.ts";

export type CaseStatus = "ok" | "error" | "too_large" | "timeout";

export interface CaseResult {
  readonly status: CaseStatus;
  /** Canonical value (status ok). */
  readonly value?: string;
  /** Exception type name (status error). */
  readonly error?: string;
  /** Which budget a timeout hit (set by the grader from outside the sandbox; absent when the runner's supervisor wrote it). */
  readonly limit?: "case_cpu" | "run_cpu" | "idle";
}

export interface RunnerOutput {
  /** Results by case index; a missing index never ran (or its line never came). */
  readonly results: ReadonlyMap<number, CaseResult>;
  /** The file under test could not be imported (its exception type). */
  readonly importError: string | undefined;
  readonly finished: boolean;
  /** Why the output cannot be trusted to describe the run (a forged or broken channel). */
  readonly malformed: string | undefined;
}

const MAX_NAME = 80;

export function parseRunnerOutput(stdout: string, caseCount: number): RunnerOutput {
  const results = new Map<number, CaseResult>();
  let importError: string | undefined;
  let finished = false;
  let malformed: string | undefined;
  for (const line of stdout.split("\n")) {
    if (line === "" || malformed) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      malformed = "an unreadable result line";
      continue;
    }
    if (!isRecord(rec)) {
      malformed = "a result line that is not an object";
    } else if (rec.done === true) {
      if (finished) malformed = "two completion markers";
      finished = true;
    } else if (typeof rec.import_error === "string") {
      importError = rec.import_error.slice(0, MAX_NAME);
    } else if (typeof rec.i === "number" && Number.isInteger(rec.i)) {
      const i = rec.i;
      if (i < 0 || i >= caseCount) malformed = `a result for case ${i}, which does not exist`;
      else if (results.has(i)) malformed = `two results for case ${i}`;
      else if (rec.s === "ok" && typeof rec.v === "string") results.set(i, { status: "ok", value: rec.v });
      else if (rec.s === "error")
        results.set(i, { status: "error", error: typeof rec.e === "string" ? rec.e.slice(0, MAX_NAME) : "unknown" });
      else if (rec.s === "too_large") results.set(i, { status: "too_large" });
      else if (rec.s === "timeout") results.set(i, { status: "timeout" });
      else malformed = `a malformed result for case ${i}`;
    } else {
      malformed = "a result line of unknown shape";
    }
  }
  return { results, importError, finished, malformed };
}

/** The parsed canonical text, or undefined (candidate output is untrusted: anything goes). */
function parseCanonical(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function canonicalString(text: string): string | undefined {
  const v = parseCanonical(text);
  return Array.isArray(v) && v.length === 2 && v[0] === "s" && typeof v[1] === "string" ? v[1] : undefined;
}

function canonicalInteger(v: unknown): number | undefined {
  if (!Array.isArray(v) || v.length !== 2 || v[0] !== "n" || typeof v[1] !== "string" || !/^-?\d{1,15}$/.test(v[1]))
    return undefined;
  return Number(v[1]);
}

/** A list of small integers (node values), or undefined. */
function canonicalIntegers(text: string): number[] | undefined {
  const v = parseCanonical(text);
  if (!Array.isArray(v) || v.length !== 2 || v[0] !== "l" || !Array.isArray(v[1])) return undefined;
  const out: number[] = [];
  for (const item of v[1] as unknown[]) {
    const n = canonicalInteger(item);
    if (n === undefined) return undefined;
    out.push(n);
  }
  return out;
}

/** Whether `sub` is a subsequence of `whole` (by code point, as Python indexes strings). */
function isSubsequence(sub: readonly string[], whole: readonly string[]): boolean {
  let i = 0;
  for (const ch of whole) if (i < sub.length && ch === sub[i]) i++;
  return i === sub.length;
}

/**
 * The total weight of a canonical set of edges when it is a spanning tree of the graph (every
 * edge one of the input's own keys, once; as many as the nodes less one; no cycle), else undefined.
 */
function treeWeight(text: string, edges: readonly (readonly [number, number, number])[]): number | undefined {
  const v = parseCanonical(text);
  if (!Array.isArray(v) || v.length !== 2 || v[0] !== "set" || !Array.isArray(v[1])) return undefined;
  const weightOf = new Map(edges.map(([a, b, w]) => [`${a},${b}`, w]));
  const nodes = new Set(edges.flatMap(([a, b]) => [a, b]));
  const parent = new Map([...nodes].map((n) => [n, n]));
  const root = (n: number): number => {
    let r = n;
    while (parent.get(r) !== r) r = parent.get(r) ?? r;
    return r;
  };
  let total = 0;
  const items = v[1] as unknown[];
  if (items.length !== nodes.size - 1) return undefined;
  for (const item of items) {
    if (typeof item !== "string") return undefined;
    const edge = parseCanonical(item);
    if (!Array.isArray(edge) || edge.length !== 2 || edge[0] !== "t" || !Array.isArray(edge[1]) || edge[1].length !== 2)
      return undefined;
    const [a, b] = (edge[1] as unknown[]).map(canonicalInteger);
    const w = a === undefined || b === undefined ? undefined : weightOf.get(`${a},${b}`);
    if (a === undefined || b === undefined || w === undefined || root(a) === root(b)) return undefined;
    parent.set(root(a), root(b));
    total += w;
  }
  return total;
}

/**
 * Validity checks for answers that are not unique. `expected` is the independent implementation's
 * answer (confirmed by the reference fix's): only its length (LCS) or its node set (ordering)
 * is used; the input in `compare` decides the rest.
 */
function validAnswer(
  actual: string,
  expected: string,
  compare: Exclude<CaseComparison, { kind: "equal" | "approx_abs" }>,
): boolean {
  if (compare.kind === "common_subsequence") {
    const got = canonicalString(actual);
    const want = canonicalString(expected);
    if (got === undefined || want === undefined) return false;
    const g = Array.from(got);
    return (
      g.length === Array.from(want).length &&
      isSubsequence(g, Array.from(compare.a)) &&
      isSubsequence(g, Array.from(compare.b))
    );
  }
  if (compare.kind === "topological_order") {
    const got = canonicalIntegers(actual);
    const want = canonicalIntegers(expected);
    if (got === undefined || want === undefined || got.length !== want.length) return false;
    const position = new Map(got.map((v, i) => [v, i]));
    // Every expected node exactly once (no repeats, none missing), each edge's source first.
    if (position.size !== got.length || !want.every((v) => position.has(v))) return false;
    return compare.edges.every(([u, v]) => (position.get(u) ?? Infinity) < (position.get(v) ?? -Infinity));
  }
  if (compare.kind === "spanning_tree") {
    const got = treeWeight(actual, compare.edges);
    const want = treeWeight(expected, compare.edges);
    return got !== undefined && want !== undefined && got === want;
  }
  const i = canonicalInteger(parseCanonical(actual));
  if (i === undefined) return false;
  return compare.arr.includes(compare.x) ? i >= 0 && i < compare.arr.length && compare.arr[i] === compare.x : i === -1;
}

/** Whether a returned canonical value satisfies the case. */
export function valueMatches(actual: string, expected: string, compare: CaseComparison): boolean {
  if (compare.kind === "equal") return actual === expected;
  if (compare.kind !== "approx_abs") return validAnswer(actual, expected, compare);
  // Both written by trusted_runner.typed_number (the case's adapter is approx_number).
  const a = parseTypedNumber(actual);
  const e = parseTypedNumber(expected);
  return a !== undefined && e !== undefined && approxEqual(a, e, compare.tolerance);
}

/**
 * The class name of a value the grader does not compare (trusted_runner.canon's "other": a
 * subclass of a built-in class, a class the program defined, a deque...), first found; else undefined.
 */
export function uncomparedClass(text: string): string | undefined {
  // Walks the canonical form by its tags (trusted_runner.canon): list and tuple items, set items
  // and dict keys (each a canonical text of its own), dict values.
  const walk = (v: unknown, depth: number): string | undefined => {
    if (!Array.isArray(v) || depth > 64) return undefined;
    const [tag, body] = v as unknown[];
    if (tag === "other") return typeof body === "string" ? body : undefined;
    if (!Array.isArray(body)) return undefined;
    for (const item of body as unknown[]) {
      const found =
        tag === "l" || tag === "t"
          ? walk(item, depth + 1)
          : tag === "set" && typeof item === "string"
            ? walk(parseCanonical(item), depth + 1)
            : tag === "d" && Array.isArray(item)
              ? (walk(typeof item[0] === "string" ? parseCanonical(item[0]) : undefined, depth + 1) ??
                walk(item[1], depth + 1))
              : undefined;
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(parseCanonical(text), 0);
}

/** A short description of a value for the trace (never shown to a model). */
export function shortValue(text: string): string {
  return text.length <= 160 ? text : `${text.slice(0, 157)}...`;
}
