// Reads a QuixBugs bench run directory (written by src/bench: run.json, results.json,
// tasks.ndjson, traces/<task>.ndjson, diffs/<task>.diff) into the data of its report, all from
// the bench verdict's one read of the folder (src/verdicts/benchSnapshot.ts).
// results.json is the source of the tables (it is what results.md shows); when it is missing
// (a run interrupted before its first task finished writing it) the tasks in tasks.ndjson are
// summarised with the bench's own summarize(), so the page never invents its own arithmetic.
import { conditionFindings, type ConditionFindings } from "../bench/results/claimFindings.ts";
import { benchResultSource, summarize, tasksFixedPhrase } from "../bench/results/resultsSummary.ts";
import { labelledVerdict, type ResultSource } from "../core/resultLabel.ts";
import { RUN_FILES } from "../bench/runs/runDirectory.ts";
import type { BenchTraceRecord } from "../bench/runs/benchTrace.ts";
import { formatProblem } from "../recording/evidenceProblem.ts";
import { OUTCOME_CLASSES } from "../bench/results/taskOutcome.ts";
import { fixedWithGuardrailHits, guardrailFlags, guardrailHeadlineClause } from "../bench/results/guardrailFlags.ts";
import { deriveBenchVerdict, type ReplayState } from "../verdicts/benchVerdict.ts";
import type { BenchSnapshot } from "../verdicts/benchSnapshot.ts";
import { recordedVerificationLine } from "../verdicts/recordedVerification.ts";
import { EVIDENCE_INVALID_HEADLINE } from "./labVerdict.ts";
import {
  baseName,
  isJsonObject,
  numberField,
  objectField,
  READ_LIMITS,
  stringField,
  type JsonObject,
} from "./evidenceFiles.ts";
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
  if (
    !/^[A-Za-z0-9._/-]+$/.test(path) ||
    path.startsWith("/") ||
    path.split("/").some((part) => part === ".." || part === "" || part === ".")
  )
    return null;
  return path;
}

function taskView(snapshot: BenchSnapshot, task: JsonObject): BenchTaskView {
  const id = stringField(task, "taskId") ?? "unknown";
  const safeId = /^[A-Za-z0-9._-]+$/.test(id) ? id : "invalid-task-id";
  const tracePath = insideRunPath(task.tracePath, `${RUN_FILES.traces}/${safeId}.ndjson`);
  let trace: BenchTraceRecord[] | null = null;
  let traceNote: string | null = null;
  // From the verdict's one read of the folder: the page shows what the verdict checked.
  if (tracePath === null) traceNote = "the recorded trace path leaves the run directory; not read";
  else {
    const read = snapshot.traces.get(tracePath);
    if (read === undefined)
      traceNote = `trace ${baseName(tracePath)}: ${snapshot.readErrors.get(tracePath) ?? "not read: not named by tasks.ndjson"}`;
    else if (read.text.length > BENCH_TRACE_MAX_BYTES)
      traceNote = `trace ${baseName(tracePath)}: larger than ${BENCH_TRACE_MAX_BYTES} bytes; not embedded`;
    else trace = [...read.records];
  }
  let diff: string | null = null;
  if (typeof task.diffPath === "string") {
    const diffPath = insideRunPath(task.diffPath, "");
    if (diffPath === null) traceNote = traceNote ?? "the recorded diff path leaves the run directory; not read";
    else {
      const read = snapshot.diffs.get(diffPath);
      if (read === undefined)
        traceNote =
          traceNote ??
          `diff ${baseName(diffPath)}: not read (${snapshot.readErrors.get(diffPath) ?? "not named by tasks.ndjson"})`;
      else if (read.length > READ_LIMITS.sourceFileBytes)
        traceNote =
          traceNote ?? `diff ${baseName(diffPath)}: larger than ${READ_LIMITS.sourceFileBytes} bytes; not embedded`;
      else diff = read;
    }
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
    guardrailFlags: guardrailFlags(objectField(task, "guardrails")),
    diff,
    trace,
    traceNote,
  };
}

function benchLabel(manifest: JsonObject | null): KindLabel {
  const model = objectField(manifest, "model");
  const label =
    stringField(model, "label") ?? stringField(objectField(manifest, "fingerprint"), "model") ?? "unknown model";
  const kind = benchResultSource(model ?? {}).kind;
  if (kind === "rehearsal") {
    return {
      kind: "bench_rehearsal",
      title: "REHEARSAL",
      explanation: `Rehearsal model "${label}": trained in-project on scripted transcripts. It proves the benchmark's model path and says nothing about any real model's ability. It is NOT a model result.`,
      pipelineCheck: true,
    };
  }
  if (kind === "pipeline_check") {
    return {
      kind: "bench_pipeline_check",
      title: "PIPELINE CHECK",
      explanation: `Scripted or synthetic model "${label}": this run checks the benchmark pipeline. It is NOT a model result.`,
      pipelineCheck: true,
    };
  }
  return {
    kind: "bench_model_run",
    title: "BENCHMARK RUN",
    explanation: `Model: ${label}${typeof model?.servedModel === "string" ? ` (server reports ${model.servedModel})` : ""}.`,
    pipelineCheck: false,
  };
}

/** The claim breakdown of one condition as a verdict line (the document's false-"fixed" analysis). */
function claimLine(f: ConditionFindings): string {
  return (
    `${f.label}: claimed "done" ${f.claimed}; false "fixed" (claimed, tests fail) ${f.claimedTestsFail}; claimed, tests pass, held-out fail ${f.claimedTestsPassHeldOutFail}; ` +
    `without a passing run: (a) final change, not re-run ${f.claims.final_change_not_rerun}, (b) stopped after a failing run ${f.claims.after_failing_run}, (c) never ran the tests ${f.claims.never_ran_tests}; refused stop attempts ${f.refusedStopAttempts}`
  );
}

function benchVerdict(
  source: ResultSource,
  tasks: readonly BenchTaskView[],
  complete: boolean | null,
  done: number,
  expected: number | null,
  summary: readonly JsonObject[],
  findings: readonly ConditionFindings[],
): Verdict {
  const falseFixed = tasks.filter((task) => task.falseFixed).length;
  const details = summary.map(
    (row) =>
      `${stringField(row, "label") ?? stringField(row, "condition") ?? "?"}: fixed ${numberField(row, "fixed") ?? "?"} of ${numberField(row, "tasks") ?? "?"}, false fixed ${numberField(row, "falseFixed") ?? "?"}`,
  );
  details.push(`false "fixed" claims in all: ${falseFixed}`, ...findings.map(claimLine));
  if (complete !== true) {
    return {
      headline: labelledVerdict(source, tasksFixedPhrase(tasks, { expected })),
      tone: "incomplete",
      details: ["the tables cover the finished tasks only", ...details],
    };
  }
  // The hits are part of the headline: "20 OF 20 FIXED" alone hid 20 refused reference reads.
  return {
    headline: `${labelledVerdict(source, tasksFixedPhrase(tasks))} (graded by the harness's own test run); ${guardrailHeadlineClause(fixedWithGuardrailHits(tasks))}`,
    tone: "neutral",
    details,
  };
}

/** What the bench replay (src/verdicts/benchReplay.ts) recomputed, in the verdict's words. */
function replayLine(replay: ReplayState): string {
  const replayed =
    replay.replayed > 0
      ? `replayed ${replay.replayed} task(s) from their recorded replies with the harness's own decisions${replay.problems.length > 0 ? `: ${replay.problems.length} problem(s)` : ": every request, tool decision, stop and final file agrees"}`
      : "";
  const predates =
    replay.predatesReplay > 0
      ? `not replayed: ${replay.predatesReplay} task(s) of a run whose fingerprint predates the replay (no traceReplay); their agents' decisions are not recomputed`
      : "";
  return [replayed, predates].filter((line) => line !== "").join("; ") || "not replayed: no task trace";
}

export function readBenchReport(runDirectory: string): BenchReportData {
  // One read: the verdict's snapshot is the only source of the headline, the tables and the traces.
  const derived = deriveBenchVerdict(runDirectory);
  const { snapshot } = derived;
  const problems: string[] = [];
  const manifest = snapshot.manifest;
  const results = snapshot.results;
  let rawTasks: JsonObject[];
  let summary: JsonObject[];
  if (results !== null && Array.isArray(results.tasks) && Array.isArray(results.summary)) {
    rawTasks = results.tasks.filter(isJsonObject);
    summary = results.summary.filter(isJsonObject);
  } else {
    problems.push(
      `${RUN_FILES.resultsJson}: ${results === null ? "not read" : "has no tasks/summary"}; tables computed from ${RUN_FILES.tasks}`,
    );
    rawTasks = snapshot.tasks.map((task) => ({ ...task }) as JsonObject);
    summary = summarize(snapshot.tasks).map((row) => ({ ...row }) as JsonObject);
  }
  const tasks = rawTasks.map((task) => taskView(snapshot, task)).sort((a, b) => a.taskId.localeCompare(b.taskId));
  // Complete and expected are the verdict's, recomputed from run.json's plan, never results.json's claim.
  const complete =
    derived.kind === "evidence_invalid"
      ? typeof results?.complete === "boolean"
        ? results.complete
        : null
      : derived.kind === "complete";
  const expected = derived.tasksExpected ?? numberField(results, "tasksExpected");
  // verification.json is verify-run's record, not a re-grade the page made: shown as recorded, deciding nothing.
  const regrade = recordedVerificationLine(derived.recordedVerification, baseName(runDirectory), "this report");
  // What the replay recomputed: the verdict's own finding, on its own line beside the record.
  const replay = replayLine(derived.replay);
  const recordedManifest = manifest ?? objectField(results, "manifest");
  // The source from run.json's model, which the verdict holds against every trace's binding.
  const source = benchResultSource(objectField(recordedManifest, "model") ?? {});
  const verdict: Verdict =
    derived.kind === "evidence_invalid"
      ? {
          headline: labelledVerdict(source, EVIDENCE_INVALID_HEADLINE),
          tone: "invalid",
          details: [
            "The run's files disagree with its task log and traces: the tables below are not verified.",
            regrade,
            replay,
            ...derived.problems.map(formatProblem),
          ],
        }
      : withRegrade(
          benchVerdict(source, tasks, complete, tasks.length, expected, summary, conditionFindings(derived.tasks)),
          regrade,
          replay,
        );
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
    problems: [...derived.problems.map(formatProblem), ...problems],
  };
}

function withRegrade(verdict: Verdict, regrade: string, replay: string): Verdict {
  return { ...verdict, details: [regrade, replay, ...verdict.details] };
}
