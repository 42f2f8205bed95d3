// One task's agent: one program under one condition. The loop asks the model for a turn,
// executes allowed tool calls, and decides when the agent stops; the model's "done" is a request
// the harness may refuse (condition D). It ends where the agent stops: it returns the transcript,
// the stop reason and the final file as plain data (as mini-swe-agent's agent returns its
// trajectory), with every event in the trace. Grading, the diff and the outcome are the task
// runner's (../taskRunner.ts); nothing here knows how the file will be judged.
import type { ChatBackend, ChatTurnMessage, ChatTurnResult } from "../../sources/openaiCompatibleChat.ts";
import { AgentTools } from "./agentTools.ts";
import type { GuardrailCounts } from "./guardrailCounts.ts";
import { sha256Hex } from "../../core/digest.ts";
import type { StepHook } from "../../core/stepHook.ts";
import { taskId, type AgentBudget, type Condition, type ConditionId } from "./conditions.ts";
import { buggySource, targetPath, testFilePath, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import { programDigest } from "../dataset/programDigest.ts";
import { fillTemplate, PROMPT_TEMPLATES } from "./prompts.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import type { TraceSink } from "./taskTrace.ts";
import type { TraceRunBinding } from "./traceEvents.ts";
import { TaskDeadline } from "./taskDeadline.ts";
import { toolSchemasFor } from "./toolSchemas.ts";
import { parseToolCallText } from "../../sources/textToolCalls.ts";

/** Why the agent loop ended. */
/** context_limit: the conversation outgrew the model's input budget (local engine); an out-of-budget end. */
/** tool_calls_as_text: the endpoint returned tool calls as text in the content (it does not parse them); an endpoint failure. */
export const STOP_REASONS = [
  "agent_done",
  "no_answer",
  "turn_budget",
  "time_budget",
  "truncated",
  "context_limit",
  "model_error",
  "tool_calls_as_text",
  "cancelled",
] as const;
export type TaskStopReason = (typeof STOP_REASONS)[number];

export interface AgentTaskContext {
  readonly dataset: QuixDataset;
  readonly program: QuixProgram;
  readonly condition: Condition;
  readonly backend: ChatBackend;
  readonly sandbox: SandboxConfig;
  readonly budget: AgentBudget;
  readonly trace: TraceSink;
  /** Monotonic milliseconds; injected so tests can drive the time budget without sleeping. */
  readonly clock: () => number;
  readonly testTimeoutMs: number;
  readonly includeSlow: boolean;
  /** Cancellation (Ctrl-C). A cancelled task is never graded and never recorded as a result. */
  readonly signal?: AbortSignal;
  /** Sampling seed sent with every request of this task (--repeats gives each repeat its own). */
  readonly seed?: number;
  readonly attempt?: number;
  readonly repeat?: number;
  /** Crash injection for tests: called while a model call is in flight (src/core/stepHook.ts). */
  readonly hook?: StepHook<"modelCall">;
  /** What the run's labels were when this task started (runs/runDirectory.ts runBinding), recorded in task_start. */
  readonly runBinding?: TraceRunBinding;
}

/** What the agent did, as plain data: its transcript, why it stopped, and the file it left. */
export interface AgentRun {
  readonly taskId: string;
  readonly program: string;
  readonly condition: ConditionId;
  /** Never "cancelled": a cancelled agent returns an AgentInterruption instead. */
  readonly stopReason: Exclude<TaskStopReason, "cancelled">;
  /** The agent ended by saying it was done (A: returned a corrected file). */
  readonly claimedFixed: boolean;
  readonly turns: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly usageReported: boolean;
  readonly servedModel: string | null;
  readonly modelRetries: number;
  readonly protocolFindings: number;
  readonly guardrails: GuardrailCounts;
  /** The injected clock's reading when the agent started: the trace's time origin. */
  readonly startedAt: number;
  /** Seconds from the start to the agent's stop. */
  readonly seconds: number;
  /** The buggy program as the agent got it, and the target file as the agent left it. */
  readonly original: string;
  readonly final: string;
  /** Every message of the conversation, the harness's refusals included. */
  readonly transcript: readonly ChatTurnMessage[];
}

/** An agent stopped by cancellation: not a result. The run does not record it, so --resume redoes it. */
export interface AgentInterruption {
  readonly interrupted: true;
  readonly taskId: string;
  readonly stage: "agent";
  readonly seconds: number;
}

export function initialMessages(condition: Condition, program: string, source: string): ChatTurnMessage[] {
  const target = targetPath(program);
  if (condition.tools.length === 0) {
    return [{ role: "user", content: fillTemplate(PROMPT_TEMPLATES.one_shot, { target, source }) }];
  }
  const withTests = condition.tools.includes("run_tests");
  const system = fillTemplate(PROMPT_TEMPLATES.agent_system, {
    target,
    tests_line: withTests
      ? fillTemplate(PROMPT_TEMPLATES.tests_line_with_tests, { test_file: testFilePath(program) })
      : PROMPT_TEMPLATES.tests_line_without_tests,
    verify_line: withTests ? PROMPT_TEMPLATES.verify_line_with_tests : PROMPT_TEMPLATES.verify_line_without_tests,
  });
  return [
    { role: "system", content: system },
    { role: "user", content: fillTemplate(PROMPT_TEMPLATES.agent_user, { target }) },
  ];
}

/** The first ```python (or bare ```) block of a one-shot answer; undefined when there is none. */
export function extractCodeBlock(text: string): string | undefined {
  const python = /```(?:python|py|python3)[ \t]*\r?\n([\s\S]*?)```/.exec(text);
  if (python) return python[1];
  const bare = /```[ \t]*\r?\n([\s\S]*?)```/.exec(text);
  return bare ? bare[1] : undefined;
}

interface LoopState {
  turns: number;
  promptTokens: number;
  completionTokens: number;
  usageReported: boolean;
  servedModel: string | null;
  claimed: boolean;
  modelRetries: number;
  protocolFindings: number;
}

/**
 * Tool-call blocks written into the content as text (<tool_call>{…}</tool_call>): well-formed
 * ones are what a server without tool parsing returns; malformed ones are the model's own.
 */
function textToolCallsIn(content: string): { wellFormed: number; malformed: number } {
  if (!content.includes("<tool_call>")) return { wellFormed: 0, malformed: 0 };
  const parsed = parseToolCallText(content);
  return { wellFormed: parsed.toolCalls.length, malformed: parsed.malformed.length };
}

export async function runAgentLoop(ctx: AgentTaskContext): Promise<AgentRun | AgentInterruption> {
  const { condition, program, budget, trace, clock } = ctx;
  const startedAt = clock();
  const deadline = startedAt + budget.taskTimeoutMs;
  const original = buggySource(ctx.dataset, program.name).toString("utf8");
  const tools = new AgentTools(
    {
      dataset: ctx.dataset,
      program,
      condition,
      sandbox: ctx.sandbox,
      trace,
      clock,
      startedAt,
      testTimeoutMs: ctx.testTimeoutMs,
      includeSlow: ctx.includeSlow,
      remainingMs: () => deadline - clock(),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    },
    original,
  );
  const schemas = toolSchemasFor(condition);
  const messages = initialMessages(condition, program.name, original);
  const state: LoopState = {
    turns: 0,
    promptTokens: 0,
    completionTokens: 0,
    usageReported: false,
    servedModel: null,
    claimed: false,
    modelRetries: 0,
    protocolFindings: 0,
  };
  trace.append("task_start", {
    taskId: taskId(condition.id, program.name),
    program: program.name,
    condition: condition.id,
    budget,
    target: targetPath(program.name),
    originalSha256: sha256Hex(original),
    programSha256: programDigest(ctx.dataset, program),
    ...(ctx.runBinding ? { run: ctx.runBinding } : {}),
    tools: schemas.map((s) => s.function.name),
    attempt: ctx.attempt ?? 1,
    repeat: ctx.repeat ?? 1,
    ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}),
  });
  const interrupted = (): AgentInterruption => {
    const seconds = Math.round((clock() - startedAt) / 10) / 100;
    trace.append("task_interrupted", {
      stage: "agent",
      seconds,
      note: "cancelled: not graded, not recorded; --resume redoes this task",
    });
    return { interrupted: true, taskId: taskId(condition.id, program.name), stage: "agent", seconds };
  };
  // One deadline timer for the whole task, held here until the task ends (see taskDeadline.ts).
  const taskDeadline = new TaskDeadline(budget.taskTimeoutMs, ctx.signal);
  let stopReason: TaskStopReason | undefined;
  try {
    while (stopReason === undefined) {
      if (ctx.signal?.aborted) {
        stopReason = "cancelled";
        break;
      }
      if (state.turns >= budget.maxTurns) {
        stopReason = "turn_budget";
        break;
      }
      const remaining = deadline - clock();
      if (remaining <= 0) {
        stopReason = "time_budget";
        break;
      }
      const turn = state.turns + 1;
      trace.append("model_request", { messages: messages.length }, turn);
      const pending = ctx.backend.complete({
        messages,
        tools: schemas,
        maxTokens: budget.maxTokensPerTurn,
        signal: taskDeadline.signal,
        ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}),
      });
      if (ctx.hook) await ctx.hook("modelCall", `${taskId(condition.id, program.name)} turn ${turn}`);
      const reply: ChatTurnResult = await pending;
      state.turns = turn;
      state.modelRetries += reply.exchange.retries?.length ?? 0;
      if (!reply.ok) {
        trace.append(
          "model_error",
          {
            error: reply.error,
            message: reply.message,
            exchange: reply.exchange,
            retries: reply.exchange.retries?.length ?? 0,
          },
          turn,
        );
        if (ctx.signal?.aborted) {
          stopReason = "cancelled";
          break;
        }
        // Past the deadline, whatever the transport reported (a reset, Node's own HTTP timeout),
        // the task ran out of time: out of budget, not a model error.
        const pastDeadline = taskDeadline.ended === "expired" || clock() >= deadline;
        stopReason =
          reply.error === "model_timeout" || pastDeadline
            ? "time_budget"
            : reply.error === "model_context_limit"
              ? "context_limit"
              : "model_error";
        break;
      }
      // Counted by the server or by the local engine itself: real token counts either way.
      if (reply.usage.source !== "none") state.usageReported = true;
      state.promptTokens += reply.usage.promptTokens ?? 0;
      state.completionTokens += reply.usage.completionTokens ?? 0;
      state.servedModel = reply.servedModel ?? state.servedModel;
      trace.append(
        "model_response",
        {
          content: reply.content,
          toolCalls: reply.toolCalls,
          finishReason: reply.finishReason,
          usage: reply.usage,
          servedModel: reply.servedModel,
          exchange: reply.exchange,
        },
        turn,
      );
      messages.push({
        role: "assistant",
        content: reply.content,
        toolCalls: condition.tools.length === 0 ? [] : reply.toolCalls,
      });

      if (condition.tools.length === 0) {
        // A: one turn, the answer is the file. A reply cut off at the token limit is never a
        // claim, even when a complete code block came before the cut: the answer was not
        // delivered whole, so the file stays as it was and the task is out of budget.
        const code = extractCodeBlock(reply.content);
        if (reply.finishReason === "length") {
          stopReason = "truncated";
        } else if (code !== undefined) {
          tools.target = code;
          state.claimed = true;
          stopReason = "agent_done";
        } else {
          stopReason = "no_answer";
        }
        trace.append(
          "stop_attempt",
          {
            accepted: stopReason === "agent_done",
            codeBlock: code !== undefined,
            truncated: reply.finishReason === "length",
          },
          turn,
        );
        break;
      }
      if (reply.toolCalls.length === 0) {
        // Tools were offered and none came back as tool calls, but the content holds them as
        // text. Well-formed blocks: the endpoint is not parsing tool calls; never a claim, the
        // task ends as an endpoint failure (a model error), counted as a protocol finding.
        // Only malformed blocks: the model's own broken call, which a parsing server also
        // leaves in the text; never a claim either, but the model's failure, so the task ends
        // without an answer and is graded (it stays in the fixed rate's denominator).
        const asText = textToolCallsIn(reply.content);
        if (asText.wellFormed > 0) {
          state.protocolFindings++;
          trace.append(
            "protocol_finding",
            { kind: "tool_calls_as_text", blocks: asText.wellFormed + asText.malformed },
            turn,
          );
          stopReason = "tool_calls_as_text";
          break;
        }
        if (asText.malformed > 0) {
          trace.append("protocol_finding", { kind: "malformed_tool_call_text", blocks: asText.malformed }, turn);
          trace.append("stop_attempt", { accepted: false, malformedToolCall: true }, turn);
          stopReason = "no_answer";
          break;
        }
      }
      if (reply.toolCalls.length > 0) {
        for (const call of reply.toolCalls) {
          const content = await tools.execute(call, turn);
          messages.push({ role: "tool", toolCallId: call.id, name: call.name, content });
        }
        if (ctx.signal?.aborted) stopReason = "cancelled";
        continue;
      }
      // A reply cut off at the per-turn token limit is not a statement that the work is done:
      // it ends the task as out of budget (truncated), never as a claimed fix.
      if (reply.finishReason === "length") {
        trace.append("stop_attempt", { accepted: false, truncated: true }, turn);
        stopReason = "truncated";
        break;
      }
      // No tool call: the model says it is done.
      if (condition.verifiedCompletion) {
        const current = sha256Hex(tools.target);
        if (tools.lastPassedHash !== current) {
          const text =
            tools.lastRunHash === current
              ? PROMPT_TEMPLATES.harness_refusal_D_fail
              : PROMPT_TEMPLATES.harness_refusal_D_not_run;
          tools.guardrails.refusedStopAttempts++;
          trace.append("stop_attempt", { accepted: false, refusal: text }, turn);
          messages.push({ role: "user", content: text });
          continue;
        }
      }
      trace.append("stop_attempt", { accepted: true }, turn);
      state.claimed = true;
      stopReason = "agent_done";
    }
  } finally {
    taskDeadline.dispose();
  }
  if (stopReason === "cancelled" || ctx.signal?.aborted) return interrupted();
  if (stopReason === "turn_budget" || stopReason === "time_budget" || stopReason === "context_limit") {
    trace.append("budget_exhausted", { reason: stopReason, turns: state.turns });
  }
  return {
    taskId: taskId(condition.id, program.name),
    program: program.name,
    condition: condition.id,
    stopReason,
    claimedFixed: state.claimed,
    turns: state.turns,
    promptTokens: state.promptTokens,
    completionTokens: state.completionTokens,
    usageReported: state.usageReported,
    servedModel: state.servedModel,
    modelRetries: state.modelRetries,
    protocolFindings: state.protocolFindings,
    guardrails: { ...tools.guardrails },
    startedAt,
    seconds: Math.round((clock() - startedAt) / 10) / 100,
    original,
    final: tools.target,
    transcript: messages,
  };
}
