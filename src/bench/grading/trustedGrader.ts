// The grade: a verdict the program under test cannot forge. The file under test runs in a fresh
// sandbox with a read-only task folder holding only itself, the trusted runner and the inputs;
// the runner calls the function on each input and writes canonical return values; this Node
// process compares them with expected values that never entered that sandbox. The verdict
// needs every public case (the full count the data set defines, minus the cases its own tests
// skip, which are listed) and, where the program has a held-out generator, every held-out case.
// Nothing the program prints, no exit status, no pytest internals and no file it writes play any
// part; a run that ends without its completion marker is never a pass.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { supportFiles, targetPath, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import { cpuAccounting, runInSandbox, type SandboxConfig, type SandboxRunResult } from "../sandbox/sandbox.ts";
import { writeTaskFiles } from "../dataset/taskFolder.ts";
import type { GradeCounts, GradeOutcome, GradeRecord } from "./gradeRecord.ts";
import { parseRunnerOutput, shortValue, uncomparedClass, valueMatches, type RunnerOutput } from "./caseResults.ts";
import { publicCases, type CaseInput, type GradingCase } from "./publicCases.ts";
import { RESULT_CHANNEL_MAX_BYTES, trustedRunnerStart } from "./runnerFiles.ts";
import { BudgetWatch, budgetText, phaseLines, type BudgetStop, type GradingBudget } from "./runBudget.ts";

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

/** How a run is bounded, and what it used (CPU and idle seconds are null without a cgroup CPU count). */
export interface RunUsage {
  readonly budget: GradingBudget;
  readonly cpuSeconds: number | null;
  readonly idleSeconds: number | null;
  /** CPU-seconds of each case whose result arrived (empty without a cgroup CPU count). */
  readonly caseCpuSeconds: readonly number[];
  readonly stop: BudgetStop | null;
}

const FAILURES_KEPT = 5;

/**
 * The code a failure line starts with when the returned value is of a class the grader does
 * not compare (docs/quixbugs-benchmark.md, "Forged equality"): refused, never compared through
 * the class's own __eq__, so never graded better than pytest would grade it.
 */
export const UNSUPPORTED_TYPE = "unsupported_type";

/** The budgets of a run from the sandbox's limits and a grade's options. */
export function gradingBudget(
  config: SandboxConfig,
  options: { timeoutMs?: number; caseCpuSeconds?: number } = {},
): GradingBudget {
  const testSeconds = (options.timeoutMs ?? config.limits.timeoutMs) / 1000;
  return {
    caseCpuSeconds: Math.min(config.limits.caseCpuSeconds, options.caseCpuSeconds ?? Infinity),
    runCpuSeconds: testSeconds,
    idleSeconds: testSeconds,
  };
}

/** What a run (or one phase of it) gave: the sandbox's result, its lines as read, its budgets and use. */
interface InputsRun {
  readonly run: SandboxRunResult;
  readonly output: RunnerOutput;
  readonly usage: RunUsage;
}

type RunOptions = { timeoutMs?: number; caseCpuSeconds?: number; signal?: AbortSignal };

/** The sandboxed run of the trusted runner on `job`, in a fresh task folder. */
async function sandboxedRun(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  source: Buffer | string,
  job: Record<string, unknown>,
  budget: GradingBudget,
  watch: BudgetWatch | undefined,
  options: RunOptions,
): Promise<SandboxRunResult> {
  const outer = mkdtempSync(join(tmpdir(), `tca-grade-${program.name}-`));
  try {
    const dir = join(outer, "task");
    const helpers = supportFiles(dataset, program).filter((f) => f.path.endsWith("/node.py"));
    const runner = trustedRunnerStart(config.python, false);
    writeTaskFiles(dir, [
      ...runner.files,
      ...helpers,
      { path: targetPath(program.name), content: Buffer.from(source) },
      { path: "job.json", content: Buffer.from(JSON.stringify(job)) },
    ]);
    return await runInSandbox(config, {
      taskDir: dir,
      argv: runner.argv,
      stdoutHeadBytes: RESULT_CHANNEL_MAX_BYTES,
      timeoutMs: watch ? config.limits.gradingWallGuardMs : budget.runCpuSeconds * 1000,
      ...(watch ? { watch } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
}

/** The job of a run mode on these inputs; caseCpuSeconds 0 where the budgets are held from outside. */
function runJob(program: QuixProgram, inputs: readonly CaseInput[], budget: GradingBudget, metered: boolean) {
  // caseCpuSeconds 0: the supervisor does not poll /proc (the budgets are held from outside).
  return { mode: "run", program: program.name, cases: inputs, caseCpuSeconds: metered ? 0 : budget.caseCpuSeconds };
}

/** A run's (or a phase's) lines read, a budget stop counted as the timeout of the case it was on. */
function readRun(run: SandboxRunResult, count: number, usage: RunUsage): InputsRun {
  const parsed = parseRunnerOutput(run.stdoutTruncated ? "" : run.stdout, count);
  const stop = usage.stop;
  // A run stopped by a budget: the case it was on is a timeout, and the run counts as ended
  // (what the supervisor wrote itself at its own limit before; it still does without a cgroup).
  const output =
    stop && stop.caseIndex < count && !parsed.results.has(stop.caseIndex) && !parsed.malformed
      ? {
          ...parsed,
          results: new Map([...parsed.results, [stop.caseIndex, { status: "timeout" as const, limit: stop.limit }]]),
          finished: true,
        }
      : parsed;
  return { run, output, usage };
}

/**
 * Runs `source` as python_programs/<p>.py on the inputs, in a fresh read-only sandbox. Where the
 * sandbox keeps the run's CPU time (its cgroup), the budgets are held from here, on that count
 * (runBudget.ts), and the wall clock is only the stuck-grader guard; the supervisor inside then
 * only forwards results. Without it (rlimit-only), the supervisor holds the per-case CPU limit
 * from /proc and the run has the test timeout on the wall clock, as before issue #34.
 */
export async function runOnInputs(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  source: Buffer | string,
  inputs: readonly CaseInput[],
  options: RunOptions = {},
): Promise<InputsRun> {
  const budget = gradingBudget(config, options);
  const metered = cpuAccounting(config);
  const watch = metered ? new BudgetWatch(budget) : undefined;
  const job = runJob(program, inputs, budget, metered);
  const run = await sandboxedRun(config, dataset, program, source, job, budget, watch, options);
  return readRun(run, inputs.length, {
    budget,
    cpuSeconds: run.cpuSeconds,
    idleSeconds: watch ? watch.idleSeconds : null,
    caseCpuSeconds: watch ? watch.caseCpuSeconds : [],
    stop: run.stoppedBy !== null ? (watch?.stop ?? null) : null,
  });
}

/** Hex digits of the key that marks a run's phase lines (trusted_runner.PHASE_KEY_BYTES). */
const PHASE_KEY_HEX = 32;

/**
 * The public and the held-out cases in one sandbox, in two phases (issue #36: one sandbox set-up
 * and interpreter start per grade instead of two), each phase as a run of its own would be: a
 * fresh worker that imports the candidate anew, its own budgets from its own start
 * (BudgetWatch), and a sandbox in which nothing of the public phase is left (trusted_runner,
 * phase_boundary_clean). The runner's supervisor gets to the held-out phase only by the normal
 * path; the held-out inputs reach the sandbox only then, on its stdin. Returned: the public
 * phase as the public run of its own would have ended, and the held-out phase where it ran
 * normally to its end, else null, and the held-out cases then get a run of their own, as
 * before; or null as a whole where a run that got past its public phase reached a memory or
 * process cap (in which phase is not known): then both runs are made again, as before.
 */
async function runBothPhases(
  config: SandboxConfig,
  dataset: QuixDataset,
  program: QuixProgram,
  source: Buffer | string,
  publicInputs: readonly CaseInput[],
  heldInputs: readonly CaseInput[],
  options: RunOptions,
): Promise<{ readonly public: InputsRun; readonly heldOut: InputsRun | null } | null> {
  const budget = gradingBudget(config, options);
  const key = randomBytes(PHASE_KEY_HEX / 2).toString("hex");
  const watch = new BudgetWatch(budget, { key, input: Buffer.from(JSON.stringify({ cases: heldInputs })) });
  // Where a cancellation comes: in the held-out phase, the public one had ended as before.
  let abortedInHeldOut = false;
  const onAbort = (): void => {
    abortedInHeldOut = watch.heldOutStart !== undefined;
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  let run: SandboxRunResult;
  try {
    const job = { ...runJob(program, publicInputs, budget, true), phases: 2 };
    run = await sandboxedRun(config, dataset, program, source, job, budget, watch, options);
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  const lines = phaseLines(key);
  const ready = `\n${lines.ready}\n`;
  const at = run.stdout.indexOf(ready);
  const stop = run.stoppedBy !== null ? (watch.stop ?? null) : null;
  const publicUsage = (cpuSeconds: number | null, ended: boolean): RunUsage => ({
    budget,
    cpuSeconds,
    idleSeconds: watch.idleSeconds,
    caseCpuSeconds: watch.caseCpuSeconds,
    stop: ended && watch.stopPhase === 0 ? stop : null,
  });
  if (at < 0) {
    // No ready line: the supervisor ended after the public phase as a public run did, or the run
    // was stopped in it; the run is that public run. (Seen but cut off by the channel's size
    // limit: where the public phase ended is unknown, so both runs are made again.)
    if (watch.readySeen) return null;
    return { public: readRun(run, publicInputs.length, publicUsage(run.cpuSeconds, true)), heldOut: null };
  }
  if (run.limitsHit.length > 0) return null;
  const started = watch.heldOutStart;
  // The run ended in its public phase when a budget stopped it there or it was cancelled there
  // (its lines up to the ready line are then still all it wrote in that phase); else that phase
  // ended as a public run of its own did: exit 0, no stop, nothing cut.
  const endedInPublic = (stop !== null && watch.stopPhase === 0) || (run.aborted && !abortedInHeldOut);
  const errAt = run.stderr.indexOf(ready);
  const publicRun: SandboxRunResult = {
    ...run,
    exitCode: endedInPublic ? run.exitCode : 0,
    signal: endedInPublic ? run.signal : null,
    timedOut: false,
    aborted: endedInPublic && run.aborted,
    stdout: run.stdout.slice(0, at),
    stderr: errAt >= 0 ? run.stderr.slice(0, errAt) : run.stderr,
    elapsedMs: started?.wallMs ?? run.elapsedMs,
    stdoutTruncated: false,
    limitsHit: [],
    cpuSeconds: started ? started.cpuMicros / 1e6 : run.cpuSeconds,
    stoppedBy: endedInPublic ? run.stoppedBy : null,
  };
  const pub = readRun(publicRun, publicInputs.length, publicUsage(publicRun.cpuSeconds, endedInPublic));
  const rest = run.stdout.slice(at + ready.length);
  const startLine = `${lines.start}\n`;
  // The held-out phase as it ran, where it ran to its end in this run: started by the
  // supervisor's start line right after the ready line, and not cut by the wall-clock guard or
  // the channel's size limit (which a run of its own has to itself).
  if (endedInPublic || !started || run.timedOut || run.stdoutTruncated || !rest.startsWith(startLine))
    return { public: pub, heldOut: null };
  const heldRun: SandboxRunResult = {
    ...run,
    stdout: rest.slice(startLine.length),
    stderr: errAt >= 0 ? run.stderr.slice(errAt + ready.length) : "",
    elapsedMs: run.elapsedMs - started.wallMs,
    cpuSeconds: run.cpuSeconds === null ? null : run.cpuSeconds - started.cpuMicros / 1e6,
    stoppedBy: watch.stopPhase === 1 ? run.stoppedBy : null,
  };
  const held = readRun(heldRun, heldInputs.length, {
    budget,
    cpuSeconds: heldRun.cpuSeconds,
    idleSeconds: watch.heldOutIdleSeconds,
    caseCpuSeconds: watch.heldOutCaseCpuSeconds,
    stop: watch.stopPhase === 1 ? stop : null,
  });
  return { public: pub, heldOut: held };
}

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
