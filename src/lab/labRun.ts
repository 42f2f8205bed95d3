// One Lab run, end to end: a fresh run directory, the manifest, the controller loop with a
// given proposal source, the independent final evaluation and final.json. The baseline, the
// negative checks and the model trial all come through here, so they share every component.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  CONTROLLER_LIMITS,
  HELD_OUT_FIXTURES,
  INITIAL_TOY_MATH_PY,
  PROPOSAL_LIMITS,
  PUBLIC_FIXTURES,
  SYSTEM_INSTRUCTION,
  TASK_TXT,
  type StopReason,
} from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import { systemClock, type MonotonicClock } from "../core/clock.ts";
import { traceCpuMark } from "../core/startupTrace.ts";
import {
  runControllerLoop,
  type ControllerHooks,
  type ControllerLimits,
  type EvidenceSink,
  type LoopOutcome,
} from "../controller/controllerLoop.ts";
import { runFinalEvaluation, type FinalEvaluation } from "../controller/finalEvaluation.ts";
import type { ProposalSource } from "../controller/proposalSource.ts";
import { ACTION_CONTRACT_TEXT, fullLogAssembler, type RequestAssembler } from "../controller/requestAssembler.ts";
import { AuditRecorder } from "../recording/auditRecorder.ts";
import type { DataOf } from "../recording/evidenceEnvelope.ts";
import type { LabAuditCatalog, LabAuditEventType } from "../recording/labAuditEvents.ts";
import {
  evidenceFileProblem,
  isAlreadyPresent,
  writeJsonExclusive,
  type EvidenceFileIdentity,
} from "../recording/evidenceFile.ts";
import {
  LAB_FINAL_SCHEMA_ID,
  LAB_MANIFEST_SCHEMA_ID,
  type LabFinal,
  type LabManifest,
} from "../recording/labRunFiles.ts";
import { harnessHashes, runtimeIdentity } from "../recording/runtimeIdentity.ts";
import { sha256Hex } from "../core/digest.ts";
import { auditEditJournal } from "../workspace/editJournal.ts";
import { createRun, type RunWorkspace } from "../workspace/index.ts";
import type { WorkspaceHooks } from "../workspace/hooks.ts";
import type { WorkspaceErrorCode } from "../workspace/errorCodes.ts";

/** "extension": a model trial after the first one recorded in the model directory's ledger (Part 10). */
export type RunKind =
  "scripted_baseline" | "negative_check" | "model_trial" | "extension" | "synthetic_pipeline_check" | "rehearsal_trial";

/**
 * A source that must be loaded first (the local model). Loading happens inside the run, after
 * the run directory exists and before the manifest, bounded by the run's overall deadline; a
 * failed load is an outcome of the run (model_error, time_limit, cancelled), with evidence.
 */
export interface ProposalSourceLoader {
  readonly label: string;
  load(
    overallDeadlineMs: number,
    signal: AbortSignal,
  ): Promise<Result<ProposalSource, "model_error" | "time_limit" | "cancelled">>;
  /** What is known about the source before (or without) a successful load. */
  describePending(): Readonly<Record<string, unknown>>;
}

export interface LabRunOptions {
  readonly runDirectory: string;
  readonly source: ProposalSource | ProposalSourceLoader;
  /** Called once the run directory exists, before anything is loaded (the runtime lock is written here). */
  readonly beforeLoad?: (runDirectory: string) => void;
  readonly kind: RunKind;
  readonly clock?: MonotonicClock;
  readonly cancellation?: AbortSignal;
  /** Overall budget from the start of the run (default: the Lab's ten minutes). */
  readonly overallBudgetMs?: number;
  readonly assembler?: RequestAssembler;
  readonly limits?: ControllerLimits;
  readonly controllerHooks?: ControllerHooks;
  readonly workspaceHooks?: WorkspaceHooks;
  /** Called once the fresh workspace exists, before the first proposal (checks alter files here). */
  readonly afterCreate?: (workspace: RunWorkspace) => Promise<void> | void;
  /** Called after the loop stopped and before final evaluation. */
  readonly beforeFinalEvaluation?: (workspace: RunWorkspace) => Promise<void> | void;
  /** Milliseconds the model acquisition took, from the acquisition ledger (model trials only). */
  readonly acquisitionMs?: number | null;
  /** Extra manifest entries (model identity, acquisition ledger, runtime lock). */
  readonly manifestExtras?: Readonly<Record<string, unknown>>;
  /** Extra run labels (a rehearsal checkpoint, a stand-in tokenizer), kept in the manifest, audit and final. */
  readonly labelExtras?: Readonly<Record<string, unknown>>;
  /** A process watch started before the run (scripted runs): its report becomes a process_watch audit event. */
  readonly processWatch?: { report(): DataOf<LabAuditCatalog, "process_watch"> };
}

export interface LabRunResult {
  readonly runId: string;
  readonly runDirectory: string;
  readonly loop: LoopOutcome;
  readonly finalEvaluation: FinalEvaluation;
  readonly final: FinalReport;
  readonly workspace: RunWorkspace;
}

/** final.json, as its one definition types it (src/recording/labRunFiles.ts). */
export type FinalReport = LabFinal;

export function runLabels(kind: RunKind): {
  kind: RunKind;
  scripted: boolean;
  synthetic_pipeline_check: boolean;
  model_invoked_expected: boolean;
} {
  return {
    kind,
    scripted: kind === "scripted_baseline" || kind === "negative_check",
    synthetic_pipeline_check: kind === "synthetic_pipeline_check",
    model_invoked_expected:
      kind === "model_trial" ||
      kind === "extension" ||
      kind === "synthetic_pipeline_check" ||
      kind === "rehearsal_trial",
  };
}

/** Runs one Lab trial. Fails (changing nothing) only when the run directory cannot be created. */
export async function runLab(options: LabRunOptions): Promise<Result<LabRunResult, WorkspaceErrorCode>> {
  const clock = options.clock ?? systemClock;
  const cancellation = options.cancellation ?? new AbortController().signal;
  const started = clock.now();
  const overallDeadlineMs = started + (options.overallBudgetMs ?? CONTROLLER_LIMITS.overallDeadlineMs);
  const runId = randomUUID();
  const labels = { ...runLabels(options.kind), ...(options.labelExtras ?? {}) };

  // The journal needs the recorder, which needs the run directory: bind it late.
  let recorder: AuditRecorder | null = null;
  let latestProposal: number | null = null;
  // Fail closed on the audit itself: before every append the recorder checks that audit.jsonl at
  // its path is still the file it writes (device, inode, mode). A swap or chmod is recorded once
  // (in the file the recorder holds) and ends the run as harness_error; later appends go on into
  // that same file so the stop and the final evaluation are kept.
  let auditProblem: string | null = null;
  const evidence: EvidenceSink = {
    append(type, payload, proposalNumber = null) {
      if (recorder === null) throw new Error("evidence appended before the audit exists");
      if (proposalNumber !== null) latestProposal = proposalNumber;
      if (auditProblem === null) {
        auditProblem = recorder.identityProblem();
        if (auditProblem !== null) {
          recorder.append(
            "harness_error",
            { at: "audit_identity", error: "audit_replaced", message: auditProblem },
            latestProposal,
          );
          throw new EvidenceIntegrityError(auditProblem);
        }
      }
      return recorder.append(type, payload, proposalNumber);
    },
  };
  const created = await createRun({
    runDirectory: options.runDirectory,
    journal: auditEditJournal(evidence, () => latestProposal),
    hooks: options.workspaceHooks,
  });
  if (!created.ok) return err(created.error, created.message);
  const workspace = created.value;
  const runDirectory = workspace.paths.run;
  try {
    recorder = AuditRecorder.create(join(runDirectory, "audit.jsonl"), {
      runId,
      sourceLabel: options.source.label,
      clock,
    });
  } catch (error) {
    // Nothing can be recorded without the audit: a short refusal, no stack trace, nothing overwritten.
    return err(
      "run_create_failed",
      isAlreadyPresent(error)
        ? "audit.jsonl appeared in the new run directory before the recorder created it"
        : "audit.jsonl could not be created",
    );
  }
  options.beforeLoad?.(runDirectory);

  // Load the source (if it needs loading) inside the run's own deadline.
  let source: ProposalSource | null = null;
  let loadFailure: { readonly error: "model_error" | "time_limit" | "cancelled"; readonly message: string } | null =
    null;
  let loadMs: number | null = null;
  if (isLoader(options.source)) {
    const loadStarted = clock.now();
    const loaded = await options.source.load(overallDeadlineMs, cancellation);
    loadMs = clock.now() - loadStarted;
    if (loaded.ok) source = loaded.value;
    else loadFailure = { error: loaded.error, message: loaded.message };
    appendQuietly(evidence, "source_load", {
      ok: loaded.ok,
      error: loadFailure?.error ?? null,
      message: loadFailure?.message ?? null,
      elapsed_ms: loadMs,
    });
  } else {
    source = options.source;
  }

  const manifest: LabManifest = {
    schema: LAB_MANIFEST_SCHEMA_ID,
    run_id: runId,
    created_at: new Date().toISOString(),
    labels,
    proposal_source: {
      label: options.source.label,
      ...(source ? source.describe() : isLoader(options.source) ? options.source.describePending() : {}),
      ...(loadFailure ? { load_failure: loadFailure } : {}),
    },
    runtime: runtimeIdentity(),
    prompt: { system_instruction: SYSTEM_INSTRUCTION, system_instruction_sha256: sha256Hex(SYSTEM_INSTRUCTION) },
    contract: {
      text: ACTION_CONTRACT_TEXT,
      sha256: sha256Hex(ACTION_CONTRACT_TEXT),
      actions: ["read", "replace", "test", "finish"],
    },
    fixtures: {
      public_count: PUBLIC_FIXTURES.length,
      public_sha256: sha256Hex(JSON.stringify(PUBLIC_FIXTURES)),
      held_out_count: HELD_OUT_FIXTURES.length,
      held_out_sha256: sha256Hex(JSON.stringify(HELD_OUT_FIXTURES)),
    },
    harness: harnessHashes(),
    initial_files: {
      "TASK.txt": { bytes: Buffer.byteLength(TASK_TXT), sha256: sha256Hex(TASK_TXT) },
      "toy_math.py": { bytes: Buffer.byteLength(INITIAL_TOY_MATH_PY), sha256: sha256Hex(INITIAL_TOY_MATH_PY) },
    },
    budgets: {
      max_proposals: options.limits?.maxProposals ?? CONTROLLER_LIMITS.maxProposals,
      max_consecutive_invalid: options.limits?.maxConsecutiveInvalid ?? CONTROLLER_LIMITS.maxConsecutiveInvalid,
      overall_deadline_ms: options.overallBudgetMs ?? CONTROLLER_LIMITS.overallDeadlineMs,
      per_call_deadline_ms: options.limits?.perCallDeadlineMs ?? CONTROLLER_LIMITS.perCallDeadlineMs,
      max_input_tokens: CONTROLLER_LIMITS.maxInputTokens,
      max_new_tokens: CONTROLLER_LIMITS.maxNewTokens,
      observation_max_bytes: CONTROLLER_LIMITS.observationMaxBytes,
      proposal_max_bytes: PROPOSAL_LIMITS.maxBytes,
    },
    ...options.manifestExtras,
  };
  const manifestWrite = writeEvidence(runDirectory, "manifest.json", manifest);

  let loop: LoopOutcome;
  let diagnostic: Record<string, unknown> | undefined;
  try {
    evidence.append("run_started", {
      run_kind: options.kind,
      labels,
      initial_state: workspace.state(),
      overall_deadline_ms: overallDeadlineMs,
    });
    traceCpuMark("run_started");
    if (auditProblem !== null) throw new EvidenceIntegrityError(auditProblem);
    if (!manifestWrite.ok) {
      // A manifest.json already present was not written by this run: record it and stop, never run on it.
      diagnostic = { error_name: "EvidenceFileExists", error_message: manifestWrite.message };
      evidence.append("harness_error", { at: "manifest", error: manifestWrite.error, message: manifestWrite.message });
      evidence.append("stop", { stop_reason: "harness_error", at: "manifest" });
      loop = emptyLoop("harness_error");
    } else {
      await options.afterCreate?.(workspace);
      if (source === null) {
        evidence.append("stop", { stop_reason: loadFailure?.error ?? "model_error", at: "source_load" });
        loop = emptyLoop(loadFailure?.error ?? "model_error");
      } else
        loop = await runControllerLoop({
          workspace,
          evidence,
          source,
          assembler: options.assembler ?? fullLogAssembler,
          clock,
          cancellation,
          overallDeadlineMs,
          limits: options.limits,
          hooks: options.controllerHooks,
        });
    }
  } catch (error) {
    // An unexpected exception is a harness fault: keep bounded trusted diagnostics, never success.
    diagnostic = boundedDiagnostic(error);
    if (!(error instanceof EvidenceIntegrityError))
      appendQuietly(evidence, "harness_error", boundedDiagnostic(error), latestProposal);
    appendQuietly(evidence, "stop", { stop_reason: "harness_error" }, latestProposal);
    loop = { ...emptyLoop("harness_error"), proposalsUsed: latestProposal ?? 0 };
  } finally {
    try {
      await source?.close();
    } catch (error) {
      // A source that cannot close (a worker that will not die) is recorded; it changes no result.
      appendQuietly(evidence, "source_close_failed", boundedDiagnostic(error), latestProposal);
    }
  }

  let finalEvaluation: FinalEvaluation;
  try {
    finalEvaluation = await runFinalEvaluation({
      workspace,
      clock,
      overallDeadlineMs,
      stopReason: loop.stopReason,
      acceptedFinish: loop.acceptedFinish,
      beforeEvaluation: options.beforeFinalEvaluation ? () => options.beforeFinalEvaluation?.(workspace) : undefined,
    });
  } catch (error) {
    // A fault during final evaluation: keep the loop's stop reason, never claim success.
    diagnostic = { ...(diagnostic ?? {}), final_evaluation_error: boundedDiagnostic(error) };
    appendQuietly(evidence, "harness_error", { at: "final_evaluation", ...boundedDiagnostic(error) });
    finalEvaluation = harnessFailedEvaluation();
  }
  appendQuietly(evidence, "final_evaluation", {
    status: finalEvaluation.status,
    snapshot: finalEvaluation.snapshot,
    public_passed: finalEvaluation.publicPassed,
    held_out_passed: finalEvaluation.heldOutPassed,
    verified_success: finalEvaluation.verifiedSuccess,
  });

  // Evidence that can fail: how many processes/threads were started while this run was watched.
  if (options.processWatch) appendQuietly(evidence, "process_watch", options.processWatch.report());
  // Before final.json: the audit and the manifest must still be this run's own files.
  const lateProblem =
    auditProblem ??
    recorder.identityProblem() ??
    (manifestWrite.ok
      ? evidenceFileProblem(join(runDirectory, "manifest.json"), "manifest.json", manifestWrite.value)
      : null);
  if (lateProblem !== null) {
    diagnostic = { ...(diagnostic ?? {}), evidence_problem: lateProblem };
    // When the audit itself is the problem, this append records it (audit_replaced) instead.
    if (auditProblem === null)
      appendQuietly(evidence, "harness_error", {
        at: "before_final",
        error: "evidence_replaced",
        message: lateProblem,
      });
  }
  const failedClosed = lateProblem !== null;
  const final: FinalReport = {
    schema: LAB_FINAL_SCHEMA_ID,
    run_id: runId,
    labels,
    stop_reason: failedClosed ? "harness_error" : loop.stopReason,
    proposals_used: loop.proposalsUsed,
    invalid_proposals: loop.invalidProposals,
    finish: loop.acceptedFinish,
    final_evaluation: {
      status: finalEvaluation.status,
      version: finalEvaluation.snapshot?.version ?? null,
      sha256: finalEvaluation.snapshot?.sha256 ?? null,
      public_passed: finalEvaluation.publicPassed,
      public_total: finalEvaluation.publicTotal,
      held_out_passed: finalEvaluation.heldOutPassed,
      held_out_total: finalEvaluation.heldOutTotal,
      cases: finalEvaluation.cases.map((c) => ({ ...c, inputs: [...c.inputs] })),
    },
    verified_success: finalEvaluation.verifiedSuccess && !failedClosed,
    elapsed_ms: {
      acquisition: options.acquisitionMs ?? null,
      load: loadMs,
      generation: loop.phases.generationMs,
      validation: loop.phases.validationMs,
      edit: loop.phases.editMs,
      test: loop.phases.testMs,
      final_evaluation: finalEvaluation.elapsedMs,
      total: clock.now() - started,
    },
    ...(diagnostic ? { diagnostic } : {}),
  };
  let finalReport = final;
  try {
    const finalWrite = writeEvidence(runDirectory, "final.json", final);
    if (!finalWrite.ok) {
      // Someone else's final.json stays where it is, as evidence; the audit says it is not ours,
      // and this run ends as harness_error (the verdict then reads EVIDENCE INVALID).
      appendQuietly(evidence, "harness_error", { at: "final", error: finalWrite.error, message: finalWrite.message });
      finalReport = {
        ...final,
        stop_reason: "harness_error",
        verified_success: false,
        diagnostic: { ...(final.diagnostic ?? {}), evidence_problem: finalWrite.message },
      };
    }
    appendQuietly(evidence, "run_finished", {
      stop_reason: finalReport.stop_reason,
      verified_success: finalReport.verified_success,
    });
    traceCpuMark("run_finished");
  } finally {
    recorder.close();
  }
  return ok({ runId, runDirectory, loop, finalEvaluation, final: finalReport, workspace });
}

/** The audit file was swapped or its mode changed under the recorder; ends the run as harness_error. */
class EvidenceIntegrityError extends Error {
  override readonly name = "EvidenceIntegrityError";
}

type EvidenceWrite =
  | { readonly ok: true; readonly value: EvidenceFileIdentity }
  | { readonly ok: false; readonly error: "evidence_file_exists" | "evidence_unwritable"; readonly message: string };

/** An exclusive evidence write that reports, never throws: a file already there is a recorded fault. */
function writeEvidence(runDirectory: string, name: string, value: unknown): EvidenceWrite {
  try {
    return { ok: true, value: writeJsonExclusive(join(runDirectory, name), value) };
  } catch (error) {
    return isAlreadyPresent(error)
      ? {
          ok: false,
          error: "evidence_file_exists",
          message: `${name} already existed: it was not written by this run and was left untouched`,
        }
      : { ok: false, error: "evidence_unwritable", message: `${name} could not be written` };
  }
}

/** The last append of a run: an audit fault found here is already recorded, so it ends nothing more. */
function appendQuietly<K extends LabAuditEventType>(
  evidence: EvidenceSink,
  type: K,
  payload: DataOf<LabAuditCatalog, K>,
  proposalNumber: number | null = null,
): void {
  try {
    evidence.append(type, payload, proposalNumber);
  } catch (error) {
    if (!(error instanceof EvidenceIntegrityError)) throw error;
  }
}

function harnessFailedEvaluation(): FinalEvaluation {
  return {
    status: "not_run_harness_error",
    snapshot: null,
    publicPassed: 0,
    publicTotal: PUBLIC_FIXTURES.length,
    heldOutPassed: 0,
    heldOutTotal: HELD_OUT_FIXTURES.length,
    cases: [],
    verifiedSuccess: false,
    elapsedMs: 0,
  };
}

function isLoader(source: ProposalSource | ProposalSourceLoader): source is ProposalSourceLoader {
  return "load" in source && typeof source.load === "function";
}

function emptyLoop(stopReason: StopReason): LoopOutcome {
  return {
    stopReason,
    proposalsUsed: 0,
    invalidProposals: 0,
    acceptedFinish: null,
    phases: { generationMs: 0, validationMs: 0, editMs: 0, testMs: 0 },
    log: [],
  };
}

function boundedDiagnostic(error: unknown): { readonly error_name: string; readonly error_message: string } {
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  return { error_name: name.slice(0, 100), error_message: message.slice(0, 500) };
}
