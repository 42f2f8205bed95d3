// verify-run: every task of a finished run re-graded from its artifacts. The graded file is
// rebuilt from the pristine buggy program (from a data set whose files match what the run's
// traces recorded, src/bench/dataset/programDigest.ts) and the task's recorded diff; its sha256
// must be the recorded finalSha256; it is graded by the trusted grader in a fresh sandbox (public
// cases, and held-out cases from the recorded seed); and the recomputed grade, outcome, change,
// false-fixed flag and special-casing report are compared with the record field by field.
// Nothing the run recorded about the grade is believed: any difference names the task. Every
// run_tests the agent made is re-run too, on the version the bench replay rebuilt for it.
import { mapWithConcurrency } from "../core/concurrency.ts";
import { canonicalJson } from "../core/canonicalJson.ts";
import { sha256Hex } from "../core/digest.ts";
import type { Result } from "../core/result.ts";
import type { BenchErrorCode } from "./errorCodes.ts";
import { buggySource, referenceFixSource, supportFiles, type QuixDataset } from "./dataset/dataset.ts";
import { measureFixSize } from "./results/fixSize.ts";
import { programDigest } from "./dataset/programDigest.ts";
import { heldOutCases } from "./grading/heldOutCases.ts";
import { gradeProgram, gradeRecordOf } from "./grading/trustedGrader.ts";
import type { SandboxConfig } from "./sandbox/sandbox.ts";
import { checkSpecialCasing } from "./results/specialCasing.ts";
import { classifyTask, type TaskResult } from "./results/taskOutcome.ts";
import { applyUnifiedDiff, sameModuloTrailingWhitespace } from "./results/unifiedDiff.ts";
import { replaceRunRecord, resultKey, RUN_FILES } from "./runs/runDirectory.ts";
import type { DataOf } from "../recording/evidenceEnvelope.ts";
import type { AgentTraceCatalog } from "./agent/traceEvents.ts";
import type { BenchTraceRecord } from "./runs/benchTrace.ts";
import { runProgramTests } from "./agent/testRunner.ts";

/** One recorded run_tests, on the version of the file the bench replay rebuilt for it. */
export interface RecordedTestRun {
  readonly id: string;
  readonly target: string;
  readonly outcome: string;
  readonly counts: unknown;
  readonly timeoutMs: number;
}

/** One task as the run recorded it: its record, its trace's task_start, its diff file's text. */
export interface RegradeInput {
  readonly task: TaskResult;
  /** The data of the trace's task_start record (undefined when the trace does not start with one). */
  readonly taskStart: DataOf<AgentTraceCatalog, "task_start"> | undefined;
  readonly diff: string | undefined;
  /** The agent's test runs, re-run in a fresh sandbox: the model's feedback, which D's decisions rest on. */
  readonly testRuns?: readonly RecordedTestRun[];
}

/** A trace's task_start data, when its first record is one (what the trace recorded of the data set). */
export function taskStartOf(
  records: readonly BenchTraceRecord[] | undefined,
): DataOf<AgentTraceCatalog, "task_start"> | undefined {
  const first = records?.[0];
  return first?.type === "task_start" ? first.data : undefined;
}

export interface RegradeOptions {
  readonly dataset: QuixDataset;
  readonly sandbox: SandboxConfig;
  readonly jobs: number;
  /** From the run's fingerprint: what its grading used. */
  readonly includeSlow: boolean;
  readonly testTimeoutMs: number;
  readonly onTask?: (entry: RegradeEntry, done: number, total: number) => void;
}

export interface RegradeEntry {
  readonly key: string;
  readonly identical: boolean;
  /** What differs, e.g. `grade.outcome: recorded passed, re-graded failed`. */
  readonly differences: readonly string[];
  readonly seconds: number;
}

export interface RegradeReport {
  readonly entries: readonly RegradeEntry[];
  readonly identical: number;
  readonly seconds: number;
  /** Sum of the grading seconds the run itself recorded (the figure verify-run is measured against). */
  readonly recordedGradingSeconds: number;
}

function compare(differences: string[], field: string, recorded: unknown, recomputed: unknown): void {
  if (canonicalJson(recorded) !== canonicalJson(recomputed))
    differences.push(`${field}: recorded ${canonicalJson(recorded)}, re-graded ${canonicalJson(recomputed)}`);
}

/** The file the task left, rebuilt from the pristine program and its diff, or why it cannot be. */
function rebuildFinal(original: string, input: RegradeInput): { final: string } | { problem: string } {
  const { task } = input;
  if (task.changed && input.diff === undefined) return { problem: "it changed the file but no diff was recorded" };
  const patched = applyUnifiedDiff(original, task.changed ? (input.diff ?? "") : "");
  if (patched === null) return { problem: "its diff does not apply to the pristine program" };
  // A diff records the final file exactly (its end-of-file newline included). An unchanged file has
  // no diff and may differ from the pristine one in trailing whitespace only ("no change" is decided
  // modulo it): the recorded digest picks one of those candidates or none.
  const candidates = task.changed ? [patched] : [original, original.trimEnd(), `${original.trimEnd()}\n`];
  const final = candidates.find((candidate) => sha256Hex(candidate) === task.finalSha256);
  return final === undefined
    ? {
        problem: `the pristine program ${task.changed ? "with its diff" : "(unchanged)"} does not have the recorded finalSha256`,
      }
    : { final };
}

async function regradeOne(input: RegradeInput, options: RegradeOptions): Promise<RegradeEntry> {
  const started = performance.now();
  const { task } = input;
  const key = resultKey(task);
  const differences: string[] = [];
  const done = (): RegradeEntry => ({
    key,
    identical: differences.length === 0,
    differences,
    seconds: (performance.now() - started) / 1000,
  });
  const program = options.dataset.programs.find((p) => p.name === task.program);
  if (program === undefined) {
    differences.push(`the data set has no program ${task.program}`);
    return done();
  }
  const original = buggySource(options.dataset, program.name).toString("utf8");
  // The data set must be the one the run was graded on: the trace recorded its digest.
  if (input.taskStart?.originalSha256 !== sha256Hex(original))
    differences.push("the pristine program differs from the one the trace recorded (originalSha256)");
  if (input.taskStart?.programSha256 !== programDigest(options.dataset, program))
    differences.push("the data set's files for this program differ from the ones the trace recorded (programSha256)");
  if (differences.length > 0) return done();
  const rebuilt = rebuildFinal(original, input);
  if ("problem" in rebuilt) {
    differences.push(rebuilt.problem);
    return done();
  }
  const { final } = rebuilt;
  const seed = task.grade.heldOut?.seed ?? 1;
  const heldOut = await heldOutCases(options.sandbox, options.dataset, program, seed);
  const grade = gradeRecordOf(
    await gradeProgram(options.sandbox, options.dataset, program, final, {
      includeSlow: options.includeSlow,
      timeoutMs: options.testTimeoutMs,
      heldOut,
    }),
  );
  // Field by field over every field either side has, so that any meaning of the headline (public
  // only, held-out columns) and any field added later is covered. Not compared: the time it took,
  // and `reason`, whose wording for a timeout or a killed run names exit details that may vary.
  const recordedGrade = { ...task.grade } as Readonly<Record<string, unknown>>;
  const regraded = { ...grade } as Readonly<Record<string, unknown>>;
  for (const field of new Set([...Object.keys(recordedGrade), ...Object.keys(regraded)])) {
    if (field !== "seconds" && field !== "reason")
      compare(differences, `grade.${field}`, recordedGrade[field], regraded[field]);
  }
  const changed = !sameModuloTrailingWhitespace(original, final);
  compare(differences, "changed", task.changed, changed);
  // By the rule the record was written under (fixedMeans: the document's public-case "fixed";
  // absent in older runs, whose "fixed" also needed the held-out cases).
  const recomputed = classifyTask(grade, task.stopReason, changed, task.claimedFixed, task.fixedMeans);
  const outcome = recomputed.outcome;
  compare(differences, "outcome", task.outcome, outcome);
  compare(differences, "falseFixed", task.falseFixed, recomputed.falseFixed);
  if (task.falseFixedHeldOut !== undefined)
    compare(differences, "falseFixedHeldOut", task.falseFixedHeldOut, recomputed.falseFixedHeldOut);
  const testTexts = supportFiles(options.dataset, program)
    .filter((f) => f.path !== "conftest.py")
    .map((f) => f.content.toString("utf8"));
  compare(
    differences,
    "specialCasing",
    task.specialCasing,
    outcome === "fixed" && changed ? checkSpecialCasing(original, final, testTexts) : null,
  );
  // The fix's size, from the pristine program, the recorded diff and the reference fix (older records: none).
  if (task.fixSize !== undefined)
    compare(
      differences,
      "fixSize",
      task.fixSize,
      changed
        ? measureFixSize(original, final, referenceFixSource(options.dataset, program.name).toString("utf8"))
        : null,
    );
  // Each run_tests again, on its replayed version: same outcome and counts as the model was shown.
  for (const run of input.testRuns ?? []) {
    const rerun = await runProgramTests(options.sandbox, options.dataset, program, run.target, {
      includeSlow: options.includeSlow,
      timeoutMs: run.timeoutMs,
    });
    compare(differences, `test_run ${run.id}.outcome`, run.outcome, rerun.outcome);
    if (run.outcome !== "timeout") compare(differences, `test_run ${run.id}.counts`, run.counts, rerun.counts);
  }
  return done();
}

export async function regradeRun(inputs: readonly RegradeInput[], options: RegradeOptions): Promise<RegradeReport> {
  const started = performance.now();
  let finished = 0;
  const entries = await mapWithConcurrency(inputs, options.jobs, async (input) => {
    const entry = await regradeOne(input, options);
    finished += 1;
    options.onTask?.(entry, finished, inputs.length);
    return entry;
  });
  return {
    entries,
    identical: entries.filter((entry) => entry.identical).length,
    seconds: (performance.now() - started) / 1000,
    recordedGradingSeconds: inputs.reduce(
      (sum, input) => sum + (Number.isFinite(input.task.grade.seconds) ? input.task.grade.seconds : 0),
      0,
    ),
  };
}

/**
 * Writes verify-run's record beside the run, tied to the exact tasks.ndjson it re-graded (by its
 * sha256): verification.json is the LAST verification, replacing any earlier one whatever it said
 * (a failing or hand-written record never blocks a new verify-run). The record it replaces is
 * appended first to verifications.ndjson (one line each, oldest first: the history). Both are
 * written without following a link: the record to a temporary name and renamed (a
 * `verification.json` symlink is replaced, never written through), the history with O_NOFOLLOW.
 */
export function writeVerification(
  runDirectory: string,
  tasksSha256: string,
  report: RegradeReport,
  facts: Readonly<Record<string, unknown>>,
): Result<string, BenchErrorCode> {
  const verifiedAt = new Date().toISOString();
  const record = {
    schema: 1,
    kind: "quixbugs-verification",
    verifiedAt,
    tasksSha256,
    ...facts,
    identical: report.identical,
    total: report.entries.length,
    seconds: Math.round(report.seconds * 100) / 100,
    recordedGradingSeconds: Math.round(report.recordedGradingSeconds * 100) / 100,
    tasks: report.entries.map((entry) => ({
      key: entry.key,
      identical: entry.identical,
      differences: entry.differences,
    })),
  };
  return replaceRunRecord(runDirectory, RUN_FILES.verification, RUN_FILES.verificationHistory, record, verifiedAt);
}
