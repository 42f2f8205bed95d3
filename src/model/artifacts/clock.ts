// The monotonic clock acquisition runs on. Injected so tests drive deadlines without
// sleeping: a fake clock advances time and fires due timers on command.
export interface MonotonicClock {
  /** Milliseconds on a monotonic scale (never wall-clock time). */
  now(): number;
  /** Calls fn once after ms; returns a cancel function. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemMonotonicClock: MonotonicClock = {
  now: () => performance.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    // Sockets keep the process alive while a transfer runs; the deadline timer must not.
    handle.unref();
    return () => clearTimeout(handle);
  },
};

/** Wall-clock time, only for timestamps in evidence and for the cross-process ledger window. */
export type WallClock = () => number;
export const systemWallClock: WallClock = () => Date.now();
