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
import { buggySource, supportFiles, targetPath, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import { programDigest } from "../dataset/programDigest.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import type { TraceSink } from "./taskTrace.ts";
import type { TraceRunBinding } from "./traceEvents.ts";
import { TaskDeadline } from "./taskDeadline.ts";
import { toolSchemasFor } from "./toolSchemas.ts";
import {
  appendHarnessEvent,
  applyGuardrailEffect,
  assistantMessage,
  buildModelRequest,
  decideReply,
  decideStop,
  initialMessages,
  modelRequestEvent,
  toolMessage,
  type TaskStopReason,
} from "./harnessDecisions.ts";

// The harness's decisions are harnessDecisions.ts's pure functions, which the bench replay
// (src/verdicts/benchReplay.ts) calls too; this loop makes them live and does the I/O.
export { extractCodeBlock, initialMessages, STOP_REASONS, type TaskStopReason } from "./harnessDecisions.ts";

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
  /** The seed of the held-out grading inputs this task will be graded with, recorded in task_start. */
  readonly heldOutSeed?: number;
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
  const messages: ChatTurnMessage[] = initialMessages(condition, program.name, original);
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
    // The buggy file itself: the replay's start (src/verdicts/benchReplay.ts), bound by originalSha256.
    original,
    // The files the policy lets C and D read (path → SHA-256): the replay authorizes reads against them.
    testFiles: Object.fromEntries(supportFiles(ctx.dataset, program).map((f) => [f.path, sha256Hex(f.content)])),
    ...(ctx.runBinding ? { run: ctx.runBinding } : {}),
    tools: schemas.map((s) => s.function.name),
    attempt: ctx.attempt ?? 1,
    repeat: ctx.repeat ?? 1,
    ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}),
    ...(ctx.heldOutSeed !== undefined ? { heldOutSeed: ctx.heldOutSeed } : {}),
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
      const request = buildModelRequest(condition, messages, budget, ctx.seed);
      const requested = modelRequestEvent(turn, request);
      appendHarnessEvent(trace, requested);
      const pending = ctx.backend.complete({ ...request, signal: taskDeadline.signal });
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
      messages.push(assistantMessage(condition, reply));
      const meaning = decideReply(condition, reply, turn);
      if (meaning.kind === "end") {
        for (const event of meaning.events) appendHarnessEvent(trace, event);
        if (meaning.file !== undefined) tools.target = meaning.file;
        if (meaning.protocolFinding) state.protocolFindings++;
        state.claimed = meaning.claimed;
        stopReason = meaning.stopReason;
        break;
      }
      if (meaning.kind === "tool_calls") {
        for (const call of reply.toolCalls) {
          const content = await tools.execute(call, turn);
          messages.push(toolMessage(call, content));
        }
        if (ctx.signal?.aborted) stopReason = "cancelled";
        continue;
      }
      // No tool call: the model says it is done; D refuses until run_tests passed on the current file.
      const stop = decideStop(condition, tools.target, tools, turn);
      for (const event of stop.events) appendHarnessEvent(trace, event);
      if (!stop.accepted) {
        applyGuardrailEffect(tools.guardrails, stop.effect);
        messages.push(stop.message);
        continue;
      }
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
