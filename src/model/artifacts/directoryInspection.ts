// Re-checks a model directory from the bytes on disk: exactly the pinned files (plus the
// room's own manifest and ledger), each a regular file with the pinned size and identity,
// the loader configs free of code requests, and (when required) a manifest that says
// "verified" and agrees with both the pins and the disk. Used by `tca model verify`
// (full table), by acquisition (final pass) and by requireVerifiedModelDirectory (loader gate).
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { PinSet, PinnedFile } from "../pins.ts";
import { checkLoaderConfig, isLoaderConfigName } from "./configCheck.ts";
import type { ArtifactErrorCode } from "./errorCodes.ts";
import { hashFileOnDisk } from "./fileIdentity.ts";
import { LEDGER_FILE_NAME } from "./ledger.ts";
import { PREDICTIONS_FILE_NAME } from "../../recording/predictions.ts";
import {
  expectedIdentityOf,
  MANIFEST_FILE_NAME,
  manifestMatchesPins,
  readManifest,
  type DownloadManifest,
  type ExpectedIdentity,
} from "./manifest.ts";

export interface DirectoryIssue {
  readonly code: ArtifactErrorCode;
  readonly message: string;
  readonly file: string | null;
}

export interface FileCheck {
  readonly name: string;
  readonly expectedBytes: number;
  readonly observedBytes: number | null;
  readonly expectedIdentity: ExpectedIdentity;
  readonly observedSha256: string | null;
  readonly observedGitBlobSha1: string | null;
  readonly ok: boolean;
  readonly issue: DirectoryIssue | null;
}

export interface DirectoryReport {
  readonly ok: boolean;
  readonly files: readonly FileCheck[];
  /** Every problem found, in the order checked; the first one is the loader's error. */
  readonly issues: readonly DirectoryIssue[];
  readonly manifest: DownloadManifest | null;
  readonly configBytes: Buffer | null;
}

/** Names that would let a loader run code (pickle, Python, native libraries, scripts). */
const EXECUTABLE_OR_PICKLE =
  /\.(bin|pt|pth|pkl|pickle|ckpt|py|pyc|pyo|so|dylib|dll|exe|sh|bat|cmd|ps1|js|mjs|cjs|h5|msgpack|joblib|npy|npz|onnx|gguf|zip|tar|gz)$/i;

export async function inspectModelDirectory(
  directory: string,
  pins: PinSet,
  options: { readonly requireManifest: boolean },
): Promise<DirectoryReport> {
  const issues: DirectoryIssue[] = [];
  const emptyReport = (issue: DirectoryIssue): DirectoryReport => ({
    ok: false,
    files: [],
    issues: [issue],
    manifest: null,
    configBytes: null,
  });
  try {
    const stats = await lstat(directory);
    if (!stats.isDirectory()) {
      return emptyReport({
        code: "directory_missing",
        message: "the model directory is not a directory (symlinks are refused)",
        file: null,
      });
    }
  } catch {
    return emptyReport({ code: "directory_missing", message: "the model directory does not exist", file: null });
  }

  issues.push(...(await unexpectedEntries(directory, pins)));

  let manifest: DownloadManifest | null = null;
  if (options.requireManifest) {
    const read = await readManifest(directory);
    if (!read.ok) {
      issues.push({ code: read.error, message: read.message, file: MANIFEST_FILE_NAME });
    } else {
      manifest = read.value;
      const matches = manifestMatchesPins(manifest, pins);
      if (!matches.ok) issues.push({ code: matches.error, message: matches.message, file: MANIFEST_FILE_NAME });
      if (manifest.status !== "verified") {
        const reason =
          manifest.error !== null && manifest.error !== undefined
            ? ` (${manifest.error.code}: ${manifest.error.message})`
            : "";
        issues.push({
          code: "manifest_not_verified",
          message: `the manifest records status "${manifest.status}"${reason}`,
          file: MANIFEST_FILE_NAME,
        });
      }
    }
  }

  const files: FileCheck[] = [];
  let configBytes: Buffer | null = null;
  for (const pinned of pins.files) {
    const check = await checkPinnedFile(directory, pinned, manifest);
    files.push(check);
    if (check.issue !== null) {
      issues.push(check.issue);
      continue;
    }
    if (isLoaderConfigName(pinned.name)) {
      const bytes = await readFile(join(directory, pinned.name));
      const verdict = checkLoaderConfig(pinned.name, bytes, pins);
      if (!verdict.ok) issues.push({ code: verdict.error, message: verdict.message, file: pinned.name });
      if (pinned.name === "config.json") configBytes = bytes;
    }
  }
  return { ok: issues.length === 0, files, issues, manifest, configBytes };
}

async function unexpectedEntries(directory: string, pins: PinSet): Promise<DirectoryIssue[]> {
  // predictions.json (tca lab predict) sits beside the ledger: a learner's JSON record, never loaded as model data.
  const allowed = new Set<string>([
    ...pins.files.map((file) => file.name),
    MANIFEST_FILE_NAME,
    LEDGER_FILE_NAME,
    PREDICTIONS_FILE_NAME,
  ]);
  const issues: DirectoryIssue[] = [];
  const entries = await readdir(directory, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (allowed.has(entry.name)) continue;
    if (EXECUTABLE_OR_PICKLE.test(entry.name)) {
      issues.push({
        code: "unexpected_executable_file",
        message: `unexpected executable or pickle file "${entry.name}"`,
        file: entry.name,
      });
    } else {
      const kind = entry.isDirectory() ? "directory" : "file";
      issues.push({
        code: "unexpected_file",
        message: `unexpected ${kind} "${entry.name}" in the model directory`,
        file: entry.name,
      });
    }
  }
  return issues;
}

async function checkPinnedFile(
  directory: string,
  pinned: PinnedFile,
  manifest: DownloadManifest | null,
): Promise<FileCheck> {
  const expectedIdentity = expectedIdentityOf(pinned);
  const base = { name: pinned.name, expectedBytes: pinned.bytes, expectedIdentity };
  const fail = (
    code: ArtifactErrorCode,
    message: string,
    observed: Partial<Pick<FileCheck, "observedBytes" | "observedSha256" | "observedGitBlobSha1">> = {},
  ): FileCheck => ({
    ...base,
    observedBytes: observed.observedBytes ?? null,
    observedSha256: observed.observedSha256 ?? null,
    observedGitBlobSha1: observed.observedGitBlobSha1 ?? null,
    ok: false,
    issue: { code, message, file: pinned.name },
  });
  const path = join(directory, pinned.name);
  let size: number;
  try {
    const stats = await lstat(path);
    if (!stats.isFile()) return fail("file_not_regular", `${pinned.name} is not a regular file (symlinks are refused)`);
    size = stats.size;
  } catch {
    return fail("file_missing", `${pinned.name} is missing`);
  }
  if (size !== pinned.bytes) {
    return fail("size_mismatch", `${pinned.name} has ${size} bytes; the pin says ${pinned.bytes}`, {
      observedBytes: size,
    });
  }
  const observed = await hashFileOnDisk(path, pinned.bytes);
  const seen = {
    observedBytes: observed.bytes,
    observedSha256: observed.sha256,
    observedGitBlobSha1: observed.gitBlobSha1,
  };
  if (observed.bytes !== pinned.bytes) {
    return fail("size_mismatch", `${pinned.name} changed size while it was read`, seen);
  }
  if (pinned.gitBlobSha1 !== undefined && observed.gitBlobSha1 !== pinned.gitBlobSha1) {
    return fail("blob_id_mismatch", `${pinned.name} does not match its pinned Git blob id`, seen);
  }
  if (pinned.sha256 !== undefined && observed.sha256 !== pinned.sha256) {
    return fail("hash_mismatch", `${pinned.name} does not match its pinned SHA256`, seen);
  }
  if (manifest !== null) {
    const entry = manifest.files.find((file) => file.name === pinned.name);
    if (entry === undefined || entry.status !== "verified" || entry.observed_sha256 !== observed.sha256) {
      return fail(
        "manifest_mismatch",
        `${pinned.name} is not recorded as verified with these bytes in the manifest`,
        seen,
      );
    }
  }
  return { ...base, ...seen, ok: true, issue: null };
}
