// Every decision the bench harness makes in a task, as pure functions of the condition, the program,
// the files and the model's replies: the request it builds, what a reply means (A's code block,
// tool calls as text, a cut-off reply, a stop), what a tool call does (the policy's refusal, a read's
// bytes, a write's next version), D's stop rule, and the trace events each decision writes. The agent
// loop (agentLoop.ts, agentTools.ts) makes them live; the bench replay (src/verdicts/benchReplay.ts)
// makes them again from the recorded replies with these same functions, never a second copy, and
// compares. Nothing here touches the sandbox, the clock or the model.
import type { ChatTurnMessage, ProposedToolCall, ToolFunctionSchema } from "../../sources/openaiCompatibleChat.ts";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { sha256Hex } from "../../core/digest.ts";
import { parseToolCallText } from "../../sources/textToolCalls.ts";
import type { AgentBudget, Condition } from "./conditions.ts";
import { targetPath, testFilePath } from "../dataset/dataset.ts";
import { countRefusal, type MutableGuardrails } from "./guardrailCounts.ts";
import { fillTemplate, PROMPT_TEMPLATES } from "./prompts.ts";
import type { DataOf } from "../../recording/evidenceEnvelope.ts";
import type { ReadonlyDeep, TraceSink } from "./taskTrace.ts";
import type { AgentTraceCatalog, AgentTraceEventType } from "./traceEvents.ts";
import { progressLine, type TestOutcome } from "./testRunner.ts";
import { authorizeToolCall, parseToolCall } from "./toolPolicy.ts";
import { toolSchemasFor } from "./toolSchemas.ts";

/**
 * The trace layout the replay reads (task_start's original file and test files, model_request's
 * digests, test_run's summary and timeout). In the run's fingerprint: a run that says it was made
 * with it must have traces the replay can replay; a run without it predates the replay.
 */
export const TRACE_REPLAY_FORMAT = "bench-replay-1";

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

/**
 * One trace event a decision writes: the catalog's data (traceEvents.ts) and the model turn it
 * belongs to. The decisions carry `turn` in the data, as the replay compares it; the writer
 * (appendHarnessEvent) moves it to the envelope's `proposal`, and benchTraceAdapter.ts moves it back.
 */
export type HarnessEventOf<K extends AgentTraceEventType> = {
  readonly type: K;
  /** `turn` is absent for the task's own events (budget_exhausted): their proposal is null. */
  readonly data: DataOf<AgentTraceCatalog, K> & { readonly turn?: number };
};
export type HarnessEvent = { [K in AgentTraceEventType]: HarnessEventOf<K> }[AgentTraceEventType];

/** Writes a decision's event: its turn becomes the record's `proposal`, the rest its data. */
export function appendHarnessEvent<K extends AgentTraceEventType>(trace: TraceSink, event: HarnessEventOf<K>): void {
  const { turn, ...data } = event.data;
  // The rest of a generic intersection less `turn` is the catalog's data (tsc cannot see it through K).
  trace.append(event.type, data as unknown as ReadonlyDeep<DataOf<AgentTraceCatalog, K>>, turn ?? null);
}

// ---- the request ---------------------------------------------------------------------------------

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

/** What the harness asks the backend for: the conversation, the condition's tools, the budget's tokens, the seed. */
export interface HarnessRequest {
  readonly messages: readonly ChatTurnMessage[];
  readonly tools: readonly ToolFunctionSchema[];
  readonly maxTokens: number;
  readonly seed?: number;
}

export function buildModelRequest(
  condition: Condition,
  messages: readonly ChatTurnMessage[],
  budget: AgentBudget,
  seed: number | undefined,
): HarnessRequest {
  return {
    messages,
    tools: toolSchemasFor(condition),
    maxTokens: budget.maxTokensPerTurn,
    ...(seed !== undefined ? { seed } : {}),
  };
}

/** One message's digest: SHA-256 of its canonical JSON. */
export function messageSha256(message: ChatTurnMessage): string {
  return sha256Hex(canonicalJson(message));
}

/**
 * A request's digest from its messages' digests (so a replay that cannot rebuild one message, a test
 * file read without the data set, still checks every other), the tools, the token limit and the seed.
 * The backend's own sampling settings (temperature, thinking) are the run's fingerprint, bound by the
 * run binding of task_start.
 */
export function requestSha256(messageDigests: readonly string[], request: Omit<HarnessRequest, "messages">): string {
  return sha256Hex(
    canonicalJson({
      messages: messageDigests,
      tools: request.tools,
      maxTokens: request.maxTokens,
      seed: request.seed ?? null,
    }),
  );
}

/** The model_request event: the turn, the message count, each message's digest and the request's. */
export function modelRequestEvent(turn: number, request: HarnessRequest): HarnessEventOf<"model_request"> {
  const digests = request.messages.map(messageSha256);
  return {
    type: "model_request",
    data: {
      turn,
      messages: request.messages.length,
      messageSha256s: digests,
      requestSha256: requestSha256(digests, request),
    },
  };
}

// ---- what a reply means --------------------------------------------------------------------------

/** The first ```python (or bare ```) block of a one-shot answer; undefined when there is none. */
export function extractCodeBlock(text: string): string | undefined {
  const python = /```(?:python|py|python3)[ \t]*\r?\n([\s\S]*?)```/.exec(text);
  if (python) return python[1];
  const bare = /```[ \t]*\r?\n([\s\S]*?)```/.exec(text);
  return bare ? bare[1] : undefined;
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

/** A model reply as the harness reads it. */
export interface ReplyInput {
  readonly content: string;
  readonly toolCalls: readonly ProposedToolCall[];
  readonly finishReason: string | null;
}

/** The assistant message a reply adds to the conversation (A offers no tools, so keeps none). */
export function assistantMessage(condition: Condition, reply: ReplyInput): ChatTurnMessage {
  return { role: "assistant", content: reply.content, toolCalls: condition.tools.length === 0 ? [] : reply.toolCalls };
}

export type ReplyDecision =
  /** The task ends on this reply; `file` is A's answer when it is the file. */
  | {
      readonly kind: "end";
      readonly stopReason: Exclude<TaskStopReason, "cancelled">;
      readonly claimed: boolean;
      readonly file?: string;
      readonly protocolFinding: boolean;
      readonly events: readonly HarnessEvent[];
    }
  | { readonly kind: "tool_calls" }
  /** No tool call, not cut off: the model says it is done (decideStop decides). */
  | { readonly kind: "stop_requested" };

export function decideReply(condition: Condition, reply: ReplyInput, turn: number): ReplyDecision {
  if (condition.tools.length === 0) {
    // A: one turn, the answer is the file. A reply cut off at the token limit is never a
    // claim, even when a complete code block came before the cut: the answer was not
    // delivered whole, so the file stays as it was and the task is out of budget.
    const code = extractCodeBlock(reply.content);
    const truncated = reply.finishReason === "length";
    const stopReason = truncated ? "truncated" : code !== undefined ? "agent_done" : "no_answer";
    const stop: HarnessEvent = {
      type: "stop_attempt",
      data: { turn, accepted: stopReason === "agent_done", codeBlock: code !== undefined, truncated },
    };
    return {
      kind: "end",
      stopReason,
      claimed: stopReason === "agent_done",
      ...(stopReason === "agent_done" && code !== undefined ? { file: code } : {}),
      protocolFinding: false,
      events: [stop],
    };
  }
  if (reply.toolCalls.length === 0) {
    // Tools were offered and none came back as tool calls, but the content holds them as
    // text. Well-formed blocks: the endpoint is not parsing tool calls; never a claim, the
    // task ends as an endpoint failure (a model error), counted as a protocol finding.
    // Only malformed blocks: the model's own broken call, which a parsing server also
    // leaves in the text; never a claim either, but the model's failure, so the task ends
    // without an answer and is graded (it stays in the fixed rate's denominator).
    const asText = textToolCallsIn(reply.content);
    if (asText.wellFormed > 0)
      return {
        kind: "end",
        stopReason: "tool_calls_as_text",
        claimed: false,
        protocolFinding: true,
        events: [
          {
            type: "protocol_finding",
            data: { turn, kind: "tool_calls_as_text", blocks: asText.wellFormed + asText.malformed },
          },
        ],
      };
    if (asText.malformed > 0)
      return {
        kind: "end",
        stopReason: "no_answer",
        claimed: false,
        protocolFinding: false,
        events: [
          { type: "protocol_finding", data: { turn, kind: "malformed_tool_call_text", blocks: asText.malformed } },
          { type: "stop_attempt", data: { turn, accepted: false, malformedToolCall: true } },
        ],
      };
  }
  if (reply.toolCalls.length > 0) return { kind: "tool_calls" };
  // A reply cut off at the per-turn token limit is not a statement that the work is done:
  // it ends the task as out of budget (truncated), never as a claimed fix.
  if (reply.finishReason === "length")
    return {
      kind: "end",
      stopReason: "truncated",
      claimed: false,
      protocolFinding: false,
      events: [{ type: "stop_attempt", data: { turn, accepted: false, truncated: true } }],
    };
  return { kind: "stop_requested" };
}

// ---- D's stop rule -------------------------------------------------------------------------------

/** What the harness knows of the tests: the hashes of the file at the last run and at the last passing run. */
export interface TestState {
  readonly lastRunHash: string | undefined;
  readonly lastPassedHash: string | undefined;
}

export const NO_TEST_RUN: TestState = { lastRunHash: undefined, lastPassedHash: undefined };

/** The state after a run_tests on the file whose hash is `hash`. */
export function afterTestRun(hash: string, outcome: TestOutcome): TestState {
  return { lastRunHash: hash, lastPassedHash: outcome === "passed" ? hash : undefined };
}

export type StopDecision =
  | { readonly accepted: true; readonly events: readonly HarnessEvent[] }
  | {
      readonly accepted: false;
      readonly refusal: string;
      readonly message: ChatTurnMessage;
      readonly effect: GuardrailEffect;
      readonly events: readonly HarnessEvent[];
    };

/** D refuses "done" until run_tests passed on the current file, with the exact refusal text; A-C accept it. */
export function decideStop(condition: Condition, target: string, tests: TestState, turn: number): StopDecision {
  if (condition.verifiedCompletion) {
    const current = sha256Hex(target);
    if (tests.lastPassedHash !== current) {
      const text =
        tests.lastRunHash === current
          ? PROMPT_TEMPLATES.harness_refusal_D_fail
          : PROMPT_TEMPLATES.harness_refusal_D_not_run;
      return {
        accepted: false,
        refusal: text,
        message: { role: "user", content: text },
        effect: { kind: "refused_stop" },
        events: [{ type: "stop_attempt", data: { turn, accepted: false, refusal: text } }],
      };
    }
  }
  return { accepted: true, events: [{ type: "stop_attempt", data: { turn, accepted: true } }] };
}

// ---- tool calls ----------------------------------------------------------------------------------

/** Longest tool result returned to the model (characters); the trace keeps the full text. */
export const OBSERVATION_MAX_CHARS = 12_000;

export function boundObservation(text: string): string {
  return text.length <= OBSERVATION_MAX_CHARS
    ? text
    : `${text.slice(0, OBSERVATION_MAX_CHARS)}\n[truncated: ${text.length - OBSERVATION_MAX_CHARS} more characters]`;
}

/** What run_tests tells the model, from the run's outcome, output and pytest summary. */
export function testObservation(
  result: { readonly outcome: TestOutcome; readonly output: string; readonly summary: string },
  timeoutMs: number,
): string {
  if (result.outcome === "passed")
    return fillTemplate(PROMPT_TEMPLATES.run_tests_passed, {
      progress: progressLine(result.output),
      summary: result.summary,
    }).replace(/ {2,}/g, " ");
  if (result.outcome === "timeout")
    return fillTemplate(PROMPT_TEMPLATES.run_tests_timeout, { seconds: String(Math.round(timeoutMs / 1000)) });
  const tail = result.output.length > 4000 ? result.output.slice(-4000) : result.output;
  return fillTemplate(PROMPT_TEMPLATES.run_tests_failed, { output: tail });
}

/** The counter a tool decision moves. */
export type GuardrailEffect =
  | { readonly kind: "none" }
  | { readonly kind: "tool_error" }
  | { readonly kind: "refusal"; readonly error: string }
  | { readonly kind: "test_run" }
  | { readonly kind: "refused_stop" };

export function applyGuardrailEffect(g: MutableGuardrails, effect: GuardrailEffect): void {
  if (effect.kind === "tool_error") g.toolErrors++;
  else if (effect.kind === "refusal") countRefusal(g, effect.error);
  else if (effect.kind === "test_run") g.testRuns++;
  else if (effect.kind === "refused_stop") g.refusedStopAttempts++;
}

export type ToolDecision =
  /** Done in the harness: its events, what the model gets back, and the file after it (a write's next version). */
  | {
      readonly kind: "done";
      readonly events: readonly HarnessEvent[];
      readonly observation: string;
      readonly target: string;
      readonly effect: GuardrailEffect;
      /** A read of a test file (its bytes are the data set's). */
      readonly readPath?: string;
    }
  /** Allowed run_tests: the caller runs the tests on `target` (live) or takes the recorded run (replay). */
  | { readonly kind: "run_tests"; readonly events: readonly HarnessEvent[]; readonly effect: GuardrailEffect };

/**
 * One tool call: parsed (its arguments are untrusted), authorized by the condition's policy, and
 * for a read or a write executed on the in-memory files. `testFiles` are the program's readable
 * support files (path → text).
 */
export function decideToolCall(
  condition: Condition,
  program: string,
  testFiles: ReadonlyMap<string, string>,
  target: string,
  call: ProposedToolCall,
  turn: number,
): ToolDecision {
  const callEvent: HarnessEvent = {
    type: "tool_call",
    data: { turn, id: call.id, name: call.name, arguments: call.argumentsText },
  };
  const parsed = parseToolCall(call.name, call.argumentsText);
  if (!parsed.ok)
    return {
      kind: "done",
      events: [
        callEvent,
        { type: "tool_error", data: { turn, id: call.id, error: parsed.error, message: parsed.message } },
      ],
      observation: `Error (${parsed.error}): ${parsed.message}`,
      target,
      effect: { kind: "tool_error" },
    };
  const decision = authorizeToolCall(condition, program, [...testFiles.keys()], parsed.call);
  if (!decision.allow)
    return {
      kind: "done",
      events: [
        callEvent,
        {
          type: "tool_refused",
          data: {
            turn,
            id: call.id,
            tool: parsed.call.tool,
            path: "path" in parsed.call ? parsed.call.path : null,
            error: decision.error,
            message: decision.message,
          },
        },
      ],
      observation: `Error (${decision.error}): ${decision.message}`,
      target,
      effect: { kind: "refusal", error: decision.error },
    };
  const request = parsed.call;
  if (request.tool === "read_file") {
    const path = decision.path ?? "";
    const isTarget = path === targetPath(program);
    const text = isTarget ? target : testFiles.get(path);
    if (text === undefined)
      return {
        kind: "done",
        events: [callEvent, { type: "tool_error", data: { turn, id: call.id, error: "file_not_found" } }],
        observation: "Error (file_not_found): no such file.",
        target,
        effect: { kind: "tool_error" },
      };
    return {
      kind: "done",
      events: [
        callEvent,
        { type: "tool_result", data: { turn, id: call.id, tool: "read_file", path, chars: text.length } },
      ],
      observation: boundObservation(text),
      target,
      effect: { kind: "none" },
      ...(isTarget ? {} : { readPath: path }),
    };
  }
  if (request.tool === "write_file")
    return {
      kind: "done",
      events: [
        callEvent,
        {
          type: "tool_result",
          data: {
            turn,
            id: call.id,
            tool: "write_file",
            path: decision.path ?? "",
            chars: request.content.length,
            sha256: sha256Hex(request.content),
          },
        },
      ],
      observation: `Wrote ${request.content.length} characters to ${decision.path}.`,
      target: request.content,
      effect: { kind: "none" },
    };
  return { kind: "run_tests", events: [callEvent], effect: { kind: "test_run" } };
}

/** The tool message a tool call's observation adds to the conversation. */
export function toolMessage(call: ProposedToolCall, observation: string): ChatTurnMessage {
  return { role: "tool", toolCallId: call.id, name: call.name, content: observation };
}
