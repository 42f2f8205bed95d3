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
 * Follows the run's result lines (only each line's head: which case it closes) and charges the
 * CPU used since the previous case's result to the current case. A forged head only moves this
 * clock, as a forged result would; the run's total is held by runCpuSeconds anyway.
 */
export class BudgetWatch implements RunWatch {
  private next = 0;
  private caseStart = 0;
  private head = "";
  private windowStartWall = 0;
  private windowStartCpu = 0;
  private idleMs = 0;
  stop: BudgetStop | undefined;
  /** CPU-seconds of each case that finished (its result arrived), in order. */
  readonly caseCpuSeconds: number[] = [];

  constructor(private readonly budget: GradingBudget) {}

  onStdout(chunk: Buffer, cpuMicros: number): void {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      const piece = chunk.subarray(from, nl === -1 ? chunk.length : nl);
      if (this.head.length < HEAD_BYTES)
        this.head += piece.subarray(0, HEAD_BYTES - this.head.length).toString("latin1");
      if (nl === -1) return;
      const m = HEAD.exec(this.head);
      if (m && Number(m[1]) === this.next) {
        this.caseCpuSeconds.push((cpuMicros - this.caseStart) / 1e6);
        this.next += 1;
        this.caseStart = cpuMicros;
      }
      this.head = "";
      from = nl + 1;
    }
  }

  tick(cpuMicros: number, wallMs: number): string | undefined {
    const b = this.budget;
    let limit: BudgetLimit | undefined;
    if (cpuMicros - this.caseStart > b.caseCpuSeconds * 1e6) limit = "case_cpu";
    else if (cpuMicros > b.runCpuSeconds * 1e6) limit = "run_cpu";
    else if (wallMs - this.windowStartWall >= IDLE_WINDOW_MS) {
      const window = wallMs - this.windowStartWall;
      if (cpuMicros - this.windowStartCpu < IDLE_SHARE * window * 1000) this.idleMs += window;
      this.windowStartWall = wallMs;
      this.windowStartCpu = cpuMicros;
      if (this.idleMs > b.idleSeconds * 1000) limit = "idle";
    }
    if (limit === undefined) return undefined;
    this.stop = { limit, caseIndex: this.next };
    return limit;
  }

  /** Seconds counted idle so far (recorded with the run). */
  get idleSeconds(): number {
    return this.idleMs / 1000;
  }
}

/** The sentence a grade's reason gives for a case stopped by a budget. */
export function budgetText(limit: BudgetLimit | undefined, budget: GradingBudget): string {
  if (limit === "run_cpu") return `exceeded the run's CPU time limit (${String(budget.runCpuSeconds)} CPU-s)`;
  if (limit === "idle") return `waited past the run's idle limit (${String(budget.idleSeconds)} s without computing)`;
  return `exceeded the per-case CPU time limit (${limit === undefined ? "" : `${String(budget.caseCpuSeconds)} `}CPU-s)`;
}
