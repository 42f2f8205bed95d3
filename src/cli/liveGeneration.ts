// The live part of a generation's status line: tokens so far and a rate, folded from the
// worker's progress messages (src/model/worker/progressThrottle.ts sends them, the supervisor
// checks their order). Pure functions: the watchers in runProgress.ts stamp nothing themselves;
// times are the supervisor's elapsed milliseconds for the call.

import { formatCount, formatTokenRate } from "../core/numberFormat.ts";

export interface ProgressNotice {
  readonly phase: "prefill" | "decode";
  readonly tokens: number;
  /** Prefill only: input tokens this call evaluates. */
  readonly total?: number;
  /** Since the call started, on the supervisor's clock. */
  readonly elapsedMs: number;
  /** The proposal the generation belongs to (lab model); absent for a single call. */
  readonly proposalNumber?: number;
  /** The supervisor's call id: tells one call's counts from the next one's. */
  readonly callId?: number;
}

export interface LiveGeneration {
  readonly proposal: number | null;
  readonly callId: number | null;
  readonly phase: "prefill" | "decode";
  readonly tokens: number;
  readonly total: number | null;
  readonly elapsedMs: number;
  /** The first decode count seen and when: the rate is shown from 0.2 s after it. */
  readonly decodeStart: { readonly tokens: number; readonly elapsedMs: number } | null;
}

/** Folds one notice in; a notice for another proposal or call starts a new generation. */
export function foldProgress(live: LiveGeneration | null, notice: ProgressNotice): LiveGeneration {
  const proposal = notice.proposalNumber ?? null;
  const callId = notice.callId ?? null;
  const same = live !== null && live.proposal === proposal && live.callId === callId;
  const previousStart = same ? live.decodeStart : null;
  return {
    proposal,
    callId,
    phase: notice.phase,
    tokens: notice.tokens,
    total: notice.phase === "prefill" ? (notice.total ?? null) : null,
    elapsedMs: notice.elapsedMs,
    decodeStart:
      notice.phase === "decode" ? (previousStart ?? { tokens: notice.tokens, elapsedMs: notice.elapsedMs }) : null,
  };
}

/**
 * Output tokens per second over the whole call (prefill included), the same measure as the kept
 * line per generation (runProgress.ts: output tokens over the call's elapsed time), so the live
 * and the kept figure of one call agree (issue #28 item 15: live 10.0 tok/s beside kept 2.4 tok/s
 * measured two different things). Null until two decode notices at least 0.2 s apart.
 */
export function decodeRate(live: LiveGeneration): number | null {
  if (live.phase !== "decode" || live.decodeStart === null) return null;
  if (live.elapsedMs - live.decodeStart.elapsedMs < 200 || live.elapsedMs <= 0) return null;
  return (live.tokens * 1000) / live.elapsedMs;
}

/** "1,024" in every locale (src/core/numberFormat.ts), so tests can pin the line. */
export function groupedCount(n: number): string {
  return formatCount(Math.trunc(n));
}

/** "prefill 1,024/1,500 tokens" or "generating… 45 tokens, 9.3 tok/s". */
export function describeLiveCounts(live: LiveGeneration): string {
  if (live.phase === "prefill")
    return `prefill ${groupedCount(live.tokens)}${live.total === null ? "" : `/${groupedCount(live.total)}`} tokens`;
  const rate = decodeRate(live);
  return `generating… ${groupedCount(live.tokens)} token${live.tokens === 1 ? "" : "s"}${rate === null ? "" : `, ${formatTokenRate(rate, 1) ?? ""}`}`;
}
