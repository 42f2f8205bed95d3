// The worker's logic, separate from its process plumbing so tests can drive it with a fake
// engine: open and verify the checkpoint, derive the GGUF, build tokenizer and template,
// load the engine, then answer generate requests. Input over 2,048 tokens is answered with
// context_limit before the engine is called.
import { ENGINE_SETTINGS, DECODING_RULE, EFFECTIVE_GENERATION_CONFIG, idsForDecoding } from "../engine/generationSettings.ts";
import type { EngineGeneration, GenerateOptions } from "../engine/llamaEngine.ts";
import type { Result } from "../../lab/result.ts";
import type { ChatTokenizer } from "../tokenizer/chatTokenizer.ts";
import type { GenerationInput, WorkerResponse } from "./protocol.ts";

/** The part of LlamaEngine a session uses (a fake in tests). */
export interface GenerationEngine {
  generate(inputIds: readonly number[], options?: GenerateOptions): Promise<Result<EngineGeneration, string>>;
  identity(): Record<string, unknown>;
  dispose(): Promise<void>;
}

export interface SessionParts {
  readonly tokenizer: ChatTokenizer;
  readonly engine: GenerationEngine;
  readonly label: string;
  readonly synthetic: boolean;
  /** Everything recorded about the checkpoint, conversion and load. */
  readonly record: Record<string, unknown>;
}

export class ModelSession {
  private cancelled = new Set<number>();
  constructor(private readonly parts: SessionParts) {}

  loadedMessage(): WorkerResponse {
    return {
      type: "loaded",
      label: this.parts.label,
      synthetic: this.parts.synthetic,
      identity: {
        ...this.parts.record,
        engine: this.parts.engine.identity(),
        generation_config: EFFECTIVE_GENERATION_CONFIG,
        decoding_rule: DECODING_RULE,
        input_token_budget: ENGINE_SETTINGS.maxInputTokens,
        label: this.parts.label,
      },
    };
  }

  cancel(id: number): void {
    this.cancelled.add(id);
  }

  async generate(id: number, input: GenerationInput, reusePrefix: boolean): Promise<WorkerResponse> {
    let inputIds: number[];
    if (input.kind === "ids") {
      inputIds = [...input.ids];
    } else {
      const rendered = this.parts.tokenizer.render(input.messages);
      if (!rendered.ok) return { type: "error", id, error: "model_error", message: "chat template failed to render" };
      inputIds = this.parts.tokenizer.encode(rendered.value);
    }
    // Part 8: more than 2,048 input tokens stops with context_limit; the engine is not called.
    if (inputIds.length > ENGINE_SETTINGS.maxInputTokens) return { type: "context_limit", id, inputTokens: inputIds.length };
    if (inputIds.length === 0) return { type: "error", id, error: "input_invalid", message: "empty input" };
    const result = await this.parts.engine.generate(inputIds, { reusePrefix, shouldAbort: () => this.cancelled.has(id) });
    this.cancelled.delete(id);
    if (!result.ok) {
      if (result.error === "cancelled") return { type: "cancelled", id };
      if (result.error === "context_limit") return { type: "context_limit", id, inputTokens: inputIds.length };
      if (result.error === "input_invalid") return { type: "error", id, error: "input_invalid", message: result.message };
      return { type: "error", id, error: "model_error", message: result.message };
    }
    const g = result.value;
    return {
      type: "result",
      id,
      report: {
        inputIds,
        inputTokens: g.inputTokens,
        rawOutputIds: g.rawOutputIds,
        outputTokens: g.rawOutputIds.length,
        text: this.parts.tokenizer.decode(idsForDecoding(g.rawOutputIds)),
        stopCause: g.stopCause,
        prefixTokensReused: g.prefixTokensReused,
        timingsMs: {
          prefill: round(g.timings.prefillMs),
          decode: round(g.timings.decodeMs),
          engine_total: round(g.timings.totalMs),
        },
        threads: { choice_after_call: g.threadChoice, tokens_by_thread_count_since_load: g.threadsUsed },
        peakRssBytes: process.resourceUsage().maxRSS * 1024,
      },
    };
  }

  async close(): Promise<void> {
    await this.parts.engine.dispose();
  }
}

const round = (ms: number): number => Math.round(ms * 10) / 10;
