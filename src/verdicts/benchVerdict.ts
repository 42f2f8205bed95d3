// The verdict of a QuixBugs bench run, derived from ONE snapshot of its folder (benchSnapshot.ts)
// and cross-checked against its summary files, the bench counterpart of runVerdict.ts. The event
// log is tasks.ndjson (one record per finished task) and each task's trace; results.json is a
// summary that must agree; verification.json is verify-run's record (src/bench/runRegrade.ts),
// shown as a record and never checked here (recordedVerification.ts).
//
// What is checked (each failure is listed; any one makes the verdict evidence_invalid):
//   run.json       present, a quixbugs-run manifest; the number of tasks expected is recomputed
//                  from its plan (programs x conditions x repeats, shard), never read from results
//   tasks.ndjson   readable regular file, strict UTF-8, no torn tail, every line a task result in
//                  the plan; per task, the outcome recomputed from its grade, stop reason and change
//                  and falseFixed from its claim and grade (classifyTask, by the rule the record
//                  names in fixedMeans)
//   traces/<task>  every line a record of the trace's catalog (src/bench/runs/benchTrace.ts, strict; a
//                  corrupt or drifted line is a coded problem, never dropped); starts in
//                  task_start for the same task, whose run binding fits run.json (fingerprint,
//                  label, pipeline check, plan); ends in task_end equal to the task record; its
//                  grade event equals the record's grade; a diff event exactly when changed; the
//                  record's guardrail counts, claimedFixed and claim recounted from its events
//   replay         each task replayed from its start with the harness's own decisions
//                  (benchReplay.ts): requests, tool decisions, test runs, stops, the final file, diff,
//                  claim, guardrail counts, held-out seed and grader (a run whose fingerprint predates
//                  the replay is counted in `replay.predatesReplay`, not replayed)
//   diffs/<task>   when recorded, equals the trace's diff event
//   results.json   its tasks equal the log's latest record per task, its summary equals the bench's
//                  own summarize() over them, done/expected/complete equal the recomputed counts
//   run.json's dataset  when recorded, the digest each trace's task_start recorded (benchDatasetCheck.ts)
// What is not re-derived here: the grade itself (verify-run re-grades in a sandbox and writes
// verification.json, which no consumer believes: they show it as a recorded result).
import { isRecord } from "../core/isRecord.ts";
import type { ConditionId } from "../bench/agent/conditions.ts";
import { canonicalJson } from "../core/canonicalJson.ts";
import { summarize } from "../bench/results/resultsSummary.ts";
import {
  bindingMismatch,
  resultKey,
  RUN_FILES,
  RUN_SCHEMA_VERSION,
  type RunManifest,
} from "../bench/runs/runDirectory.ts";
import { planTasks } from "../bench/runs/taskPlan.ts";
import { classifyTask, type TaskResult } from "../bench/results/taskOutcome.ts";
import { analyzeClaim } from "../bench/results/claimAnalysis.ts";
import type { BenchTraceRecordOf } from "../bench/runs/benchTrace.ts";
import { guardrailsFromTrace } from "../bench/agent/guardrailCounts.ts";
import { statementProblem } from "./benchStatementCheck.ts";
import { benchProblem, type BenchProblem } from "./benchProblems.ts";
import { readBenchSnapshot, type BenchSnapshot, type Json } from "./benchSnapshot.ts";
import { datasetIdentityProblems } from "./benchDatasetCheck.ts";
import { recordedVerificationOf, type RecordedVerification } from "./recordedVerification.ts";
import { recordedBenchRegenerationOf, type RecordedBenchRegeneration } from "./benchRegenerationRecord.ts";
import type { QuixDataset } from "../bench/dataset/dataset.ts";
import { programDigest } from "../bench/dataset/programDigest.ts";
import { replayTask, type BenchReplayProblem } from "./benchReplay.ts";
import { taskStartOf, type RecordedTestRun } from "../bench/runRegrade.ts";
import type { RecordedModelTurn } from "../bench/runs/runRegeneration.ts";

export type BenchVerdictKind = "complete" | "incomplete" | "evidence_invalid";

/** What the replay (benchReplay.ts) did: tasks replayed, tasks whose run predates the replay, its problems. */
export interface ReplayState {
  readonly replayed: number;
  readonly predatesReplay: number;
  readonly problems: readonly BenchReplayProblem[];
}

export interface BenchVerdictOptions {
  /** The data set the run was made on (verify-run): the replay then rebuilds test file reads from it too. */
  readonly dataset?: QuixDataset;
}

export interface BenchVerdict {
  readonly kind: BenchVerdictKind;
  /** Coded records (benchProblems.ts); the CLI and the report print them through formatProblem. */
  readonly problems: readonly BenchProblem[];
  /** Latest record per task, from tasks.ndjson (the event log), sorted by key. */
  readonly tasks: readonly TaskResult[];
  /** Recomputed from run.json's plan (null when run.json is unusable). */
  readonly tasksExpected: number | null;
  /** How many files were read and cross-checked (for the figures in docs/report.md). */
  readonly filesChecked: number;
  /** What verification.json says, shown as a record: it changes nothing in this verdict. */
  readonly recordedVerification: RecordedVerification;
  /** What regeneration.json says (verify-run --regenerate), shown as a record: it changes nothing in this verdict. */
  readonly recordedRegeneration: RecordedBenchRegeneration;
  readonly replay: ReplayState;
  /** run.json, when it is a usable manifest. */
  readonly manifest: RunManifest | null;
  /** The one read everything above was derived from; the report and merge use it too. */
  readonly snapshot: BenchSnapshot;
}

const MAX_LISTED_PROBLEMS = 40;

function asManifest(value: Json | null, problems: BenchProblem[]): RunManifest | null {
  if (value === null) return null;
  const lists =
    Array.isArray(value.conditions) &&
    Array.isArray(value.programs) &&
    [...value.conditions, ...value.programs].every((x) => typeof x === "string");
  if (
    value.kind !== "quixbugs-run" ||
    value.schema !== RUN_SCHEMA_VERSION ||
    !isRecord(value.fingerprint) ||
    !isRecord(value.model) ||
    !lists
  ) {
    problems.push(
      benchProblem(
        "not_run_manifest",
        RUN_FILES.manifest,
        `not a QuixBugs run manifest of schema ${RUN_SCHEMA_VERSION}`,
      ),
    );
    return null;
  }
  return value as unknown as RunManifest;
}

function withoutPaths(result: TaskResult): Json {
  const { tracePath: _trace, diffPath: _diff, ...rest } = result;
  return rest;
}

/** The grade event's grade record: its data less the grader's output. */
function gradeOfEvent(event: BenchTraceRecordOf<"grade">): Json {
  const { output: _output, ...grade } = event.data;
  return grade;
}

/** One task against its trace and diff, both from the snapshot. */
function checkTask(
  snapshot: BenchSnapshot,
  manifest: RunManifest | null,
  task: TaskResult,
  problems: BenchProblem[],
  replay: MutableReplay,
  options: BenchVerdictOptions,
): void {
  const key = resultKey(task);
  // Each record by the rule it was written under (fixedMeans; absent in older runs).
  const recomputed = classifyTask(task.grade, task.stopReason, task.changed, task.claimedFixed, task.fixedMeans);
  if (recomputed.outcome !== task.outcome)
    problems.push(
      benchProblem(
        "outcome_mismatch",
        RUN_FILES.tasks,
        `${key} says ${task.outcome}; its grade, stop reason and change say ${recomputed.outcome}`,
      ),
    );
  if (task.falseFixed !== recomputed.falseFixed)
    problems.push(
      benchProblem("false_fixed_mismatch", RUN_FILES.tasks, `${key} falseFixed disagrees with its claim and grade`),
    );
  if (task.falseFixedHeldOut !== undefined && task.falseFixedHeldOut !== recomputed.falseFixedHeldOut)
    problems.push(
      benchProblem(
        "false_fixed_mismatch",
        RUN_FILES.tasks,
        `${key} falseFixedHeldOut disagrees with its claim and grade`,
      ),
    );
  if (task.tracePath === undefined) {
    problems.push(benchProblem("no_trace_named", RUN_FILES.tasks, `${key} names no trace`));
    return;
  }
  const trace = snapshot.traces.get(task.tracePath);
  if (trace === undefined) return; // its read problem is listed already
  const records = trace.records;
  // What the agent did, replayed from its start with the harness's own decisions.
  if (manifest !== null) {
    const replayed = replayTask(task.tracePath, records, task, manifest, options);
    if (replayed.state === "predates_replay") replay.predatesReplay += 1;
    else {
      replay.replayed += 1;
      replay.problems.push(...replayed.problems);
      problems.push(...replayed.problems);
    }
  }
  const start = records[0];
  if (start?.type !== "task_start")
    problems.push(benchProblem("trace_start_missing", task.tracePath, `does not start with task_start`));
  else {
    const started = start.data;
    if (started.taskId !== task.taskId || started.program !== task.program || started.condition !== task.condition)
      problems.push(benchProblem("trace_task_mismatch", task.tracePath, `task_start names another task than ${key}`));
    if (manifest !== null) {
      const mismatch = bindingMismatch(started.run, manifest);
      if (mismatch !== null)
        problems.push(benchProblem("trace_binding_mismatch", task.tracePath, `task_start ${mismatch}`));
    }
  }
  const end = records.at(-1);
  if (end?.type !== "task_end")
    problems.push(benchProblem("trace_end_missing", task.tracePath, `does not end in task_end`));
  else if (canonicalJson(end.data.result) !== canonicalJson(withoutPaths(task)))
    problems.push(
      benchProblem(
        "task_end_mismatch",
        task.tracePath,
        `task_end's result differs from ${RUN_FILES.tasks}'s record of ${key}`,
      ),
    );
  const grades = records.filter((record): record is BenchTraceRecordOf<"grade"> => record.type === "grade");
  if (grades.length !== 1)
    problems.push(benchProblem("grade_event_count", task.tracePath, `has ${grades.length} grade events, not one`));
  else if (canonicalJson(gradeOfEvent(grades[0]!)) !== canonicalJson(task.grade))
    problems.push(
      benchProblem(
        "grade_mismatch",
        task.tracePath,
        `the grade event differs from the task record's grade (${grades[0]!.data.outcome} vs ${task.grade.outcome})`,
      ),
    );
  // What the agent did is recounted from the trace's own events, never read from the record: the
  // guardrail counts behind the report's flags, the claim of "done" and its kind. The record
  // must agree (an older record without a counter agrees when its trace has no such event).
  const recounted: Readonly<Record<string, number>> = guardrailsFromTrace(records);
  const recordedCounts = task.guardrails as Readonly<Record<string, unknown>>;
  const counts = Object.keys(recounted).filter((name) => (recordedCounts[name] ?? 0) !== recounted[name]);
  if (counts.length > 0)
    problems.push(
      benchProblem(
        "guardrail_recount",
        task.tracePath,
        `its events give other guardrail counts than the record of ${key} (${counts.map((name) => `${name} ${recounted[name]}, recorded ${String(recordedCounts[name])}`).join("; ")})`,
      ),
    );
  const claimed = records.some((record) => record.type === "stop_attempt" && record.data.accepted);
  if (claimed !== task.claimedFixed)
    problems.push(
      benchProblem(
        "claimed_fixed_mismatch",
        RUN_FILES.tasks,
        `${key} says claimedFixed ${String(task.claimedFixed)}; its trace has ${claimed ? "an" : "no"} accepted stop`,
      ),
    );
  if (task.claim !== undefined && canonicalJson(analyzeClaim(records)) !== canonicalJson(task.claim))
    problems.push(
      benchProblem(
        "claim_recount",
        task.tracePath,
        `the claim recomputed from its events differs from the record of ${key}`,
      ),
    );
  const statements = statementProblem(task, task.tracePath, key, records);
  if (statements !== null) problems.push(statements);
  const diffs = records.filter((record): record is BenchTraceRecordOf<"diff"> => record.type === "diff");
  if (diffs.length !== (task.changed ? 1 : 0))
    problems.push(
      benchProblem(
        "diff_event_count",
        task.tracePath,
        `has ${diffs.length} diff events for a task whose change is ${String(task.changed)}`,
      ),
    );
  if (task.changed !== (task.diffPath !== undefined))
    problems.push(
      benchProblem(
        "diff_path_mismatch",
        RUN_FILES.tasks,
        `${key} ${task.changed ? "changed the file but names no diff" : "names a diff but did not change the file"}`,
      ),
    );
  if (task.diffPath === undefined) return;
  const diff = snapshot.diffs.get(task.diffPath);
  const traced = diffs.at(-1)?.data.diff;
  if (diff !== undefined && diff !== (traced ?? ""))
    problems.push(benchProblem("diff_mismatch", task.diffPath, `differs from the trace's diff`));
}

function checkResults(
  results: Json,
  manifest: Json | null,
  tasks: readonly TaskResult[],
  expected: number | null,
  problems: BenchProblem[],
): void {
  const name = RUN_FILES.resultsJson;
  const recorded = Array.isArray(results.tasks) ? results.tasks : [];
  const byKey = (list: readonly unknown[]): string[] => list.map((item) => canonicalJson(item)).sort();
  if (canonicalJson(byKey(recorded)) !== canonicalJson(byKey(tasks)))
    problems.push(
      benchProblem(
        "results_tasks_mismatch",
        name,
        `its tasks differ from ${RUN_FILES.tasks} (${recorded.length} listed, ${tasks.length} in the log)`,
      ),
    );
  const bySummary = [...tasks].sort((a, b) => a.taskId.localeCompare(b.taskId) || (a.repeat ?? 1) - (b.repeat ?? 1));
  if (canonicalJson(results.summary) !== canonicalJson(summarize(bySummary)))
    problems.push(
      benchProblem("results_summary_mismatch", name, `its summary differs from the summary of ${RUN_FILES.tasks}`),
    );
  if (results.tasksDone !== tasks.length)
    problems.push(
      benchProblem(
        "results_count_mismatch",
        name,
        `tasksDone is ${String(results.tasksDone)}, the log holds ${tasks.length}`,
      ),
    );
  if (expected !== null && results.tasksExpected !== expected)
    problems.push(
      benchProblem(
        "results_count_mismatch",
        name,
        `tasksExpected is ${String(results.tasksExpected)}, ${RUN_FILES.manifest}'s plan has ${expected}`,
      ),
    );
  if (expected !== null && results.complete !== tasks.length >= expected)
    problems.push(
      benchProblem(
        "results_count_mismatch",
        name,
        `complete is ${String(results.complete)} for ${tasks.length} of ${expected} tasks`,
      ),
    );
  const manifestFingerprint = isRecord(manifest) ? manifest.fingerprint : undefined;
  const resultsFingerprint = isRecord(results.manifest) ? results.manifest.fingerprint : undefined;
  if (manifest !== null && canonicalJson(manifestFingerprint) !== canonicalJson(resultsFingerprint))
    problems.push(
      benchProblem("results_fingerprint_mismatch", name, `its fingerprint differs from ${RUN_FILES.manifest}'s`),
    );
}

/**
 * The replay of every task again, with the data set the run was made on (verify-run): the original
 * file and the test files are then the data set's, and every test file read is rebuilt from its bytes.
 * Over the verdict's own snapshot, never a second read.
 */
export function replayWithDataset(
  verdict: BenchVerdict,
  dataset: QuixDataset,
): {
  problems: BenchReplayProblem[];
  testRuns: ReadonlyMap<string, readonly RecordedTestRun[]>;
  modelTurns: ReadonlyMap<string, readonly RecordedModelTurn[]>;
} {
  const problems: BenchReplayProblem[] = [];
  const testRuns = new Map<string, readonly RecordedTestRun[]>();
  const modelTurns = new Map<string, readonly RecordedModelTurn[]>();
  if (verdict.manifest === null) return { problems, testRuns, modelTurns };
  for (const task of verdict.tasks) {
    const trace = task.tracePath === undefined ? undefined : verdict.snapshot.traces.get(task.tracePath);
    if (trace === undefined || task.tracePath === undefined) continue;
    // A program whose files are not the ones the task recorded is the re-grade's to name (runRegrade.ts).
    const program = dataset.programs.find((p) => p.name === task.program);
    if (program === undefined || taskStartOf(trace.records)?.programSha256 !== programDigest(dataset, program))
      continue;
    const replayed = replayTask(task.tracePath, trace.records, task, verdict.manifest, { dataset });
    if (replayed.state !== "replayed") continue;
    problems.push(...replayed.problems);
    testRuns.set(resultKey(task), replayed.testRuns);
    modelTurns.set(resultKey(task), replayed.modelTurns);
  }
  return { problems, testRuns, modelTurns };
}

interface MutableReplay {
  replayed: number;
  predatesReplay: number;
  problems: BenchReplayProblem[];
}

/** The verdict of the bench run in `runDirectory`, derived from one read of it. */
export function deriveBenchVerdict(runDirectory: string, options: BenchVerdictOptions = {}): BenchVerdict {
  const replay: MutableReplay = { replayed: 0, predatesReplay: 0, problems: [] };
  const problems: BenchProblem[] = [];
  const snapshot = readBenchSnapshot(runDirectory, problems);
  const manifest = asManifest(snapshot.manifest, problems);
  const tasks = snapshot.tasks;
  const plan =
    manifest === null
      ? null
      : planTasks(
          manifest.programs,
          manifest.conditions as ConditionId[],
          manifest.shard ?? undefined,
          manifest.repeats ?? 1,
        );
  const planned = new Set(plan?.map((task) => task.key) ?? []);
  for (const task of tasks) {
    if (plan !== null && !planned.has(resultKey(task)))
      problems.push(
        benchProblem("not_in_plan", RUN_FILES.tasks, `${resultKey(task)} is not in ${RUN_FILES.manifest}'s plan`),
      );
    checkTask(snapshot, manifest, task, problems, replay, options);
  }
  const expected = plan === null ? null : plan.length;
  if (snapshot.results !== null) checkResults(snapshot.results, snapshot.manifest, tasks, expected, problems);
  else if (tasks.length > 0)
    problems.push(
      benchProblem("results_missing", RUN_FILES.resultsJson, `missing for a run with ${tasks.length} finished tasks`),
    );
  if (manifest !== null) problems.push(...datasetIdentityProblems(snapshot, manifest, tasks));
  const listed =
    problems.length <= MAX_LISTED_PROBLEMS
      ? problems
      : [
          ...problems.slice(0, MAX_LISTED_PROBLEMS),
          benchProblem("problems_omitted", "", `${problems.length - MAX_LISTED_PROBLEMS} more problem(s)`),
        ];
  const kind: BenchVerdictKind =
    listed.length > 0 ? "evidence_invalid" : expected !== null && tasks.length >= expected ? "complete" : "incomplete";
  return {
    kind,
    problems: listed,
    tasks,
    tasksExpected: expected,
    filesChecked: snapshot.filesRead,
    recordedVerification: recordedVerificationOf(snapshot, tasks),
    recordedRegeneration: recordedBenchRegenerationOf(runDirectory, snapshot),
    replay,
    manifest,
    snapshot,
  };
}
