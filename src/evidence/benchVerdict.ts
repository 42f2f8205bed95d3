// The verdict of a QuixBugs bench run, derived from its event logs and cross-checked against its
// summary files, the bench counterpart of runVerdict.ts. The event log of a bench run is
// tasks.ndjson (one record per finished task, appended as it finishes) and each task's trace;
// results.json (what results.md and the report's tables show) is a summary that must agree.
//
// What is checked (each failure is listed; any one makes the verdict evidence_invalid):
//   tasks.ndjson   readable regular file (no link, no FIFO), strict UTF-8, no torn tail, every
//                  line a task result; per task, the outcome recomputed from its grade, stop
//                  reason and change and falseFixed from its claim and grade (classifyTask,
//                  by the rule the record names in fixedMeans)
//   traces/<task>  the task's trace ends in task_end whose result equals the task record, and
//                  its grade event names the same grade
//   diffs/<task>   when recorded, equals the trace's diff event
//   results.json   its tasks equal tasks.ndjson's latest record per task, its summary equals the
//                  bench's own summarize() over them, done/complete counts add up
//   run.json       its fingerprint equals results.json's
import { summarize } from "../bench/results/resultsSummary.ts";
import { parseTaskResult, resultKey, RUN_FILES } from "../bench/runs/runDirectory.ts";
import { classifyTask, type TaskResult } from "../bench/results/taskOutcome.ts";
import { decodeUtf8Strict, readFileUnder, readTextUnder } from "../core/safeRead.ts";

export type BenchVerdictKind = "complete" | "incomplete" | "evidence_invalid";

export interface BenchVerdict {
  readonly kind: BenchVerdictKind;
  readonly problems: readonly string[];
  /** Latest record per task, from tasks.ndjson (the event log), sorted by key. */
  readonly tasks: readonly TaskResult[];
  readonly tasksExpected: number | null;
  /** How many files were read and cross-checked (for the figures in docs/report.md). */
  readonly filesChecked: number;
}

const LIMITS = { json: 64 * 1024 * 1024, tasks: 256 * 1024 * 1024, trace: 64 * 1024 * 1024, diff: 8 * 1024 * 1024 } as const;
const MAX_LISTED_PROBLEMS = 40;

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isObject(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}

function readJson(runDirectory: string, name: string, problems: string[]): Json | null {
  const text = readTextUnder(runDirectory, name, LIMITS.json);
  if (!text.ok) {
    if (text.error !== "not_found") problems.push(`${name}: ${text.error}: ${text.message}`);
    return null;
  }
  try {
    const value: unknown = JSON.parse(text.value);
    if (isObject(value)) return value;
  } catch {
    // reported below
  }
  problems.push(`${name}: not a JSON object`);
  return null;
}

/** The event log: every line a task result, the latest per task key kept (a resumed task's last record). */
function readTaskLog(runDirectory: string, problems: string[]): TaskResult[] {
  const bytes = readFileUnder(runDirectory, RUN_FILES.tasks, LIMITS.tasks);
  if (!bytes.ok) {
    problems.push(`${RUN_FILES.tasks}: ${bytes.error}: ${bytes.message}`);
    return [];
  }
  const text = decodeUtf8Strict(bytes.value, RUN_FILES.tasks);
  if (!text.ok) {
    problems.push(`${RUN_FILES.tasks}: ${text.error}: ${text.message}`);
    return [];
  }
  const lines = text.value.split("\n");
  const tail = lines.pop();
  if (tail !== undefined && tail !== "") problems.push(`${RUN_FILES.tasks}: the last line is incomplete (truncated log)`);
  const latest = new Map<string, TaskResult>();
  for (const [index, line] of lines.entries()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      problems.push(`${RUN_FILES.tasks}: line ${index + 1} is not JSON`);
      continue;
    }
    const result = parseTaskResult(parsed);
    if (result === undefined) problems.push(`${RUN_FILES.tasks}: line ${index + 1} is not a task result`);
    else latest.set(resultKey(result), result);
  }
  return [...latest.values()].sort((a, b) => (resultKey(a) < resultKey(b) ? -1 : resultKey(a) > resultKey(b) ? 1 : 0));
}

function withoutPaths(result: TaskResult): Json {
  const { tracePath: _trace, diffPath: _diff, ...rest } = result;
  return rest;
}

/** One task: its recomputed outcome, its trace's task_end and grade, its diff file. Returns files read. */
function checkTask(runDirectory: string, task: TaskResult, problems: string[]): number {
  const key = resultKey(task);
  // Each record by the rule it was written under (fixedMeans; absent in older runs).
  const recomputed = classifyTask(task.grade, task.stopReason, task.changed, task.claimedFixed, task.fixedMeans);
  if (recomputed.outcome !== task.outcome) problems.push(`${RUN_FILES.tasks}: ${key} says ${task.outcome}; its grade, stop reason and change say ${recomputed.outcome}`);
  if (task.falseFixed !== recomputed.falseFixed) problems.push(`${RUN_FILES.tasks}: ${key} falseFixed disagrees with its claim and grade`);
  if (task.falseFixedHeldOut !== undefined && task.falseFixedHeldOut !== recomputed.falseFixedHeldOut) problems.push(`${RUN_FILES.tasks}: ${key} falseFixedHeldOut disagrees with its claim and grade`);
  if (task.tracePath === undefined) {
    problems.push(`${RUN_FILES.tasks}: ${key} names no trace`);
    return 0;
  }
  const trace = readTextUnder(runDirectory, task.tracePath, LIMITS.trace);
  if (!trace.ok) {
    problems.push(`${task.tracePath}: ${trace.error}: ${trace.message}`);
    return 0;
  }
  const records = trace.value.split("\n").filter((line) => line !== "").flatMap((line): Json[] => {
    try {
      const value: unknown = JSON.parse(line);
      return isObject(value) ? [value] : [];
    } catch {
      return [];
    }
  });
  const end = records.at(-1);
  if (end?.event !== "task_end") problems.push(`${task.tracePath}: does not end in task_end`);
  else if (canonical(end.result) !== canonical(withoutPaths(task))) problems.push(`${task.tracePath}: task_end's result differs from ${RUN_FILES.tasks}'s record of ${key}`);
  const grade = records.find((record) => record.event === "grade");
  if (grade?.outcome !== task.grade.outcome) problems.push(`${task.tracePath}: the grade event says ${String(grade?.outcome)}, the task record says ${task.grade.outcome}`);
  if (task.diffPath === undefined) return 1;
  const diff = readTextUnder(runDirectory, task.diffPath, LIMITS.diff);
  const traced = records.filter((record) => record.event === "diff").at(-1)?.diff;
  if (!diff.ok) problems.push(`${task.diffPath}: ${diff.error}: ${diff.message}`);
  else if (diff.value !== (typeof traced === "string" ? traced : "")) problems.push(`${task.diffPath}: differs from the trace's diff`);
  return 2;
}

function checkResults(results: Json, manifest: Json | null, tasks: readonly TaskResult[], problems: string[]): number | null {
  const name = RUN_FILES.resultsJson;
  const recorded = Array.isArray(results.tasks) ? results.tasks : [];
  const byKey = (list: readonly unknown[]): string[] => list.map(canonical).sort();
  if (canonical(byKey(recorded)) !== canonical(byKey(tasks))) problems.push(`${name}: its tasks differ from ${RUN_FILES.tasks} (${recorded.length} listed, ${tasks.length} in the log)`);
  const bySummary = [...tasks].sort((a, b) => a.taskId.localeCompare(b.taskId));
  if (canonical(results.summary) !== canonical(summarize(bySummary))) problems.push(`${name}: its summary differs from the summary of ${RUN_FILES.tasks}`);
  const expected = typeof results.tasksExpected === "number" ? results.tasksExpected : null;
  if (results.tasksDone !== tasks.length) problems.push(`${name}: tasksDone is ${String(results.tasksDone)}, the log holds ${tasks.length}`);
  if (expected !== null && results.complete !== tasks.length >= expected) problems.push(`${name}: complete is ${String(results.complete)} for ${tasks.length} of ${expected} tasks`);
  const manifestFingerprint = isObject(manifest) ? manifest.fingerprint : undefined;
  const resultsFingerprint = isObject(results.manifest) ? results.manifest.fingerprint : undefined;
  if (manifest !== null && canonical(manifestFingerprint) !== canonical(resultsFingerprint)) problems.push(`${name}: its fingerprint differs from ${RUN_FILES.manifest}'s`);
  return expected;
}

/** The verdict of the bench run in `runDirectory`, derived from tasks.ndjson and the traces. */
export function deriveBenchVerdict(runDirectory: string): BenchVerdict {
  const problems: string[] = [];
  const manifest = readJson(runDirectory, RUN_FILES.manifest, problems);
  const tasks = readTaskLog(runDirectory, problems);
  let filesChecked = 2;
  for (const task of tasks) filesChecked += checkTask(runDirectory, task, problems);
  const results = readJson(runDirectory, RUN_FILES.resultsJson, problems);
  const expected = results === null ? null : checkResults(results, manifest, tasks, problems);
  if (results !== null) filesChecked += 1;
  const listed = problems.length <= MAX_LISTED_PROBLEMS ? problems : [...problems.slice(0, MAX_LISTED_PROBLEMS), `... and ${problems.length - MAX_LISTED_PROBLEMS} more problem(s)`];
  const kind: BenchVerdictKind = listed.length > 0 ? "evidence_invalid" : expected !== null && tasks.length >= expected ? "complete" : "incomplete";
  return { kind, problems: listed, tasks, tasksExpected: expected, filesChecked };
}
