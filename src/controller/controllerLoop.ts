// The controller loop of Part 9. It owns the budget, the deadlines, cancellation and the stop
// reason; the model side only ever contributes raw text. Every step leaves an audit record.
import { CONTROLLER_LIMITS, type StopReason } from "../constants/labConstants.ts";
import { parseProposal } from "../proposal/index.ts";
import { authorize, type AuthorizationState } from "./authorize.ts";
import type { MonotonicClock } from "../core/clock.ts";
import type { ControllerWorkspace, Observation } from "./controllerWorkspace.ts";
import { dispatchAction, type DispatchEffect } from "./dispatch.ts";
import { generateWithDeadline } from "./generateWithDeadline.ts";
import { classifyObservation, type LoggedObservation } from "./observationLog.ts";
import { boundedObservation, rejection } from "./observations.ts";
import type { ProposalOutcome, ProposalSource } from "./proposalSource.ts";
import type { DataOf, EvidenceLog } from "../recording/evidenceEnvelope.ts";
import type { LabAuditCatalog } from "../recording/labAuditEvents.ts";
import type { ControllerStateEnvelope, RequestAssembler } from "./requestAssembler.ts";

/**
 * Where the controller's evidence goes (the audit recorder): typed by the Lab audit's catalog, so a
 * payload that drifts from what the readers accept fails tsc. Returns the new event id.
 */
export type EvidenceSink = EvidenceLog<LabAuditCatalog>;

export interface ControllerLimits {
  readonly maxProposals: number;
  readonly maxConsecutiveInvalid: number;
  readonly perCallDeadlineMs: number;
}

/** Test and check hooks; none of them can change what the controller decides. */
export interface ControllerHooks {
  /** After the observation of a proposal was recorded (checks modify files from here). */
  afterObservation?(proposalNumber: number, observation: Observation): Promise<void> | void;
  /** Immediately before the commit guard checks cancellation and the deadline. */
  beforeCommitCheck?(): void;
  /** Extra observations placed in the log before a proposal (the injection check). */
  injectedObservations?(proposalNumber: number): readonly Observation[];
}

export interface ControllerRun {
  readonly workspace: ControllerWorkspace;
  readonly evidence: EvidenceSink;
  readonly source: ProposalSource;
  readonly assembler: RequestAssembler;
  readonly clock: MonotonicClock;
  readonly cancellation: AbortSignal;
  /** Absolute monotonic time at which the whole run must end. */
  readonly overallDeadlineMs: number;
  readonly limits?: ControllerLimits;
  readonly hooks?: ControllerHooks;
}

export interface PhaseTimes {
  generationMs: number;
  validationMs: number;
  editMs: number;
  testMs: number;
}

export interface LoopOutcome {
  readonly stopReason: StopReason;
  readonly proposalsUsed: number;
  /** Proposals that failed parsing/contract, were denied, or were rejected by a tool. */
  readonly invalidProposals: number;
  readonly acceptedFinish: { readonly version: number; readonly sha256: string } | null;
  readonly phases: PhaseTimes;
  readonly log: readonly LoggedObservation[];
}

export const DEFAULT_CONTROLLER_LIMITS: ControllerLimits = {
  maxProposals: CONTROLLER_LIMITS.maxProposals,
  maxConsecutiveInvalid: CONTROLLER_LIMITS.maxConsecutiveInvalid,
  perCallDeadlineMs: CONTROLLER_LIMITS.perCallDeadlineMs,
};

/** Mutable, authoritative controller state; only this module changes it. */
interface ControllerState {
  sourceRead: boolean;
  knownVersion: number | null;
  passingTest: { version: number; sha256: string } | null;
  latestTest: ControllerStateEnvelope["latestPublicTest"];
  consecutiveInvalid: number;
  invalidProposals: number;
  acceptedFinish: { version: number; sha256: string } | null;
}

export async function runControllerLoop(run: ControllerRun): Promise<LoopOutcome> {
  const limits = run.limits ?? DEFAULT_CONTROLLER_LIMITS;
  const { clock, evidence, workspace } = run;
  const state: ControllerState = {
    sourceRead: false,
    knownVersion: null,
    passingTest: null,
    latestTest: "not_run",
    consecutiveInvalid: 0,
    invalidProposals: 0,
    acceptedFinish: null,
  };
  const phases: PhaseTimes = { generationMs: 0, validationMs: 0, editMs: 0, testMs: 0 };
  const log: LoggedObservation[] = [];
  let proposalsUsed = 0;

  const timeOrCancel = (): "cancelled" | "time_limit" | null =>
    run.cancellation.aborted ? "cancelled" : clock.now() >= run.overallDeadlineMs ? "time_limit" : null;

  const stop = (
    stopReason: StopReason,
    proposalNumber: number | null,
    detail: Omit<DataOf<LabAuditCatalog, "stop">, "stop_reason"> = {},
  ): LoopOutcome => {
    evidence.append("stop", { stop_reason: stopReason, ...detail }, proposalNumber);
    return {
      stopReason,
      proposalsUsed,
      invalidProposals: state.invalidProposals,
      acceptedFinish: state.acceptedFinish,
      phases,
      log,
    };
  };

  for (let proposalNumber = 1; proposalNumber <= limits.maxProposals; proposalNumber++) {
    const beforeStart = timeOrCancel();
    if (beforeStart) return stop(beforeStart, null, { at: "before_request" });
    // A scripted check that ran out of proposals: nothing is generated or counted. Only a source
    // labelled scripted may end a run this way (a model source never decides the stop reason).
    if (run.source.label === "scripted" && run.source.exhausted?.() === true) {
      return stop("script_exhausted", null, { at: "before_request", proposals_scripted: proposalNumber - 1 });
    }

    // A check's synthetic record enters the log as given (a source-read shape stays a source
    // read), marked synthetic; it changes no controller state, only what the next request shows.
    for (const injected of run.hooks?.injectedObservations?.(proposalNumber) ?? []) {
      const eventId = evidence.append("synthetic_observation_injected", { observation: injected }, proposalNumber);
      log.push({
        eventId,
        proposalNumber,
        kind: classifyObservation(injected),
        observation: injected,
        synthetic: true,
      });
    }

    const current = workspace.state();
    const request = await run.assembler.assemble(
      {
        remainingProposals: limits.maxProposals - proposalNumber + 1,
        currentVersion: current.version,
        sourceRead: state.sourceRead,
        latestPublicTest: state.latestTest,
      },
      log,
    );
    if (request.kind === "context_limit") {
      // Essential input does not fit: stop before generating (no proposal is consumed).
      evidence.append(
        "context_limit",
        { input_tokens: request.inputTokens, omitted_event_ids: request.omittedEventIds },
        proposalNumber,
      );
      return stop("context_limit", proposalNumber, { at: "request_assembly" });
    }
    // Assembly can take time (token counting): recheck before the source is ever called.
    const afterAssembly = timeOrCancel();
    if (afterAssembly) return stop(afterAssembly, null, { at: "after_request_assembly" });
    const deadlineMs = Math.min(clock.now() + limits.perCallDeadlineMs, run.overallDeadlineMs);
    evidence.append(
      "request",
      {
        messages: request.messages,
        input_tokens: request.inputTokens,
        omitted_event_ids: request.omittedEventIds,
        call_deadline_ms: deadlineMs,
      },
      proposalNumber,
    );

    proposalsUsed = proposalNumber; // every attempt counts, whatever comes back
    const wait = await generateWithDeadline(
      run.source,
      { proposalNumber, messages: request.messages, deadlineMs },
      clock,
      run.cancellation,
      (late) => {
        evidence.append(
          "late_proposal_discarded",
          { kind: late.kind, raw_text: "text" in late ? late.text : null },
          proposalNumber,
        );
      },
    );
    phases.generationMs += wait.elapsedMs;
    // The outcome comes from the source (a worker, an HTTP client): checked, never trusted.
    const outcome = checkedOutcome(wait.outcome);
    evidence.append(
      "generation",
      {
        outcome: outcome.kind,
        raw_text: outcome.kind === "text" ? outcome.text : null,
        message: outcome.kind === "model_error" ? outcome.message : null,
        metadata: outcome.metadata,
        elapsed_ms: wait.elapsedMs,
      },
      proposalNumber,
    );
    if (outcome.kind !== "text") {
      return stop(outcome.kind, proposalNumber, { at: "generation" });
    }
    const afterGeneration = timeOrCancel();
    if (afterGeneration) {
      evidence.append("proposal_discarded", { reason: afterGeneration, at: "after_generation" }, proposalNumber);
      return stop(afterGeneration, proposalNumber, { at: "after_generation" });
    }

    const validationStarted = clock.now();
    const verdict = parseProposal(outcome.text);
    phases.validationMs += clock.now() - validationStarted;
    evidence.append(
      "validation",
      verdict.ok
        ? { ok: true, action: verdict.action }
        : { ok: false, error: verdict.error, message: verdict.message, attempted_action: verdict.attemptedAction },
      proposalNumber,
    );

    let observation: Observation;
    let effect: DispatchEffect = { kind: "none" };
    let dispatched = false;
    if (!verdict.ok) {
      observation = rejection(verdict.attemptedAction, verdict.error, verdict.message, workspace.state().version);
    } else {
      const integrity = await workspace.integrityCheck();
      // The reason (logical names only, never shown to the model) is kept as evidence.
      evidence.append(
        "integrity_check",
        integrity.ok
          ? { ok: true, at: "before_dispatch" }
          : { ok: false, at: "before_dispatch", message: integrity.message },
        proposalNumber,
      );
      if (!integrity.ok) {
        observation = rejection(
          verdict.action.action,
          "workspace_conflict",
          "a managed file changed outside the controller",
          workspace.state().version,
        );
        recordObservation(evidence, log, proposalNumber, observation);
        return stop("workspace_conflict", proposalNumber, { at: "integrity_check" });
      }
      const decision = authorize(authorizationState(state, workspace), verdict.action);
      evidence.append(
        "authorization",
        decision.allowed ? { allowed: true } : { allowed: false, error: decision.error, message: decision.message },
        proposalNumber,
      );
      if (!decision.allowed) {
        observation = rejection(verdict.action.action, decision.error, decision.message, workspace.state().version);
      } else {
        const beforeDispatch = timeOrCancel();
        if (beforeDispatch) {
          evidence.append("proposal_discarded", { reason: beforeDispatch, at: "before_dispatch" }, proposalNumber);
          return stop(beforeDispatch, proposalNumber, { at: "before_dispatch" });
        }
        evidence.append("dispatch", { action: verdict.action }, proposalNumber);
        const dispatchStarted = clock.now();
        dispatched = true;
        const result = await dispatchAction(verdict.action, {
          workspace,
          commitGuard: {
            beforeCommit: () => {
              run.hooks?.beforeCommitCheck?.();
              return timeOrCancel();
            },
          },
        });
        const elapsed = clock.now() - dispatchStarted;
        if (verdict.action.action === "replace") phases.editMs += elapsed;
        if (verdict.action.action === "test") phases.testMs += elapsed;
        observation = result.observation;
        effect = result.effect;
      }
    }

    const bounded = boundedObservation(observation, workspace.state().version);
    const eventId = recordObservation(evidence, log, proposalNumber, bounded.observation);
    if (!bounded.fits) return stop("observation_limit", proposalNumber, { observation_event_id: eventId });

    applyEffect(state, effect);
    if (effect.kind === "stop") return stop(effect.reason, proposalNumber, { at: "dispatch" });

    // Parse, contract and authorization failures have their own records; a tool's own refusal
    // (wrong old expression, forbidden new expression, stale file) gets this one.
    if (dispatched && !bounded.observation.ok) {
      evidence.append("tool_result", { ok: false, error: bounded.observation.error }, proposalNumber);
    }
    if (bounded.observation.ok) {
      state.consecutiveInvalid = 0;
    } else if (bounded.observation.error !== "edit_interrupted") {
      // An interrupted edit failed on the harness side, not in the proposal: it neither counts
      // as invalid nor resets the counter.
      state.invalidProposals += 1;
      state.consecutiveInvalid += 1;
    }
    await run.hooks?.afterObservation?.(proposalNumber, bounded.observation);

    if (state.acceptedFinish) return stop("finish_accepted", proposalNumber);
    if (state.consecutiveInvalid >= limits.maxConsecutiveInvalid) return stop("invalid_proposal_limit", proposalNumber);
  }
  return stop("proposal_limit", null);
}

/** Only the five outcome kinds of the interface are accepted; anything else is a model_error. */
function checkedOutcome(outcome: ProposalOutcome): ProposalOutcome {
  if (outcome.kind === "text") {
    return typeof outcome.text === "string"
      ? outcome
      : { kind: "model_error", message: "the source returned no text", metadata: {} };
  }
  const metadata = typeof outcome.metadata === "object" && outcome.metadata !== null ? outcome.metadata : {};
  switch (outcome.kind) {
    case "context_limit":
      return {
        kind: "context_limit",
        inputTokens: Number.isSafeInteger(outcome.inputTokens) ? outcome.inputTokens : -1,
        metadata,
      };
    case "model_error":
      return {
        kind: "model_error",
        message: typeof outcome.message === "string" ? outcome.message.slice(0, 500) : "model error",
        metadata,
      };
    case "time_limit":
    case "cancelled":
      return { kind: outcome.kind, metadata };
    default:
      return { kind: "model_error", message: `the source returned an unknown outcome`, metadata: {} };
  }
}

function authorizationState(state: ControllerState, workspace: ControllerWorkspace): AuthorizationState {
  const current = workspace.state();
  return {
    sourceRead: state.sourceRead,
    knownVersion: state.knownVersion,
    currentVersion: current.version,
    currentSha256: current.sourceSha256,
    passingTest: state.passingTest,
  };
}

function recordObservation(
  evidence: EvidenceSink,
  log: LoggedObservation[],
  proposalNumber: number,
  observation: Observation,
): number {
  const eventId = evidence.append("observation", { observation }, proposalNumber);
  log.push({ eventId, proposalNumber, kind: classifyObservation(observation), observation });
  return eventId;
}

function applyEffect(state: ControllerState, effect: DispatchEffect): void {
  switch (effect.kind) {
    case "source_read":
      state.sourceRead = true;
      state.knownVersion = effect.version;
      return;
    case "edit_committed":
      state.knownVersion = effect.version;
      state.passingTest = null; // a committed edit invalidates the previous passing test
      return;
    case "test_ran":
      state.latestTest = { version: effect.version, passed: effect.passed, total: effect.total };
      state.passingTest = effect.passed === effect.total ? { version: effect.version, sha256: effect.sha256 } : null;
      return;
    case "finish_accepted":
      state.acceptedFinish = { version: effect.version, sha256: effect.sha256 };
      return;
    case "none":
    case "stop":
      return;
  }
}
