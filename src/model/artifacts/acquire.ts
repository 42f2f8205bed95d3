// Acquisition of the pinned files into a new directory (Parts 1-2). Order of refusals, each
// before any byte is requested: destination (existing or invalid; an already verified
// directory skips acquisition instead, and an unfinished one of ours is resumed), consent,
// resources. Then the directory is created
// exclusively (owner-only), the manifest and ledger are written, and each file is fetched
// into a temporary name, hashed while streaming, and moved into place only after its size
// and identity match. Any failure stops the whole acquisition and the manifest says why.
import { chmod, link, lstat, mkdir, readFile, rm } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { PINNED_FILES, TIME_LIMITS, TRANSFER_RULES, type PinSet, type PinnedFile } from "../pins.ts";
import { after, systemClock, systemWallClock, type MonotonicClock, type WallClock } from "../../core/clock.ts";
import { checkLoaderConfig, isLoaderConfigName } from "./configCheck.ts";
import { consentPrompt, type ConsentDecider } from "./consent.ts";
import { inspectModelDirectory } from "./directoryInspection.ts";
import { fileUrl, type ResolvedEndpoint } from "./endpoint.ts";
import type { ArtifactErrorCode } from "./errorCodes.ts";
import { DEFAULT_IDLE_TIMEOUTS, transferOnce, type ByteAllowance, type IdleTimeouts } from "./httpTransfer.ts";
import { writeJsonAtomic } from "./jsonFile.ts";
import { appendWindow, newWindow, updateLatestWindow, type AcquisitionLedger } from "./ledger.ts";
import {
  expectedIdentityOf,
  manifestPath,
  recomputeTotals,
  type ConsentForm,
  type DownloadManifest,
  type ManifestFileEntry,
  type RecordedError,
} from "./manifest.ts";
import { silentProgress, type AcquisitionProgress } from "./progress.ts";
import { describeUnfinishedDownload, findUnfinishedDownload, type UnfinishedDownload } from "./unfinishedDownload.ts";
import {
  checkResources,
  DEFAULT_RESOURCE_THRESHOLDS,
  readMachineResources,
  type ResourceReader,
  type ResourceThresholds,
} from "./resources.ts";

export interface AcquireOptions {
  /** Absolute path of the directory to create. */
  readonly directory: string;
  readonly endpoint: ResolvedEndpoint;
  readonly consent: ConsentDecider;
  /** Tests inject their own fixture pins; the CLI always uses PINNED_FILES. */
  readonly pins?: PinSet;
  readonly readResources?: ResourceReader;
  readonly resourceThresholds?: ResourceThresholds;
  readonly clock?: MonotonicClock;
  readonly wallClock?: WallClock;
  readonly deadlineMs?: number;
  /** Header and body idle timeouts of each transfer attempt (default 30 s each); recorded in the manifest. */
  readonly idleTimeouts?: IdleTimeouts;
  readonly progress?: AcquisitionProgress;
}

export interface AcquireSuccess {
  readonly status: "acquired" | "already_verified";
  readonly manifestPath: string;
  /** Files an earlier, unfinished acquisition had verified, re-hashed and kept (not fetched again). */
  readonly keptFiles: readonly string[];
  readonly manifest: DownloadManifest | null;
  readonly payloadBytesReceived: number;
}

/**
 * A failure after the directory exists also carries the manifest path that records why;
 * `startOver` marks an unfinished download of ours that cannot be resumed as it is (the CLI
 * then gives the command that removes it and starts again).
 */
export type AcquireResult = Result<AcquireSuccess, ArtifactErrorCode> & {
  readonly manifestPath?: string;
  readonly startOver?: true;
};

export async function acquireModel(options: AcquireOptions): Promise<AcquireResult> {
  const pins = options.pins ?? PINNED_FILES;
  const clock = options.clock ?? systemClock;
  const wallClock = options.wallClock ?? systemWallClock;
  const { directory } = options;

  if (!isAbsolute(directory)) return err("destination_invalid", "the destination must be an absolute path");
  const parent = dirname(directory);
  try {
    if (!(await lstat(parent)).isDirectory())
      return err("destination_invalid", "the destination's parent is not a directory");
  } catch {
    return err("destination_invalid", "the destination's parent directory does not exist");
  }
  const existing = await lstat(directory).catch(() => null);
  let resume: UnfinishedDownload | null = null;
  if (existing !== null) {
    let reason = "it is not a directory";
    if (existing.isDirectory()) {
      try {
        const report = await inspectModelDirectory(directory, pins, { requireManifest: true });
        if (report.ok) {
          // Part 1: an already verified local model skips acquisition; a fresh window opens for the trial.
          await appendWindow(directory, pins, newWindow(wallClock(), null, "skipped_already_verified"));
          return ok({
            status: "already_verified",
            manifestPath: manifestPath(directory),
            manifest: report.manifest,
            payloadBytesReceived: 0,
            keptFiles: [],
          });
        }
        reason = report.issues[0]?.code ?? "it does not verify";
        // An acquisition of these pins that failed or was killed: resume it (issue 28) rather than
        // send the learner to a new folder and a second full download.
        resume = await findUnfinishedDownload(directory, pins, wallClock(), { hash: true });
      } catch {
        return err("io_error", "the existing destination could not be inspected");
      }
      if (resume !== null) {
        const what = describeUnfinishedDownload(resume, pins);
        if (resume.mayStillBeRunning) {
          const until = new Date(
            Date.parse(resume.manifest.started_at) + resume.manifest.limits.acquisition_deadline_ms,
          ).toISOString();
          return err(
            "destination_exists",
            `the destination holds ${what}, started at ${resume.manifest.started_at}; another acquire may still be running there until ${until}: wait for it, or choose a new directory`,
          );
        }
        if (resume.problems.length > 0) {
          return {
            ...err(
              "destination_exists",
              `the destination holds ${what}, which cannot be resumed: ${resume.problems.join("; ")}`,
            ),
            startOver: true,
          };
        }
      }
    }
    if (resume === null)
      return err(
        "destination_exists",
        `the destination already exists and is not a verified model directory (${reason}); choose a new directory`,
      );
  }

  // Consent first, then the resource readings: both come before any byte is requested, and
  // readings taken right before the transfer describe the machine the transfer will meet.
  const prompt = consentPrompt(pins);
  const decision = await options.consent(prompt);
  if (!decision.given) return err(decision.code, decision.message);

  let readings;
  try {
    readings = await (options.readResources ?? readMachineResources)(parent);
  } catch {
    return err("resource_check_failed", "free disk and memory could not be read; acquisition stops");
  }
  const resources = checkResources(readings, options.resourceThresholds ?? DEFAULT_RESOURCE_THRESHOLDS);
  if (!resources.ok) return resources;

  try {
    if (resume === null) {
      await mkdir(directory, { mode: 0o700 });
      await chmod(directory, 0o700);
    } else {
      // A killed transfer's temporary file is never trusted: that file is fetched again whole.
      for (const leftover of resume.leftovers) await rm(join(directory, leftover), { force: true });
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      return err("destination_exists", "the destination appeared while asking; choose a new directory");
    return err(
      "io_error",
      resume === null ? "the model directory could not be created" : "a leftover temporary file could not be removed",
    );
  }
  try {
    return await runAcquisition({ ...options, pins, clock, wallClock }, decision.form, prompt, resume);
  } catch {
    // Only local I/O on the room's own records can throw here (transfers return results);
    // the manifest may be unwritable, so the message says where to look instead.
    return {
      ...err("io_error", "a local file operation failed during acquisition; the manifest may be incomplete"),
      manifestPath: manifestPath(directory),
    };
  }
}

interface Run {
  readonly options: AcquireOptions & { pins: PinSet; clock: MonotonicClock; wallClock: WallClock };
  readonly manifest: DownloadManifest;
  readonly ledger: AcquisitionLedger;
  readonly allowance: ByteAllowance;
  readonly deadline: AbortSignal;
  /** Monotonic time at which the deadline passes (checked before every attempt, besides the timer). */
  readonly deadlineAt: number;
  readonly progress: AcquisitionProgress;
}

async function runAcquisition(
  options: AcquireOptions & { pins: PinSet; clock: MonotonicClock; wallClock: WallClock },
  consentForm: ConsentForm,
  prompt: string,
  resume: UnfinishedDownload | null,
): Promise<AcquireResult> {
  const { directory, pins, clock, wallClock } = options;
  const startedMs = clock.now();
  const startedAt = new Date(wallClock()).toISOString();
  const deadlineMs = options.deadlineMs ?? TIME_LIMITS.acquisitionMs;
  const manifest: DownloadManifest = {
    schema: "tca.model-download-manifest",
    schema_version: 1,
    status: "in_progress",
    error: null,
    repository: pins.repository,
    revision: pins.revision,
    endpoint: options.endpoint.base,
    consent: { form: consentForm, prompt, given_at: startedAt },
    limits: {
      aggregate_ceiling_bytes: pins.aggregateCeilingBytes,
      acquisition_deadline_ms: deadlineMs,
      max_retries_per_file: TRANSFER_RULES.maxRetriesPerFile,
      max_redirects: TRANSFER_RULES.maxRedirects,
      header_timeout_ms: (options.idleTimeouts ?? DEFAULT_IDLE_TIMEOUTS).headerMs,
      body_idle_timeout_ms: (options.idleTimeouts ?? DEFAULT_IDLE_TIMEOUTS).bodyIdleMs,
    },
    started_at: startedAt,
    finished_at: null,
    elapsed_ms: null,
    files: pins.files.map((file) => {
      const entry = pendingEntry(options.endpoint, pins, file);
      const kept = resume?.identities.get(file.name);
      if (kept === undefined) return entry;
      // Verified when it was placed, re-hashed against the pin just now; no byte fetched for it.
      return {
        ...entry,
        status: "verified",
        observed_bytes: kept.bytes,
        observed_sha256: kept.sha256,
        observed_git_blob_sha1: kept.gitBlobSha1,
      };
    }),
    totals: {
      files_expected: 0,
      files_verified: 0,
      expected_bytes: 0,
      observed_bytes: 0,
      payload_bytes_received: 0,
      retries: 0,
    },
    ...(resume === null
      ? {}
      : {
          resumed_from: {
            status: resume.status,
            error: resume.error,
            started_at: resume.manifest.started_at,
            kept_files: [...resume.identities.keys()],
            removed_leftovers: [...resume.leftovers],
          },
        }),
  };
  recomputeTotals(manifest);
  const path = manifestPath(directory);
  await writeJsonAtomic(path, manifest);
  const ledger = await appendWindow(
    directory,
    pins,
    newWindow(wallClock(), { form: consentForm, prompt }, "in_progress"),
  );

  const controller = new AbortController();
  const cancelTimer = after(clock, deadlineMs, () => controller.abort());
  const progress = options.progress ?? silentProgress;
  const run: Run = {
    options,
    manifest,
    ledger,
    allowance: { limit: pins.aggregateCeilingBytes, used: 0 },
    deadline: controller.signal,
    deadlineAt: startedMs + deadlineMs,
    progress,
  };
  const keptBytes = manifest.files
    .filter((file) => file.status === "verified")
    .reduce((sum, file) => sum + file.expected_bytes, 0);
  progress.start(manifest.totals.expected_bytes - keptBytes);
  let failure: RecordedError | null = null;
  try {
    // Smallest first: a wrong config or tokenizer is found before the weights are fetched.
    const order = [...pins.files].sort((a, b) => a.bytes - b.bytes);
    for (const pinned of order) {
      if (resume?.identities.has(pinned.name) === true) continue;
      failure = await acquireFile(run, pinned);
      recomputeTotals(manifest);
      await writeJsonAtomic(path, manifest);
      if (failure !== null) break;
    }
    if (failure === null) {
      // Final pass from the bytes on disk: the whole directory, its listing and the configs.
      const report = await inspectModelDirectory(directory, pins, { requireManifest: false });
      const issue = report.issues[0];
      if (issue !== undefined) failure = { code: issue.code, message: issue.message, file: issue.file };
      else if (clock.now() >= run.deadlineAt)
        failure = {
          code: "deadline_exceeded",
          message: "the acquisition deadline passed during the final check",
          file: null,
        };
    }
  } finally {
    cancelTimer();
    progress.stop();
  }
  const finishedAt = new Date(wallClock()).toISOString();
  const elapsed = Math.round(clock.now() - startedMs);
  manifest.status = failure === null ? "verified" : "failed";
  manifest.error = failure;
  manifest.finished_at = finishedAt;
  manifest.elapsed_ms = elapsed;
  recomputeTotals(manifest);
  await writeJsonAtomic(path, manifest);
  await updateLatestWindow(directory, ledger, (window) => {
    window.acquisition.outcome = failure === null ? "verified" : "failed";
    window.acquisition.finished_at = finishedAt;
    window.acquisition.elapsed_ms = elapsed;
    window.acquisition.payload_bytes_received = run.allowance.used;
    window.acquisition.error = failure;
  });
  if (failure !== null) {
    return {
      ...err(failure.code, `${failure.file !== null ? `${failure.file}: ` : ""}${failure.message}`),
      manifestPath: path,
    };
  }
  return ok({
    status: "acquired",
    manifestPath: path,
    manifest,
    payloadBytesReceived: run.allowance.used,
    keptFiles: [...(resume?.identities.keys() ?? [])],
  });
}

function pendingEntry(endpoint: ResolvedEndpoint, pins: PinSet, file: PinnedFile): ManifestFileEntry {
  return {
    name: file.name,
    repository: pins.repository,
    revision: pins.revision,
    url: fileUrl(endpoint, pins, file.name),
    expected_bytes: file.bytes,
    observed_bytes: null,
    expected_identity: expectedIdentityOf(file),
    expected_sha256: file.sha256 ?? null,
    observed_sha256: null,
    observed_git_blob_sha1: null,
    status: "pending",
    retries: 0,
    payload_bytes_received: 0,
    redirects: 0,
    served_by: null,
    error: null,
  };
}

/** Fetches one file with at most one retry; returns null on success or the failure to record. */
async function acquireFile(run: Run, pinned: PinnedFile): Promise<RecordedError | null> {
  const { directory, clock } = run.options;
  const entry = run.manifest.files.find((file) => file.name === pinned.name);
  if (entry === undefined) throw new Error(`no manifest entry for ${pinned.name}`);
  const temporaryPath = join(directory, `.${pinned.name}.partial`);
  const fail = (code: ArtifactErrorCode, message: string): RecordedError => {
    entry.status = "failed";
    entry.error = { code, message, file: pinned.name };
    run.progress.fileFinished(pinned.name, "failed", code);
    return entry.error;
  };
  for (let attempt = 1; ; attempt++) {
    if (run.deadline.aborted || clock.now() >= run.deadlineAt)
      return fail("deadline_exceeded", "the acquisition deadline passed");
    run.progress.fileStarted(pinned.name, pinned.bytes, attempt);
    const outcome = await transferOnce({
      url: entry.url,
      expectedBytes: pinned.bytes,
      revision: run.options.pins.revision,
      expectedSha256: pinned.sha256,
      temporaryPath,
      allowance: run.allowance,
      maxRedirects: TRANSFER_RULES.maxRedirects,
      deadline: run.deadline,
      onPayloadBytes: (count) => run.progress.payloadBytes(count),
      clock,
      idleTimeouts: run.options.idleTimeouts ?? DEFAULT_IDLE_TIMEOUTS,
    });
    entry.payload_bytes_received += outcome.payloadBytes;
    entry.redirects += outcome.redirects;
    entry.served_by = outcome.servedBy;
    if (!outcome.result.ok) {
      if (outcome.result.retryable && entry.retries < TRANSFER_RULES.maxRetriesPerFile) {
        entry.retries += 1;
        run.progress.fileFinished(pinned.name, "retrying", outcome.result.code);
        continue;
      }
      return fail(outcome.result.code, outcome.result.message);
    }
    const identity = outcome.result.identity;
    entry.observed_bytes = identity.bytes;
    entry.observed_sha256 = identity.sha256;
    entry.observed_git_blob_sha1 = identity.gitBlobSha1;
    const mismatch = identityMismatch(pinned, identity.bytes, identity.sha256, identity.gitBlobSha1);
    if (mismatch !== null) {
      await rm(temporaryPath, { force: true });
      return fail(mismatch.code, mismatch.message);
    }
    if (isLoaderConfigName(pinned.name)) {
      // Policy before placement: a config that requests code never lands under its final name.
      const verdict = checkLoaderConfig(pinned.name, await readFile(temporaryPath), run.options.pins);
      if (!verdict.ok) {
        await rm(temporaryPath, { force: true });
        return fail(verdict.error, verdict.message);
      }
    }
    try {
      // link + unlink moves into place without ever replacing an existing name.
      await link(temporaryPath, join(directory, pinned.name));
      await rm(temporaryPath, { force: true });
    } catch {
      await rm(temporaryPath, { force: true });
      return fail("unexpected_file", `${pinned.name} already exists in the model directory`);
    }
    entry.status = "verified";
    run.progress.fileFinished(pinned.name, "verified", `sha256 ${identity.sha256}`);
    return null;
  }
}

function identityMismatch(
  pinned: PinnedFile,
  bytes: number,
  sha256: string,
  blob: string | null,
): { code: ArtifactErrorCode; message: string } | null {
  if (bytes !== pinned.bytes)
    return { code: "size_mismatch", message: `received ${bytes} bytes; the pin says ${pinned.bytes}` };
  if (pinned.gitBlobSha1 !== undefined && blob !== pinned.gitBlobSha1) {
    return { code: "blob_id_mismatch", message: "the received bytes do not match the pinned Git blob id" };
  }
  if (pinned.sha256 !== undefined && sha256 !== pinned.sha256) {
    return { code: "hash_mismatch", message: "the received bytes do not match the pinned SHA256" };
  }
  return null;
}
