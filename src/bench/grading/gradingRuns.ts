// How a grade's cases are run (issue #36 split it from trustedGrader.ts, which decides what the
// results mean): the trusted runner in a fresh sandbox and task folder on the inputs alone, its
// budgets held from outside on the run's cgroup CPU count (runBudget.ts), and the public and
// held-out cases in one sandbox, two phases, where that is what two runs of their own would be.
// Nothing here compares a value with an expected one: the runs never see the expected values.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { supportFiles, targetPath, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import { writeTaskFiles } from "../dataset/taskFolder.ts";
import { cpuAccounting, runInSandbox, type SandboxConfig, type SandboxRunResult } from "../sandbox/sandbox.ts";
import { parseRunnerOutput, type RunnerOutput } from "./caseResults.ts";
import type { CaseInput } from "./publicCases.ts";
import { RESULT_CHANNEL_MAX_BYTES, trustedRunnerStart } from "./runnerFiles.ts";
import { BudgetWatch, phaseLines, type BudgetStop, type GradingBudget } from "./runBudget.ts";

/** How a run is bounded, and what it used (CPU and idle seconds are null without a cgroup CPU count). */
export interface RunUsage {
  readonly budget: GradingBudget;
  readonly cpuSeconds: number | null;
  readonly idleSeconds: number | null;
  /** CPU-seconds of each case whose result arrived (empty without a cgroup CPU count). */
  readonly caseCpuSeconds: readonly number[];
  readonly stop: BudgetStop | null;
}

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
export interface InputsRun {
  readonly run: SandboxRunResult;
  readonly output: RunnerOutput;
  readonly usage: RunUsage;
}

export type RunOptions = { timeoutMs?: number; caseCpuSeconds?: number; signal?: AbortSignal };

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
export async function runBothPhases(
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
