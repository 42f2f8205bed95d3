// The grade: a verdict the program under test cannot forge. The file under test runs in a fresh
// sandbox with a read-only task folder holding only itself, the trusted runner and the inputs;
// the runner calls the function on each input and writes canonical return values; this Node
// process compares them with expected values that never entered that sandbox. The verdict
// needs every public case (the full count the data set defines, minus the cases its own tests
// skip, which are listed) and, where the program has a held-out generator, every held-out case.
// Nothing the program prints, no exit status, no pytest internals and no file it writes play any
// part; a run that ends without its completion marker is never a pass.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { supportFiles, targetPath, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import { runInSandbox, type SandboxConfig, type SandboxRunResult } from "../sandbox/sandbox.ts";
import { writeTaskFiles } from "../dataset/taskFolder.ts";
import type { GradeCounts, GradeOutcome, GradeRecord } from "./gradeRecord.ts";
import { parseRunnerOutput, shortValue, valueMatches, type RunnerOutput } from "./caseResults.ts";
import { publicCases, type CaseInput, type GradingCase } from "./publicCases.ts";
import { RESULT_CHANNEL_MAX_BYTES, TRUSTED_RUNNER_ARGV, trustedRunnerFiles } from "./runnerFiles.ts";

// v2 (issue #24): held-out expected values confirmed by an independent implementation, validity
// checks for answers that are not unique, whole-domain generators, Python's == across the numeric
// tower, pytest's imports and recursion headroom, the CPU limit held by a supervisor process.
export const GRADER_ID = "trusted-runner-v2";

export interface CaseSetGrade {
  readonly total: number;
  readonly passed: number;
  /** Returned a value that is not the expected one. */
  readonly failed: number;
  /** Raised an exception (or returned something too large to compare). */
  readonly errors: number;
  /** No result: never ran (timeout, crash, exit) or its line never came. */
  readonly missing: number;
  readonly fixed: boolean;
  /** The first few failures, e.g. `case 3: expected ["n","5"], got ["n","0"]`. */
  readonly failures: readonly string[];
}

/** A held-out input on which the reference fix and the independent implementation disagree. */
export interface HeldOutDisagreement {
  readonly input: CaseInput;
  /** Canonical answers of each (never used as an expected value). */
  readonly reference: string;
  readonly independent: string;
}

export interface HeldOutCases {
  readonly seed: number;
  readonly cases: readonly GradingCase[];
  /** Generated inputs on which the reference fix raised (left out, counted). */
  readonly dropped: number;
  /** Generated inputs on which the reference fix and the independent implementation disagree (left out). */
  readonly disagreements?: number;
  /** The first few of them. */
  readonly disagreeing?: readonly HeldOutDisagreement[];
}

export interface HeldOutGrade extends CaseSetGrade {
  readonly seed: number;
  readonly dropped: number;
}

export interface TrustedGrade {
  readonly grader: typeof GRADER_ID;
  /** passed only when every public and every held-out case passed. */
  readonly outcome: GradeOutcome;
  /** Public cases: passed, failed (+ missing), errors, skipped (= excluded by the tests). */
  readonly counts: GradeCounts;
  readonly seconds: number;
  readonly summary: string;
  /** Why the grade is not a pass (null when it is). */
  readonly reason: string | null;
  readonly public: CaseSetGrade;
  readonly heldOut: HeldOutGrade | null;
  readonly fixedPublic: boolean;
  /** null where the program has no held-out generator. */
  readonly fixedWithHeldOut: boolean | null;
  readonly excluded: readonly string[];
  readonly limitsHit: readonly string[];
  readonly exitCode: number | null;
  /** The run's stderr tail, Python prefix replaced (trace only). */
  readonly output: string;
}

export interface GradeOptions {
  readonly includeSlow?: boolean;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly heldOut?: HeldOutCases | null;
}

const FAILURES_KEPT = 5;

/** Runs `source` as python_programs/<p>.py on the inputs, in a fresh read-only sandbox. */
export async function runOnInputs(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  source: Buffer | string,
  inputs: readonly CaseInput[],
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<{ run: SandboxRunResult; output: RunnerOutput }> {
  const outer = mkdtempSync(join(tmpdir(), `tca-grade-${program.name}-`));
  try {
    const dir = join(outer, "task");
    const helpers = supportFiles(dataset, program).filter((f) => f.path.endsWith("/node.py"));
    const job = { mode: "run", program: program.name, cases: inputs, caseCpuSeconds: config.limits.caseCpuSeconds };
    writeTaskFiles(dir, [
      ...trustedRunnerFiles(false),
      ...helpers,
      { path: targetPath(program.name), content: Buffer.from(source) },
      { path: "job.json", content: Buffer.from(JSON.stringify(job)) },
    ]);
    const run = await runInSandbox(config, {
      taskDir: dir,
      argv: TRUSTED_RUNNER_ARGV,
      stdoutHeadBytes: RESULT_CHANNEL_MAX_BYTES,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { run, output: parseRunnerOutput(run.stdoutTruncated ? "" : run.stdout, inputs.length) };
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
}

function gradeCaseSet(
  cases: readonly GradingCase[],
  offset: number,
  output: RunnerOutput,
  prefix: string,
): CaseSetGrade {
  let passed = 0;
  let failed = 0;
  let errors = 0;
  let missing = 0;
  const failures: string[] = [];
  const note = (text: string): void => {
    if (failures.length < FAILURES_KEPT) failures.push(text);
  };
  cases.forEach((c, k) => {
    const r = output.results.get(offset + k);
    const name = `${prefix}${c.label}`;
    if (!r) {
      missing++;
      note(`${name}: no result`);
    } else if (r.status === "ok" && r.value !== undefined && valueMatches(r.value, c.expected, c.compare)) {
      passed++;
    } else if (r.status === "ok") {
      failed++;
      note(`${name}: expected ${shortValue(c.expected)}, got ${shortValue(r.value ?? "")}`);
    } else {
      errors++;
      note(
        `${name}: ${r.status === "too_large" ? "the returned value is too large to compare" : r.status === "timeout" ? "exceeded the per-case CPU time limit" : `raised ${r.error ?? "an exception"}`}`,
      );
    }
  });
  return {
    total: cases.length,
    passed,
    failed,
    errors,
    missing,
    fixed: cases.length > 0 && passed === cases.length,
    failures,
  };
}

function whyNot(
  run: SandboxRunResult,
  output: RunnerOutput,
  pub: CaseSetGrade,
  held: CaseSetGrade | null,
): string | null {
  if (run.aborted) return "the grading run was cancelled";
  if (run.stdoutTruncated) return "the result channel exceeded its size limit";
  if (output.importError) return `the file under test could not be imported (${output.importError})`;
  if (output.malformed) return `the result channel held ${output.malformed}`;
  if (run.timedOut) return "the run did not finish within the time limit";
  if (!output.finished)
    return `the run ended without completing (exit ${String(run.exitCode)}${run.signal ? `, ${run.signal}` : ""}${run.limitsHit.length ? `, ${run.limitsHit.join("+")} limit reached` : ""})`;
  if (!pub.fixed) return `public cases: ${pub.failures.join("; ")}`;
  if (held && !held.fixed) return `held-out cases: ${held.failures.join("; ")}`;
  return null;
}

function outcomeOf(run: SandboxRunResult, output: RunnerOutput, reason: string | null): GradeOutcome {
  if (reason === null) return "passed";
  if (run.aborted || run.timedOut || [...output.results.values()].some((r) => r.status === "timeout")) return "timeout";
  if (output.importError) return "error";
  // Ended without a single result and without saying why (os._exit at import, killed): the
  // file could not be run at all.
  if (!output.finished && output.results.size === 0 && !output.malformed) return "error";
  return "failed";
}

export async function gradeProgram(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  source: Buffer | string,
  options: GradeOptions = {},
): Promise<TrustedGrade> {
  const started = performance.now();
  const prepared = await publicCases(config, dataset, program, options.includeSlow ?? false);
  const emptySet: CaseSetGrade = { total: 0, passed: 0, failed: 0, errors: 0, missing: 0, fixed: false, failures: [] };
  if (!prepared.ok) {
    return {
      grader: GRADER_ID,
      outcome: "error",
      counts: { passed: 0, failed: 0, errors: 0, skipped: 0 },
      seconds: (performance.now() - started) / 1000,
      summary: "not graded",
      reason: prepared.message,
      public: emptySet,
      heldOut: null,
      fixedPublic: false,
      fixedWithHeldOut: null,
      excluded: [],
      limitsHit: [],
      exitCode: null,
      output: "",
    };
  }
  const pub = prepared.value.cases;
  const held = options.heldOut ?? null;
  const all = [...pub, ...(held?.cases ?? [])];
  const { run, output } = await runOnInputs(
    config,
    dataset,
    program,
    source,
    all.map((c) => c.input),
    {
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  const publicGrade = gradeCaseSet(pub, 0, output, "");
  const heldGrade = held
    ? { ...gradeCaseSet(held.cases, pub.length, output, "held-out "), seed: held.seed, dropped: held.dropped }
    : null;
  const reason = whyNot(run, output, publicGrade, heldGrade);
  const outcome = outcomeOf(run, output, reason);
  // The runner writes a result for every case it was given before its completion marker, so a
  // run that "finished" with held-out results missing did not run them: results written for the
  // public cases and a marker, then an exit (a forged channel), are never "every public case passes".
  const ranEveryCase = heldGrade === null || heldGrade.missing === 0;
  const fixedPublic =
    reason === null ||
    (publicGrade.fixed &&
      ranEveryCase &&
      output.finished &&
      !output.malformed &&
      !output.importError &&
      !run.timedOut &&
      !run.aborted);
  const heldText = heldGrade
    ? `; held-out ${heldGrade.passed}/${heldGrade.total} passed (seed ${heldGrade.seed})`
    : "; no held-out cases for this program";
  return {
    grader: GRADER_ID,
    outcome,
    counts: {
      passed: publicGrade.passed,
      failed: publicGrade.failed + publicGrade.missing,
      errors: publicGrade.errors,
      skipped: prepared.value.excluded.length,
    },
    seconds: (performance.now() - started) / 1000,
    summary: `public ${publicGrade.passed}/${publicGrade.total} passed${heldText}`,
    reason,
    public: publicGrade,
    heldOut: heldGrade,
    fixedPublic,
    fixedWithHeldOut: heldGrade ? reason === null : null,
    excluded: prepared.value.excluded,
    limitsHit: run.limitsHit,
    exitCode: run.exitCode,
    output: run.stderr.split(config.python.prefix).join("<python>"),
  };
}

/** The grade as a task result records it (the trace's `grade` event adds the run's stderr). */
export function gradeRecordOf(g: TrustedGrade): GradeRecord {
  return {
    outcome: g.outcome,
    counts: g.counts,
    seconds: Math.round(g.seconds * 1000) / 1000,
    summary: g.summary,
    grader: g.grader,
    reason: g.reason,
    fixedPublic: g.fixedPublic,
    fixedWithHeldOut: g.fixedWithHeldOut,
    heldOut: g.heldOut
      ? { seed: g.heldOut.seed, passed: g.heldOut.passed, total: g.heldOut.total, dropped: g.heldOut.dropped }
      : null,
    excluded: g.excluded,
  };
}
