// Chooses the thread count for each engine step (a prefill chunk or one decode token).
// Measured on this machine: with 2 threads, a neighbour keeping one core busy makes
// ggml's spinning threads collapse decode from ~15 to under 1 token/s, while 1 thread holds
// ~9 token/s; on a quiet machine 2 threads are faster. Neither fixed choice is safe, so the
// governor measures: it tries each candidate, then uses the fastest recent rate and
// re-tries the others every `exploreEvery` steps so it notices when load changes. Pure and
// clock-free (callers pass durations), so tests drive it deterministically.
//
// The first step after a change of thread count (and the very first step) is a warm-up: ggml
// rebuilds its thread pool and the step is slow whatever the count. Measured on the full-size
// checkpoint, counting those steps made 2 threads look half as fast as 1 on a quiet machine
// (6.8 vs 13.6 tok/s) and pinned decode to 1 thread. So warm-up steps are not measured, and
// every exploration runs two consecutive steps of the other count: one warm-up, one measured.
//
// Exploring costs time (a 1-thread prefill chunk is about half as fast): measured, the periodic
// exploration held prefill at 89% of the same binary with threads fixed at 2. So while the
// preferred count (the first candidate) is chosen and its rate stays at or above
// `degradedFraction` of the best rate it has shown, nothing else is tried; exploration starts
// only when its rate drops (a neighbour taking a core collapses 2-thread decode to under 1
// token/s, far below that line) and continues, periodically, only while another count is chosen.
//
// Under lasting load those periodic re-checks were most of the cost (#36): measured on the tiny
// synthetic checkpoint with the 2-core machine loaded, a 2-thread step took ~230 ms against ~3 ms
// for a 1-thread one, so one re-check every 24 steps made 512 decode tokens take 12 s instead of
// 1.4 s. So each re-check that confirms the chosen count doubles the interval to the next one, up
// to `maxExploreBackoff` times `exploreEvery`; a change of the best count starts again at
// `exploreEvery`. A machine whose load goes away is still noticed, within two such longest intervals
// (the smoothed rate of the collapsed count may need a second re-check to overtake).

export type EnginePhase = "prefill" | "decode";

export interface ThreadGovernorOptions {
  /** Thread counts to choose from, preferred first (e.g. [2, 1]). */
  readonly candidates: readonly number[];
  /** Re-measure the non-chosen candidates once every this many steps of a phase. */
  readonly exploreEvery: number;
  /** Weight of the newest measurement in the running rate estimate (0..1]. */
  readonly smoothing: number;
  /** The preferred count is kept without exploring while its rate is at least this fraction of its peak. */
  readonly degradedFraction: number;
  /**
   * Each re-check that leaves the best count unchanged doubles the interval to the next, up to
   * this many times `exploreEvery` (absent: 1, a fixed interval).
   */
  readonly maxExploreBackoff?: number;
}

export const DEFAULT_THREAD_GOVERNOR: ThreadGovernorOptions = {
  candidates: [2, 1],
  exploreEvery: 24,
  smoothing: 0.5,
  degradedFraction: 0.7,
  maxExploreBackoff: 8,
};

interface PhaseState {
  readonly rate: Map<number, number>;
  /** Highest smoothed rate each count has shown. */
  readonly peak: Map<number, number>;
  steps: number;
  /** Thread count of the previous step of this phase (null before the first). */
  lastThreads: number | null;
  /** The current re-check interval is `exploreEvery` times this (1, 2, 4, … up to maxExploreBackoff). */
  backoff: number;
}

export interface ThreadChoiceRecord {
  readonly phase: EnginePhase;
  readonly threads: number;
  readonly tokensPerSecond: Readonly<Record<string, number>>;
}

export class ThreadGovernor {
  private readonly phases: Record<EnginePhase, PhaseState>;
  private readonly usage: Record<EnginePhase, Map<number, number>>;

  constructor(private readonly options: ThreadGovernorOptions = DEFAULT_THREAD_GOVERNOR) {
    if (options.candidates.length === 0) throw new Error("at least one thread candidate is required");
    const fresh = (): PhaseState => ({ rate: new Map(), peak: new Map(), steps: 0, lastThreads: null, backoff: 1 });
    this.phases = { prefill: fresh(), decode: fresh() };
    this.usage = { prefill: new Map(), decode: new Map() };
  }

  /** Thread count for the next step of `phase`. */
  choose(phase: EnginePhase): number {
    const state = this.phases[phase];
    const preferred = this.options.candidates[0] as number;
    const preferredRate = state.rate.get(preferred);
    if (preferredRate === undefined) return preferred;
    if (
      this.best(phase) === preferred &&
      preferredRate >= this.options.degradedFraction * (state.peak.get(preferred) ?? preferredRate)
    )
      return preferred;
    const unmeasured = this.options.candidates.find((c) => !state.rate.has(c));
    if (unmeasured !== undefined) return unmeasured;
    const best = this.best(phase);
    const every = this.options.exploreEvery * state.backoff;
    if (this.options.candidates.length > 1 && state.steps % every >= every - 2) {
      const others = this.options.candidates.filter((c) => c !== best);
      return others[Math.floor(state.steps / every) % others.length] as number;
    }
    return best;
  }

  /** Record that `tokens` tokens of `phase` took `milliseconds` with `threads` threads. */
  record(phase: EnginePhase, threads: number, tokens: number, milliseconds: number): void {
    const state = this.phases[phase];
    const warmUp = state.lastThreads !== threads;
    state.lastThreads = threads;
    const bestBefore = this.best(phase);
    if (!warmUp) {
      const measured = tokens / Math.max(milliseconds, 0.001);
      const previous = state.rate.get(threads);
      const a = this.options.smoothing;
      const rate = previous === undefined ? measured : a * measured + (1 - a) * previous;
      state.rate.set(threads, rate);
      state.peak.set(threads, Math.max(rate, state.peak.get(threads) ?? 0));
      const bestAfter = this.best(phase);
      if (bestAfter !== bestBefore) state.backoff = 1;
      else if (threads !== bestBefore)
        // A re-check of another count confirmed the chosen one: wait longer before the next.
        state.backoff = Math.min(state.backoff * 2, Math.max(1, this.options.maxExploreBackoff ?? 1));
    }
    state.steps++;
    this.usage[phase].set(threads, (this.usage[phase].get(threads) ?? 0) + tokens);
  }

  best(phase: EnginePhase): number {
    const state = this.phases[phase];
    let best = this.options.candidates[0] as number;
    let bestRate = -1;
    for (const c of this.options.candidates) {
      const r = state.rate.get(c);
      if (r !== undefined && r > bestRate) {
        best = c;
        bestRate = r;
      }
    }
    return best;
  }

  /** Current estimates (tokens per second per thread count), for the record. */
  snapshot(): ThreadChoiceRecord[] {
    return (["prefill", "decode"] as const).map((phase) => ({
      phase,
      threads: this.best(phase),
      tokensPerSecond: Object.fromEntries(
        [...this.phases[phase].rate].map(([t, r]) => [String(t), Math.round(r * 1000 * 100) / 100]),
      ),
    }));
  }

  /** Tokens processed per thread count in each phase since construction. */
  tokensByThreads(): Record<EnginePhase, Record<string, number>> {
    return {
      prefill: Object.fromEntries([...this.usage.prefill].map(([t, n]) => [String(t), n])),
      decode: Object.fromEntries([...this.usage.decode].map(([t, n]) => [String(t), n])),
    };
  }
}
