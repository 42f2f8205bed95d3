// The download manifest (schema tca.model-download-manifest, version 1): one record per
// pinned file plus totals, consent and timestamps. Acquisition writes it after every step,
// so a failure always leaves a manifest that says why; the loader accepts a directory only
// when this manifest says "verified" and the bytes on disk still agree.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import type { PinSet, PinnedFile } from "../pins.ts";
import type { ArtifactErrorCode } from "./errorCodes.ts";
import { asRecord } from "./jsonFile.ts";

export const MANIFEST_FILE_NAME = "download-manifest.json";
export const MANIFEST_SCHEMA = "tca.model-download-manifest";
export const MANIFEST_SCHEMA_VERSION = 1;

export type ConsentForm = "interactive_prompt" | "flag_yes";
export type FileStatus = "pending" | "verified" | "failed";
export type ManifestStatus = "in_progress" | "verified" | "failed";

export interface ExpectedIdentity {
  readonly kind: "git_blob_sha1" | "sha256";
  readonly value: string;
}

export interface RecordedError {
  readonly code: ArtifactErrorCode;
  readonly message: string;
  readonly file: string | null;
}

export interface ManifestFileEntry {
  name: string;
  repository: string;
  revision: string;
  url: string;
  expected_bytes: number;
  observed_bytes: number | null;
  expected_identity: ExpectedIdentity;
  /** The SHA256 the pin set fixes, when it fixes one (the weights); recorded for every file otherwise. */
  expected_sha256: string | null;
  observed_sha256: string | null;
  observed_git_blob_sha1: string | null;
  status: FileStatus;
  retries: number;
  /** Every payload byte received for this file, partial responses and retries included. */
  payload_bytes_received: number;
  redirects: number;
  /** Origin that served the final response (a CDN for large files); no path or query is kept. */
  served_by: string | null;
  error: RecordedError | null;
}

export interface DownloadManifest {
  schema: typeof MANIFEST_SCHEMA;
  schema_version: typeof MANIFEST_SCHEMA_VERSION;
  status: ManifestStatus;
  error: RecordedError | null;
  repository: string;
  revision: string;
  endpoint: string;
  consent: { form: ConsentForm; prompt: string; given_at: string };
  limits: {
    aggregate_ceiling_bytes: number;
    acquisition_deadline_ms: number;
    max_retries_per_file: number;
    max_redirects: number;
    /** Idle timeouts of each transfer attempt (issue 14); absent in manifests written before them. */
    header_timeout_ms?: number;
    body_idle_timeout_ms?: number;
  };
  started_at: string;
  finished_at: string | null;
  /** Monotonic elapsed time of the acquisition. */
  elapsed_ms: number | null;
  files: ManifestFileEntry[];
  /** Present when this acquisition resumed an unfinished one in the same directory (issue 28). */
  resumed_from?: {
    status: "failed" | "in_progress";
    error: RecordedError | null;
    started_at: string;
    /** Files the earlier acquisition had placed, re-hashed against the pins and kept. */
    kept_files: string[];
    /** Temporary files of killed transfers, removed (their files were fetched again). */
    removed_leftovers: string[];
  };
  totals: {
    files_expected: number;
    files_verified: number;
    expected_bytes: number;
    observed_bytes: number;
    payload_bytes_received: number;
    retries: number;
  };
}

export function manifestPath(directory: string): string {
  return join(directory, MANIFEST_FILE_NAME);
}

export function expectedIdentityOf(file: PinnedFile): ExpectedIdentity {
  if (file.gitBlobSha1 !== undefined) return { kind: "git_blob_sha1", value: file.gitBlobSha1 };
  if (file.sha256 !== undefined) return { kind: "sha256", value: file.sha256 };
  // A pin without identity is a programming error in a pin set, not a run-time condition.
  throw new Error(`pinned file ${file.name} has no identity`);
}

export function recomputeTotals(manifest: DownloadManifest): void {
  const verified = manifest.files.filter((file) => file.status === "verified");
  manifest.totals = {
    files_expected: manifest.files.length,
    files_verified: verified.length,
    expected_bytes: manifest.files.reduce((sum, file) => sum + file.expected_bytes, 0),
    observed_bytes: verified.reduce((sum, file) => sum + (file.observed_bytes ?? 0), 0),
    payload_bytes_received: manifest.files.reduce((sum, file) => sum + file.payload_bytes_received, 0),
    retries: manifest.files.reduce((sum, file) => sum + file.retries, 0),
  };
}

/** Reads and structurally checks a manifest; it is data from disk, so every field is checked before use. */
export async function readManifest(directory: string): Promise<Result<DownloadManifest, ArtifactErrorCode>> {
  let text: string;
  try {
    text = await readFile(manifestPath(directory), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return err("manifest_missing", "the directory has no download manifest");
    return err("io_error", "the download manifest could not be read");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return err("manifest_invalid", "the download manifest is not valid JSON");
  }
  const record = asRecord(parsed);
  if (record === undefined || record.schema !== MANIFEST_SCHEMA || record.schema_version !== MANIFEST_SCHEMA_VERSION) {
    return err("manifest_invalid", "the download manifest has an unknown schema or version");
  }
  const files = record.files;
  if (
    !["in_progress", "verified", "failed"].includes(String(record.status)) ||
    typeof record.repository !== "string" ||
    typeof record.revision !== "string" ||
    !Array.isArray(files) ||
    !files.every(isFileEntry)
  ) {
    return err("manifest_invalid", "the download manifest is missing required fields");
  }
  return ok(parsed as DownloadManifest);
}

function isFileEntry(value: unknown): boolean {
  const entry = asRecord(value);
  if (entry === undefined) return false;
  const identity = asRecord(entry.expected_identity);
  const nullableString = (field: unknown): boolean => field === null || typeof field === "string";
  return (
    typeof entry.name === "string" &&
    typeof entry.expected_bytes === "number" &&
    (entry.observed_bytes === null || typeof entry.observed_bytes === "number") &&
    identity !== undefined &&
    typeof identity.value === "string" &&
    nullableString(entry.observed_sha256) &&
    nullableString(entry.observed_git_blob_sha1) &&
    typeof entry.status === "string"
  );
}

/** Does the manifest describe exactly this pin set (same repository, revision, files, sizes, identities)? */
export function manifestMatchesPins(manifest: DownloadManifest, pins: PinSet): Result<true, ArtifactErrorCode> {
  if (manifest.repository !== pins.repository || manifest.revision !== pins.revision) {
    return err("manifest_mismatch", "the manifest names a different repository or revision than the pins");
  }
  if (manifest.files.length !== pins.files.length) {
    return err("manifest_mismatch", "the manifest lists a different set of files than the pins");
  }
  for (const pinned of pins.files) {
    const entry = manifest.files.find((file) => file.name === pinned.name);
    const identity = expectedIdentityOf(pinned);
    if (
      entry === undefined ||
      entry.expected_bytes !== pinned.bytes ||
      entry.expected_identity.kind !== identity.kind ||
      entry.expected_identity.value !== identity.value
    ) {
      return err("manifest_mismatch", `the manifest entry for ${pinned.name} disagrees with the pins`);
    }
  }
  return ok(true);
}
