// The rehearsal model's training data, produced by our own controller: every scenario is played
// through runLab with the scripted source and the compacting request assembler counting tokens
// with the Qwen2.5 stand-in tokenizer, exactly as `tca lab model` assembles requests. Each
// request is rendered with the stand-in's chat template and encoded as the worker encodes it;
// the training target is the proposal's ids followed by <|im_end|> (151645), the stop token.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { compactingAssembler } from "../../src/controller/compactingAssembler.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { createChatTokenizer, type ChatTokenizer } from "../../src/model/tokenizer/chatTokenizer.ts";
import { buildStandInTokenizer } from "../../src/model/tokenizer/standInTokenizer.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import type { ChatMessage } from "../../src/core/chatMessage.ts";
import { REHEARSAL_SCENARIOS, type Scenario } from "./scenarios.ts";

export const IM_END = 151645;

export interface TranscriptExample {
  readonly scenario: string;
  readonly proposal: number;
  readonly target: boolean;
  readonly input_ids: number[];
  readonly target_ids: number[];
  /** The request's chat messages (kept in memory for engine checks; not written to transcripts.json). */
  readonly messages?: readonly ChatMessage[];
}

export interface ScenarioOutcome {
  readonly scenario: string;
  readonly stop_reason: string;
  readonly verified_success: boolean;
  readonly request_tokens: number[];
}

export interface TranscriptSet {
  readonly examples: TranscriptExample[];
  readonly outcomes: ScenarioOutcome[];
}

export async function standInChatTokenizer(): Promise<ChatTokenizer> {
  const files = await buildStandInTokenizer();
  if (!files.ok) throw new Error(files.message);
  const chat = createChatTokenizer(
    Buffer.from(files.value.tokenizerJson),
    Buffer.from(files.value.tokenizerConfigJson),
  );
  if (!chat.ok) throw new Error(chat.message);
  return chat.value;
}

async function playScenario(
  scenario: Scenario,
  chat: ChatTokenizer,
  root: string,
): Promise<{ examples: TranscriptExample[]; outcome: ScenarioOutcome }> {
  const source = new ScriptedSource(scenario.steps.map((s) => s.text));
  const countTokens = async (messages: Parameters<ChatTokenizer["render"]>[0]): Promise<number> => {
    const rendered = chat.render(messages);
    if (!rendered.ok) throw new Error("template failed");
    return chat.encode(rendered.value).length;
  };
  const run = await runLab({
    runDirectory: path.join(root, scenario.id),
    source,
    kind: "scripted_baseline",
    assembler: compactingAssembler(countTokens),
  });
  if (!run.ok) throw new Error(`${scenario.id}: ${run.message}`);
  const examples: TranscriptExample[] = [];
  const requestTokens: number[] = [];
  source.requests.forEach((request, index) => {
    const step = scenario.steps[index];
    if (step === undefined) throw new Error(`${scenario.id}: more requests than steps`);
    const rendered = chat.render(request.messages);
    if (!rendered.ok) throw new Error("template failed");
    const inputIds = chat.encode(rendered.value);
    requestTokens.push(inputIds.length);
    examples.push({
      scenario: scenario.id,
      proposal: request.proposalNumber,
      target: step.target,
      input_ids: inputIds,
      target_ids: [...chat.encode(step.text), IM_END],
      messages: request.messages,
    });
  });
  return {
    examples,
    outcome: {
      scenario: scenario.id,
      stop_reason: run.value.final.stop_reason,
      verified_success: run.value.final.verified_success,
      request_tokens: requestTokens,
    },
  };
}

/** Plays every scenario; throws if two identical requests would be trained toward different replies. */
export async function generateTranscripts(
  scenarios: readonly Scenario[] = REHEARSAL_SCENARIOS,
): Promise<TranscriptSet> {
  const chat = await standInChatTokenizer();
  const root = await mkdtemp(path.join(os.tmpdir(), "tca-rehearsal-transcripts-"));
  try {
    const examples: TranscriptExample[] = [];
    const outcomes: ScenarioOutcome[] = [];
    for (const scenario of scenarios) {
      const played = await playScenario(scenario, chat, root);
      examples.push(...played.examples);
      outcomes.push(played.outcome);
    }
    const replies = new Map<string, string>();
    for (const e of examples.filter((x) => x.target)) {
      const key = e.input_ids.join(",");
      const reply = e.target_ids.join(",");
      const seen = replies.get(key);
      if (seen !== undefined && seen !== reply)
        throw new Error(
          `scenario ${e.scenario} proposal ${e.proposal}: an identical request was already trained toward another reply`,
        );
      replies.set(key, reply);
    }
    return { examples, outcomes };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The transcripts as committed in transcripts.json (ids only, no messages). */
export function serializableTranscripts(set: TranscriptSet): TranscriptSet {
  return { examples: set.examples.map(({ messages: _messages, ...rest }) => rest), outcomes: set.outcomes };
}
