// The public cases of one program, as the trusted grader uses them: each case's input (what a
// sandbox that runs a candidate may see) and its expected value (what only this Node process
// keeps). They are read from the data set by the trusted runner in `prepare` mode, in a sandbox
// in which no program under test exists, and cached per data set, program and slow-case setting.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { supportFiles, testFilePath, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { runInSandbox, type SandboxConfig } from "../sandbox/sandbox.ts";
import { writeTaskFiles } from "../dataset/taskFolder.ts";
import { RESULT_CHANNEL_MAX_BYTES, trustedRunnerStart } from "./runnerFiles.ts";
import { isRecord } from "../../core/isRecord.ts";

/**
 * How a returned value is compared with the expected one: the test's own assert for public
 * cases; for held-out cases of a program whose answer is not unique, a validity check on the
 * case's own input (caseResults.ts), kept here in the Node process and never sent to a sandbox.
 */
export type CaseComparison =
  | { readonly kind: "equal" }
  | { readonly kind: "approx_abs"; readonly tolerance: number }
  /** A longest common subsequence of a and b: as long as the expected one, a subsequence of both. */
  | { readonly kind: "common_subsequence"; readonly a: string; readonly b: string }
  /** The node values (all of them, once each) in an order putting u before v for every edge [u, v]. */
  | { readonly kind: "topological_order"; readonly edges: readonly (readonly [number, number])[] }
  /** A set of the input's own edge keys (u, v) forming a spanning tree of least total weight. */
  | { readonly kind: "spanning_tree"; readonly edges: readonly (readonly [number, number, number])[] }
  /** An index i with arr[i] == x, or -1 when x is not in arr. */
  | { readonly kind: "index_of"; readonly arr: readonly number[]; readonly x: number };

/**
 * A case's input as the runner reads it: tagged arguments, an adapter, optional Node graph.
 * Where the test file shares module-level objects across its tests, the first case carries
 * them (`scene`, built once and kept for the cases after it) and a case lists the test's own
 * assignments to them before its call (`setup`): trusted_runner.Scope.
 */
export interface CaseInput {
  readonly args: readonly unknown[];
  readonly adapter: string;
  readonly nodes?: readonly unknown[];
  readonly scene?: Readonly<Record<string, unknown>>;
  readonly setup?: readonly unknown[];
}

export interface GradingCase {
  readonly label: string;
  readonly input: CaseInput;
  /** Canonical form of the expected value (trusted_runner.canon_text). */
  readonly expected: string;
  readonly compare: CaseComparison;
}

export interface PublicCases {
  readonly cases: readonly GradingCase[];
  /** Cases the data set's tests skip here (slow without --include-slow, or skipped upstream). */
  readonly excluded: readonly string[];
}

const cache = new Map<string, Promise<Result<PublicCases, BenchErrorCode>>>();

function parseComparison(v: unknown): CaseComparison | undefined {
  if (!isRecord(v)) return undefined;
  if (v.kind === "equal") return { kind: "equal" };
  if (v.kind === "approx_abs" && typeof v.tolerance === "string" && Number.isFinite(Number(v.tolerance)))
    return { kind: "approx_abs", tolerance: Number(v.tolerance) };
  return undefined;
}

function parseCase(v: unknown): GradingCase | undefined {
  if (!isRecord(v) || typeof v.label !== "string" || typeof v.expected !== "string" || !isRecord(v.input))
    return undefined;
  const { args, adapter, nodes, scene, setup } = v.input;
  const compare = parseComparison(v.compare);
  if (
    !Array.isArray(args) ||
    typeof adapter !== "string" ||
    (nodes !== undefined && !Array.isArray(nodes)) ||
    (scene !== undefined && !isRecord(scene)) ||
    (setup !== undefined && !Array.isArray(setup)) ||
    !compare
  )
    return undefined;
  const input: CaseInput = {
    args,
    adapter,
    ...(nodes ? { nodes } : {}),
    ...(scene ? { scene } : {}),
    ...(setup ? { setup } : {}),
  };
  return { label: v.label, input, expected: v.expected, compare };
}

/** Parses the prepare run's output: cases, exclusions, and the completion marker. */
export function parsePrepareOutput(stdout: string): Result<PublicCases, BenchErrorCode> {
  const cases: GradingCase[] = [];
  const excluded: string[] = [];
  let done = false;
  for (const line of stdout.split("\n")) {
    if (line === "") continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      return err(
        "grading_cases_unavailable",
        "the trusted runner wrote an unreadable line while reading the test data",
      );
    }
    if (!isRecord(rec)) return err("grading_cases_unavailable", "the trusted runner wrote an unexpected record");
    if ("untranscribed" in rec) {
      return err(
        "grading_cases_unavailable",
        "this program's test file matches no transcription the trusted grader has (its cases cannot be asked outside pytest)",
      );
    }
    if ("case" in rec) {
      const c = parseCase(rec.case);
      if (!c) return err("grading_cases_unavailable", "the trusted runner wrote a malformed case");
      cases.push(c);
    } else if (typeof rec.excluded === "string") {
      excluded.push(rec.excluded);
    } else if (rec.done === true) {
      done = true;
    }
  }
  if (!done) return err("grading_cases_unavailable", "the trusted runner did not finish reading the test data");
  if (cases.length === 0) return err("grading_cases_unavailable", "the test data holds no case");
  return ok({ cases, excluded });
}

async function preparePublicCases(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  includeSlow: boolean,
): Promise<Result<PublicCases, BenchErrorCode>> {
  const outer = mkdtempSync(join(tmpdir(), `tca-prepare-${program.name}-`));
  try {
    const dir = join(outer, "task");
    // The test file (for its fingerprint), its data and helpers; never any program.
    const data = supportFiles(dataset, program).filter(
      (f) =>
        f.path === testFilePath(program.name) || f.path.startsWith("json_testcases/") || f.path.endsWith("/node.py"),
    );
    const job = { mode: "prepare", program: program.name, includeSlow };
    const runner = trustedRunnerStart(config.python, true);
    writeTaskFiles(dir, [...runner.files, ...data, { path: "job.json", content: Buffer.from(JSON.stringify(job)) }]);
    const run = await runInSandbox(config, {
      taskDir: dir,
      argv: runner.argv,
      stdoutHeadBytes: RESULT_CHANNEL_MAX_BYTES,
      timeoutMs: config.limits.timeoutMs,
    });
    if (run.timedOut || run.exitCode !== 0 || run.stdoutTruncated) {
      return err(
        "grading_cases_unavailable",
        `the trusted runner could not read the test data (exit ${String(run.exitCode)}${run.timedOut ? ", timed out" : ""})`,
      );
    }
    return parsePrepareOutput(run.stdout);
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
}

/** The program's public cases (read once per data set, program and slow-case setting). */
export function publicCases(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  includeSlow: boolean,
): Promise<Result<PublicCases, BenchErrorCode>> {
  const key = `${dataset.root}\u0000${program.name}\u0000${String(includeSlow)}`;
  let found = cache.get(key);
  if (!found) {
    found = preparePublicCases(config, dataset, program, includeSlow);
    cache.set(key, found);
    // A failure is not cached: the next grade tries again.
    void found.then((r) => {
      if (!r.ok) cache.delete(key);
    });
  }
  return found;
}
