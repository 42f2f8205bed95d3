// One read of a bench run folder: every evidence file the verdict, the report, compare and merge
// use is read once here (through src/core/safeRead, JSON through src/core/boundedJson) into
// memory, and everything they show is derived from this snapshot, never from a second read
// (a results.json swapped during `tca report` cannot change the headline). Read problems are
// collected here; a file that cannot be read is a problem, never silently skipped.
import { isRecord } from "../core/isRecord.ts";
import { sha256Hex } from "../core/digest.ts";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { decodeUtf8Strict, readFileUnder, readTextUnder } from "../core/safeRead.ts";
import { parseTaskResult, resultKey, RUN_FILES } from "../bench/runs/runDirectory.ts";
import type { TaskResult } from "../bench/results/taskOutcome.ts";

export type Json = Readonly<Record<string, unknown>>;

/** What verify-run writes beside the run (src/bench/runRegrade.ts). */
export const VERIFICATION_FILE = RUN_FILES.verification;

export const BENCH_READ_LIMITS = {
  json: 64 * 1024 * 1024,
  tasks: 256 * 1024 * 1024,
  trace: 64 * 1024 * 1024,
  diff: 8 * 1024 * 1024,
} as const;

export interface TraceEvidence {
  /** The bytes as read (merge copies exactly these). */
  readonly text: string;
  readonly records: readonly Json[];
}

export interface BenchSnapshot {
  readonly manifest: Json | null;
  readonly results: Json | null;
  readonly verification: Json | null;
  /** Why verification.json, present, was not read: never a problem of the run (recordedVerification.ts). */
  readonly verificationReadError: string | null;
  /** sha256 of tasks.ndjson's bytes as read (verify-run records it; the report compares). */
  readonly tasksSha256: string | null;
  /** Latest record per task key, sorted by key. */
  readonly tasks: readonly TaskResult[];
  /** By recorded trace path / diff path. */
  readonly traces: ReadonlyMap<string, TraceEvidence>;
  readonly diffs: ReadonlyMap<string, string>;
  /** Why a trace or diff was not read ("symlink_refused: ..."), by its recorded path. */
  readonly readErrors: ReadonlyMap<string, string>;
  readonly filesRead: number;
}

function readJson(runDirectory: string, name: string, problems: string[], required: boolean): Json | null {
  const text = readTextUnder(runDirectory, name, BENCH_READ_LIMITS.json);
  if (!text.ok) {
    if (text.error !== "not_found" || required) problems.push(`${name}: ${text.error}: ${text.message}`);
    return null;
  }
  const parsed = parseBoundedJson(text.value, name);
  if (!parsed.ok) problems.push(`${name}: ${parsed.error}: ${parsed.message}`);
  else if (!isRecord(parsed.value)) problems.push(`${name}: not a JSON object`);
  else return parsed.value;
  return null;
}

/** The event log: every line a task result, the latest per task key kept (a resumed task's last record). */
function readTaskLog(runDirectory: string, problems: string[]): { tasks: TaskResult[]; sha256: string | null } {
  const bytes = readFileUnder(runDirectory, RUN_FILES.tasks, BENCH_READ_LIMITS.tasks);
  if (!bytes.ok) {
    problems.push(`${RUN_FILES.tasks}: ${bytes.error}: ${bytes.message}`);
    return { tasks: [], sha256: null };
  }
  const sha256 = sha256Hex(bytes.value);
  const text = decodeUtf8Strict(bytes.value, RUN_FILES.tasks);
  if (!text.ok) {
    problems.push(`${RUN_FILES.tasks}: ${text.error}: ${text.message}`);
    return { tasks: [], sha256 };
  }
  const lines = text.value.split("\n");
  const tail = lines.pop();
  if (tail !== undefined && tail !== "")
    problems.push(`${RUN_FILES.tasks}: the last line is incomplete (truncated log)`);
  const latest = new Map<string, TaskResult>();
  for (const [index, line] of lines.entries()) {
    const parsed = parseBoundedJson(line, `${RUN_FILES.tasks} line ${index + 1}`);
    if (!parsed.ok) {
      problems.push(
        parsed.error === "json_too_deep"
          ? `${RUN_FILES.tasks}: ${parsed.error}: ${parsed.message}`
          : `${RUN_FILES.tasks}: line ${index + 1} is not JSON`,
      );
      continue;
    }
    const result = parseTaskResult(parsed.value);
    if (result === undefined) problems.push(`${RUN_FILES.tasks}: line ${index + 1} is not a task result`);
    else latest.set(resultKey(result), result);
  }
  const tasks = [...latest.values()].sort((a, b) =>
    resultKey(a) < resultKey(b) ? -1 : resultKey(a) > resultKey(b) ? 1 : 0,
  );
  return { tasks, sha256 };
}

/** A trace: every line must be a JSON object; a torn or corrupt line is a problem, never dropped. */
function readTrace(
  runDirectory: string,
  path: string,
  problems: string[],
  readErrors: Map<string, string>,
): TraceEvidence | null {
  const text = readTextUnder(runDirectory, path, BENCH_READ_LIMITS.trace);
  if (!text.ok) {
    problems.push(`${path}: ${text.error}: ${text.message}`);
    readErrors.set(path, `${text.error}: ${text.message}`);
    return null;
  }
  const lines = text.value.split("\n");
  const tail = lines.pop();
  if (tail !== undefined && tail !== "") problems.push(`${path}: the last line is incomplete (truncated trace)`);
  const records: Json[] = [];
  for (const [index, line] of lines.entries()) {
    const parsed = parseBoundedJson(line, `${path} line ${index + 1}`);
    if (!parsed.ok)
      problems.push(
        parsed.error === "json_too_deep"
          ? `${path}: ${parsed.error}: ${parsed.message}`
          : `${path}: line ${index + 1} is not JSON`,
      );
    else if (!isRecord(parsed.value)) problems.push(`${path}: line ${index + 1} is not a trace event`);
    else records.push(parsed.value);
  }
  return { text: text.value, records };
}

/** Reads the run folder once. */
export function readBenchSnapshot(runDirectory: string, problems: string[]): BenchSnapshot {
  const manifest = readJson(runDirectory, RUN_FILES.manifest, problems, true);
  const log = readTaskLog(runDirectory, problems);
  const results = readJson(runDirectory, RUN_FILES.resultsJson, problems, false);
  // verify-run's record is shown as a record and decides nothing: a bad one is not the run's problem.
  const verificationProblems: string[] = [];
  const verification = readJson(runDirectory, VERIFICATION_FILE, verificationProblems, false);
  const traces = new Map<string, TraceEvidence>();
  const diffs = new Map<string, string>();
  const readErrors = new Map<string, string>();
  let filesRead = 2 + (results === null ? 0 : 1) + (verification === null ? 0 : 1);
  // The files the log names, then any other that results.json names (the report shows them, and
  // the verdict lists the disagreement); each is read once.
  const named = [...log.tasks, ...(Array.isArray(results?.tasks) ? results.tasks.filter(isRecord) : [])];
  for (const task of named) {
    if (typeof task.tracePath === "string" && !traces.has(task.tracePath) && !readErrors.has(task.tracePath)) {
      const trace = readTrace(runDirectory, task.tracePath, problems, readErrors);
      if (trace !== null) traces.set(task.tracePath, trace);
      filesRead += 1;
    }
    if (typeof task.diffPath === "string" && !diffs.has(task.diffPath) && !readErrors.has(task.diffPath)) {
      const diff = readTextUnder(runDirectory, task.diffPath, BENCH_READ_LIMITS.diff);
      if (diff.ok) diffs.set(task.diffPath, diff.value);
      else {
        problems.push(`${task.diffPath}: ${diff.error}: ${diff.message}`);
        readErrors.set(task.diffPath, `${diff.error}: ${diff.message}`);
      }
      filesRead += 1;
    }
  }
  return {
    manifest,
    results,
    verification,
    verificationReadError: verificationProblems[0] ?? null,
    tasksSha256: log.sha256,
    tasks: log.tasks,
    traces,
    diffs,
    readErrors,
    filesRead,
  };
}
