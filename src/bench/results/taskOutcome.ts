// Outcome classes and the per-task result record. Classification happens after the agent
// stops, from the harness's own grading run, never from what the model said.
import type { TaskStopReason } from "../agent/agentLoop.ts";
import type { GuardrailCounts } from "../agent/agentTools.ts";
import type { ConditionId } from "../agent/conditions.ts";
import type { GradeOutcome, GradeRecord } from "../grading/gradeRecord.ts";
import type { SpecialCasingReport } from "./specialCasing.ts";

export const OUTCOME_CLASSES = ["fixed", "wrong_fix", "no_change", "broken_file", "out_of_budget", "model_error"] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

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

export function classifyOutcome(grade: GradeOutcome, stopReason: TaskStopReason, changed: boolean): OutcomeClass {
  if (grade === "passed") return "fixed";
  if (stopReason === "turn_budget" || stopReason === "time_budget" || stopReason === "truncated" || stopReason === "context_limit") return "out_of_budget";
  if (stopReason === "model_error" || stopReason === "tool_calls_as_text" || stopReason === "cancelled") return "model_error";
  if (!changed) return "no_change";
  // pytest could not import the file (syntax error, import-time exception): a broken file.
  if (grade === "error") return "broken_file";
  return "wrong_fix";
}
