// The bench rehearsal model's training data, produced by the benchmark's own agent loop: every
// scenario (scenarios.ts) is played through runAgentLoop with the real tools, the real sandbox
// and pytest, against a scripted ChatBackend whose replies are parsed by the local backend's
// own reply parser (parseAssistantReply). Each request is rendered exactly as the local backend
// renders it (the stand-in's chat template with its tool-calling block, createConversationRenderer)
// and encoded as it encodes it; the target is the reply's ids followed by <|im_end|>.
// pytest prints its own wall time ("3 passed in 0.02s"), the only part of a request that is not
// the same on every run: each request holding it is written once per value of TIMING_VARIANTS,
// so that the model learns to ignore those digits and the data stay reproducible.
import path from "node:path";
import { runAgentLoop, type AgentRun } from "../../src/bench/agent/agentLoop.ts";
import { AGENT_BUDGET, CONDITIONS } from "../../src/bench/agent/conditions.ts";
import { MemoryTrace } from "../../src/bench/agent/taskTrace.ts";
import { loadDataset, type QuixDataset } from "../../src/bench/dataset/dataset.ts";
import { resolvePythonRuntime } from "../../src/bench/sandbox/pythonRuntime.ts";
import { createSandboxConfig, type SandboxConfig } from "../../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/bench/sandbox/sandboxLimits.ts";
import { buildStandInTokenizer } from "../../src/model/tokenizer/standInTokenizer.ts";
import { createConversationRenderer, type ConversationRenderer } from "../../src/sources/localChatRendering.ts";
import { parseAssistantReply } from "../../src/sources/localEngineChat.ts";
import type {
  ChatBackend,
  ChatTurnMessage,
  ChatTurnRequest,
  ChatTurnResult,
} from "../../src/sources/openaiCompatibleChat.ts";
import type { ChatTokenizer } from "../../src/model/tokenizer/chatTokenizer.ts";
import { IM_END, standInChatTokenizer, type TranscriptExample } from "../rehearsal/transcripts.ts";
import { benchScenarios, type BenchScenario } from "./scenarios.ts";

export const MINI_DATASET = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  "../../test/fixtures/quixbugs-mini",
);
/** pytest's "in N.NNs", replaced by each of these in turn (typical times here, and one slow run). */
export const TIMING_VARIANTS = ["0.01", "0.03", "0.08", "0.52", "1.46", "3.79", "12.93"] as const;
const TIMING = /\bin \d+\.\d+s\b/g;
export const HAS_TIMING = /\bin \d+\.\d+s\b/;
/** The test timeout the transcripts (and the bench rehearsal runs) use; it appears in no request. */
export const REHEARSAL_TEST_TIMEOUT_MS = 60_000;

export interface BenchScenarioOutcome {
  readonly scenario: string;
  readonly stop_reason: string;
  readonly claimed: boolean;
  readonly refused_stops: number;
  readonly turns: number;
  readonly request_tokens: number[];
}

/** One request and its trained reply; messages and tools are kept in memory for the engine checks, not written. */
export interface BenchTranscriptExample extends Omit<TranscriptExample, "messages"> {
  readonly messages: readonly ChatTurnMessage[];
  readonly tools: ChatTurnRequest["tools"];
}

export interface BenchTranscriptSet {
  readonly examples: BenchTranscriptExample[];
  readonly outcomes: BenchScenarioOutcome[];
}

interface Recorded {
  readonly messages: readonly ChatTurnMessage[];
  readonly tools: ChatTurnRequest["tools"];
  readonly reply: string;
}

/** Answers each request with the next scripted reply, parsed as the local backend parses the model's text. */
class ScriptedReplies implements ChatBackend {
  readonly recorded: Recorded[] = [];
  private next = 0;
  constructor(private readonly replies: readonly string[]) {}
  async describe(): Promise<Readonly<Record<string, unknown>>> {
    return { backend: "scripted-bench-rehearsal-transcripts" };
  }
  async complete(request: ChatTurnRequest): Promise<ChatTurnResult> {
    const reply = this.replies[this.next++];
    if (reply === undefined) throw new Error("the agent loop asked for more replies than the scenario has");
    this.recorded.push({ messages: structuredClone([...request.messages]), tools: request.tools, reply });
    const parsed = parseAssistantReply(reply, request);
    if (parsed.malformed.length > 0)
      throw new Error(`a scripted reply holds a malformed tool call: ${reply.slice(0, 80)}`);
    const exchange = { request: {}, response: null, httpStatus: null, elapsedMs: 0 };
    return {
      ok: true,
      content: parsed.content,
      toolCalls: parsed.toolCalls,
      finishReason: parsed.toolCalls.length > 0 ? "tool_calls" : "stop",
      usage: { promptTokens: null, completionTokens: null, source: "none" },
      servedModel: null,
      exchange,
    };
  }
  async close(): Promise<void> {}
  get unused(): number {
    return this.replies.length - this.next;
  }
}

export function withTiming(messages: readonly ChatTurnMessage[], seconds: string): ChatTurnMessage[] {
  return messages.map((m) => (m.role === "tool" ? { ...m, content: m.content.replace(TIMING, `in ${seconds}s`) } : m));
}

async function playScenario(
  s: BenchScenario,
  dataset: QuixDataset,
  sandbox: SandboxConfig,
  renderer: ConversationRenderer,
  chat: ChatTokenizer,
): Promise<{ examples: BenchTranscriptExample[]; outcome: BenchScenarioOutcome }> {
  const program = dataset.programs.find((p) => p.name === s.program);
  if (program === undefined) throw new Error(`no program ${s.program}`);
  const backend = new ScriptedReplies(s.replies);
  const run = await runAgentLoop({
    dataset,
    program,
    condition: CONDITIONS[s.condition],
    backend,
    sandbox,
    budget: AGENT_BUDGET,
    trace: new MemoryTrace(),
    clock: () => performance.now(),
    testTimeoutMs: REHEARSAL_TEST_TIMEOUT_MS,
    includeSlow: false,
  });
  if ("interrupted" in run) throw new Error(`${s.id}: interrupted`);
  check(s, run, backend.unused);
  const examples: BenchTranscriptExample[] = [];
  const requestTokens: number[] = [];
  backend.recorded.forEach((r, index) => {
    const variants = r.messages.some((m) => m.role === "tool" && HAS_TIMING.test(m.content)) ? TIMING_VARIANTS : [null];
    for (const seconds of variants) {
      const messages = seconds === null ? [...r.messages] : withTiming(r.messages, seconds);
      const rendered = renderer.render(messages, r.tools);
      if (!rendered.ok) throw new Error(`${s.id}: ${rendered.message}`);
      const inputIds = chat.encode(rendered.value);
      if (seconds === null || seconds === TIMING_VARIANTS[0]) requestTokens.push(inputIds.length);
      examples.push({
        scenario: seconds === null ? s.id : `${s.id}@${seconds}s`,
        proposal: index + 1,
        target: true,
        input_ids: inputIds,
        target_ids: [...chat.encode(r.reply), IM_END],
        messages,
        tools: r.tools,
      });
    }
  });
  const outcome = {
    scenario: s.id,
    stop_reason: run.stopReason,
    claimed: run.claimedFixed,
    refused_stops: run.guardrails.refusedStopAttempts,
    turns: run.turns,
    request_tokens: requestTokens,
  };
  return { examples, outcome };
}

/** The agent loop did what the scenario says (graded outcomes are the CI test's, through the model). */
function check(s: BenchScenario, run: AgentRun, unused: number): void {
  const problems: string[] = [];
  if (unused !== 0) problems.push(`${unused} scripted replies were never asked for`);
  if (run.stopReason !== "agent_done" || run.claimedFixed !== s.expect.claimed)
    problems.push(`stopped ${run.stopReason}, claimed ${run.claimedFixed}`);
  if (run.guardrails.refusedStopAttempts !== s.expect.refusedStops)
    problems.push(`${run.guardrails.refusedStopAttempts} refused stops`);
  if (run.guardrails.toolErrors + run.guardrails.blockedReads + run.guardrails.blockedWrites !== 0)
    problems.push("a tool call was refused or failed");
  if (problems.length > 0) throw new Error(`${s.id}: ${problems.join("; ")}`);
}

export function benchSandbox(): { dataset: QuixDataset; sandbox: SandboxConfig } {
  const py = resolvePythonRuntime();
  if (!py.ok) throw new Error(py.message);
  const sandbox = createSandboxConfig(py.value, DEFAULT_SANDBOX_LIMITS);
  if (!sandbox.ok) throw new Error(sandbox.message);
  const dataset = loadDataset(MINI_DATASET);
  if (!dataset.ok) throw new Error(dataset.message);
  return { dataset: dataset.value, sandbox: sandbox.value };
}

/** Plays every scenario; throws if two identical requests would be trained toward different replies. */
export async function generateBenchTranscripts(): Promise<BenchTranscriptSet> {
  const chat = await standInChatTokenizer();
  const files = await buildStandInTokenizer();
  if (!files.ok) throw new Error(files.message);
  const renderer = createConversationRenderer(Buffer.from(files.value.tokenizerConfigJson));
  if (!renderer.ok) throw new Error(renderer.message);
  if (renderer.value.toolRendering !== "chat_template")
    throw new Error("the stand-in template should render tools itself");
  const { dataset, sandbox } = benchSandbox();
  const examples: BenchTranscriptExample[] = [];
  const outcomes: BenchScenarioOutcome[] = [];
  for (const s of benchScenarios(dataset.root)) {
    const played = await playScenario(s, dataset, sandbox, renderer.value, chat);
    examples.push(...played.examples);
    outcomes.push(played.outcome);
  }
  const replies = new Map<string, string>();
  for (const e of examples) {
    const key = e.input_ids.join(",");
    const reply = e.target_ids.join(",");
    const seen = replies.get(key);
    if (seen !== undefined && seen !== reply)
      throw new Error(
        `${e.scenario} turn ${e.proposal}: an identical request was already trained toward another reply`,
      );
    replies.set(key, reply);
  }
  return { examples, outcomes };
}

/** transcripts.json's text: ids, scenario names and outcomes (no messages). The pinned-request test compares it byte for byte. */
export function serializableBenchTranscripts(set: BenchTranscriptSet): string {
  const examples = set.examples.map(({ messages: _messages, tools: _tools, ...rest }) => rest);
  return JSON.stringify({ schema: "tca.bench-rehearsal-transcripts/1", examples, outcomes: set.outcomes }) + "\n";
}
