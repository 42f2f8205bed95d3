// What submission.md needs from beyond the run directories: the acquisition ledger's list of
// trials (the first is the trial, the rest extensions, Part 10), the download manifest's consent,
// and the disk the model folder and its derived GGUF cache occupy. Read-only; never follows a
// symbolic link while measuring.
import { lstatSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { readJsonObjectUnder } from "../../core/safeRead.ts";
import { cacheDirectoryFor } from "../../model/gguf/derivedCache.ts";
import { ledgerPath, ledgerTrialWindows, type AcquisitionLedger } from "../../model/artifacts/ledger.ts";
import { MANIFEST_FILE_NAME } from "../../model/artifacts/manifest.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { record, type RunEvidence } from "./runEvidence.ts";

export interface TrialEntry {
  readonly ordinal: number;
  readonly role: "trial" | "extension";
  readonly windowId: string;
  readonly startedAt: string | null;
  readonly run: RunEvidence;
  readonly declaredChange: string | null;
}

export interface AcquisitionConsent {
  readonly form: string;
  readonly givenAt: string;
  readonly prompt: string;
}

export interface DiskUse {
  readonly modelFolder: string;
  readonly modelFolderBytes: number;
  readonly cacheFolder: string;
  /** null when there is no derived cache beside the model folder. */
  readonly cacheBytes: number | null;
}

export type TrialListErrorCode =
  "ledger_unreadable" | "trial_runs_incomplete" | "trial_not_in_ledger" | "wrong_run_kind";

/** A model directory's manifest and ledger are small; anything larger is not one of ours. */
const MODEL_RECORD_MAX_BYTES = 4 * 1024 * 1024;

function readJsonObject(directory: string, name: string): Record<string, unknown> | null {
  return readJsonObjectUnder(directory, name, MODEL_RECORD_MAX_BYTES);
}

export function modelDirectoryOf(run: RunEvidence): string | null {
  const directory = record(run.manifest["model_trial"])["model_directory"];
  return typeof directory === "string" ? directory : null;
}

/**
 * Every trial recorded in the model directory's ledger, in order, each matched to a supplied run
 * by its trial window id. A ledger trial without a supplied run is refused: leaving an
 * unsuccessful trial out because a later one looks better is what Part 10 forbids.
 */
export function listLedgerTrials(
  trial: RunEvidence,
  extensions: readonly RunEvidence[],
): Result<TrialEntry[], TrialListErrorCode> {
  const modelDirectory = modelDirectoryOf(trial);
  const ledger =
    modelDirectory === null
      ? null
      : (readJsonObject(modelDirectory, basename(ledgerPath(modelDirectory))) as AcquisitionLedger | null);
  if (ledger === null || !Array.isArray(ledger.windows)) {
    return err(
      "ledger_unreadable",
      "the model run's acquisition ledger cannot be read, so its list of trials cannot be shown",
    );
  }
  const supplied = [trial, ...extensions];
  const windowOf = (run: RunEvidence): string => String(record(run.manifest["model_trial"])["trial_window_id"] ?? "");
  const windows = ledgerTrialWindows(ledger);
  for (const run of supplied) {
    if (!windows.includes(windowOf(run)))
      return err("trial_not_in_ledger", `${run.directory} is not a trial recorded in the model directory's ledger`);
    // One window, one trial: a second run claiming the same window (a copy, or the same run
    // given twice) would otherwise be dropped from the list without a word.
    if (supplied.filter((other) => windowOf(other) === windowOf(run)).length > 1) {
      return err("wrong_run_kind", `more than one supplied run claims the ledger's trial window ${windowOf(run)}`);
    }
  }
  const entries: TrialEntry[] = [];
  const missing: string[] = [];
  for (const [index, windowId] of windows.entries()) {
    const run = supplied.find((candidate) => windowOf(candidate) === windowId);
    const window = ledger.windows.find((w) => w.window_id === windowId);
    if (run === undefined) {
      missing.push(`${windowId} (started ${window?.trial?.started_at ?? "?"})`);
      continue;
    }
    const role = index === 0 ? "trial" : "extension";
    const kind = record(run.manifest["labels"])["kind"];
    if ((role === "trial" && kind !== "model_trial") || (role === "extension" && kind !== "extension")) {
      return err(
        "wrong_run_kind",
        `${run.directory} is labelled ${String(kind)} but is the ledger's ${role === "trial" ? "first trial" : "extension"}`,
      );
    }
    if (role === "trial" && run !== trial)
      return err("wrong_run_kind", "--model must be the ledger's first trial; later trials go in --extension");
    const change = record(run.manifest["model_trial"])["declared_change"];
    entries.push({
      ordinal: index + 1,
      role,
      windowId,
      startedAt: window?.trial?.started_at ?? null,
      run,
      declaredChange: typeof change === "string" ? change : null,
    });
  }
  if (missing.length > 0) {
    return err(
      "trial_runs_incomplete",
      `the ledger records trials whose runs were not supplied (every trial is reported): ${missing.join(", ")}`,
    );
  }
  return ok(entries);
}

/** The consent recorded in the download manifest (form and time), or null when there is none. */
export function acquisitionConsent(modelDirectory: string): AcquisitionConsent | null {
  const manifest = readJsonObject(modelDirectory, MANIFEST_FILE_NAME);
  const consent = record(manifest?.["consent"]);
  if (typeof consent["form"] !== "string" || typeof consent["given_at"] !== "string") return null;
  return {
    form: consent["form"],
    givenAt: consent["given_at"],
    prompt: typeof consent["prompt"] === "string" ? consent["prompt"] : "",
  };
}

/**
 * A model folder holds a handful of files; the walk is bounded so that a path named by an
 * unverified manifest (`/`, a home folder) is never walked: past these, the size is not measured.
 */
export const FOLDER_WALK_LIMITS = { entries: 10_000, depth: 4 } as const;

/** Bytes of regular files under a folder (recursively; links are not followed or counted), or null past the walk limits. */
export function folderBytes(
  folder: string,
  limits: { readonly entries: number; readonly depth: number } = FOLDER_WALK_LIMITS,
): number | null {
  let total = 0;
  let entries = 0;
  const pending: [string, number][] = [[folder, 0]];
  try {
    if (!lstatSync(folder).isDirectory()) return null;
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [path, depth] = next;
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (++entries > limits.entries) return null;
        const child = join(path, entry.name);
        if (entry.isDirectory()) {
          if (depth + 1 > limits.depth) return null;
          pending.push([child, depth + 1]);
        } else if (entry.isFile()) total += lstatSync(child).size;
      }
    }
  } catch {
    return null;
  }
  return total;
}

export function measureDiskUse(modelDirectory: string): DiskUse | null {
  // Only a folder that is a model directory of ours (its download manifest or a checkpoint's
  // config.json is a JSON object there) is measured at all.
  if (
    readJsonObject(modelDirectory, MANIFEST_FILE_NAME) === null &&
    readJsonObject(modelDirectory, "config.json") === null
  )
    return null;
  const modelFolderBytes = folderBytes(modelDirectory);
  if (modelFolderBytes === null) return null;
  const cacheFolder = cacheDirectoryFor(modelDirectory);
  return { modelFolder: modelDirectory, modelFolderBytes, cacheFolder, cacheBytes: folderBytes(cacheFolder) };
}
