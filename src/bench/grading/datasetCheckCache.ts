// A cache of passing data-set checks (issue #28, item 12). Every `bench run` checks the data set
// in the sandbox first (every buggy program fails, every reference fix passes: about 30 s on the
// mini set, 50 s on QuixBugs). That result is a function of the data set's bytes, the grading
// code (the trusted runner and its TypeScript), the sandbox's code and configuration, bwrap and
// the Python interpreter; when none of them changed, the check is not run again.
//
// Where: `<user cache>/tiny-coding-agent/dataset-checks/<key sha256>.json` (the folder that
// fetch-dataset also uses, $XDG_CACHE_HOME or ~/.cache), so a pass is shared by every run root.
//
// Trust: a cache entry may only skip work, never decide a result. It is used when, and only when,
// its key is byte-for-byte the key computed now (from the files and programs as they are now,
// never from anything the entry says) and it records a pass for exactly the selected programs.
// Anything else (unreadable, too large, a link, not owned by this user, writable by others, a
// different key, a failing or incomplete report) is ignored with its reason and the check runs.
// What a forged entry could still do: skip the check for a data set and sandbox identical to the
// ones the key names; writing one needs this user's cache folder, from where the code itself
// could be changed, so it is not a trust boundary this file can hold.
//
// Not in the key: the held-out seed. A run draws a fresh seed; the check's held-out cases prove
// the reference deterministic on that seed's inputs, and each task's grade computes its own
// held-out cases with the run's seed anyway. The entry records the seed it was checked with.
import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { isRecord } from "../../core/isRecord.ts";
import { sha256Hex } from "../../core/digest.ts";
import { readFileUnder } from "../../core/safeRead.ts";
import type { QuixDataset } from "../dataset/dataset.ts";
import { programDigest } from "../dataset/programDigest.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import { GRADER_ID } from "./trustedGrader.ts";
import type { VerifyRecord, VerifyReport } from "./verifyDataset.ts";

export const DATASET_CHECK_CACHE_SCHEMA = 1;
/** The entries' folder inside the project's cache folder (projectCacheDir). */
export const DATASET_CHECK_CACHE_FOLDER = "dataset-checks";
/** Larger than any real report (40 programs are about 40 kB); a larger file is not read. */
export const DATASET_CHECK_CACHE_MAX_BYTES = 4 * 1024 * 1024;

export interface DatasetCheckSelection {
  /** The programs checked (undefined: all of the data set's). */
  readonly programs?: readonly string[];
  readonly includeSlow: boolean;
  readonly timeoutMs: number;
}

/** Every input the check's result depends on, as digests and versions. */
export interface DatasetCheckKey {
  readonly schema: typeof DATASET_CHECK_CACHE_SCHEMA;
  readonly grader: string;
  /** sha256 over the grading and sandbox code (checkCodeDigest): the trusted runner's text included. */
  readonly code: string;
  /** Program name -> programDigest (buggy program, reference fix, every support file its tests read). */
  readonly programs: Readonly<Record<string, string>>;
  readonly includeSlow: boolean;
  readonly timeoutMs: number;
  readonly sandbox: {
    readonly bwrapPath: string;
    readonly bwrapVersion: string;
    readonly bwrapSha256: string;
    readonly python: {
      readonly executable: string;
      readonly sha256: string;
      readonly version: string;
      readonly pytestVersion: string;
      readonly prefix: string;
    };
    readonly limits: unknown;
    readonly processLimit: string;
    readonly seccompSha256: string | null;
  };
}

function fileSha256(path: string): string {
  try {
    return sha256Hex(readFileSync(path));
  } catch {
    return "unreadable";
  }
}

/**
 * sha256 over every file of the given code folders (default: this module's grading folder and the
 * sandbox folder beside it, as they run: src/ through tsx or lib/ compiled), in name order.
 */
export function checkCodeDigest(folders: readonly string[] = defaultCodeFolders()): string {
  const lines: string[] = [];
  for (const folder of folders) {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (lstatSync(path).isFile()) lines.push(`${name}\0${fileSha256(path)}`);
    }
  }
  return sha256Hex(lines.join("\n"));
}

function defaultCodeFolders(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  return [here, join(here, "..", "sandbox")];
}

let bwrapVersions: Map<string, string> | undefined;

function bwrapVersion(path: string): string {
  bwrapVersions ??= new Map();
  let version = bwrapVersions.get(path);
  if (version === undefined) {
    try {
      version = execFileSync(path, ["--version"], { encoding: "utf8", timeout: 10_000 }).trim();
    } catch {
      version = "unknown";
    }
    bwrapVersions.set(path, version);
  }
  return version;
}

/** The key of the check of `selection` on `dataset` in `sandbox`, computed from what is on disk now. */
export function datasetCheckKey(
  sandbox: SandboxConfig,
  dataset: QuixDataset,
  selection: DatasetCheckSelection,
  code: string = checkCodeDigest(),
): DatasetCheckKey {
  const selected = dataset.programs.filter(
    (p) => selection.programs === undefined || selection.programs.includes(p.name),
  );
  const programs: Record<string, string> = {};
  for (const program of [...selected].sort((a, b) => (a.name < b.name ? -1 : 1)))
    programs[program.name] = programDigest(dataset, program);
  return {
    schema: DATASET_CHECK_CACHE_SCHEMA,
    grader: GRADER_ID,
    code,
    programs,
    includeSlow: selection.includeSlow,
    timeoutMs: selection.timeoutMs,
    sandbox: {
      bwrapPath: sandbox.bwrapPath,
      bwrapVersion: bwrapVersion(sandbox.bwrapPath),
      bwrapSha256: fileSha256(sandbox.bwrapPath),
      python: {
        executable: sandbox.python.executable,
        sha256: fileSha256(sandbox.python.executable),
        version: sandbox.python.version,
        pytestVersion: sandbox.python.pytestVersion,
        prefix: sandbox.python.prefix,
      },
      limits: sandbox.limits,
      processLimit: sandbox.processLimit,
      seccompSha256: sandbox.seccomp === undefined ? null : sha256Hex(sandbox.seccomp),
    },
  };
}

export function keyDigest(key: DatasetCheckKey): string {
  return sha256Hex(canonicalJson(key));
}

export interface CachedCheck {
  readonly report: VerifyReport;
  readonly checkedAt: string;
  readonly file: string;
}

/**
 * Why a lookup found no pass, decided by code: no_cached_check (none was ever stored for this key:
 * the ordinary first run), cache_unusable (an entry is there but is not believed; the reason says why).
 */
export type CacheMissCode = "no_cached_check" | "cache_unusable";

export type CacheLookup =
  | { readonly hit: true; readonly value: CachedCheck }
  | { readonly hit: false; readonly code: CacheMissCode; readonly reason: string };

/** A report that says "every selected program: buggy fails, fix passes" and nothing else. */
function passingReportProblem(
  report: unknown,
  expectedPrograms: readonly string[],
  includeSlow: boolean,
): string | null {
  if (!isRecord(report)) return "no report";
  if (report.ok !== true) return "the recorded check did not pass";
  if (report.grader !== GRADER_ID || report.includeSlow !== includeSlow)
    return "the report is of another grader or case selection";
  const records = report.records;
  if (!Array.isArray(records)) return "the report has no records";
  const names = records.map((r) => (isRecord(r) ? r.program : undefined));
  if (canonicalJson(names) !== canonicalJson(expectedPrograms))
    return "the report's programs are not the selected ones";
  for (const record of records as Record<string, unknown>[]) {
    const buggy = isRecord(record.buggy) ? record.buggy.outcome : undefined;
    const fixed = isRecord(record.fixed) ? record.fixed.outcome : undefined;
    if (record.ok !== true || typeof buggy !== "string" || buggy === "passed" || fixed !== "passed")
      return `the report's record of ${String(record.program)} is not a pass`;
  }
  const n = expectedPrograms.length;
  if (report.programs !== n || report.buggyFailing !== n || report.fixesPassing !== n)
    return "the report's counts disagree with its records";
  if (
    typeof report.heldOutSeed !== "number" ||
    typeof report.heldOutPrograms !== "number" ||
    !Array.isArray(report.excluded) ||
    !report.excluded.every((e) => typeof e === "string")
  )
    return "the report is incomplete";
  return null;
}

/** The cached pass for exactly `key`, or why there is none (the caller then runs the check). */
export function lookupDatasetCheck(cacheDir: string, key: DatasetCheckKey, datasetRoot: string): CacheLookup {
  const digest = keyDigest(key);
  const name = `${digest}.json`;
  const file = join(cacheDir, name);
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return { hit: false, code: "no_cached_check", reason: "no cached check for this data set and sandbox" };
  }
  // Only a plain file of this user that no one else can write is read at all.
  if (!stat.isFile()) return { hit: false, code: "cache_unusable", reason: `${file} is not a plain file; ignored` };
  if (typeof process.getuid === "function" && stat.uid !== process.getuid())
    return { hit: false, code: "cache_unusable", reason: `${file} belongs to another user; ignored` };
  if ((stat.mode & 0o022) !== 0)
    return { hit: false, code: "cache_unusable", reason: `${file} is writable by others; ignored` };
  const bytes = readFileUnder(cacheDir, name, DATASET_CHECK_CACHE_MAX_BYTES);
  if (!bytes.ok) return { hit: false, code: "cache_unusable", reason: `${file}: ${bytes.message}; ignored` };
  let entry: unknown;
  try {
    entry = JSON.parse(bytes.value.toString("utf8"));
  } catch {
    return { hit: false, code: "cache_unusable", reason: `${file} is not JSON; ignored` };
  }
  try {
    return checkedEntry(entry, key, digest, file, datasetRoot);
  } catch {
    // JSON nested deep enough to exhaust the stack while compared: damaged, never a pass.
    return { hit: false, code: "cache_unusable", reason: `${file} could not be compared with the key; ignored` };
  }
}

function checkedEntry(
  entry: unknown,
  key: DatasetCheckKey,
  digest: string,
  file: string,
  datasetRoot: string,
): CacheLookup {
  if (!isRecord(entry) || entry.schema !== DATASET_CHECK_CACHE_SCHEMA)
    return { hit: false, code: "cache_unusable", reason: `${file} is not a cache entry of this version; ignored` };
  // The stored key must be the key computed now, byte for byte; the file's name alone proves nothing.
  if (entry.keySha256 !== digest || canonicalJson(entry.key) !== canonicalJson(key))
    return { hit: false, code: "cache_unusable", reason: `${file} records another data set or sandbox; ignored` };
  if (typeof entry.checkedAt !== "string" || Number.isNaN(Date.parse(entry.checkedAt)))
    return { hit: false, code: "cache_unusable", reason: `${file} has no check time; ignored` };
  const problem = passingReportProblem(entry.report, Object.keys(key.programs), key.includeSlow);
  if (problem !== null) return { hit: false, code: "cache_unusable", reason: `${file}: ${problem}; ignored` };
  // The report names the data set folder it was made in; this run's folder may be another copy.
  const report = {
    ...(entry.report as unknown as VerifyReport),
    dataset: datasetRoot,
    records: (entry.report as { records: VerifyRecord[] }).records,
  };
  return { hit: true, value: { report, checkedAt: entry.checkedAt, file } };
}

/** Stores a passing check under its key (a failing one is never cached). Best effort: returns the file or null. */
export function storeDatasetCheck(
  cacheDir: string,
  key: DatasetCheckKey,
  report: VerifyReport,
  now: Date = new Date(),
): string | null {
  if (!report.ok) return null;
  const digest = keyDigest(key);
  const file = join(cacheDir, `${digest}.json`);
  const temporary = join(cacheDir, `.${digest}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const fd = openSync(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      writeSync(
        fd,
        JSON.stringify(
          { schema: DATASET_CHECK_CACHE_SCHEMA, keySha256: digest, key, checkedAt: now.toISOString(), report },
          null,
          1,
        ) + "\n",
      );
      if (!fstatSync(fd).isFile()) throw new Error("not a file");
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
    return file;
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was created
    }
    return null;
  }
}
