// The engine settings that realise Part 8's generation configuration on llama.cpp, each
// overriding a node-llama-cpp default that is wrong for this project (see docs/local-engine.md).
import { CONTROLLER_LIMITS, GENERATION_CONFIG } from "../../constants/labConstants.ts";

export const ENGINE_SETTINGS = {
  /** Input budget (Part 8/9): more input tokens is context_limit, decided before the engine runs. */
  maxInputTokens: CONTROLLER_LIMITS.maxInputTokens,
  maxNewTokens: GENERATION_CONFIG.max_new_tokens,
  /** Exactly these ids stop generation (llama.cpp would also stop on 151662-151664). */
  stopTokenIds: GENERATION_CONFIG.eos_token_id,
  /** 2,048 + 128 rounded up to llama.cpp's 256-token alignment: prompt + 128 always fits, no shift. */
  contextSize: 2304,
  /** Prefill chunk: abort/deadline checks happen between chunks (llama.cpp ignores aborts inside one). */
  prefillChunkTokens: 64,
  maxThreads: 2,
  kvCacheType: "F32",
  flashAttention: false,
  seed: GENERATION_CONFIG.seed,
  temperature: 0,
  repeatPenalty: "none (1.0)",
  weights: "F32",
} as const;

/** The decoding rule recorded with every run (Part 8). */
export const DECODING_RULE =
  "greedy argmax; stop when the new token is 151645 or 151643 or after 128 new tokens; raw ids kept; " +
  "text = Hugging Face decode of the new ids minus at most one terminal end token (151645/151643), " +
  "skip_special_tokens=false, clean_up_tokenization_spaces=false; no fence stripping or JSON extraction";

/** The effective generation configuration (Part 8), recorded instead of the checkpoint's defaults. */
export const EFFECTIVE_GENERATION_CONFIG = { ...GENERATION_CONFIG, temperature: 0, engine_prefix_cache: true } as const;

/** Remove at most one terminal end token (Part 8 decoding rule). */
export function idsForDecoding(rawIds: readonly number[]): readonly number[] {
  const last = rawIds[rawIds.length - 1];
  return last !== undefined && (ENGINE_SETTINGS.stopTokenIds as readonly number[]).includes(last)
    ? rawIds.slice(0, -1)
    : rawIds;
}

/**
 * Generation profiles: the limits a worker is loaded with and every request is checked
 * against. "lab" is Part 8/9's configuration and the default everywhere (an absent profile
 * means "lab", so every Lab path behaves exactly as before). "bench" serves the QuixBugs
 * benchmark's local backend: up to 2,048 new tokens per turn (the benchmark's per-turn
 * budget) in a 16,384-token context, so the input budget is 16,384 − 2,048 = 14,336 tokens.
 * Everything else (greedy, stop ids, F32, no context shift) is the same in both.
 */
export const GENERATION_PROFILE_NAMES = ["lab", "bench"] as const;
export type GenerationProfileName = (typeof GENERATION_PROFILE_NAMES)[number];

export interface GenerationProfile {
  readonly name: GenerationProfileName;
  /** The most new tokens one request may ask for (and the default). */
  readonly maxNewTokens: number;
  /** Longer input is context_limit, decided before the engine runs. */
  readonly maxInputTokens: number;
  /** The llama.cpp context the worker allocates at load. */
  readonly contextSize: number;
}

const BENCH_CONTEXT_SIZE = 16_384;
const BENCH_MAX_NEW_TOKENS = 2_048;

export const GENERATION_PROFILES: Readonly<Record<GenerationProfileName, GenerationProfile>> = {
  lab: {
    name: "lab",
    maxNewTokens: ENGINE_SETTINGS.maxNewTokens,
    maxInputTokens: ENGINE_SETTINGS.maxInputTokens,
    contextSize: ENGINE_SETTINGS.contextSize,
  },
  bench: {
    name: "bench",
    maxNewTokens: BENCH_MAX_NEW_TOKENS,
    maxInputTokens: BENCH_CONTEXT_SIZE - BENCH_MAX_NEW_TOKENS,
    contextSize: BENCH_CONTEXT_SIZE,
  },
};

/** The decoding rule recorded for the bench profile (same rule, larger bound on new tokens). */
export const BENCH_DECODING_RULE =
  "greedy argmax; stop when the new token is 151645 or 151643 or after the request's max new tokens (at most 2,048); raw ids kept; " +
  "text = Hugging Face decode of the new ids minus at most one terminal end token (151645/151643), " +
  "skip_special_tokens=false, clean_up_tokenization_spaces=false; no fence stripping or JSON extraction";
