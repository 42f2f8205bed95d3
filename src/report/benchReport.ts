// Reads a QuixBugs bench run directory (written by src/bench: run.json, results.json,
// tasks.ndjson, traces/<task>.ndjson, diffs/<task>.diff) into the data of its report, all from
// the bench verdict's one read of the folder (src/verdicts/benchSnapshot.ts).
// results.json is the source of the tables (it is what results.md shows); when it is missing
// (a run interrupted before its first task finished writing it) the tasks in tasks.ndjson are
// summarised with the bench's own summarize(), so the page never invents its own arithmetic.
import { applicableCounts, conditionFindings, type ConditionFindings } from "../bench/results/claimFindings.ts";
import { alongTheWay } from "../bench/results/alongTheWay.ts";
import { statementWords } from "../bench/results/claimStatements.ts";
import { fixSizeWords } from "../bench/results/fixSize.ts";
import {
  GUARDRAIL_COLUMNS,
  guardrailCells,
  benchResultSource,
  summarize,
  tasksFixedPhrase,
  type ConditionSummary,
} from "../bench/results/resultsSummary.ts";
import { CONDITION_IDS, type ConditionId } from "../bench/agent/conditions.ts";
import { isFixSize, isStatementRecord } from "../bench/runs/taskRecordFieldChecks.ts";
import { labelledVerdict, type ResultSource } from "../core/resultLabel.ts";
import { RUN_FILES } from "../bench/runs/runDirectory.ts";
import type { BenchTraceRecord } from "../bench/runs/benchTrace.ts";
import { formatProblem } from "../recording/evidenceProblem.ts";
import { OUTCOME_CLASSES } from "../bench/results/taskOutcome.ts";
import {
  fixedWithGuardrailHits,
  GUARDRAIL_COUNT_LABELS,
  guardrailFlags,
  guardrailHeadlineClause,
} from "../bench/results/guardrailFlags.ts";
import { deriveBenchVerdict, type ReplayState } from "../verdicts/benchVerdict.ts";
import type { BenchSnapshot } from "../verdicts/benchSnapshot.ts";
import { recordedVerificationLine, type RecordedVerification } from "../verdicts/recordedVerification.ts";
import { BENCH_PROBLEM_MEANINGS, type BenchProblem, type BenchProblemCode } from "../verdicts/benchProblems.ts";
import { parseDatasetIdentity, type DatasetIdentity } from "../bench/dataset/datasetIdentity.ts";
import type { BenchErrorCode } from "../bench/errorCodes.ts";
import { shellWord } from "../core/shellWord.ts";
import { existsSync } from "node:fs";
import { recordedBenchRegenerationLine } from "../verdicts/benchRegenerationRecord.ts";
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
import type {
  BenchReportData,
  BenchTaskView,
  ConditionClaimsView,
  ConditionGuardrailsView,
  KindLabel,
  LabeledRow,
  Verdict,
} from "./reportDocument.ts";

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
  const condition = stringField(task, "condition") ?? "";
  const grade = objectField(task, "grade");
  const guardrails = objectField(task, "guardrails");
  return {
    taskId: id,
    program: stringField(task, "program") ?? "",
    condition,
    outcome: stringField(task, "outcome") ?? "unknown",
    stopReason: stringField(task, "stopReason") ?? "",
    claimedFixed: task.claimedFixed === true,
    falseFixed: task.falseFixed === true,
    turns: numberField(task, "turns") ?? 0,
    tokens: numberField(task, "tokens") ?? 0,
    seconds: numberField(task, "seconds") ?? 0,
    grade,
    gradeRows: gradeRows(grade),
    claimNote: claimNote(task),
    guardrails,
    guardrailRows: guardrailRows(conditionId(condition), guardrails),
    guardrailFlags: guardrailFlags(guardrails),
    statements: statementWords(isStatementRecord(task.statements) ? task.statements : undefined),
    fixSize: fixSizeWords(task.fixSize === null ? null : isFixSize(task.fixSize) ? task.fixSize : undefined),
    diff,
    trace,
    traceNote,
  };
}

function conditionId(text: string): ConditionId | null {
  return CONDITION_IDS.find((c) => c === text) ?? null;
}

/** What a grade outcome means, in words: "error" is the program's (it could not be imported or run), never a case count. */
const GRADE_OUTCOME_WORDS: Readonly<Record<string, string>> = {
  passed: "passed: every public case passed",
  failed: "failed: a public case failed",
  timeout: "timeout: the program ran out of its time budget",
  error: "error: the program could not be imported or run",
};

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The grading run as labeled rows in words (the record's counts, never its JSON). */
export function gradeRows(grade: JsonObject | null): LabeledRow[] {
  if (grade === null) return [{ label: "grading run", value: "not recorded" }];
  const outcome = stringField(grade, "outcome") ?? "not recorded";
  const counts = objectField(grade, "counts");
  const n = (key: string): number => numberField(counts, key) ?? 0;
  const cases = [`${n("passed")} passed`, `${n("failed")} failed`];
  // A case that raised is a case's error; the outcome "error" is the program's (no case ran): the row says which.
  if (n("errors") > 0) cases.push(count(n("errors"), "case raised an error", "cases raised an error"));
  if (n("skipped") > 0) cases.push(`${n("skipped")} skipped`);
  const ran = n("passed") + n("failed") + n("errors") + n("skipped");
  const rows: LabeledRow[] = [
    { label: "grade", value: GRADE_OUTCOME_WORDS[outcome] ?? outcome },
    { label: "public cases", value: ran === 0 ? "no case ran" : cases.join(", ") },
  ];
  const heldOut = objectField(grade, "heldOut");
  if (heldOut !== null) {
    const dropped = numberField(heldOut, "dropped") ?? 0;
    rows.push({
      label: "held-out cases",
      value: `${numberField(heldOut, "passed") ?? "?"} of ${numberField(heldOut, "total") ?? "?"} passed (seed ${numberField(heldOut, "seed") ?? "?"}${dropped > 0 ? `, ${dropped} dropped` : ""}); reported beside the grade, never inside it`,
    });
  } else if (grade.heldOut === null) rows.push({ label: "held-out cases", value: "none for this program" });
  const reason = stringField(grade, "reason");
  if (reason !== null && reason !== "") rows.push({ label: "reason", value: reason });
  const seconds = numberField(grade, "seconds");
  if (seconds !== null) rows.push({ label: "time", value: `${seconds} s` });
  const grader = stringField(grade, "grader");
  if (grader !== null) rows.push({ label: "grader", value: grader });
  const summary = stringField(grade, "summary");
  if (summary !== null && summary !== "") rows.push({ label: "summary", value: summary });
  return rows;
}

/** A false "fixed" in words, for the value beside the outcome (never in its label column). */
function claimNote(task: JsonObject): string | null {
  if (task.falseFixed === true) return 'claimed fixed, and the grading run failed: a false "fixed"';
  if (task.falseFixedHeldOut === true) return "claimed fixed; every public case passes and a held-out case fails";
  return null;
}

/** A task's guardrail counts in words; a count its condition cannot have is named as such, never 0. */
export function guardrailRows(condition: ConditionId | null, guardrails: JsonObject | null): LabeledRow[] {
  if (guardrails === null) return [];
  const applies = condition === null ? { tools: true, tests: true, refusedStops: true } : applicableCounts(condition);
  if (!applies.tools)
    return [{ label: "no tools", value: `condition ${condition ?? "?"} has no tools: nothing to count` }];
  return GUARDRAIL_COLUMNS.map((key) => {
    const applicable = key === "testRuns" ? applies.tests : key === "refusedStopAttempts" ? applies.refusedStops : true;
    return {
      label: GUARDRAIL_COUNT_LABELS[key],
      value: applicable
        ? String(numberField(guardrails, key) ?? 0)
        : key === "testRuns"
          ? "none: this condition cannot run the tests"
          : "none: only condition D refuses a stop",
    };
  });
}

function claimsView(f: ConditionFindings): ConditionClaimsView {
  const applies = applicableCounts(f.condition);
  const tests = (n: number): number | null => (applies.tests ? n : null);
  return {
    condition: f.condition,
    label: f.label,
    claimed: f.claimed,
    claimedTestsFail: f.claimedTestsFail,
    claimedTestsPassHeldOutFail: f.claimedTestsPassHeldOutFail,
    verified: tests(f.claims.verified),
    finalChangeNotRerun: tests(f.claims.final_change_not_rerun),
    afterFailingRun: tests(f.claims.after_failing_run),
    neverRanTests: tests(f.claims.never_ran_tests),
    unverifiedFalse: tests(f.unverifiedFalse),
    refusedStopAttempts: applies.refusedStops ? f.refusedStopAttempts : null,
    notAnalysed: f.claims.unrecorded,
  };
}

function guardrailTable(summary: readonly JsonObject[]): ConditionGuardrailsView[] {
  return summary.flatMap((row) => {
    const condition = conditionId(stringField(row, "condition") ?? "");
    if (condition === null) return [];
    const counts = Object.fromEntries(GUARDRAIL_COLUMNS.map((key) => [key, numberField(row, key) ?? 0])) as Pick<
      ConditionSummary,
      (typeof GUARDRAIL_COLUMNS)[number]
    >;
    return [
      { condition, label: stringField(row, "label") ?? condition, cells: guardrailCells({ condition, ...counts }) },
    ];
  });
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

function benchVerdict(
  source: ResultSource,
  tasks: readonly BenchTaskView[],
  complete: boolean | null,
  done: number,
  expected: number | null,
  summary: readonly JsonObject[],
): Verdict {
  const details = verdictDetails(tasks, summary);
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

/**
 * The verdict box's lines under the headline: the fixed count per condition on one line and the
 * false "fixed" total on another. The claim breakdown (a wall of sentences here before) is the
 * table below the box, where a condition without tests shows no test-related count.
 */
function verdictDetails(tasks: readonly BenchTaskView[], summary: readonly JsonObject[]): string[] {
  const perCondition = summary
    .map(
      (row) =>
        `${stringField(row, "condition") ?? "?"} ${numberField(row, "fixed") ?? "?"} of ${numberField(row, "tasks") ?? "?"}`,
    )
    .join(" · ");
  const falseFixed = tasks.filter((task) => task.falseFixed).length;
  return [
    `fixed per condition: ${perCondition}`,
    `false "fixed" (claimed, tests fail) in all: ${falseFixed}; the claims of each condition are in the table "Claims of done" below`,
  ];
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
  // regeneration.json is verify-run --regenerate's record, shown (when there is one) as recorded, deciding nothing.
  const regenerated =
    derived.recordedRegeneration.state === "absent"
      ? []
      : [recordedBenchRegenerationLine(derived.recordedRegeneration, baseName(runDirectory), "this report")];
  const recordedManifest = manifest ?? objectField(results, "manifest");
  // The source from run.json's model, which the verdict holds against every trace's binding.
  const source = benchResultSource(objectField(recordedManifest, "model") ?? {});
  const verdict: Verdict =
    derived.kind === "evidence_invalid"
      ? {
          headline: labelledVerdict(source, EVIDENCE_INVALID_HEADLINE),
          tone: "invalid",
          details: [
            ...invalidCauseLines(derived.problems, manifest, runDirectory),
            "the tables below are not verified",
            regrade,
            ...verificationDatasetLines(snapshot.verification, manifest, derived.recordedVerification, runDirectory),
            ...regenerated,
            replay,
            ...derived.problems.map(formatProblem),
          ],
        }
      : withRegrade(benchVerdict(source, tasks, complete, tasks.length, expected, summary), [
          regrade,
          ...verificationDatasetLines(snapshot.verification, manifest, derived.recordedVerification, runDirectory),
          ...regenerated,
          replay,
        ]);
  return {
    directoryName: baseName(runDirectory),
    verdict,
    label: benchLabel(manifest ?? objectField(results, "manifest")),
    manifest: manifest ?? objectField(results, "manifest"),
    complete,
    tasksDone: tasks.length,
    tasksExpected: expected,
    summary,
    guardrailHeaders: GUARDRAIL_COLUMNS.map((key) => GUARDRAIL_COUNT_LABELS[key]),
    guardrailTable: guardrailTable(summary),
    claims: conditionFindings(derived.tasks).map(claimsView),
    alongTheWay: alongTheWay(derived.tasks),
    outcomeClasses: [...OUTCOME_CLASSES],
    tasks,
    problems: [...derived.problems.map(formatProblem), ...problems],
  };
}

function withRegrade(verdict: Verdict, lines: readonly string[]): Verdict {
  return { ...verdict, details: [...lines, ...verdict.details] };
}

/** The codes that say the run's records were made on another data set than run.json names. */
const DATASET_PROBLEM_CODES: readonly BenchProblemCode[] = ["dataset_identity_invalid", "dataset_digest_mismatch"];

function short(sha256: string): string {
  return sha256.slice(0, 12);
}

function recordedIdentity(manifest: JsonObject | null): DatasetIdentity | null {
  const parsed = parseDatasetIdentity(manifest?.dataset);
  return "identity" in parsed ? parsed.identity : null;
}

/**
 * An EVIDENCE INVALID page's first lines: the verdict's own codes, most frequent first, with their
 * meanings (a generic "the files disagree" named no cause), and for a data set cause the next command.
 */
export function invalidCauseLines(
  problems: readonly BenchProblem[],
  manifest: JsonObject | null,
  runDirectory: string,
): string[] {
  const counts = new Map<BenchProblemCode, number>();
  for (const problem of problems) counts.set(problem.code, (counts.get(problem.code) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
  const lines = ranked.map(
    ([code, n]) => `cause: ${code}${n > 1 ? ` (${n} problems)` : ""}: ${BENCH_PROBLEM_MEANINGS[code]}`,
  );
  if (ranked.some(([code]) => DATASET_PROBLEM_CODES.includes(code))) {
    const identity = recordedIdentity(manifest);
    const dataset = identity === null ? "FOLDER" : shellWord(identity.root);
    lines.push(
      `the tasks' traces were made on another data set than run.json names${identity === null ? "" : ` (${identity.root}, content sha256 ${short(identity.sha256)})`}: the records are not one run's, and verify-run refuses them`,
      `next step: run the tasks again into a new folder on the data set you mean: tca bench quixbugs run --dataset ${dataset} --out ${shellWord(`${runDirectory}-rerun`)} with this run's model options${identity === null ? " (FOLDER: the data set's folder)" : ""}`,
    );
  }
  return lines;
}

/**
 * A recorded verification that re-graded against another data set than the run's: its
 * disagreement is the data set's, not the run's. Named with verify-run's own code for the case
 * (dataset_mismatch: another content; dataset_required: the run records no identity to check it
 * against) and the command that re-grades against the run's own data set. Empty otherwise.
 */
export function verificationDatasetLines(
  verification: JsonObject | null,
  manifest: JsonObject | null,
  recorded: RecordedVerification,
  runDirectory: string,
): string[] {
  if (verification === null || recorded.state !== "disagrees") return [];
  const identity = recordedIdentity(manifest);
  const used = stringField(verification, "dataset") ?? "a data set it does not name";
  const usedSha = stringField(verification, "datasetSha256");
  const command = `tca bench quixbugs verify-run ${shellWord(runDirectory)}`;
  if (identity !== null && usedSha !== null && usedSha !== identity.sha256) {
    const code: BenchErrorCode = "dataset_mismatch";
    return [
      `cause: ${code}: the recorded re-grade used ${used} (content sha256 ${short(usedSha)}), not the data set this run was made on, ${identity.root} (content sha256 ${short(identity.sha256)}): its disagreement is the data set's, not the run's`,
      `next step: ${command} (it re-grades against the run's own data set, found by its content; ${existsSync(identity.root) ? `it is at ${identity.root}` : `pass --dataset with a copy of it if ${identity.root} is gone`})`,
    ];
  }
  if (identity === null && stringField(verification, "datasetChoice") === "given, none recorded") {
    const code: BenchErrorCode = "dataset_required";
    return [
      `cause: ${code}: run.json records no data set identity, so the recorded re-grade's data set (${used}) is not known to be the run's; its disagreement may be the data set's`,
      `next step: ${command} --dataset FOLDER, FOLDER the data set this run was made on`,
    ];
  }
  return [];
}
