// The one monotonic clock of the project (controller deadlines, model supervision, acquisition
// deadlines and idle timeouts) and its one fake. Injected everywhere so tests drive time
// deterministically (ManualClock) and nothing sleeps for real. Ground floor: imports nothing of ours.
import { performance } from "node:perf_hooks";

export interface MonotonicClock {
  /** Milliseconds on a monotonic scale (never wall-clock time). */
  now(): number;
  /** Calls `callback` once `now()` has reached `atMs`. Returns a cancel function. */
  at(atMs: number, callback: () => void): () => void;
}

/** Calls `callback` once `ms` have passed on `clock`; returns a cancel function. */
export function after(clock: MonotonicClock, ms: number, callback: () => void): () => void {
  return clock.at(clock.now() + Math.max(0, ms), callback);
}

export const systemClock: MonotonicClock = {
  now: () => performance.now(),
  at(atMs, callback) {
    const handle = setTimeout(callback, Math.max(0, atMs - performance.now()));
    return () => clearTimeout(handle);
  },
};

/** A clock that only moves when a test tells it to. Timers fire in time order during advance(). */
export class ManualClock implements MonotonicClock {
  private current: number;
  private readonly timers = new Map<number, { atMs: number; callback: () => void }>();
  private nextId = 0;

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  at(atMs: number, callback: () => void): () => void {
    const id = this.nextId++;
    this.timers.set(id, { atMs, callback });
    if (atMs <= this.current) queueMicrotask(() => this.fireDue());
    return () => {
      this.timers.delete(id);
    };
  }

  /** How many timers are waiting (tests use it to know a transfer has armed its timeout). */
  pendingTimers(): number {
    return this.timers.size;
  }

  advance(ms: number): void {
    this.current += ms;
    this.fireDue();
  }

  set(atMs: number): void {
    this.current = Math.max(this.current, atMs);
    this.fireDue();
  }

  private fireDue(): void {
    const due = [...this.timers.entries()]
      .filter(([, timer]) => timer.atMs <= this.current)
      .sort((a, b) => a[1].atMs - b[1].atMs || a[0] - b[0]);
    for (const [id, timer] of due) {
      if (this.timers.delete(id)) timer.callback();
    }
  }
}

/** Wall-clock time, only for timestamps in evidence and cross-process windows; never for deadlines. */
export type WallClock = () => number;
export const systemWallClock: WallClock = () => Date.now();
