// Gathers the evidence named on the command line and writes submission.md exclusively.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../../lab/result.ts";
import { readPredictions, type PredictionsRecord } from "../../lab/predictions.ts";
import { PACKAGE_ROOT } from "../runtimeIdentity.ts";
import { renderSubmission, type ChecksEvidence } from "./submissionDocument.ts";
import { readRunEvidence, record } from "./runEvidence.ts";

export interface SubmissionRequest {
  readonly baselineDirectory: string;
  readonly modelDirectory: string | null;
  readonly checksDirectory: string | null;
  readonly predictionsPath: string | null;
  readonly blockedReason: string | null;
}

export type SubmissionErrorCode = "run_evidence_missing" | "run_evidence_invalid" | "checks_invalid" | "predictions_invalid" | "wrong_run_kind";

export function buildSubmission(request: SubmissionRequest): Result<string, SubmissionErrorCode> {
  const baseline = readRunEvidence("baseline", request.baselineDirectory);
  if (!baseline.ok) return baseline;
  if (record(baseline.value.manifest["labels"])["kind"] !== "scripted_baseline") return err("wrong_run_kind", "--baseline must be a `tca lab baseline` run");
  let model = null;
  if (request.modelDirectory !== null) {
    const read = readRunEvidence("model", request.modelDirectory);
    if (!read.ok) return read;
    const kind = record(read.value.manifest["labels"])["kind"];
    if (kind !== "model_trial" && kind !== "synthetic_pipeline_check") return err("wrong_run_kind", "--model must be a `tca lab model` run");
    model = read.value;
  }
  let checks: ChecksEvidence | null = null;
  if (request.checksDirectory !== null) {
    const path = join(request.checksDirectory, "checks.json");
    if (!existsSync(path)) return err("checks_invalid", "checks.json is missing in --checks");
    try {
      const report = JSON.parse(readFileSync(path, "utf8")) as ChecksEvidence["report"] & { schema?: string };
      if (report.schema !== "tca.checks/1" || !Array.isArray(report.checks)) return err("checks_invalid", "checks.json is not a tca.checks/1 report");
      checks = { directory: request.checksDirectory, report };
    } catch {
      return err("checks_invalid", "checks.json is not JSON");
    }
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
  return ok(renderSubmission({ baseline: baseline.value, model, checks, predictions, blockedReason: request.blockedReason, implementationVersion: version }));
}
