// The controller's only notion of time: a monotonic clock with timers. Injected everywhere so
// that tests drive deadlines deterministically (ManualClock) and nothing sleeps for real.
import { performance } from "node:perf_hooks";

export interface MonotonicClock {
  /** Milliseconds on a monotonic scale (never wall-clock time). */
  now(): number;
  /** Calls `callback` once `now()` has reached `atMs`. Returns a cancel function. */
  at(atMs: number, callback: () => void): () => void;
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
