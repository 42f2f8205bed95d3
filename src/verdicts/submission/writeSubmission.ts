// Gathers the evidence named on the command line and writes submission.md exclusively.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { formatProblem } from "../../recording/evidenceProblem.ts";
import { deriveChecksVerdict } from "../checksVerdict.ts";
import { readPredictions, type PredictionsRecord } from "../../recording/predictions.ts";
import { PACKAGE_ROOT } from "../../recording/runtimeIdentity.ts";
import { renderSubmission, type ChecksEvidence } from "./submissionDocument.ts";
import { modelCheckOfRun } from "../runVerdict.ts";
import type { ModelCheck } from "../modelTrialCheck.ts";
import { readRunEvidence, record, runKind, type RunEvidence } from "./runEvidence.ts";
import {
  acquisitionConsent,
  listLedgerTrials,
  measureDiskUse,
  modelDirectoryOf,
  type TrialEntry,
  type TrialListErrorCode,
} from "./modelEvidence.ts";

export interface SubmissionRequest {
  readonly baselineDirectory: string;
  readonly modelDirectory: string | null;
  readonly checksDirectory: string | null;
  readonly predictionsPath: string | null;
  readonly blockedReason: string | null;
  /** Later trials of the same ledger (`tca lab model --extension`), any order; listed in ledger order. */
  readonly extensionDirectories?: readonly string[];
  /** The --model run's model directory opened now (buildSubmissionCheckingModels); absent: not checked. */
  readonly modelCheck?: ModelCheck;
  /** The same for each extension, in the order of extensionDirectories. */
  readonly extensionChecks?: readonly (ModelCheck | undefined)[];
}

export type SubmissionErrorCode =
  "run_evidence_missing" | "run_evidence_invalid" | "checks_invalid" | "predictions_invalid" | TrialListErrorCode;

export function buildSubmission(request: SubmissionRequest): Result<string, SubmissionErrorCode> {
  const baseline = readRunEvidence("baseline", request.baselineDirectory);
  if (!baseline.ok) return baseline;
  if (record(baseline.value.manifest["labels"])["kind"] !== "scripted_baseline")
    return err("wrong_run_kind", "--baseline must be a `tca lab baseline` run");
  let model = null;
  if (request.modelDirectory !== null) {
    const read = readRunEvidence("model", request.modelDirectory, request.modelCheck);
    if (!read.ok) return read;
    const kind = record(read.value.manifest["labels"])["kind"];
    if (kind === "extension")
      return err("wrong_run_kind", "--model must be the ledger's first trial; an extension goes in --extension");
    if (kind !== "model_trial" && kind !== "synthetic_pipeline_check" && kind !== "rehearsal_trial")
      return err("wrong_run_kind", "--model must be a `tca lab model` run");
    model = read.value;
  }
  const extensions: RunEvidence[] = [];
  for (const [i, directory] of (request.extensionDirectories ?? []).entries()) {
    const read = readRunEvidence(`extension${i + 1}`, directory, request.extensionChecks?.[i]);
    if (!read.ok) return read;
    if (record(read.value.manifest["labels"])["kind"] !== "extension")
      return err("wrong_run_kind", "--extension must be a `tca lab model --extension` run");
    extensions.push(read.value);
  }
  // A real trial is reported with every other trial of its ledger, in order (Part 10).
  let trials: TrialEntry[] = [];
  if (model !== null && runKind(model) === "model_trial") {
    const listed = listLedgerTrials(model, extensions);
    if (!listed.ok) return listed;
    trials = listed.value;
  } else if (extensions.length > 0) {
    return err("wrong_run_kind", "extensions belong to a real model trial given with --model");
  }
  const modelDirectory = model ? modelDirectoryOf(model) : null;
  const consent =
    model && runKind(model) === "model_trial" && modelDirectory ? acquisitionConsent(modelDirectory) : null;
  const diskUse = modelDirectory ? measureDiskUse(modelDirectory) : null;
  let checks: ChecksEvidence | null = null;
  if (request.checksDirectory !== null) {
    // Re-derived check by check from the run directories (src/verdicts/checksVerdict.ts);
    // checks.json is only compared, never believed.
    const verdict = deriveChecksVerdict(request.checksDirectory);
    if (verdict.kind === "incomplete") return err("checks_invalid", "checks.json is missing in --checks");
    if (verdict.kind === "evidence_invalid")
      return err(
        "checks_invalid",
        `${verdict.headline}: ${verdict.problems.slice(0, 3).map(formatProblem).join("; ")}`,
      );
    const rows = verdict.rows.map((row) => ({
      id: row.id,
      expected: row.expected,
      observed: row.observed,
      unchanged: row.unchanged,
      stopReason: row.stopReason,
      passed: row.passed,
    }));
    checks = {
      directory: request.checksDirectory,
      report: { total: verdict.total, passed: verdict.passed, failed: verdict.failed, checks: rows },
      processesStarted: verdict.processesStarted,
    };
  }
  let predictions: PredictionsRecord | null = null;
  const embedded = model ? record(model.manifest["model_trial"])["predictions"] : undefined;
  if (request.predictionsPath !== null) {
    const read = readPredictions(request.predictionsPath);
    if (!read.ok) return err("predictions_invalid", read.message);
    predictions = read.value;
  } else if (embedded && typeof embedded === "object") {
    predictions = embedded as PredictionsRecord;
  }
  const version = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
  return ok(
    renderSubmission({
      baseline: baseline.value,
      model,
      checks,
      predictions,
      blockedReason: request.blockedReason,
      implementationVersion: version,
      trials,
      consent,
      diskUse,
    }),
  );
}

/**
 * What `tca lab submission` writes: the model run's (and each extension's) model directory opened
 * and re-hashed now, so a run relabelled a model trial is refused and submission.md says "a real
 * model was called" only for a directory that verifies as the pinned model.
 */
export async function buildSubmissionCheckingModels(
  request: SubmissionRequest,
): Promise<Result<string, SubmissionErrorCode>> {
  const modelCheck = request.modelDirectory === null ? undefined : await modelCheckOfRun(request.modelDirectory);
  const extensionChecks: (ModelCheck | undefined)[] = [];
  for (const directory of request.extensionDirectories ?? []) extensionChecks.push(await modelCheckOfRun(directory));
  return buildSubmission({ ...request, ...(modelCheck === undefined ? {} : { modelCheck }), extensionChecks });
}
