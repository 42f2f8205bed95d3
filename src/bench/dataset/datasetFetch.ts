// fetch-dataset: the pinned QuixBugs commit, downloaded once as an archive and kept only when
// every file the benchmark uses matches the SHA-256 manifest committed in this project
// (quixbugsManifest.json). The transfer is the model acquisition's own (httpTransfer.ts:
// counted bytes, a byte ceiling, refused redirects, a deadline), called here, not copied; the
// archive's size cannot be pinned (GitHub generates it on request), so its size is a ceiling and
// its contents are what is verified. Everything is written into a fresh staging folder beside
// the destination and renamed into place only when complete: a partial download is never used.
// Nothing is extracted by path from the archive: only manifest paths are written, as regular
// files, by this code.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import { err, ok, type Result } from "../../core/result.ts";
import type { ArtifactErrorCode } from "../../model/artifacts/errorCodes.ts";
import { transferOnce, type ByteAllowance, type TransferOutcome } from "../../model/artifacts/httpTransfer.ts";
import quixbugsManifest from "./quixbugsManifest.json" with { type: "json" };

/** Codes of this module's own; transfer and identity failures keep the acquisition's codes. */
export const DATASET_FETCH_ERROR_CODES = ["archive_invalid", "dataset_present_but_different"] as const;
export type DatasetFetchErrorCode = (typeof DATASET_FETCH_ERROR_CODES)[number] | ArtifactErrorCode;

export interface ManifestFile {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface DatasetManifest {
  readonly repository: string;
  readonly commit: string;
  readonly license: string;
  readonly archiveUrl: string;
  readonly files: readonly ManifestFile[];
}

export const QUIXBUGS_MANIFEST: DatasetManifest = quixbugsManifest;

/** Limits of one fetch: the archive's bytes on the wire, its size unpacked, and the time. */
export const FETCH_LIMITS = {
  archiveMaxBytes: 64 * 1024 * 1024,
  unpackedMaxBytes: 256 * 1024 * 1024,
  deadlineMs: 5 * 60 * 1000,
  maxRedirects: 5,
  attempts: 2,
} as const;

export interface FetchDatasetOptions {
  /** Absolute path of the folder to create (it must not exist, unless it already verifies). */
  readonly directory: string;
  readonly manifest?: DatasetManifest;
  /** Defaults to the manifest's archiveUrl; a mirror or a test server otherwise. */
  readonly archiveUrl?: string;
  readonly limits?: Partial<typeof FETCH_LIMITS>;
  readonly onProgress?: (event: FetchProgressEvent) => void;
}

export type FetchProgressEvent =
  | { readonly kind: "attempt"; readonly attempt: number }
  | { readonly kind: "bytes"; readonly received: number; readonly ceiling: number }
  | { readonly kind: "verifying"; readonly files: number };

export interface FetchDatasetSuccess {
  readonly status: "fetched" | "already_present";
  readonly directory: string;
  readonly files: number;
  readonly archiveBytes: number;
  readonly archiveSha256: string | null;
}

export type FetchDatasetResult = Result<FetchDatasetSuccess, DatasetFetchErrorCode>;

/** The record written beside the files: where they came from, and that every one verified. */
export const FETCH_RECORD = "fetched.json";

export async function fetchDataset(options: FetchDatasetOptions): Promise<FetchDatasetResult> {
  const manifest = options.manifest ?? QUIXBUGS_MANIFEST;
  const limits = { ...FETCH_LIMITS, ...options.limits };
  const { directory } = options;
  if (!isAbsolute(directory))
    return err("destination_invalid", `the destination ${directory} must be an absolute path`);
  const existing = await stat(directory).catch(() => null);
  if (existing !== null) {
    const present = await verifyDirectory(directory, manifest);
    if (present.ok)
      return ok({
        status: "already_present",
        directory,
        files: manifest.files.length,
        archiveBytes: 0,
        archiveSha256: null,
      });
    return err(
      "dataset_present_but_different",
      `${directory} exists but is not the verified data set (${present.message}); remove it or choose another --directory`,
    );
  }
  try {
    await mkdir(dirname(directory), { recursive: true, mode: 0o700 });
  } catch {
    return err("destination_invalid", `the parent folder ${dirname(directory)} could not be created`);
  }
  const staging = await mkdtemp(join(dirname(directory), ".partial-quixbugs-")).catch(() => null);
  if (staging === null) return err("io_error", `no staging folder could be created in ${dirname(directory)}`);
  try {
    const downloaded = await download(
      join(staging, "archive.tar.gz"),
      options.archiveUrl ?? manifest.archiveUrl,
      manifest.commit,
      limits,
      options.onProgress,
    );
    if (!downloaded.ok) return downloaded;
    const archive = await readFile(join(staging, "archive.tar.gz"));
    await rm(join(staging, "archive.tar.gz"));
    options.onProgress?.({ kind: "verifying", files: manifest.files.length });
    const files = await verifiedFilesFromArchive(archive, manifest, limits.unpackedMaxBytes);
    if (!files.ok) return files;
    const tree = join(staging, "tree");
    for (const file of manifest.files) {
      const target = join(tree, ...file.path.split("/"));
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      await writeFile(target, files.value.get(file.path) ?? Buffer.alloc(0), { flag: "wx", mode: 0o644 });
    }
    const record = {
      repository: manifest.repository,
      commit: manifest.commit,
      license: manifest.license,
      archiveUrl: options.archiveUrl ?? manifest.archiveUrl,
      archiveBytes: downloaded.value.bytes,
      archiveSha256: downloaded.value.sha256,
      files: manifest.files.length,
      fetchedAt: new Date().toISOString(),
      verified: "every file's size and SHA-256 matched the project's manifest",
    };
    await writeFile(join(tree, FETCH_RECORD), `${JSON.stringify(record, null, 2)}\n`, { flag: "wx", mode: 0o644 });
    // The rename is the commit point: before it the destination does not exist at all.
    try {
      await rename(tree, directory);
    } catch {
      return err("destination_exists", `${directory} appeared while fetching; nothing was replaced`);
    }
    return ok({
      status: "fetched",
      directory,
      files: manifest.files.length,
      archiveBytes: downloaded.value.bytes,
      archiveSha256: downloaded.value.sha256,
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** One transfer, and one retry when the failure is an interruption or a server error. */
async function download(
  path: string,
  url: string,
  commit: string,
  limits: typeof FETCH_LIMITS,
  onProgress: FetchDatasetOptions["onProgress"],
): Promise<Result<{ bytes: number; sha256: string }, DatasetFetchErrorCode>> {
  const allowance: ByteAllowance = { limit: limits.archiveMaxBytes * limits.attempts, used: 0 };
  const deadline = AbortSignal.timeout(limits.deadlineMs);
  let last: TransferOutcome | null = null;
  for (let attempt = 1; attempt <= limits.attempts; attempt++) {
    onProgress?.({ kind: "attempt", attempt });
    let received = 0;
    last = await transferOnce({
      url,
      expectedBytes: limits.archiveMaxBytes,
      sizeIsCeiling: true,
      revision: commit, // a server that reports a commit (x-repo-commit) must report the pinned one
      expectedSha256: undefined,
      temporaryPath: path,
      allowance,
      maxRedirects: limits.maxRedirects,
      deadline,
      onPayloadBytes: (count) => {
        received += count;
        onProgress?.({ kind: "bytes", received, ceiling: limits.archiveMaxBytes });
      },
    });
    if (last.result.ok) return ok({ bytes: last.result.identity.bytes, sha256: last.result.identity.sha256 });
    if (!last.result.retryable) break;
  }
  if (last === null || last.result.ok) return err("io_error", "no transfer was attempted");
  return err(last.result.code, `${last.result.message} (${url})`);
}

/** Unpacks in memory and returns exactly the manifest's files, each checked; anything else is refused or ignored. */
export async function verifiedFilesFromArchive(
  archive: Buffer,
  manifest: DatasetManifest,
  unpackedMaxBytes: number,
): Promise<Result<Map<string, Buffer>, DatasetFetchErrorCode>> {
  let tarBytes: Buffer;
  try {
    tarBytes = gunzipSync(archive, { maxOutputLength: unpackedMaxBytes });
  } catch {
    return err("archive_invalid", `the archive is not gzip data, or unpacks to more than ${unpackedMaxBytes} bytes`);
  }
  const wanted = new Map(manifest.files.map((f) => [f.path, f]));
  const found = new Map<string, Buffer>();
  let problem: string | null = null;
  let prefix: string | null = null;
  const entries: Promise<void>[] = [];
  const onEntry = (entry: ReadEntry): void => {
    const slash = entry.path.indexOf("/");
    const top = slash < 0 ? entry.path : entry.path.slice(0, slash);
    const rel = slash < 0 ? "" : entry.path.slice(slash + 1).replace(/\/$/, "");
    prefix ??= top;
    if (top !== prefix) problem ??= `entries under more than one top folder (${prefix}, ${top})`;
    const pinned = wanted.get(rel);
    if (pinned === undefined) {
      entry.resume();
      return;
    }
    if (entry.type !== "File" && entry.type !== "OldFile")
      problem ??= `${rel} is a ${entry.type} in the archive, not a regular file`;
    else if (found.has(rel)) problem ??= `${rel} appears twice in the archive`;
    else if (entry.size !== pinned.bytes)
      problem ??= `${rel} has ${entry.size} bytes; the manifest says ${pinned.bytes}`;
    if (problem !== null) {
      entry.resume();
      return;
    }
    const chunks: Buffer[] = [];
    entries.push(
      new Promise((resolve) => {
        entry.on("data", (chunk: Buffer) => chunks.push(chunk));
        entry.on("end", () => {
          const bytes = Buffer.concat(chunks);
          if (createHash("sha256").update(bytes).digest("hex") !== pinned.sha256)
            problem ??= `${rel}: SHA-256 differs from the manifest`;
          else found.set(rel, bytes);
          resolve();
        });
      }),
    );
  };
  const parsed = await new Promise<boolean>((resolve) => {
    const parser = new Parser({ strict: true, onReadEntry: onEntry });
    parser.on("error", () => resolve(false));
    parser.on("end", () => resolve(true));
    parser.end(tarBytes);
  });
  await Promise.all(entries);
  if (!parsed) return err("archive_invalid", "the archive is not a valid tar file");
  if (problem !== null) {
    const text: string = problem;
    return err(
      /SHA-256/.test(text) ? "hash_mismatch" : /bytes; the manifest/.test(text) ? "size_mismatch" : "archive_invalid",
      text,
    );
  }
  const missing = manifest.files.filter((f) => !found.has(f.path)).map((f) => f.path);
  if (missing.length > 0)
    return err(
      "file_missing",
      `the archive lacks ${missing.length} manifest file(s), e.g. ${missing.slice(0, 3).join(", ")}`,
    );
  return ok(found);
}

/** An existing folder counts as the data set only if every manifest file is there and matches. */
export async function verifyDirectory(
  directory: string,
  manifest: DatasetManifest,
): Promise<Result<true, DatasetFetchErrorCode>> {
  for (const file of manifest.files) {
    const bytes = await readFile(join(directory, ...file.path.split("/"))).catch(() => null);
    if (bytes === null) return err("file_missing", `${file.path} is missing`);
    if (bytes.length !== file.bytes || createHash("sha256").update(bytes).digest("hex") !== file.sha256)
      return err("hash_mismatch", `${file.path} differs from the manifest`);
  }
  return ok(true);
}
