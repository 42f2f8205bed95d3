// The model trial (Parts 8-9): the same runLab path as the baseline, with the local model as the
// proposal source. Before anything runs: recorded predictions (or an explicit choice to go
// without), the learner's run opt-in, a runtime lock that agrees with the lockfile, a verified
// model directory (or a synthetic checkpoint, labelled a pipeline check everywhere), and the
// acquisition ledger's trial window. No retry, fallback model, format repair or hidden call.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { systemClock, type MonotonicClock } from "../core/clock.ts";
import { compactingAssembler, type TokenCounter } from "../controller/compactingAssembler.ts";
import { buildRuntimeLock } from "../model/engine/runtimeLock.ts";
import { PACKAGE_ROOT } from "../recording/runtimeIdentity.ts";
import { sha256Hex } from "../core/digest.ts";
import { openTrialWindow, readLedger, type LedgerWindow } from "../model/artifacts/ledger.ts";
import { checkRunDestination } from "../workspace/index.ts";
import { requireVerifiedHarness, verifyHarnessEvidence } from "./harnessVerification.ts";
import { decideTrialRole, type TrialRole, type TrialRoleErrorCode } from "./trialSequence.ts";
import { MANIFEST_FILE_NAME } from "../model/artifacts/manifest.ts";
import { openCheckpointDirectory } from "../model/loader/checkpointDirectory.ts";
import { createChatTokenizer } from "../model/tokenizer/chatTokenizer.ts";
import { checkpointOutputNote, checkpointRunLabels, REHEARSAL_LABEL } from "../model/synthetic/syntheticManifest.ts";
import { LocalModelSource, type LocalModelSourceOptions } from "../sources/localModelSource.ts";
import { CONTROLLER_LIMITS } from "../constants/labConstants.ts";
import { runLab, type LabRunResult, type ProposalSourceLoader } from "./labRun.ts";
import type { PredictionsRecord } from "../recording/predictions.ts";
import { err, ok, type Result } from "../core/result.ts";

export type ModelTrialErrorCode =
  | "predictions_missing"
  | "run_not_authorized"
  | "runtime_lock_mismatch"
  | "model_directory_rejected"
  | "trial_window_closed"
  | "run_directory_rejected"
  | "harness_evidence_invalid"
  | TrialRoleErrorCode;

export interface ModelTrialOptions {
  readonly runDirectory: string;
  readonly modelDirectory: string;
  /** How the learner authorized this run: an interactive confirmation or --yes. */
  readonly runConsent: "interactive_confirmation" | "yes_flag" | null;
  readonly predictions: { readonly record: PredictionsRecord; readonly path: string } | "without_predictions" | null;
  readonly cancellation?: AbortSignal;
  readonly clock?: MonotonicClock;
  /** Tests point this at a fake lockfile tree; the CLI uses the checkout itself. */
  readonly packageRoot?: string;
  /** The declared change of an extension (a trial after the first in the ledger); null or absent for the trial. */
  readonly extension?: string | null;
  /** The baseline run and checks root that verified this harness (recorded before loading). */
  readonly baselineDirectory?: string | null;
  readonly checksDirectory?: string | null;
  /** Run although supplied --baseline/--checks evidence does not verify (recorded in the manifest). */
  readonly unverifiedHarness?: boolean;
  /** Live token counts of each generation, for the CLI's status line (never recorded). */
  readonly onGenerationProgress?: LocalModelSourceOptions["onGenerationProgress"];
  /** Tests start the compiled worker here (test/support/compiledWorker.ts); the CLI passes none. */
  readonly supervisor?: LocalModelSourceOptions["supervisor"];
}

export interface ModelTrialResult {
  readonly run: LabRunResult;
  readonly synthetic: boolean;
  /** The trial or an extension (null for a synthetic pipeline check, which is never a trial). */
  readonly role: TrialRole | null;
}

export async function runModelTrial(
  options: ModelTrialOptions,
): Promise<Result<ModelTrialResult, ModelTrialErrorCode>> {
  if (options.predictions === null) {
    return err("predictions_missing", "record your predictions first (tca lab predict), or pass --without-predictions");
  }
  if (options.runConsent === null)
    return err("run_not_authorized", "the trial needs your explicit opt-in (answer yes, or pass --yes)");

  const lock = buildRuntimeLock(options.packageRoot ?? PACKAGE_ROOT);
  if (lock.mismatches.length > 0) {
    return err(
      "runtime_lock_mismatch",
      `the installed packages disagree with package-lock.json (${lock.mismatches.slice(0, 3).join("; ")}); run npm ci`,
    );
  }

  // Before anything is opened, claimed or loaded: supplied evidence that does not verify stops here.
  const harnessChecked = requireVerifiedHarness(
    verifyHarnessEvidence(
      options.baselineDirectory ?? null,
      options.checksDirectory ?? null,
      new Date(),
      options.unverifiedHarness === true,
    ),
  );
  if (!harnessChecked.ok) return harnessChecked;
  const harness = harnessChecked.value;

  const checkpoint = await openCheckpointDirectory(options.modelDirectory);
  if (!checkpoint.ok) return err("model_directory_rejected", `${checkpoint.error}: ${checkpoint.message}`);
  const synthetic = checkpoint.value.synthetic !== null;
  const tokenizer = createChatTokenizer(checkpoint.value.tokenizerJson, checkpoint.value.tokenizerConfigJson);
  if (!tokenizer.ok) return err("model_directory_rejected", `${tokenizer.error}: ${tokenizer.message}`);

  // The pinned model shares one 30-minute window with its acquisition; a synthetic checkpoint
  // was never acquired and has no window, so it gets the Lab's plain 10-minute trial budget.
  let budgetMs: number = CONTROLLER_LIMITS.overallDeadlineMs;
  let windowId: string | null = null;
  let acquisitionMs: number | null = null;
  let role: TrialRole | null = null;
  let consent: LedgerWindow["consent"] = null;
  const extension = options.extension ?? null;
  if (synthetic && extension !== null) {
    return err(
      "extension_not_applicable",
      checkpoint.value.synthetic?.label === REHEARSAL_LABEL
        ? "the rehearsal checkpoint gives a rehearsal, never a trial, so it has no extensions"
        : "a synthetic checkpoint gives a pipeline check, never a trial, so it has no extensions",
    );
  }
  if (!synthetic) {
    // The trial or an extension, decided from the ledger before this run claims its window.
    const before = await readLedger(checkpoint.value.directory);
    if (!before.ok) return err("trial_window_closed", `${before.error}: ${before.message}`);
    const decided = decideTrialRole(before.value, extension);
    if (!decided.ok) return decided;
    role = decided.value;
    // A window claimed for a run that cannot be created would be a trial without evidence.
    const destination = await checkRunDestination(options.runDirectory);
    if (!destination.ok) return err("run_directory_rejected", `${destination.error}: ${destination.message}`);
    const window = await openTrialWindow(checkpoint.value.directory);
    if (!window.ok) return err("trial_window_closed", `${window.error}: ${window.message}`);
    budgetMs = Math.min(budgetMs, window.value.remainingMs);
    windowId = window.value.windowId;
    const ledger = await readLedger(checkpoint.value.directory);
    const claimed = ledger.ok ? ledger.value.windows.find((w) => w.window_id === windowId) : undefined;
    acquisitionMs = claimed?.acquisition.elapsed_ms ?? null;
    consent = claimed?.consent ?? null;
  }

  // Input tokens are counted in this process with the same verified tokenizer and template the
  // worker uses, so compaction happens before the worker is ever asked.
  const chat = tokenizer.value;
  const countTokens: TokenCounter = async (messages) => {
    const rendered = chat.render(messages);
    if (!rendered.ok) throw new Error("the verified chat template failed to render");
    return chat.encode(rendered.value).length;
  };
  const clock = options.clock ?? systemClock;
  // A synthetic checkpoint's own label: "synthetic-pipeline-check" or "rehearsal"; never "model".
  const label = checkpoint.value.synthetic !== null ? checkpoint.value.synthetic.label : "model";
  const loader: ProposalSourceLoader = {
    label,
    describePending: () => ({ model_directory: checkpoint.value.directory, synthetic }),
    async load(overallDeadlineMs, signal) {
      const created = await LocalModelSource.create({
        modelDirectory: checkpoint.value.directory,
        overallDeadlineMs,
        clock,
        signal,
        ...(options.onGenerationProgress !== undefined ? { onGenerationProgress: options.onGenerationProgress } : {}),
        ...(options.supervisor !== undefined ? { supervisor: options.supervisor } : {}),
      });
      return created.ok ? ok(created.value) : err(created.error, created.message);
    },
  };

  const run = await runLab({
    runDirectory: options.runDirectory,
    // The rehearsal has its own word: it is a rehearsal, not a random-weight pipeline check.
    kind:
      label === REHEARSAL_LABEL
        ? "rehearsal_trial"
        : synthetic
          ? "synthetic_pipeline_check"
          : role?.role === "extension"
            ? "extension"
            : "model_trial",
    source: loader,
    clock,
    cancellation: options.cancellation,
    overallBudgetMs: budgetMs,
    assembler: compactingAssembler(countTokens),
    acquisitionMs,
    ...(checkpoint.value.synthetic !== null ? { labelExtras: checkpointRunLabels(checkpoint.value.synthetic) } : {}),
    beforeLoad: (runDirectory) => {
      writeFileSync(join(runDirectory, "runtime-lock.json"), `${JSON.stringify(lock, null, 2)}\n`, {
        flag: "wx",
        mode: 0o600,
      });
    },
    manifestExtras: {
      model_trial: {
        model_directory: checkpoint.value.directory,
        model_manifest: synthetic
          ? join(checkpoint.value.directory, "synthetic-manifest.json")
          : join(checkpoint.value.directory, MANIFEST_FILE_NAME),
        model_name: checkpoint.value.modelName,
        synthetic,
        synthetic_note: synthetic
          ? label === "synthetic-pipeline-check"
            ? "random-weight synthetic checkpoint: a PIPELINE CHECK of the harness and engine, not a model result"
            : checkpointOutputNote(label)
          : null,
        ...(checkpoint.value.synthetic !== null
          ? {
              checkpoint_labels: checkpointRunLabels(checkpoint.value.synthetic),
              tokenizer_note: checkpoint.value.synthetic.tokenizer_note ?? null,
            }
          : {}),
        verified_file_sha256: checkpoint.value.sha256,
        config_sha256: sha256Hex(checkpoint.value.configBytes),
        load_time_override: "float32 weights and KV cache at load time; config.json bytes unchanged",
        run_consent: options.runConsent,
        predictions: options.predictions === "without_predictions" ? null : options.predictions.record,
        predictions_choice: options.predictions === "without_predictions" ? "without_predictions" : "recorded",
        predictions_path: options.predictions === "without_predictions" ? null : options.predictions.path,
        trial_window_id: windowId,
        trial_budget_ms: budgetMs,
        runtime_lock_file: "runtime-lock.json",
        token_counting: "input tokens counted after the verified chat template, in the controller process",
        trial_role: role?.role ?? null,
        trial_ordinal: role?.ordinal ?? null,
        declared_change: role?.declaredChange ?? null,
        earlier_trial_windows: role?.earlierTrialWindows ?? [],
        acquisition_consent: consent,
        harness_verification: harness,
      },
    },
  });
  if (!run.ok) return err("run_directory_rejected", `${run.error}: ${run.message}`);
  return ok({ run: run.value, synthetic, role });
}
