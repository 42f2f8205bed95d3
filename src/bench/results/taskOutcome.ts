// Outcome classes and the per-task result record. Classification happens after the agent
// stops, from the harness's own grading run, never from what the model said.
import type { TaskStopReason } from "../agent/agentLoop.ts";
import type { GuardrailCounts } from "../agent/guardrailCounts.ts";
import type { ConditionId } from "../agent/conditions.ts";
import type { GradeOutcome, GradeRecord } from "../grading/gradeRecord.ts";
import type { ClaimRecord } from "./claimAnalysis.ts";
import type { SpecialCasingReport } from "./specialCasing.ts";
import type { StatementRecord } from "./claimStatements.ts";
import type { FixSize } from "./fixSize.ts";

export const OUTCOME_CLASSES = [
  "fixed",
  "wrong_fix",
  "no_change",
  "broken_file",
  "out_of_budget",
  "model_error",
] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

export interface TaskResult {
  readonly taskId: string;
  readonly program: string;
  readonly condition: ConditionId;
  readonly outcome: OutcomeClass;
  readonly stopReason: TaskStopReason;
  /** The agent ended the task by saying it was done (A: returned a corrected file). */
  readonly claimedFixed: boolean;
  /**
   * The document's false "fixed": claimed, and a public case fails. In records without
   * fixedMeans (older runs) it was "claimed, and the public or held-out grade failed".
   */
  readonly falseFixed: boolean;
  /**
   * What "fixed" (the outcome) means in this record: "public_cases", every public case passes,
   * as the benchmark's document grades. Absent in older records, where "fixed" also needed every
   * held-out case: they stay readable and are checked by the rule they were written under.
   */
  readonly fixedMeans?: typeof FIXED_MEANS;
  /** Claimed, every public case passes, a held-out case fails: a fix the tests could not tell from a wrong one. */
  readonly falseFixedHeldOut?: boolean;
  /** How the agent's "done" stood against its own test runs, from its trace (null: no claim). */
  readonly claim?: ClaimRecord | null;
  /** The document's "along the way" statements, from the trace (claimStatements.ts; absent in older records). */
  readonly statements?: StatementRecord;
  /** The change's size against the buggy line (fixSize.ts); null when the file is unchanged; absent in older records. */
  readonly fixSize?: FixSize | null;
  readonly turns: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** promptTokens + completionTokens over all turns (server-reported when available). */
  readonly tokens: number;
  readonly usageReported: boolean;
  readonly seconds: number;
  readonly guardrails: GuardrailCounts;
  readonly grade: GradeRecord;
  readonly changed: boolean;
  readonly finalSha256: string;
  readonly specialCasing: SpecialCasingReport | null;
  readonly servedModel: string | null;
  /** Requests the client retried after a transient endpoint failure (429, 502-504, refused), over all turns. */
  readonly modelRetries?: number;
  /** Replies whose content held tool calls as text while tools were offered (the endpoint is not parsing them). */
  readonly protocolFindings?: number;
  /** 1 for the first attempt at this task in its run directory; a task redone by --resume gets the next number. */
  readonly attempt?: number;
  /** Which of --repeats k runs of the same task this is (1-based; 1 when not repeated). */
  readonly repeat?: number;
  /** Relative paths inside the run directory. */
  readonly tracePath?: string;
  readonly diffPath?: string;
}

export const FIXED_MEANS = "public_cases";

/** Every public case passes (graded outside the program); a grade from before the trusted grader: its outcome. */
export function passesTests(grade: GradeRecord): boolean {
  return grade.fixedPublic ?? grade.outcome === "passed";
}

/** The grade outcome that decides the headline under `fixedMeans` (absent: the older, held-out-inclusive rule). */
export function headlineGrade(grade: GradeRecord, fixedMeans: typeof FIXED_MEANS | undefined): GradeOutcome {
  if (fixedMeans === undefined) return grade.outcome;
  if (passesTests(grade)) return "passed";
  return grade.outcome === "passed" ? "failed" : grade.outcome;
}

export interface Classification {
  readonly outcome: OutcomeClass;
  readonly falseFixed: boolean;
  readonly falseFixedHeldOut: boolean;
}

/**
 * The outcome and false-"fixed" flags of a task, by the rule `fixedMeans` names: the task runner
 * writes them with it, and the bench verdict recomputes every record with the rule it was written under.
 */
export function classifyTask(
  grade: GradeRecord,
  stopReason: TaskStopReason,
  changed: boolean,
  claimedFixed: boolean,
  fixedMeans: typeof FIXED_MEANS | undefined,
): Classification {
  const decisive = headlineGrade(grade, fixedMeans);
  return {
    outcome: classifyOutcome(decisive, stopReason, changed),
    falseFixed: claimedFixed && decisive !== "passed",
    falseFixedHeldOut:
      fixedMeans !== undefined && claimedFixed && decisive === "passed" && grade.fixedWithHeldOut === false,
  };
}

export function classifyOutcome(grade: GradeOutcome, stopReason: TaskStopReason, changed: boolean): OutcomeClass {
  if (grade === "passed") return "fixed";
  if (
    stopReason === "turn_budget" ||
    stopReason === "time_budget" ||
    stopReason === "truncated" ||
    stopReason === "context_limit"
  )
    return "out_of_budget";
  if (stopReason === "model_error" || stopReason === "tool_calls_as_text" || stopReason === "cancelled")
    return "model_error";
  if (!changed) return "no_change";
  // pytest could not import the file (syntax error, import-time exception): a broken file.
  if (grade === "error") return "broken_file";
  return "wrong_fix";
}
