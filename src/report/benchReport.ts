// Reads a QuixBugs bench run directory (written by src/bench: run.json, results.json,
// tasks.ndjson, traces/<task>.ndjson, diffs/<task>.diff) into the data of its report.
// results.json is the source of the tables (it is what results.md shows); when it is missing
// (a run interrupted before its first task finished writing it) the tasks in tasks.ndjson are
// summarised with the bench's own summarize(), so the page never invents its own arithmetic.
import { runKindTitle, summarize } from "../bench/results/resultsSummary.ts";
import { parseTaskResult, RUN_FILES } from "../bench/runs/runDirectory.ts";
import { OUTCOME_CLASSES } from "../bench/results/taskOutcome.ts";
import { deriveBenchVerdict } from "../evidence/benchVerdict.ts";
import { EVIDENCE_INVALID_HEADLINE } from "./labVerdict.ts";
import { baseName, isJsonObject, numberField, objectField, READ_LIMITS, readBoundedText, readJsonObject, readNdjson, stringField, type JsonObject } from "./evidenceFiles.ts";
import type { BenchReportData, BenchTaskView, KindLabel, Verdict } from "./reportDocument.ts";

/** A trace larger than this is not embedded (the page says so and names the file). */
export const BENCH_TRACE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * A path recorded in results must stay inside the run directory: relative, no "..", no odd
 * characters. It is then read only through src/core/safeRead, which follows no symlink in any
 * component (`diffs -> /etc` with `diffs/passwd` is refused) and never blocks on a FIFO.
 */
function insideRunPath(recorded: unknown, fallback: string): string | null {
  const path = typeof recorded === "string" ? recorded : fallback;
  if (!/^[A-Za-z0-9._/-]+$/.test(path) || path.startsWith("/") || path.split("/").some((part) => part === ".." || part === "" || part === ".")) return null;
  return path;
}

function taskView(runDirectory: string, task: JsonObject): BenchTaskView {
  const id = stringField(task, "taskId") ?? "unknown";
  const safeId = /^[A-Za-z0-9._-]+$/.test(id) ? id : "invalid-task-id";
  const tracePath = insideRunPath(task.tracePath, `${RUN_FILES.traces}/${safeId}.ndjson`);
  let trace: JsonObject[] | null = null;
  let traceNote: string | null = null;
  if (tracePath === null) traceNote = "the recorded trace path leaves the run directory; not read";
  else {
    const read = readNdjson(runDirectory, tracePath, BENCH_TRACE_MAX_BYTES);
    if (read.ok) {
      trace = read.value.records;
      if (read.value.badLines.length > 0) traceNote = `${read.value.badLines.length} trace line(s) are not JSON objects`;
    } else traceNote = `trace ${baseName(tracePath)}: ${read.error} (${read.message})`;
  }
  let diff: string | null = null;
  if (typeof task.diffPath === "string") {
    const diffPath = insideRunPath(task.diffPath, "");
    const read = diffPath === null ? null : readBoundedText(runDirectory, diffPath, READ_LIMITS.sourceFileBytes);
    diff = read !== null && read.ok ? read.value : null;
    if (read !== null && !read.ok && read.error !== "evidence_unreadable") traceNote = traceNote ?? `diff: ${read.message}`;
    else if (read !== null && !read.ok) traceNote = traceNote ?? `diff ${baseName(diffPath ?? "")}: not read (${read.message})`;
    else if (diffPath === null) traceNote = traceNote ?? "the recorded diff path leaves the run directory; not read";
  }
  return {
    taskId: id,
    program: stringField(task, "program") ?? "",
    condition: stringField(task, "condition") ?? "",
    outcome: stringField(task, "outcome") ?? "unknown",
    stopReason: stringField(task, "stopReason") ?? "",
    claimedFixed: task.claimedFixed === true,
    falseFixed: task.falseFixed === true,
    turns: numberField(task, "turns") ?? 0,
    tokens: numberField(task, "tokens") ?? 0,
    seconds: numberField(task, "seconds") ?? 0,
    grade: objectField(task, "grade"),
    guardrails: objectField(task, "guardrails"),
    diff,
    trace,
    traceNote,
  };
}

function benchLabel(manifest: JsonObject | null): KindLabel {
  const model = objectField(manifest, "model");
  const label = stringField(model, "label") ?? stringField(objectField(manifest, "fingerprint"), "model") ?? "unknown model";
  const synthetic = model !== null && (model.synthetic === true || model.scripted === true || /scripted|synthetic/i.test(label));
  if (model !== null && runKindTitle(model) === "REHEARSAL") {
    return { kind: "bench_rehearsal", title: "REHEARSAL", explanation: `Rehearsal model "${label}": trained in-project on scripted transcripts. It proves the benchmark's model path and says nothing about any real model's ability. It is NOT a model result.`, pipelineCheck: true };
  }
  if (synthetic) {
    return { kind: "bench_pipeline_check", title: "PIPELINE CHECK", explanation: `Scripted or synthetic model "${label}": this run checks the benchmark pipeline. It is NOT a model result.`, pipelineCheck: true };
  }
  return { kind: "bench_model_run", title: "BENCHMARK RUN", explanation: `Model: ${label}${typeof model?.servedModel === "string" ? ` (server reports ${model.servedModel})` : ""}.`, pipelineCheck: false };
}

function benchVerdict(tasks: readonly BenchTaskView[], complete: boolean | null, done: number, expected: number | null, summary: readonly JsonObject[]): Verdict {
  const fixed = tasks.filter((task) => task.outcome === "fixed").length;
  const falseFixed = tasks.filter((task) => task.falseFixed).length;
  const details = summary.map((row) => `${stringField(row, "label") ?? stringField(row, "condition") ?? "?"}: fixed ${numberField(row, "fixed") ?? "?"} of ${numberField(row, "tasks") ?? "?"}, false fixed ${numberField(row, "falseFixed") ?? "?"}`);
  details.push(`false "fixed" claims in all: ${falseFixed}`);
  if (complete !== true) {
    return { headline: `INCOMPLETE BENCHMARK RUN: ${done} of ${expected ?? "?"} tasks`, tone: "incomplete", details: ["the tables cover the finished tasks only", ...details] };
  }
  return { headline: `${fixed} OF ${tasks.length} TASKS FIXED (graded by the harness's own test run)`, tone: "neutral", details };
}

export function readBenchReport(runDirectory: string): BenchReportData {
  const problems: string[] = [];
  const manifestRead = readJsonObject(runDirectory, RUN_FILES.manifest);
  const manifest = manifestRead.ok ? manifestRead.value : null;
  if (!manifestRead.ok) problems.push(`${RUN_FILES.manifest}: ${manifestRead.error} (${manifestRead.message})`);
  else if (manifest?.kind !== "quixbugs-run") problems.push(`${RUN_FILES.manifest}: not a quixbugs-run manifest`);
  const resultsRead = readJsonObject(runDirectory, RUN_FILES.resultsJson);
  const results = resultsRead.ok ? resultsRead.value : null;
  let rawTasks: JsonObject[];
  let summary: JsonObject[];
  if (results !== null && Array.isArray(results.tasks) && Array.isArray(results.summary)) {
    rawTasks = results.tasks.filter(isJsonObject);
    summary = results.summary.filter(isJsonObject);
  } else {
    problems.push(`${RUN_FILES.resultsJson}: ${resultsRead.ok ? "has no tasks/summary" : `${resultsRead.error} (${resultsRead.message})`}; tables computed from ${RUN_FILES.tasks}`);
    const lines = readNdjson(runDirectory, RUN_FILES.tasks);
    const parsed = lines.ok ? lines.value.records.map(parseTaskResult).filter((task) => task !== undefined) : [];
    if (lines.ok && lines.value.badLines.length > 0) problems.push(`${RUN_FILES.tasks}: ${lines.value.badLines.length} unreadable line(s)`);
    rawTasks = parsed.map((task) => ({ ...task }) as JsonObject);
    summary = summarize(parsed).map((row) => ({ ...row }) as JsonObject);
  }
  const tasks = rawTasks.map((task) => taskView(runDirectory, task)).sort((a, b) => a.taskId.localeCompare(b.taskId));
  const complete = typeof results?.complete === "boolean" ? results.complete : null;
  const expected = numberField(results, "tasksExpected");
  // The evidence room's verdict: tasks.ndjson and the traces recomputed and cross-checked with
  // results.json; any disagreement is the headline, above any table built from results.json.
  const derived = deriveBenchVerdict(runDirectory);
  const verdict: Verdict =
    derived.kind === "evidence_invalid"
      ? { headline: EVIDENCE_INVALID_HEADLINE, tone: "invalid", details: ["The run's files disagree with its task log and traces: the tables below are not verified.", ...derived.problems] }
      : benchVerdict(tasks, complete, tasks.length, expected, summary);
  return {
    directoryName: baseName(runDirectory),
    verdict,
    label: benchLabel(manifest ?? objectField(results, "manifest")),
    manifest: manifest ?? objectField(results, "manifest"),
    complete,
    tasksDone: tasks.length,
    tasksExpected: expected,
    summary,
    outcomeClasses: [...OUTCOME_CLASSES],
    tasks,
    problems: [...derived.problems, ...problems],
  };
}
