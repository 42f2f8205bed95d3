// The budgets of one grading run, measured on the candidate's own CPU time (issue #34): the
// kernel's count for the run's cgroup (every process of the run, exited, reaped and auto-reaped
// ones included), read from this Node process, which nothing in the sandbox can stop. The wall
// clock decides no grade: it only guards against a stuck grader and sits far above the CPU
// budgets. A program that waits instead of computing (a sleep, a blocked pipe, a stopped
// supervisor) is bounded by a separate idle budget, counted in whole seconds of the wall clock
// during which the run used (almost) no CPU; waiting takes the same time at any load.
import type { RunWatch } from "../sandbox/sandbox.ts";

/** Which budget stopped a run. */
export type BudgetLimit = "case_cpu" | "run_cpu" | "idle";

export interface GradingBudget {
  /** CPU-seconds one case may use (the project's choice: 15, far above any reference case). */
  readonly caseCpuSeconds: number;
  /** CPU-seconds the whole run may use (the document's 60 s test timeout, counted in CPU time). */
  readonly runCpuSeconds: number;
  /** Seconds of the wall clock the run may spend idle (the same 60 s, for a program that waits). */
  readonly idleSeconds: number;
}

export interface BudgetStop {
  readonly limit: BudgetLimit;
  /** The first case without a result when the run was stopped (the case it was on). */
  readonly caseIndex: number;
}

/**
 * An idle window: at least this much wall time in which the run used under IDLE_SHARE of one
 * core. Long windows, so that a runnable program on a loaded machine (which gets a time slice
 * every few tens of milliseconds, even at a load of 40 on 2 cores about 5% of a core) is never
 * counted idle, while a sleeping one (well under 0.1%) always is.
 */
export const IDLE_WINDOW_MS = 1000;
export const IDLE_SHARE = 0.01;

const HEAD = /^\{"i":([0-9]{1,9}),/;
const HEAD_BYTES = 24;

/**
 * The second phase of a run that grades the public and then the held-out cases in one sandbox
 * (issue #36). The supervisor reads `key` first on its stdin, before anything of the candidate's
 * runs, and keeps it where the candidate cannot read it; it writes the ready line (the first
 * phase ended normally: its completion marker came, every process it started is gone, the
 * sandbox's writable state is as it was at the start) and, once it has read the held-out job
 * (`input`, written to its stdin only then), the start line, after which the held-out phase
 * runs. Both lines carry the key, so no process of the candidate can write either: a line it
 * writes is one of its results, as before.
 */
export interface SecondPhase {
  readonly key: string;
  readonly input: Buffer;
}

/** The supervisor's two lines around the phase boundary (trusted_runner.phase_line). */
export function phaseLines(key: string): { readonly ready: string; readonly start: string } {
  return { ready: JSON.stringify({ phase: "ready", key }), start: JSON.stringify({ phase: "held_out", key }) };
}

/**
 * Follows the run's result lines (only each line's head: which case it closes) and charges the
 * CPU used since the previous case's result to the current case. A forged head only moves this
 * clock, as a forged result would; the run's total is held by runCpuSeconds anyway.
 *
 * With a second phase, the held-out phase's start line restarts every count, as a run of its
 * own would start them: the case clock, the run's CPU budget (from the CPU used by then), the
 * idle count and its window, and the case numbering (its results count from 0 again). What
 * differs from a run of its own is only what it no longer has to pay: the sandbox's set-up and
 * the interpreter's start (about 20 ms of CPU, against budgets of seconds).
 */
export class BudgetWatch implements RunWatch {
  private next = 0;
  private caseStart = 0;
  private runStart = 0;
  private head = "";
  private lineBytes = 0;
  private windowStartWall = 0;
  private windowStartCpu = 0;
  private idleMs = 0;
  private firstIdleMs = 0;
  private lastWall = 0;
  private phase: 0 | 1 = 0;
  private lines: { readonly ready: string; readonly start: string } | undefined;
  private readonly headBytes: number;
  private ready = false;
  private afterReady = false;
  private sent = false;
  stop: BudgetStop | undefined;
  /** The phase the stop came in: 0, the first (or only) one; 1, the held-out phase. */
  stopPhase: 0 | 1 | undefined;
  /** CPU-seconds of each case that finished (its result arrived), in order (the first phase's). */
  readonly caseCpuSeconds: number[] = [];
  /** The same for the held-out phase. */
  readonly heldOutCaseCpuSeconds: number[] = [];
  private cases = this.caseCpuSeconds;
  /** The run's CPU (µs) and wall time (ms) when the held-out phase started (undefined: it never did). */
  heldOutStart: { readonly cpuMicros: number; readonly wallMs: number } | undefined;
  readonly stdin: { readonly first: Buffer; next(): Buffer | undefined } | undefined;

  constructor(
    private readonly budget: GradingBudget,
    private readonly second?: SecondPhase,
  ) {
    this.lines = second ? phaseLines(second.key) : undefined;
    this.headBytes = this.lines
      ? Math.max(HEAD_BYTES, this.lines.start.length + 1, this.lines.ready.length + 1)
      : HEAD_BYTES;
    this.stdin = second ? { first: Buffer.from(second.key, "latin1"), next: () => this.input() } : undefined;
  }

  onStdout(chunk: Buffer, cpuMicros: number, wallMs: number = this.lastWall): void {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      const piece = chunk.subarray(from, nl === -1 ? chunk.length : nl);
      this.lineBytes += piece.length;
      if (this.head.length < this.headBytes)
        this.head += piece.subarray(0, this.headBytes - this.head.length).toString("latin1");
      if (nl === -1) return;
      this.line(cpuMicros, wallMs);
      this.head = "";
      this.lineBytes = 0;
      from = nl + 1;
    }
  }

  private line(cpuMicros: number, wallMs: number): void {
    if (this.lines && this.phase === 0) {
      const whole = this.lineBytes === this.head.length ? this.head : undefined;
      if (this.afterReady) {
        // Only the line right after the ready line starts the held-out phase (nothing else can
        // write between them); anything else, and this run has no second phase.
        this.afterReady = false;
        if (whole === this.lines.start && this.stop === undefined) this.startHeldOut(cpuMicros, wallMs);
        else this.lines = undefined;
        return;
      }
      if (!this.ready && whole === this.lines.ready) {
        this.ready = true;
        this.afterReady = true;
        return;
      }
    }
    const m = HEAD.exec(this.head);
    if (m && Number(m[1]) === this.next) {
      this.cases.push((cpuMicros - this.caseStart) / 1e6);
      this.next += 1;
      this.caseStart = cpuMicros;
    }
  }

  private startHeldOut(cpuMicros: number, wallMs: number): void {
    this.phase = 1;
    this.heldOutStart = { cpuMicros, wallMs };
    this.firstIdleMs = this.idleMs;
    this.idleMs = 0;
    this.next = 0;
    this.caseStart = cpuMicros;
    this.runStart = cpuMicros;
    this.windowStartWall = wallMs;
    this.windowStartCpu = cpuMicros;
    this.cases = this.heldOutCaseCpuSeconds;
  }

  /** The held-out job, once: after the ready line, unless the run was stopped. */
  private input(): Buffer | undefined {
    if (!this.second || !this.lines || !this.ready || this.sent || this.stop !== undefined) return undefined;
    this.sent = true;
    return this.second.input;
  }

  /** Whether the supervisor's ready line came (the public phase ended normally). */
  get readySeen(): boolean {
    return this.ready;
  }

  tick(cpuMicros: number, wallMs: number): string | undefined {
    const b = this.budget;
    this.lastWall = wallMs;
    let limit: BudgetLimit | undefined;
    if (cpuMicros - this.caseStart > b.caseCpuSeconds * 1e6) limit = "case_cpu";
    else if (cpuMicros - this.runStart > b.runCpuSeconds * 1e6) limit = "run_cpu";
    else if (wallMs - this.windowStartWall >= IDLE_WINDOW_MS) {
      const window = wallMs - this.windowStartWall;
      if (cpuMicros - this.windowStartCpu < IDLE_SHARE * window * 1000) this.idleMs += window;
      this.windowStartWall = wallMs;
      this.windowStartCpu = cpuMicros;
      if (this.idleMs > b.idleSeconds * 1000) limit = "idle";
    }
    if (limit === undefined) return undefined;
    this.stop = { limit, caseIndex: this.next };
    this.stopPhase = this.phase;
    return limit;
  }

  /** Seconds counted idle (recorded with the run): the first phase's, frozen when the held-out phase started. */
  get idleSeconds(): number {
    return (this.phase === 0 ? this.idleMs : this.firstIdleMs) / 1000;
  }

  /** Seconds counted idle in the held-out phase. */
  get heldOutIdleSeconds(): number {
    return this.phase === 1 ? this.idleMs / 1000 : 0;
  }
}

/** The sentence a grade's reason gives for a case stopped by a budget. */
export function budgetText(limit: BudgetLimit | undefined, budget: GradingBudget): string {
  if (limit === "run_cpu") return `exceeded the run's CPU time limit (${String(budget.runCpuSeconds)} CPU-s)`;
  if (limit === "idle") return `waited past the run's idle limit (${String(budget.idleSeconds)} s without computing)`;
  return `exceeded the per-case CPU time limit (${limit === undefined ? "" : `${String(budget.caseCpuSeconds)} `}CPU-s)`;
}
