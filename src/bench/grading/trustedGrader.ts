// The grade: a verdict the program under test cannot forge. The file under test runs in a fresh
// sandbox with a read-only task folder holding only itself, the trusted runner and the inputs;
// the runner calls the function on each input and writes canonical return values; this Node
// process compares them with expected values that never entered that sandbox. The verdict
// needs every public case (the full count the data set defines, minus the cases its own tests
// skip, which are listed) and, where the program has a held-out generator, every held-out case.
// Nothing the program prints, no exit status, no pytest internals and no file it writes play any
// part; a run that ends without its completion marker is never a pass. How the runs are made
// (sandbox, budgets, the two phases in one sandbox) is gradingRuns.ts; what they mean is here.
import type { QuixDataset, QuixProgram } from "../dataset/dataset.ts";
import { cpuAccounting, type SandboxConfig, type SandboxRunResult } from "../sandbox/sandbox.ts";
import type { GradeCounts, GradeOutcome, GradeRecord } from "./gradeRecord.ts";
import { shortValue, uncomparedClass, valueMatches, type RunnerOutput } from "./caseResults.ts";
import { gradingBudget, runBothPhases, runOnInputs, type RunUsage } from "./gradingRuns.ts";
import { publicCases, type CaseInput, type GradingCase } from "./publicCases.ts";
import { budgetText, type GradingBudget } from "./runBudget.ts";

// v2 (issue #24): held-out expected values confirmed by an independent implementation, validity
// checks for answers that are not unique, whole-domain generators, Python's == across the numeric
// tower, pytest's imports and recursion headroom, the CPU limit held by a supervisor process.
// v3 (issue #34): every limit on the run's cgroup CPU time (per case, per run) or idle time, held
// from outside the sandbox; public and held-out cases in separate runs with their own budgets.
// v4 (issue #34): the test file's module-level objects shared across its cases as pytest shares
// them; sqrt's pytest.approx replayed on the returned value's class and exact value; only
// built-in and known standard-library classes compared (a subclass is refused); held-out
// generators over the docstrings' whole domains; site-packages (numpy) not importable.
// Still v4 after issue #36, which changes how a grade is run, not what it decides: where the
// budgets are held from outside, the public and the held-out cases run in one sandbox, one
// phase after the other (runBothPhases), each phase what its run of its own was (a fresh
// worker, budgets from its own start, nothing of the public phase left in the sandbox), and
// wherever the one run would not be what the two were, the two runs are made. Why: a sandbox
// set-up and an interpreter start less per grade, about a third of its CPU. The same records
// and gradeDecisions for all 80 QuixBugs grades (buggy and fixed) as before.
export const GRADER_ID = "trusted-runner-v4";

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
  /**
   * Each case's status, one letter per case in order (CASE_STATUS): what a determinism check
   * compares beside the counts (issue #34: the same program, the same statuses at any load).
   */
  readonly statuses: string;
}

/** The letters of CaseSetGrade.statuses. */
export const CASE_STATUS = {
  passed: "P",
  /** Returned a value that is not the expected one (or of a class the grader refuses). */
  failed: "F",
  /** Raised, or returned a value too large to compare. */
  error: "E",
  /** Stopped by a budget (CPU per case, CPU per run, idle). */
  timeout: "T",
  /** No result line. */
  missing: "M",
} as const;

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
  /**
   * Budgets and CPU/idle use of the public and the held-out cases, and how many sandboxed runs
   * the grade made (not recorded in the grade record): 1 where both ran in one sandbox.
   */
  readonly usage: { readonly public: RunUsage | null; readonly heldOut: RunUsage | null; readonly runs: number };
}

export interface GradeOptions {
  readonly includeSlow?: boolean;
  /** The test timeout (--test-timeout): the run's CPU and idle budgets, in CPU-s and s. */
  readonly timeoutMs?: number;
  /**
   * A per-case CPU budget below the configured one: only where the question is "does this
   * program fail" (the data set check), never for grading a candidate.
   */
  readonly caseCpuSeconds?: number;
  readonly signal?: AbortSignal;
  readonly heldOut?: HeldOutCases | null;
}

const FAILURES_KEPT = 5;

/**
 * The code a failure line starts with when the returned value is of a class the grader does
 * not compare (docs/quixbugs-benchmark.md, "Forged equality"): refused, never compared through
 * the class's own __eq__, so never graded better than pytest would grade it.
 */
export const UNSUPPORTED_TYPE = "unsupported_type";

function gradeCaseSet(
  cases: readonly GradingCase[],
  offset: number,
  output: RunnerOutput,
  prefix: string,
  budget: GradingBudget,
): CaseSetGrade {
  let passed = 0;
  let failed = 0;
  let errors = 0;
  let missing = 0;
  let statuses = "";
  const failures: string[] = [];
  const note = (text: string): void => {
    if (failures.length < FAILURES_KEPT) failures.push(text);
  };
  cases.forEach((c, k) => {
    const r = output.results.get(offset + k);
    const name = `${prefix}${c.label}`;
    if (!r) {
      missing++;
      statuses += CASE_STATUS.missing;
      note(`${name}: no result`);
    } else if (r.status === "ok" && r.value !== undefined && valueMatches(r.value, c.expected, c.compare)) {
      passed++;
      statuses += CASE_STATUS.passed;
    } else if (r.status === "ok") {
      failed++;
      statuses += CASE_STATUS.failed;
      const refused = uncomparedClass(r.value ?? "");
      note(
        refused !== undefined
          ? `${name}: ${UNSUPPORTED_TYPE}: returned a value of class ${refused}, which the grader does not compare (only built-in and known standard-library classes are; a class's own == is never called)`
          : `${name}: expected ${shortValue(c.expected)}, got ${shortValue(r.value ?? "")}`,
      );
    } else {
      errors++;
      statuses += r.status === "timeout" ? CASE_STATUS.timeout : CASE_STATUS.error;
      note(
        `${name}: ${r.status === "too_large" ? "the returned value is too large to compare" : r.status === "timeout" ? budgetText(r.limit ?? "case_cpu", budget) : `raised ${r.error ?? "an exception"}`}`,
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
    statuses,
  };
}

/** What keeps a run's results from being read as they stand (null: read its cases). */
function runProblem(config: SandboxConfig, run: SandboxRunResult, output: RunnerOutput): string | null {
  if (run.aborted) return "the grading run was cancelled";
  if (run.stdoutTruncated) return "the result channel exceeded its size limit";
  if (output.importError) return `the file under test could not be imported (${output.importError})`;
  if (output.malformed) return `the result channel held ${output.malformed}`;
  if (run.timedOut)
    return cpuAccounting(config)
      ? `the grading run passed the ${String(config.limits.gradingWallGuardMs / 1000)} s wall-clock guard before any CPU or idle budget (a stuck grader or a machine too loaded to grade)`
      : "the run did not finish within the time limit";
  if (!output.finished)
    return `the run ended without completing (exit ${String(run.exitCode)}${run.signal ? `, ${run.signal}` : ""}${run.limitsHit.length ? `, ${run.limitsHit.join("+")} limit reached` : ""})`;
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
  const emptySet: CaseSetGrade = {
    total: 0,
    passed: 0,
    failed: 0,
    errors: 0,
    missing: 0,
    fixed: false,
    failures: [],
    statuses: "",
  };
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
      usage: { public: null, heldOut: null, runs: 0 },
    };
  }
  const pub = prepared.value.cases;
  const held = options.heldOut ?? null;
  const runOptions = {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.caseCpuSeconds !== undefined ? { caseCpuSeconds: options.caseCpuSeconds } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const budget = gradingBudget(config, runOptions);
  // The headline first, from the public cases alone, with a budget of their own; the held-out
  // cases afterwards with another: a hang, crash or exit there is a held-out result beside the
  // headline, never a change of it (issue #34). Where the budgets are held from outside, both
  // run in one sandbox, one phase after the other (runBothPhases, issue #36); wherever that
  // one run is not what the two runs would have been, the runs of their own are made, as before.
  const publicInputs = pub.map((c) => c.input);
  const heldInputs = held && held.cases.length > 0 ? held.cases.map((c) => c.input) : null;
  let runs = 0;
  const counted = <T>(run: Promise<T>): Promise<T> => {
    runs += 1;
    return run;
  };
  const both =
    heldInputs && cpuAccounting(config)
      ? await counted(runBothPhases(config, dataset, program, source, publicInputs, heldInputs, runOptions))
      : null;
  const p = both?.public ?? (await counted(runOnInputs(config, dataset, program, source, publicInputs, runOptions)));
  const publicGrade = gradeCaseSet(pub, 0, p.output, "", budget);
  const publicProblem = runProblem(config, p.run, p.output);
  const publicReason = publicProblem ?? (publicGrade.fixed ? null : `public cases: ${publicGrade.failures.join("; ")}`);
  const h =
    heldInputs && !p.run.aborted
      ? (both?.heldOut ?? (await counted(runOnInputs(config, dataset, program, source, heldInputs, runOptions))))
      : null;
  let heldGrade: HeldOutGrade | null = null;
  let heldReason: string | null = null;
  let heldOutcome: GradeOutcome = "passed";
  if (held) {
    const output = h?.output ?? { results: new Map(), importError: undefined, finished: false, malformed: undefined };
    heldGrade = { ...gradeCaseSet(held.cases, 0, output, "held-out ", budget), seed: held.seed, dropped: held.dropped };
    const problem = h
      ? runProblem(config, h.run, h.output)
      : held.cases.length > 0
        ? "the grading run was cancelled"
        : null;
    heldReason = problem ?? (heldGrade.fixed || held.cases.length === 0 ? null : heldGrade.failures.join("; "));
    if (heldReason !== null) {
      heldReason = `held-out cases: ${heldReason}`;
      // A held-out run is never a broken file (the public run imported it): at worst a failure.
      const o = h ? outcomeOf(h.run, h.output, heldReason) : "timeout";
      heldOutcome = o === "error" ? "failed" : o;
    }
  }
  const reason = publicReason ?? heldReason;
  const outcome = publicReason !== null ? outcomeOf(p.run, p.output, publicReason) : heldOutcome;
  const heldText = heldGrade
    ? `; held-out ${heldGrade.passed}/${heldGrade.total} passed (seed ${heldGrade.seed})`
    : "; no held-out cases for this program";
  const stderr = h ? `${p.run.stderr}${h.run.stderr ? `\n[held-out run]\n${h.run.stderr}` : ""}` : p.run.stderr;
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
    fixedPublic: publicReason === null,
    fixedWithHeldOut: heldGrade ? reason === null : null,
    excluded: prepared.value.excluded,
    limitsHit: [...new Set([...p.run.limitsHit, ...(h?.run.limitsHit ?? [])])],
    exitCode: p.run.exitCode,
    output: stderr.split(config.python.prefix).join("<python>"),
    usage: { public: p.usage, heldOut: h?.usage ?? null, runs },
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

/**
 * Everything a grade decides, without its time and its CPU/idle use: the outcome, the reason,
 * every count and every case's status, public and held-out. Issue #34 requires this to be the
 * same for the same program at any load; the determinism bench (npm run bench:determinism) and
 * the tests compare it with this one function.
 */
export function gradeDecisions(g: TrustedGrade): Record<string, unknown> {
  const set = (c: CaseSetGrade): Record<string, unknown> => ({
    total: c.total,
    passed: c.passed,
    failed: c.failed,
    errors: c.errors,
    missing: c.missing,
    fixed: c.fixed,
    statuses: c.statuses,
    failures: c.failures,
  });
  return {
    outcome: g.outcome,
    reason: g.reason,
    summary: g.summary,
    counts: g.counts,
    fixedPublic: g.fixedPublic,
    fixedWithHeldOut: g.fixedWithHeldOut,
    excluded: g.excluded,
    limitsHit: g.limitsHit,
    public: set(g.public),
    heldOut: g.heldOut ? { ...set(g.heldOut), seed: g.heldOut.seed, dropped: g.heldOut.dropped } : null,
  };
}

/** The failure check's per-case budget: this multiple of the reference fix's slowest case... */
export const FAILURE_CHECK_CPU_MULTIPLE = 10;
/** ...and never under this many CPU-seconds (a Python case's own noise is milliseconds). */
export const FAILURE_CHECK_CPU_FLOOR_S = 1;

/**
 * Where the only question is "does this program fail" (the data set check's buggy side,
 * make-taskset's mutants), a case may stop long before the grading budget: at
 * FAILURE_CHECK_CPU_MULTIPLE times the CPU time of the reference fix's slowest case (public or
 * held-out, from its own passing grade), at least FAILURE_CHECK_CPU_FLOOR_S, at most the grading
 * budget. A stop there is a failure either way (a loop, or a program ten times slower than the
 * reference on a case of the tests). Undefined, so the full budget, where the reference did not
 * pass or no CPU count was kept: never for grading a candidate.
 */
export function failureCheckCaseCpuSeconds(reference: TrustedGrade): number | undefined {
  if (reference.outcome !== "passed" || !reference.usage.public) return undefined;
  const cases = [...reference.usage.public.caseCpuSeconds, ...(reference.usage.heldOut?.caseCpuSeconds ?? [])];
  if (cases.length === 0 || reference.usage.public.cpuSeconds === null) return undefined;
  const budget = Math.max(FAILURE_CHECK_CPU_FLOOR_S, FAILURE_CHECK_CPU_MULTIPLE * Math.max(...cases));
  return Math.min(budget, reference.usage.public.budget.caseCpuSeconds);
}
