// Inside the worker: turns the engine's per-step callback (one call per prefill chunk and per
// new token) into at most one progress message per interval, plus the final count just before
// the result. Sends happen synchronously inside a step or in finish(), never from a timer, so
// once the generation has returned nothing more can be sent for it (no progress after the result).
import type { EnginePhase } from "../engine/threadGovernor.ts";
import type { GenerationProgress } from "./protocol.ts";

export class ProgressThrottle {
  private lastSentAt: number;
  private latest: GenerationProgress | null = null;
  private latestSent = true;
  private finished = false;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
    private readonly send: (progress: GenerationProgress) => void,
  ) {
    // The first message comes one interval after the start: a short generation sends only its final count.
    this.lastSentAt = now();
  }

  /** The engine's onStep: the step that completes prefill also sampled the first new token. */
  step(phase: EnginePhase, tokensSoFar: number, phaseTotal: number): void {
    if (this.finished || tokensSoFar < 1) return;
    this.latest =
      phase === "prefill" && tokensSoFar < phaseTotal
        ? { phase: "prefill", tokens: tokensSoFar, total: phaseTotal }
        : { phase: "decode", tokens: phase === "prefill" ? 1 : tokensSoFar };
    this.latestSent = false;
    const t = this.now();
    if (t - this.lastSentAt < this.intervalMs) return;
    this.lastSentAt = t;
    this.latestSent = true;
    this.send(this.latest);
  }

  /**
   * Ends the throttle. After a finished generation (`sendFinal`), the last count is sent if the
   * interval held it back, so the last progress equals the output token count; after a failure
   * or cancellation nothing more is sent. Either way later steps are ignored.
   */
  finish(sendFinal: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (sendFinal && this.latest !== null && !this.latestSent) this.send(this.latest);
  }
}
