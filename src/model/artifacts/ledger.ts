// The acquisition ledger (schema tca.acquisition-ledger, version 1) binds an acquisition and
// the later model trial to one 30-minute window (Part 1): at most 20 minutes acquiring, at
// most 10 for loading, the trial and final evaluation. Acquisition and trial run in separate
// processes, so the window is kept in wall-clock epoch milliseconds (the only clock two
// processes share); each process still runs its own deadline on a monotonic clock.
// An already verified directory skips acquisition and opens a fresh window.
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { TIME_LIMITS } from "../pins.ts";
import type { ArtifactErrorCode } from "./errorCodes.ts";
import { asRecord, writeJsonAtomic } from "./jsonFile.ts";
import type { ConsentForm, RecordedError } from "./manifest.ts";

export const LEDGER_FILE_NAME = "acquisition-ledger.json";
export const LEDGER_SCHEMA = "tca.acquisition-ledger";
export const LEDGER_SCHEMA_VERSION = 1;

export type AcquisitionOutcome = "in_progress" | "verified" | "failed" | "skipped_already_verified";

export interface LedgerWindow {
  window_id: string;
  opened_at: string;
  opened_at_epoch_ms: number;
  closes_at_epoch_ms: number;
  limits: { window_ms: number; acquisition_ms: number; trial_ms: number };
  /** null when acquisition was skipped (nothing was downloaded, so nothing needed consent). */
  consent: { form: ConsentForm; prompt: string } | null;
  acquisition: {
    outcome: AcquisitionOutcome;
    started_at: string;
    finished_at: string | null;
    /** Monotonic milliseconds spent acquiring (0 when skipped). */
    elapsed_ms: number | null;
    payload_bytes_received: number;
    error: RecordedError | null;
  };
  trial: { started_at: string; started_at_epoch_ms: number; deadline_epoch_ms: number } | null;
}

export interface AcquisitionLedger {
  schema: typeof LEDGER_SCHEMA;
  schema_version: typeof LEDGER_SCHEMA_VERSION;
  repository: string;
  revision: string;
  windows: LedgerWindow[];
}

export function ledgerPath(directory: string): string {
  return join(directory, LEDGER_FILE_NAME);
}

export function newWindow(
  nowEpochMs: number,
  consent: LedgerWindow["consent"],
  outcome: AcquisitionOutcome,
): LedgerWindow {
  const openedAt = new Date(nowEpochMs).toISOString();
  return {
    window_id: randomUUID(),
    opened_at: openedAt,
    opened_at_epoch_ms: nowEpochMs,
    closes_at_epoch_ms: nowEpochMs + TIME_LIMITS.windowMs,
    limits: {
      window_ms: TIME_LIMITS.windowMs,
      acquisition_ms: TIME_LIMITS.acquisitionMs,
      trial_ms: TIME_LIMITS.trialMs,
    },
    consent,
    acquisition: {
      outcome,
      started_at: openedAt,
      finished_at: outcome === "skipped_already_verified" ? openedAt : null,
      elapsed_ms: outcome === "skipped_already_verified" ? 0 : null,
      payload_bytes_received: 0,
      error: null,
    },
    trial: null,
  };
}

export async function readLedger(directory: string): Promise<Result<AcquisitionLedger, ArtifactErrorCode>> {
  let text: string;
  try {
    text = await readFile(ledgerPath(directory), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return err("ledger_missing", "the directory has no acquisition ledger");
    return err("io_error", "the acquisition ledger could not be read");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return err("ledger_invalid", "the acquisition ledger is not valid JSON");
  }
  const record = asRecord(parsed);
  if (
    record === undefined ||
    record.schema !== LEDGER_SCHEMA ||
    record.schema_version !== LEDGER_SCHEMA_VERSION ||
    !Array.isArray(record.windows) ||
    !record.windows.every((window) => {
      const entry = asRecord(window);
      return (
        entry !== undefined && typeof entry.closes_at_epoch_ms === "number" && asRecord(entry.acquisition) !== undefined
      );
    })
  ) {
    return err("ledger_invalid", "the acquisition ledger has an unknown schema or missing fields");
  }
  return ok(parsed as AcquisitionLedger);
}

/** Appends a window (creating the ledger if needed) and returns the updated ledger. */
export async function appendWindow(
  directory: string,
  identity: { repository: string; revision: string },
  window: LedgerWindow,
): Promise<AcquisitionLedger> {
  const existing = await readLedger(directory);
  const ledger: AcquisitionLedger = existing.ok
    ? existing.value
    : {
        schema: LEDGER_SCHEMA,
        schema_version: LEDGER_SCHEMA_VERSION,
        repository: identity.repository,
        revision: identity.revision,
        windows: [],
      };
  ledger.windows.push(window);
  await writeJsonAtomic(ledgerPath(directory), ledger);
  return ledger;
}

/** Rewrites the latest window (acquisition progress or outcome). */
export async function updateLatestWindow(
  directory: string,
  ledger: AcquisitionLedger,
  update: (window: LedgerWindow) => void,
): Promise<void> {
  const latest = ledger.windows[ledger.windows.length - 1];
  if (latest === undefined) return;
  update(latest);
  await writeJsonAtomic(ledgerPath(directory), ledger);
}

export interface TrialWindow {
  readonly windowId: string;
  /** Wall-clock epoch ms by which loading, the trial and final evaluation must end. */
  readonly trialDeadlineEpochMs: number;
  /** The budget to turn into a monotonic deadline in the trial process: min(10 min, time left in the window). */
  readonly remainingMs: number;
}

/**
 * Claims the latest window for the one model trial it allows. Call it after
 * requireVerifiedModelDirectory and before loading; it records the claim in the ledger.
 * The trial gets min(10 minutes, what is left of the 30-minute window).
 */
export async function openTrialWindow(
  directory: string,
  nowEpochMs: number = Date.now(),
): Promise<Result<TrialWindow, ArtifactErrorCode>> {
  const read = await readLedger(directory);
  if (!read.ok) return read;
  const ledger = read.value;
  const latest = ledger.windows[ledger.windows.length - 1];
  if (latest === undefined) return err("ledger_invalid", "the acquisition ledger has no window");
  if (latest.acquisition.outcome !== "verified" && latest.acquisition.outcome !== "skipped_already_verified") {
    return err(
      "window_expired",
      "the latest acquisition window did not end with a verified directory; run `tca model acquire` again",
    );
  }
  if (latest.trial !== null) {
    return err(
      "window_expired",
      "the latest window's trial was already started; run `tca model acquire` again to open a new window",
    );
  }
  const remainingInWindow = latest.closes_at_epoch_ms - nowEpochMs;
  if (remainingInWindow <= 0) {
    return err(
      "window_expired",
      "the 30-minute window has closed; run `tca model acquire` again (a verified directory skips the download)",
    );
  }
  const remainingMs = Math.min(TIME_LIMITS.trialMs, remainingInWindow);
  const deadline = nowEpochMs + remainingMs;
  latest.trial = {
    started_at: new Date(nowEpochMs).toISOString(),
    started_at_epoch_ms: nowEpochMs,
    deadline_epoch_ms: deadline,
  };
  await writeJsonAtomic(ledgerPath(directory), ledger);
  return ok({ windowId: latest.window_id, trialDeadlineEpochMs: deadline, remainingMs });
}

/** Window ids whose trial was started, in ledger order: the order the trials happened (Part 10). */
export function ledgerTrialWindows(ledger: AcquisitionLedger): string[] {
  return ledger.windows.filter((window) => window.trial !== null).map((window) => window.window_id);
}
