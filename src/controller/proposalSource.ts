// The one interface every proposal source implements: the scripted baseline, the local
// model (through its supervisor) and an OpenAI-compatible endpoint. Everything downstream
// of the raw text (parsing, contract, authorization, dispatch, evidence) is shared.

import type { ChatMessage } from "../core/chatMessage.ts";

/** What the controller hands a source for one proposal. */
export interface ProposalRequest {
  /** 1-based proposal number within the run. */
  readonly proposalNumber: number;
  /** The fixed system instruction and the assembled user message. */
  readonly messages: readonly ChatMessage[];
  /** Monotonic deadline (ms, same clock as the controller's) by which the call must end. */
  readonly deadlineMs: number;
}

/** Metadata a source reports about one call, kept in the audit as-is. */
export interface ProposalMetadata {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly rawOutputIds?: readonly number[];
  readonly inputIds?: readonly number[];
  readonly stopCause?: string;
  readonly timingsMs?: Readonly<Record<string, number>>;
  readonly prefixTokensReused?: number;
  readonly [key: string]: unknown;
}

export type ProposalOutcome =
  | { readonly kind: "text"; readonly text: string; readonly metadata: ProposalMetadata }
  /** The assembled input does not fit the token budget; nothing was generated. */
  | { readonly kind: "context_limit"; readonly inputTokens: number; readonly metadata: ProposalMetadata }
  /** The source failed to generate (crash, protocol error); never replaced by scripted text. */
  | { readonly kind: "model_error"; readonly message: string; readonly metadata: ProposalMetadata }
  /** The call deadline or the overall deadline expired; the worker was stopped. */
  | { readonly kind: "time_limit"; readonly metadata: ProposalMetadata }
  /** The abort signal fired (cancellation). */
  | { readonly kind: "cancelled"; readonly metadata: ProposalMetadata };

export interface ProposalSource {
  /** Label recorded on every audit record: "scripted", "model", "synthetic-pipeline-check", ... */
  readonly label: string;
  /** Identity recorded in the manifest (model repository/revision, engine, or "scripted"). */
  describe(): Readonly<Record<string, unknown>>;
  propose(request: ProposalRequest, signal: AbortSignal): Promise<ProposalOutcome>;
  /**
   * Only the scripted source implements this: true when its script has no further proposal. The
   * loop then stops with script_exhausted before assembling a request, so an attempt that never
   * happened is neither counted as a proposal nor recorded as a model_error.
   */
  exhausted?(): boolean;
  /** Release processes and handles. Safe to call twice. */
  close(): Promise<void>;
}
