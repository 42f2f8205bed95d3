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
import { parseBenchTrace, type BenchTraceRecord } from "../bench/runs/benchTrace.ts";
import { benchProblem, type BenchProblem } from "./benchProblems.ts";
import { formatProblem } from "../recording/evidenceProblem.ts";

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
  /** The lines that are records of the trace's catalog (runs/benchTrace.ts), in order. */
  readonly records: readonly BenchTraceRecord[];
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

function readJson(runDirectory: string, name: string, problems: BenchProblem[], required: boolean): Json | null {
  const text = readTextUnder(runDirectory, name, BENCH_READ_LIMITS.json);
  if (!text.ok) {
    if (text.error !== "not_found" || required)
      problems.push(benchProblem("file_unreadable", name, `${text.error}: ${text.message}`));
    return null;
  }
  const parsed = parseBoundedJson(text.value, name);
  if (!parsed.ok)
    problems.push(
      benchProblem(
        parsed.error === "json_too_deep" ? "json_too_deep" : "not_json",
        name,
        `${parsed.error}: ${parsed.message}`,
      ),
    );
  else if (!isRecord(parsed.value)) problems.push(benchProblem("not_json_object", name, "not a JSON object"));
  else return parsed.value;
  return null;
}

/** The event log: every line a task result, the latest per task key kept (a resumed task's last record). */
function readTaskLog(runDirectory: string, problems: BenchProblem[]): { tasks: TaskResult[]; sha256: string | null } {
  const file = RUN_FILES.tasks;
  const bytes = readFileUnder(runDirectory, file, BENCH_READ_LIMITS.tasks);
  if (!bytes.ok) {
    problems.push(benchProblem("file_unreadable", file, `${bytes.error}: ${bytes.message}`));
    return { tasks: [], sha256: null };
  }
  const sha256 = sha256Hex(bytes.value);
  const text = decodeUtf8Strict(bytes.value, file);
  if (!text.ok) {
    problems.push(benchProblem("file_unreadable", file, `${text.error}: ${text.message}`));
    return { tasks: [], sha256 };
  }
  const lines = text.value.split("\n");
  const tail = lines.pop();
  if (tail !== undefined && tail !== "")
    problems.push({
      code: "truncated_log",
      file,
      line: lines.length + 1,
      detail: "the last line is incomplete (truncated log)",
    });
  const latest = new Map<string, TaskResult>();
  for (const [index, line] of lines.entries()) {
    const parsed = parseBoundedJson(line, `${file} line ${index + 1}`);
    if (!parsed.ok) {
      problems.push(
        parsed.error === "json_too_deep"
          ? { code: "json_too_deep", file, line: index + 1, detail: `${parsed.error}: ${parsed.message}` }
          : { code: "not_json", file, line: index + 1, detail: "the line is not JSON" },
      );
      continue;
    }
    const result = parseTaskResult(parsed.value);
    if (result === undefined)
      problems.push({ code: "not_task_result", file, line: index + 1, detail: "not a task result" });
    else latest.set(resultKey(result), result);
  }
  const tasks = [...latest.values()].sort((a, b) =>
    resultKey(a) < resultKey(b) ? -1 : resultKey(a) > resultKey(b) ? 1 : 0,
  );
  return { tasks, sha256 };
}

/** A trace, through the one trace reader: a line that is not a record of its catalog is a problem, never dropped silently. */
function readTrace(
  runDirectory: string,
  path: string,
  problems: BenchProblem[],
  readErrors: Map<string, string>,
): TraceEvidence | null {
  const text = readTextUnder(runDirectory, path, BENCH_READ_LIMITS.trace);
  if (!text.ok) {
    problems.push(benchProblem("file_unreadable", path, `${text.error}: ${text.message}`));
    readErrors.set(path, `${text.error}: ${text.message}`);
    return null;
  }
  const parsed = parseBenchTrace(text.value, path);
  problems.push(...parsed.problems);
  return { text: text.value, records: parsed.records };
}

/** Reads the run folder once. */
export function readBenchSnapshot(runDirectory: string, problems: BenchProblem[]): BenchSnapshot {
  const manifest = readJson(runDirectory, RUN_FILES.manifest, problems, true);
  const log = readTaskLog(runDirectory, problems);
  const results = readJson(runDirectory, RUN_FILES.resultsJson, problems, false);
  // verify-run's record is shown as a record and decides nothing: a bad one is not the run's problem.
  const verificationProblems: BenchProblem[] = [];
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
        problems.push(benchProblem("file_unreadable", task.diffPath, `${diff.error}: ${diff.message}`));
        readErrors.set(task.diffPath, `${diff.error}: ${diff.message}`);
      }
      filesRead += 1;
    }
  }
  return {
    manifest,
    results,
    verification,
    verificationReadError: verificationProblems[0] === undefined ? null : formatProblem(verificationProblems[0]),
    tasksSha256: log.sha256,
    tasks: log.tasks,
    traces,
    diffs,
    readErrors,
    filesRead,
  };
}
