// The supervisor's rule for one call's progress messages: counts only move forward (prefill up
// to a fixed total, then decode up to the call's bound on new tokens, never back), and no more
// messages than the worker's throttle can honestly send. Either breach is a protocol violation
// like any other, so a worker cannot use progress to flood the controller process: strictly
// rising counts bound the total, and the rate budget bounds how fast they arrive.
import type { GenerationProgress } from "./protocol.ts";

/** Messages allowed before the rate budget applies (the final count, a stalled event loop's backlog). */
export const PROGRESS_BURST = 8;

export class ProgressOrder {
  private last: GenerationProgress | null = null;
  private received = 0;

  /**
   * @param intervalMs the interval the request asked for; the budget allows twice that rate,
   *   counted from the call's start, so a late burst after a busy moment still fits.
   * @param maxNewTokens the call's bound on new tokens.
   */
  constructor(
    private readonly intervalMs: number,
    private readonly maxNewTokens: number,
  ) {}

  /** Null when `progress` may follow what came before at `elapsedMs` into the call; otherwise why not. */
  check(progress: GenerationProgress, elapsedMs: number): string | null {
    this.received += 1;
    if (this.received > PROGRESS_BURST + Math.floor((2 * Math.max(0, elapsedMs)) / this.intervalMs))
      return "progress messages faster than the requested interval";
    const last = this.last;
    if (progress.phase === "decode" && progress.tokens > this.maxNewTokens)
      return "progress beyond the call's bound on new tokens";
    if (last !== null) {
      if (last.phase === "decode" && progress.phase === "prefill") return "prefill progress after decode progress";
      if (last.phase === progress.phase && progress.tokens <= last.tokens) return "progress count did not increase";
      if (last.phase === "prefill" && progress.phase === "prefill" && progress.total !== last.total)
        return "prefill total changed";
    }
    this.last = progress;
    return null;
  }
}
