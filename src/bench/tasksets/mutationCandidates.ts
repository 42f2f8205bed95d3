// A reference fix's candidate one-line mutants. The operators (mutation_operators.py, static
// Python owned by this project) parse the file with `ast` in the sandbox and never execute it;
// this module applies each candidate to the reference bytes itself and refuses any candidate that
// would change anything but its one line, so "exactly one line differs" holds by construction
// here, whatever the Python side printed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { writeTaskFiles } from "../dataset/taskFolder.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { runInSandbox, type SandboxConfig } from "../sandbox/sandbox.ts";
import { isRecord } from "../../core/isRecord.ts";

/** The operator classes (SWE-smith's AST modifiers, one line each). */
export const MUTATION_OPERATORS = [
  "flip_comparison",
  "change_operator",
  "change_constant",
  "swap_operands",
  "off_by_one_loop_bound",
  "negate_condition",
  "remove_conditional",
  "remove_assignment",
  "remove_statement",
  "swap_break_continue",
  "wrong_variable",
] as const;
export type MutationOperator = (typeof MUTATION_OPERATORS)[number];

export interface MutationCandidate {
  readonly op: MutationOperator;
  /** 1-based line number in the reference fix. */
  readonly line: number;
  readonly before: string;
  readonly after: string;
}

const SCRIPT = "mutation_operators.py";
const CANDIDATES_MAX_BYTES = 8 * 1024 * 1024;
let script: Buffer | undefined;

function parseCandidate(v: unknown): MutationCandidate | null {
  if (!isRecord(v)) return null;
  const { op, line, before, after } = v;
  if (typeof op !== "string" || !(MUTATION_OPERATORS as readonly string[]).includes(op)) return null;
  if (
    typeof line !== "number" ||
    !Number.isSafeInteger(line) ||
    line < 1 ||
    typeof before !== "string" ||
    typeof after !== "string"
  )
    return null;
  if (before === after || after.includes("\n")) return null;
  return { op: op as MutationOperator, line, before, after };
}

/** The reference bytes with one line replaced (lines split on "\n", as the operators split them); null if the line is not `before`. */
export function applyCandidate(reference: Buffer, candidate: MutationCandidate): Buffer | null {
  const lines = reference.toString("utf8").split("\n");
  if (Buffer.from(reference.toString("utf8"), "utf8").compare(reference) !== 0) return null;
  if (lines[candidate.line - 1] !== candidate.before) return null;
  lines[candidate.line - 1] = candidate.after;
  return Buffer.from(lines.join("\n"), "utf8");
}

/** The 1-based numbers of the lines that differ between two files (split on "\n"). */
export function differingLines(a: Buffer, b: Buffer): number[] {
  const x = a.toString("utf8").split("\n");
  const y = b.toString("utf8").split("\n");
  const found: number[] = [];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) found.push(i + 1);
  return found;
}

/** Every candidate the operators find in `reference`, in the operators' own (deterministic) order. */
export async function mutationCandidates(
  config: SandboxConfig,
  program: string,
  reference: Buffer,
): Promise<Result<MutationCandidate[], BenchErrorCode>> {
  script ??= readFileSync(new URL(`./${SCRIPT}`, import.meta.url));
  const outer = mkdtempSync(join(tmpdir(), `tca-mutate-${program}-`));
  try {
    const dir = join(outer, "task");
    writeTaskFiles(dir, [
      { path: SCRIPT, content: script },
      { path: "job.json", content: Buffer.from(JSON.stringify({ source: reference.toString("utf8") })) },
    ]);
    const run = await runInSandbox(config, {
      taskDir: dir,
      argv: ["python", "-B", "-s", SCRIPT, "job.json"],
      stdoutHeadBytes: CANDIDATES_MAX_BYTES,
    });
    const lines = run.stdoutTruncated ? [] : run.stdout.split("\n").filter((l) => l !== "");
    const parsed: unknown[] = [];
    for (const line of lines) {
      try {
        parsed.push(JSON.parse(line));
      } catch {
        return err("taskset_failed", `${program}: the mutation operators printed a line that is not JSON`);
      }
    }
    const last = parsed.at(-1);
    if (!isRecord(last) || last.done !== true)
      return err(
        "taskset_failed",
        `${program}: the mutation operators did not finish (exit ${String(run.exitCode)}${run.timedOut ? ", timed out" : ""})`,
      );
    const refused = parsed.find((p) => isRecord(p) && typeof p.error === "string");
    if (isRecord(refused)) return err("taskset_failed", `${program}: ${String(refused.error)}`);
    const candidates: MutationCandidate[] = [];
    for (const p of parsed.slice(0, -1)) {
      const c = parseCandidate(p);
      if (c === null) return err("taskset_failed", `${program}: the mutation operators printed a malformed candidate`);
      const mutant = applyCandidate(reference, c);
      // Defence in depth: a candidate that does not sit on its line, or touches another, is dropped.
      if (mutant === null || differingLines(reference, mutant).join() !== String(c.line)) continue;
      candidates.push(c);
    }
    return ok(candidates);
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
}
