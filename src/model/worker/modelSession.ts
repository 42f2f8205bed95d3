// The worker's logic, separate from its process plumbing so tests can drive it with a fake
// engine: open and verify the checkpoint, derive the GGUF, build tokenizer and template,
// load the engine, then answer generate requests. Input over 2,048 tokens is answered with
// context_limit before the engine is called.
import {
  BENCH_DECODING_RULE,
  DECODING_RULE,
  EFFECTIVE_GENERATION_CONFIG,
  GENERATION_PROFILES,
  idsForDecoding,
  type GenerationProfileName,
} from "../engine/generationSettings.ts";
import type { EngineGeneration, GenerateOptions } from "../engine/llamaEngine.ts";
import type { Result } from "../../core/result.ts";
import type { ChatTokenizer } from "../tokenizer/chatTokenizer.ts";
import type { GenerationInput, GenerationProgress, WorkerResponse } from "./protocol.ts";
import { ProgressThrottle } from "./progressThrottle.ts";

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
  /** The profile the engine was loaded with; "lab" when absent. */
  readonly profile?: GenerationProfileName;
  /** Monotonic milliseconds for the progress throttle (tests inject one). */
  readonly now?: () => number;
}

/** Per-request options from the generate message (absent in Lab requests). */
export interface SessionRequestOptions {
  readonly profile?: GenerationProfileName;
  readonly maxNewTokens?: number;
  /** With `onProgress`: progress at most every this many ms, and the final count before the result. */
  readonly progressIntervalMs?: number;
  readonly onProgress?: (progress: GenerationProgress) => void;
}

export class ModelSession {
  private cancelled = new Set<number>();
  constructor(private readonly parts: SessionParts) {}

  private get profile(): GenerationProfileName {
    return this.parts.profile ?? "lab";
  }

  loadedMessage(): WorkerResponse {
    const profile = GENERATION_PROFILES[this.profile];
    const lab = profile.name === "lab";
    return {
      type: "loaded",
      label: this.parts.label,
      synthetic: this.parts.synthetic,
      identity: {
        ...this.parts.record,
        engine: this.parts.engine.identity(),
        generation_config: lab
          ? EFFECTIVE_GENERATION_CONFIG
          : { ...EFFECTIVE_GENERATION_CONFIG, max_new_tokens: profile.maxNewTokens },
        decoding_rule: lab ? DECODING_RULE : BENCH_DECODING_RULE,
        input_token_budget: profile.maxInputTokens,
        // Recorded only outside the Lab, so the Lab's identity record is unchanged.
        ...(lab ? {} : { generation_profile: profile }),
        label: this.parts.label,
      },
    };
  }

  cancel(id: number): void {
    this.cancelled.add(id);
  }

  async generate(
    id: number,
    input: GenerationInput,
    reusePrefix: boolean,
    request: SessionRequestOptions = {},
  ): Promise<WorkerResponse> {
    // A request for another profile than the loaded one is refused: the context was sized at load.
    if ((request.profile ?? "lab") !== this.profile)
      return {
        type: "error",
        id,
        error: "input_invalid",
        message: "the request's generation profile differs from the loaded one",
      };
    const profile = GENERATION_PROFILES[this.profile];
    if (
      request.maxNewTokens !== undefined &&
      (!Number.isSafeInteger(request.maxNewTokens) ||
        request.maxNewTokens < 1 ||
        request.maxNewTokens > profile.maxNewTokens)
    ) {
      return { type: "error", id, error: "input_invalid", message: "max new tokens outside the profile's bound" };
    }
    let inputIds: number[];
    if (input.kind === "ids") {
      inputIds = [...input.ids];
    } else {
      const rendered = this.parts.tokenizer.render(input.messages);
      if (!rendered.ok) return { type: "error", id, error: "model_error", message: "chat template failed to render" };
      inputIds = this.parts.tokenizer.encode(rendered.value);
    }
    // Part 8: more than 2,048 input tokens (the profile's budget) stops with context_limit; the engine is not called.
    if (inputIds.length > profile.maxInputTokens) return { type: "context_limit", id, inputTokens: inputIds.length };
    if (inputIds.length === 0) return { type: "error", id, error: "input_invalid", message: "empty input" };
    const throttle =
      request.onProgress !== undefined && request.progressIntervalMs !== undefined
        ? new ProgressThrottle(
            request.progressIntervalMs,
            this.parts.now ?? (() => performance.now()),
            request.onProgress,
          )
        : null;
    const result = await this.parts.engine.generate(inputIds, {
      reusePrefix,
      shouldAbort: () => this.cancelled.has(id),
      ...(request.maxNewTokens !== undefined ? { maxNewTokens: request.maxNewTokens } : {}),
      ...(throttle !== null ? { onStep: (phase, tokens, total) => throttle.step(phase, tokens, total) } : {}),
    });
    throttle?.finish(result.ok);
    this.cancelled.delete(id);
    if (!result.ok) {
      if (result.error === "cancelled") return { type: "cancelled", id };
      if (result.error === "context_limit") return { type: "context_limit", id, inputTokens: inputIds.length };
      if (result.error === "input_invalid")
        return { type: "error", id, error: "input_invalid", message: result.message };
      return { type: "error", id, error: "model_error", message: result.message };
    }
    const g = result.value;
    return {
      type: "result",
      id,
      report: {
        // The bench profile does not echo ids the controller sent (up to 14,336 of them):
        // it keeps the response line well under its size cap.
        inputIds: input.kind === "ids" && this.profile !== "lab" ? [] : inputIds,
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
