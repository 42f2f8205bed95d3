// A model directory whose acquisition did not finish (issue 28, item 4): the manifest of these
// pins records "failed" or "in_progress". Without a Hugging Face connection this is where a
// newcomer ends up, so `acquire` resumes it (files already verified are kept after re-hashing,
// the rest fetched) and `lab model` names it with the next step instead of a bare
// "not verified". Nothing here deletes or fetches; it only reads and describes.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { PinSet } from "../pins.ts";
import { hashFileOnDisk, type ObservedIdentity } from "./fileIdentity.ts";
import { LEDGER_FILE_NAME } from "./ledger.ts";
import { PREDICTIONS_FILE_NAME } from "../../recording/predictions.ts";
import {
  MANIFEST_FILE_NAME,
  manifestMatchesPins,
  readManifest,
  type DownloadManifest,
  type RecordedError,
} from "./manifest.ts";

export interface UnfinishedDownload {
  readonly manifest: DownloadManifest;
  readonly status: "failed" | "in_progress";
  readonly error: RecordedError | null;
  /** Pinned files present under their final name (re-hashed against the pin when asked). */
  readonly presentFiles: readonly string[];
  readonly missingFiles: readonly string[];
  /** Temporary `.NAME.partial` files an interrupted transfer left (a killed process). */
  readonly leftovers: readonly string[];
  /** Why it cannot be resumed as it is (unexpected entries, pinned names with other bytes). */
  readonly problems: readonly string[];
  /** "in_progress" and started less than its own deadline ago: another acquire may be running. */
  readonly mayStillBeRunning: boolean;
  /** Identities of the present files, when they were hashed (resume keeps exactly these). */
  readonly identities: ReadonlyMap<string, ObservedIdentity>;
}

/**
 * The unfinished download in `directory`, or null when there is none (no readable manifest of
 * these pins, or one that records "verified"). With `hash`, each present pinned file is re-read
 * and one that does not match its pin is a problem (it was placed only after verification, so
 * other bytes mean someone changed it); without, presence is enough (a description, not a resume).
 */
export async function findUnfinishedDownload(
  directory: string,
  pins: PinSet,
  nowMs: number,
  options: { readonly hash: boolean },
): Promise<UnfinishedDownload | null> {
  const read = await readManifest(directory).catch(() => null);
  if (read === null || !read.ok || read.value.status === "verified" || !manifestMatchesPins(read.value, pins).ok)
    return null;
  const manifest = read.value;
  const status = manifest.status === "in_progress" ? "in_progress" : "failed";
  const pinnedNames = new Set(pins.files.map((file) => file.name));
  const own = new Set([MANIFEST_FILE_NAME, LEDGER_FILE_NAME, PREDICTIONS_FILE_NAME]);
  const presentFiles: string[] = [];
  const leftovers: string[] = [];
  const problems: string[] = [];
  const identities = new Map<string, ObservedIdentity>();
  const entries = await readdir(directory, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (own.has(entry.name)) continue;
    const leftover = /^\.(.+)\.partial$/.exec(entry.name);
    if (leftover !== null && pinnedNames.has(leftover[1] ?? "") && entry.isFile()) {
      leftovers.push(entry.name);
      continue;
    }
    if (!pinnedNames.has(entry.name)) {
      problems.push(`unexpected ${entry.isDirectory() ? "folder" : "file"} "${entry.name.slice(0, 80)}"`);
      continue;
    }
    if (!entry.isFile()) {
      problems.push(`${entry.name} is not a regular file`);
      continue;
    }
    presentFiles.push(entry.name);
  }
  if (options.hash) {
    for (const name of presentFiles) {
      const pinned = pins.files.find((file) => file.name === name);
      if (pinned === undefined) continue;
      const size = (await lstat(join(directory, name))).size;
      const identity = size === pinned.bytes ? await hashFileOnDisk(join(directory, name), pinned.bytes) : null;
      const matches =
        identity !== null &&
        identity.bytes === pinned.bytes &&
        (pinned.gitBlobSha1 === undefined || identity.gitBlobSha1 === pinned.gitBlobSha1) &&
        (pinned.sha256 === undefined || identity.sha256 === pinned.sha256);
      if (matches) identities.set(name, identity);
      else problems.push(`${name} does not match its pin (changed after it was verified)`);
    }
  }
  const missingFiles = pins.files.map((file) => file.name).filter((name) => !presentFiles.includes(name));
  const started = Date.parse(manifest.started_at);
  const mayStillBeRunning =
    status === "in_progress" && Number.isFinite(started) && nowMs - started < manifest.limits.acquisition_deadline_ms;
  return {
    manifest,
    status,
    error: manifest.error,
    presentFiles,
    missingFiles,
    leftovers,
    problems,
    mayStillBeRunning,
    identities,
  };
}

/** One clause that says exactly what is there: the recorded status and error, then the files. */
export function describeUnfinishedDownload(unfinished: UnfinishedDownload, pins: PinSet): string {
  const error =
    unfinished.error === null
      ? ""
      : `: ${unfinished.error.code}${unfinished.error.file !== null ? ` (${unfinished.error.file})` : ""}: ${unfinished.error.message}`;
  const missing = unfinished.missingFiles.length === 0 ? "" : `; missing: ${unfinished.missingFiles.join(", ")}`;
  const leftovers =
    unfinished.leftovers.length === 0 ? "" : `; interrupted transfers: ${unfinished.leftovers.join(", ")}`;
  return `an unfinished download (the manifest records "${unfinished.status}"${error}); ${unfinished.presentFiles.length} of ${pins.files.length} pinned files present${missing}${leftovers}`;
}
