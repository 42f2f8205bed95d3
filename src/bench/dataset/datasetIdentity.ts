// Which data set a run was made on, as run.json records it (`dataset`, new runs): the folder it
// read, the same folder relative to the run directory, and a content identity, every program's
// digest (programDigest.ts: the buggy program, the reference fix and its test files). verify-run
// re-grades against that data set by default, finds it again by its content, and refuses a
// --dataset whose content differs before re-grading anything (src/cli/commands/benchVerify.ts).
import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { sha256Hex } from "../../core/digest.ts";
import { isRecord } from "../../core/isRecord.ts";
import { err, ok, type Result } from "../../core/result.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { loadDataset, type QuixDataset } from "./dataset.ts";
import { programDigest } from "./programDigest.ts";

/** run.json's `dataset` (absent in runs made before it was recorded). */
export interface DatasetIdentity {
  /** The folder the run read, absolute (as loadDataset resolved the path given). */
  readonly root: string;
  /** The same folder relative to the run directory: found again when a checkout moves with its runs. */
  readonly relativeToRun: string;
  /** sha256 of the canonical JSON of `programs`: the data set's content in one value. */
  readonly sha256: string;
  /** Every program of the data set, by name: its programDigest. */
  readonly programs: Readonly<Record<string, string>>;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The content identity of a loaded data set: every program's digest, and their digest. */
export function datasetContent(dataset: QuixDataset): Pick<DatasetIdentity, "sha256" | "programs"> {
  const programs: Record<string, string> = {};
  for (const program of dataset.programs) programs[program.name] = programDigest(dataset, program);
  return { sha256: sha256Hex(canonicalJson(programs)), programs };
}

/** The identity a new run records, for a run written into `runDirectory`. */
export function datasetIdentity(dataset: QuixDataset, runDirectory: string): DatasetIdentity {
  return {
    root: dataset.root,
    relativeToRun: relative(resolve(runDirectory), dataset.root),
    ...datasetContent(dataset),
  };
}

/**
 * run.json's `dataset` read back: null when absent (an older run), a problem when it is present
 * but not an identity, or when its sha256 is not the digest of its own programs.
 */
export function parseDatasetIdentity(value: unknown): { identity: DatasetIdentity | null } | { problem: string } {
  if (value === undefined) return { identity: null };
  if (
    !isRecord(value) ||
    typeof value.root !== "string" ||
    !isAbsolute(value.root) ||
    typeof value.relativeToRun !== "string" ||
    typeof value.sha256 !== "string" ||
    !isRecord(value.programs) ||
    !Object.values(value.programs).every((digest) => typeof digest === "string" && HEX64.test(digest))
  )
    return { problem: "its dataset is not a data set identity (root, relativeToRun, sha256, programs)" };
  if (value.sha256 !== sha256Hex(canonicalJson(value.programs)))
    return { problem: "its dataset's sha256 is not the digest of the program digests it lists" };
  return { identity: value as unknown as DatasetIdentity };
}

/** The programs whose digests differ between two identities (one missing on either side counts). */
export function differingPrograms(
  recorded: Pick<DatasetIdentity, "programs">,
  found: Pick<DatasetIdentity, "programs">,
): string[] {
  const names = [...new Set([...Object.keys(recorded.programs), ...Object.keys(found.programs)])].sort();
  return names.filter((name) => recorded.programs[name] !== found.programs[name]);
}

/** How verify-run came to the data set it re-grades against (printed and recorded in verification.json). */
export type DatasetChoice = "recorded" | "given, same as recorded" | "given, none recorded";

function shortList(names: readonly string[]): string {
  return names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`;
}

function describe(identity: DatasetIdentity): string {
  return `${identity.root} (content sha256 ${identity.sha256.slice(0, 12)}, ${Object.keys(identity.programs).length} programs)`;
}

/**
 * The data set verify-run re-grades a run against. Given --dataset: its content must be the run's
 * recorded identity (else dataset_mismatch, naming the programs that differ); a run that records
 * none takes it as given (each task is still checked against its trace's digests). Without
 * --dataset: the recorded folder, else the recorded path relative to the run, else `fallback`
 * (the bench's default location), the first whose content is the recorded identity; none of them
 * (or no identity recorded) is dataset_required, naming what is needed. Nothing is written here.
 */
export function chooseVerifyDataset(
  recorded: DatasetIdentity | null,
  runDirectory: string,
  given: string | undefined,
  fallback: string,
): Result<{ dataset: QuixDataset; choice: DatasetChoice }, BenchErrorCode> {
  if (given !== undefined) {
    const loaded = loadDataset(given);
    if (!loaded.ok) return loaded;
    if (recorded === null) return ok({ dataset: loaded.value, choice: "given, none recorded" });
    const found = datasetContent(loaded.value);
    if (found.sha256 === recorded.sha256) return ok({ dataset: loaded.value, choice: "given, same as recorded" });
    const differing = differingPrograms(recorded, found);
    return err(
      "dataset_mismatch",
      `--dataset ${loaded.value.root} is not the data set this run was made on, ${describe(recorded)}: ${differing.length} program(s) differ (${shortList(differing)}); nothing was re-graded`,
    );
  }
  if (recorded === null)
    return err(
      "dataset_required",
      "run.json records no data set identity (a run made before it was recorded): pass --dataset with the folder the run was made on",
    );
  const candidates = [...new Set([recorded.root, resolve(runDirectory, recorded.relativeToRun), resolve(fallback)])];
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const loaded = loadDataset(candidate);
    if (loaded.ok && datasetContent(loaded.value).sha256 === recorded.sha256)
      return ok({ dataset: loaded.value, choice: "recorded" });
  }
  return err(
    "dataset_required",
    `this run was made on ${describe(recorded)}; no folder with that content is at ${candidates.join(", ")}: pass --dataset with a copy of it`,
  );
}
