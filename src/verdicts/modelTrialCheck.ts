// Whether a Lab run that says a model made its proposals had that model (issue 33). Labels,
// run_kind, every record's source and the manifest's model section are text anyone can rewrite;
// what a relabel cannot fake without the real model is the model directory itself. So the
// verdict opens the run's model directory NOW through the loader's own gate
// (openCheckpointDirectory: every file re-hashed against the pins, weights SHA-256 and blob ids,
// and the acquisition manifest; or, for a synthetic or rehearsal checkpoint, against its own
// manifest) and compares what it verifies with what the run recorded at load time
// (manifest.json model_trial: the verified file digests, the model name, the checkpoint label).
//
// A run labelled model_trial or extension is a model trial only when its directory verifies as
// the pinned model and every recorded digest is the one verified now; a pipeline check only
// when its directory verifies as the synthetic or rehearsal checkpoint its labels name. Anything
// else is a coded problem, and the verdict says the run is not what it is labelled.
import { isRecord } from "../core/isRecord.ts";
import { canonicalJson } from "../core/canonicalJson.ts";
import { PINNED_MODEL } from "../model/pins.ts";
import type { ResultSource } from "../core/resultLabel.ts";

type Json = Readonly<Record<string, unknown>>;

/** Run kinds whose proposals a model is said to have made. */
const MODEL_RUN_KINDS = new Set(["model_trial", "extension", "rehearsal_trial", "synthetic_pipeline_check"]);

/** What a run says about its model (read from the artifacts, never believed). */
export interface ModelClaim {
  readonly kind: string;
  /** manifest.json model_trial.model_directory (null: none recorded). */
  readonly directory: string | null;
  /** The file digests the trial verified at load time (manifest.json model_trial.verified_file_sha256). */
  readonly recordedSha256: Json | null;
  readonly recordedModelName: string | null;
  /** labels.rehearsal: the run says its checkpoint is the rehearsal model. */
  readonly rehearsal: boolean;
}

export type ModelCheckCode =
  | "model_directory_missing"
  | "model_directory_unverified"
  | "not_the_pinned_model"
  | "not_the_labelled_checkpoint"
  | "model_digests_differ";

/** The model directory as verified now. */
export interface ModelCheck {
  readonly directory: string | null;
  readonly checkedAt: string;
  /** What the directory verified as (null: it did not verify). */
  readonly checkpoint: "pinned" | "synthetic" | "rehearsal" | null;
  readonly modelName: string | null;
  readonly sha256: Json | null;
  /** The loader's refusal when the directory did not verify. */
  readonly refusal: string | null;
}

/** What the verdict shows about the model of a run that claims one. */
export interface ModelTrialStatus {
  readonly claim: ModelClaim;
  /** "not_checked": this reading did not open the model directory (only the CLI and `lab verify` do). */
  readonly status: "verified" | "not_verified" | "not_checked";
  readonly code: ModelCheckCode | null;
  readonly message: string;
  /** The message without its code: the detail of the verdict's problem of that code. */
  readonly detail: string;
  readonly check: ModelCheck | null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The run's model claim, or null for a run that claims no model (a baseline, a negative check). */
export function modelClaimOf(
  manifest: Json | null,
  records: readonly { readonly type: string; readonly data: unknown }[],
): ModelClaim | null {
  const started = records.find((record) => record.type === "run_started")?.data;
  const labels = isRecord(manifest?.labels) ? manifest.labels : {};
  const kinds = [isRecord(started) ? started.run_kind : undefined, labels.kind].filter(
    (kind): kind is string => typeof kind === "string",
  );
  const kind = kinds.find((candidate) => MODEL_RUN_KINDS.has(candidate));
  if (kind === undefined) return null;
  const trial = isRecord(manifest?.model_trial) ? manifest.model_trial : {};
  return {
    kind,
    directory: stringOrNull(trial.model_directory),
    recordedSha256: isRecord(trial.verified_file_sha256) ? trial.verified_file_sha256 : null,
    recordedModelName: stringOrNull(trial.model_name),
    rehearsal: labels.rehearsal === true || kind === "rehearsal_trial",
  };
}

/** Opens the claimed model directory through the loader's gate, now. */
export async function checkModelDirectory(claim: ModelClaim, now: Date = new Date()): Promise<ModelCheck> {
  const checkedAt = now.toISOString();
  if (claim.directory === null)
    return { directory: null, checkedAt, checkpoint: null, modelName: null, sha256: null, refusal: null };
  // The loader's gate (and the model artifacts it reads) only for a run that names a model directory:
  // a baseline's or a check's verdict never opens one, so it does not load that side at all (#36).
  const { openCheckpointDirectory } = await import("../model/loader/checkpointDirectory.ts");
  const opened = await openCheckpointDirectory(claim.directory);
  if (!opened.ok)
    return {
      directory: claim.directory,
      checkedAt,
      checkpoint: null,
      modelName: null,
      sha256: null,
      refusal: `${opened.error}: ${opened.message}`,
    };
  const synthetic = opened.value.synthetic;
  return {
    directory: claim.directory,
    checkedAt,
    checkpoint: synthetic === null ? "pinned" : synthetic.label === "rehearsal" ? "rehearsal" : "synthetic",
    modelName: opened.value.modelName,
    sha256: { ...opened.value.sha256 },
    refusal: null,
  };
}

/** The claim judged against the directory verified now (or not checked, when `check` is null). */
export function judgeModelClaim(claim: ModelClaim, check: ModelCheck | null): ModelTrialStatus {
  const trial = claim.kind === "model_trial" || claim.kind === "extension";
  const what = trial ? "a model trial" : "a pipeline check";
  const fail = (code: ModelCheckCode, why: string): ModelTrialStatus => {
    const detail = `the run is labelled ${claim.kind}, but ${why}: it is not ${what}`;
    return { claim, status: "not_verified", code, message: `${code}: ${detail}`, detail, check };
  };
  if (check === null) {
    const message = `the run is labelled ${claim.kind}; its model directory was not verified in this reading`;
    return { claim, status: "not_checked", code: null, message, detail: message, check };
  }
  if (check.directory === null) return fail("model_directory_missing", "manifest.json names no model directory");
  if (check.checkpoint === null)
    return fail(
      "model_directory_unverified",
      `its model directory does not verify now (${check.refusal ?? "refused"})`,
    );
  if (trial && check.checkpoint !== "pinned")
    return fail(
      "not_the_pinned_model",
      `its model directory verifies as a ${check.checkpoint} checkpoint, not ${PINNED_MODEL.repository}`,
    );
  if (!trial && (check.checkpoint === "pinned" || (check.checkpoint === "rehearsal") !== claim.rehearsal))
    return fail(
      "not_the_labelled_checkpoint",
      `its model directory verifies as a ${check.checkpoint} checkpoint, the labels say ${claim.rehearsal ? "rehearsal" : "synthetic"}`,
    );
  if (claim.recordedSha256 === null || canonicalJson(claim.recordedSha256) !== canonicalJson(check.sha256))
    return fail(
      "model_digests_differ",
      "the file digests it recorded at load time are not those of its model directory now",
    );
  if (claim.recordedModelName !== check.modelName)
    return fail(
      "model_digests_differ",
      `it records the model ${JSON.stringify(claim.recordedModelName)}, its model directory is ${JSON.stringify(check.modelName)}`,
    );
  const message =
    check.checkpoint === "pinned"
      ? `model directory verified now against the pins of ${PINNED_MODEL.repository}@${PINNED_MODEL.revision} (${check.checkedAt})`
      : `model directory verified now against its own ${check.checkpoint} checkpoint manifest (${check.checkedAt})`;
  return { claim, status: "verified", code: null, message, detail: message, check };
}

type AuditRecordShape = { readonly type: string; readonly source?: unknown; readonly data: unknown };

/**
 * A rehearsal recorded before it had its own run kind (audit format 2 as first written): run_kind
 * synthetic_pipeline_check with labels.rehearsal true. Read as the same kind as rehearsal_trial:
 * the checkpoint check (its own rehearsal manifest) is the same, only the word changed.
 */
export function olderRehearsalKindNote(manifest: Json | null, records: readonly AuditRecordShape[]): string | null {
  const started = records.find((record) => record.type === "run_started")?.data;
  const labels = isRecord(manifest?.labels) ? manifest.labels : {};
  const kind = isRecord(started) && typeof started.run_kind === "string" ? started.run_kind : labels.kind;
  return kind === "synthetic_pipeline_check" && labels.rehearsal === true
    ? "run kind: recorded as synthetic_pipeline_check with labels.rehearsal true (written before the rehearsal had its own run kind, rehearsal_trial); read as a rehearsal"
    : null;
}

/** Whether a run-level section says synthetic anywhere (tca lab model writes it under model_trial). */
function containsSyntheticFlag(value: unknown, depth: number): boolean {
  if (depth > 4) return false;
  if (Array.isArray(value)) return value.some((item) => containsSyntheticFlag(item, depth + 1));
  if (!isRecord(value)) return false;
  if (value.synthetic === true) return true;
  return Object.values(value).some((item) => containsSyntheticFlag(item, depth + 1));
}

/**
 * What made a Lab run's proposals, re-derived for the label every result line carries first. The
 * model directory opened now decides when it verified (a relabelled rehearsal reads REHEARSAL
 * whatever its labels say); otherwise any mark of a rehearsal or synthetic checkpoint wins over a
 * model label, and a model trial's label always says its model was not verified. A scripted kind
 * holds only when every audit record came from the scripted source.
 */
export function labResultSource(
  manifest: Json | null,
  records: readonly AuditRecordShape[],
  modelTrial: ModelTrialStatus | null,
): ResultSource {
  const source = (kind: ResultSource["kind"], model: string | null = null, modelVerified = true): ResultSource => ({
    kind,
    model,
    modelVerified,
  });
  const checked = modelTrial?.check?.checkpoint ?? null;
  if (checked === "rehearsal") return source("rehearsal");
  if (checked === "synthetic") return source("pipeline_check");
  const started = records.find((record) => record.type === "run_started")?.data;
  const manifestLabels = isRecord(manifest?.labels) ? manifest.labels : {};
  const startedLabels = isRecord(started) && isRecord(started.labels) ? started.labels : {};
  const kinds = [isRecord(started) ? started.run_kind : undefined, manifestLabels.kind];
  const both = [manifestLabels, startedLabels];
  const extension = kinds.includes("extension");
  if (modelTrial !== null && checked === "pinned")
    return source(
      extension ? "extension" : "model_trial",
      modelTrial.check?.modelName ?? null,
      modelTrial.status === "verified",
    );
  if (both.some((labels) => labels.rehearsal === true) || kinds.includes("rehearsal_trial")) return source("rehearsal");
  const sections = ["model", "model_trial", "proposal_source", "checkpoint"].map((key) => manifest?.[key]);
  if (
    both.some((labels) => labels.synthetic_pipeline_check === true) ||
    kinds.includes("synthetic_pipeline_check") ||
    sections.some((section) => containsSyntheticFlag(section, 0))
  )
    return source("pipeline_check");
  if (modelTrial !== null)
    return source(extension ? "extension" : "model_trial", modelTrial.claim.recordedModelName, false);
  const scripted = records.every((record) => record.source === "scripted");
  if (scripted && kinds.includes("scripted_baseline")) return source("scripted_baseline");
  if (scripted && kinds.includes("negative_check")) return source("negative_check");
  return source("unlabelled");
}
