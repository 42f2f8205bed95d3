// Outcome classes and the per-task result record. Classification happens after the agent
// stops, from the harness's own grading run, never from what the model said.
import type { ConditionId } from "../agent/conditions.ts";
import type { SpecialCasingReport } from "./specialCasing.ts";
import type { TestCounts, TestOutcome } from "../sandbox/testRunner.ts";

export const OUTCOME_CLASSES = ["fixed", "wrong_fix", "no_change", "broken_file", "out_of_budget", "model_error"] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

/** Why the agent loop ended. */
/** context_limit: the conversation outgrew the model's input budget (local engine); an out-of-budget end. */
/** tool_calls_as_text: the endpoint returned tool calls as text in the content (it does not parse them); an endpoint failure. */
export const STOP_REASONS = ["agent_done", "no_answer", "turn_budget", "time_budget", "truncated", "context_limit", "model_error", "tool_calls_as_text", "cancelled"] as const;
export type TaskStopReason = (typeof STOP_REASONS)[number];

export interface GradeRecord {
  readonly outcome: TestOutcome;
  readonly counts: TestCounts;
  readonly seconds: number;
  readonly summary: string;
  /** The trusted grader's details (grading/trustedGrader.ts); absent in runs graded by pytest. */
  readonly grader?: string;
  readonly reason?: string | null;
  readonly fixedPublic?: boolean;
  /** null: the program has no held-out generation. */
  readonly fixedWithHeldOut?: boolean | null;
  readonly heldOut?: { readonly seed: number; readonly passed: number; readonly total: number; readonly dropped: number } | null;
  readonly excluded?: readonly string[];
}

export interface GuardrailCounts {
  readonly testRuns: number;
  readonly blockedWrites: number;
  readonly blockedReads: number;
  readonly testEditAttempts: number;
  readonly referenceReadAttempts: number;
  readonly toolErrors: number;
  readonly refusedStopAttempts: number;
}

export interface TaskResult {
  readonly taskId: string;
  readonly program: string;
  readonly condition: ConditionId;
  readonly outcome: OutcomeClass;
  readonly stopReason: TaskStopReason;
  /** The agent ended the task by saying it was done (A: returned a corrected file). */
  readonly claimedFixed: boolean;
  /** Claimed fixed, but the grading run did not pass. */
  readonly falseFixed: boolean;
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

export function classifyOutcome(grade: TestOutcome, stopReason: TaskStopReason, changed: boolean): OutcomeClass {
  if (grade === "passed") return "fixed";
  if (stopReason === "turn_budget" || stopReason === "time_budget" || stopReason === "truncated" || stopReason === "context_limit") return "out_of_budget";
  if (stopReason === "model_error" || stopReason === "tool_calls_as_text" || stopReason === "cancelled") return "model_error";
  if (!changed) return "no_change";
  // pytest could not import the file (syntax error, import-time exception): a broken file.
  if (grade === "error") return "broken_file";
  return "wrong_fix";
}

export function taskId(condition: ConditionId, program: string): string {
  return `${condition}-${program}`;
}
