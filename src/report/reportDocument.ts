// The data a report page renders: built in Node from the evidence, embedded in the page as JSON
// and drawn by the inline viewer with textContent only. Every judgement (verdict, status of a
// proposal, which file a diff came from) is made here, where it can be unit-tested; the viewer
// only lays it out.
import type { ConditionAlongTheWay } from "../bench/results/alongTheWay.ts";
import type { DiffLine } from "../bench/results/unifiedDiff.ts";
import type { BenchTraceRecord } from "../bench/runs/benchTrace.ts";
import type { ProposalStatus } from "../verdicts/proposalOutcome.ts";
import type { JsonObject } from "./evidenceFiles.ts";

export const REPORT_DOCUMENT_SCHEMA = "tca.report/1";

/**
 * neutral: results to read (a benchmark), neither a pass nor a failure of the run itself.
 * invalid: the evidence is damaged or disagrees with the audit (headline EVIDENCE INVALID).
 */
export type VerdictTone = "success" | "failure" | "incomplete" | "neutral" | "invalid";

export interface Verdict {
  /** "VERIFIED SUCCESS" only when the audit proves it and every summary file agrees. */
  readonly headline: string;
  readonly tone: VerdictTone;
  readonly details: readonly string[];
}

export interface KindLabel {
  readonly kind: string;
  readonly title: string;
  readonly explanation: string;
  readonly pipelineCheck: boolean;
}

export type { ProposalStatus };

export interface ProposalView {
  readonly number: number;
  readonly status: ProposalStatus;
  /** The error code (invalid, denied, tool error), the discard reason, or the generation outcome. */
  readonly code: string | null;
  readonly action: string | null;
  readonly rawText: string | null;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly generationMs: number | null;
  readonly records: readonly JsonObject[];
}

export interface EditView {
  readonly proposal: number | null;
  readonly eventId: number | null;
  readonly how: "committed" | "reconciled";
  readonly function: string | null;
  readonly oldVersion: number | null;
  readonly version: number | null;
  readonly beforeSha256: string | null;
  readonly sha256: string | null;
  readonly expressionsBefore: JsonObject | null;
  readonly expressionsAfter: JsonObject | null;
  /** Line diff of toy_math.py, or null when a side's bytes were not preserved (see diffNote). */
  readonly diff: readonly DiffLine[] | null;
  readonly diffNote: string | null;
  readonly beforeFile: string | null;
  readonly afterFile: string | null;
}

export interface LabReportData {
  readonly directoryName: string;
  readonly verdict: Verdict;
  readonly label: KindLabel;
  /** What each proposal's text is called: SCRIPTED TEXT for scripted runs, never "model text". */
  readonly textLabel: string;
  readonly runId: string | null;
  readonly stopReason: string | null;
  readonly manifest: JsonObject | null;
  readonly final: JsonObject | null;
  readonly proposals: readonly ProposalView[];
  /** Records outside any proposal (run_started, final_evaluation, run_finished, ...). */
  readonly runRecords: readonly JsonObject[];
  readonly edits: readonly EditView[];
  readonly phases: readonly { readonly name: string; readonly ms: number }[];
  /** Evidence problems the reader found (missing files, bad lines, mismatched run ids). */
  readonly problems: readonly string[];
}

export interface CheckRowView {
  readonly id: string;
  readonly description: string;
  readonly expected: string;
  readonly observed: string;
  readonly unchanged: string;
  /** The check run's own stop reason as checks.json records it; "none" where the check made no run. */
  readonly stopReason: string;
  readonly passed: boolean;
  readonly problems: readonly string[];
  readonly runDirectoryName: string | null;
  /** The check's own run, summarised (null for checks without a run directory). */
  readonly run: LabReportData | null;
}

export interface ChecksReportData {
  readonly directoryName: string;
  readonly verdict: Verdict;
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly checks: readonly CheckRowView[];
  readonly problems: readonly string[];
}

/** A labeled row of a task's view: the words the page shows, decided here, never camelCase keys or JSON. */
export interface LabeledRow {
  readonly label: string;
  readonly value: string;
}

/** One condition's claim breakdown; null where the condition cannot have the count (A and B run no tests, only D refuses a stop). */
export interface ConditionClaimsView {
  readonly condition: string;
  readonly label: string;
  readonly claimed: number;
  /** The document's false "fixed": claimed, tests fail. */
  readonly claimedTestsFail: number;
  readonly claimedTestsPassHeldOutFail: number;
  readonly verified: number | null;
  readonly finalChangeNotRerun: number | null;
  readonly afterFailingRun: number | null;
  readonly neverRanTests: number | null;
  readonly unverifiedFalse: number | null;
  readonly refusedStopAttempts: number | null;
  readonly notAnalysed: number;
}

/** One condition's guardrail counts as the page shows them: the number, or null where it cannot apply. */
export interface ConditionGuardrailsView {
  readonly condition: string;
  readonly label: string;
  readonly cells: readonly string[];
}

export interface BenchTaskView {
  readonly taskId: string;
  readonly program: string;
  readonly condition: string;
  readonly outcome: string;
  readonly stopReason: string;
  readonly claimedFixed: boolean;
  readonly falseFixed: boolean;
  readonly turns: number;
  readonly tokens: number;
  readonly seconds: number;
  readonly grade: JsonObject | null;
  /** The grading run in words: outcome, public cases, held-out cases, time. */
  readonly gradeRows: readonly LabeledRow[];
  /** Beside the outcome: a false "fixed" in words (the claim and what the grade found), or null. */
  readonly claimNote: string | null;
  readonly guardrails: JsonObject | null;
  /** The guardrail counts in words; a count the condition cannot have says so. */
  readonly guardrailRows: readonly LabeledRow[];
  /** The document's statements along the way that this task's agent made (claimStatements.ts), in words. */
  readonly statements: readonly string[];
  /** The change's size in words (fixSize.ts). */
  readonly fixSize: string;
  /** Refused attempts that a "fixed" badge must not hide (src/bench/results/guardrailFlags.ts), most serious first. */
  readonly guardrailFlags: readonly string[];
  readonly diff: string | null;
  /** The task trace's records (runs/benchTrace.ts), as the one trace reader parsed them. */
  readonly trace: readonly BenchTraceRecord[] | null;
  readonly traceNote: string | null;
}

export interface BenchReportData {
  readonly directoryName: string;
  readonly verdict: Verdict;
  readonly label: KindLabel;
  readonly manifest: JsonObject | null;
  readonly complete: boolean | null;
  readonly tasksDone: number;
  readonly tasksExpected: number | null;
  readonly summary: readonly JsonObject[];
  /** The guardrail table's rows, per condition (resultsSummary.ts's guardrailCells); headers in guardrailHeaders. */
  readonly guardrailHeaders: readonly string[];
  readonly guardrailTable: readonly ConditionGuardrailsView[];
  /** The claim breakdown per condition (claimFindings.ts), the table below the verdict. */
  readonly claims: readonly ConditionClaimsView[];
  /** The statements along the way and the fixed tasks' fix sizes per condition (alongTheWay.ts), as results.md has them. */
  readonly alongTheWay: readonly ConditionAlongTheWay[];
  readonly outcomeClasses: readonly string[];
  readonly tasks: readonly BenchTaskView[];
  readonly problems: readonly string[];
}

export type ReportBody =
  | { readonly kind: "lab"; readonly lab: LabReportData }
  | { readonly kind: "checks"; readonly checks: ChecksReportData }
  | { readonly kind: "bench"; readonly bench: BenchReportData };

export type ReportDocument = ReportBody & {
  readonly schema: typeof REPORT_DOCUMENT_SCHEMA;
  readonly generator: string;
  readonly generatedAt: string;
};
