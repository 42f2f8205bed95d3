// The in-process engine (runs inside the model worker): llama.cpp through node-llama-cpp,
// CPU only, F32 weights and KV cache, flash attention off, greedy, no repeat penalty, no
// context shift. Prefill runs in chunks with abort checks between them; the KV cache keeps
// the longest common prefix with the previous call; each step's thread count comes from the
// ThreadGovernor. Nothing here downloads or compiles: the prebuilt binary must load as is.
import {
  getLlama,
  LlamaLogLevel,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
  type Token,
  type ControlledEvaluateInputItem,
} from "node-llama-cpp";
import { err, ok, type Result } from "../../core/result.ts";
import { ENGINE_SETTINGS, GENERATION_PROFILES, type GenerationProfile } from "./generationSettings.ts";
import { hostDescription, libraryVersions } from "./engineIdentity.ts";
import { currentEngineBinarySelection, getLlamaBinaryOptions, type EngineBinarySelection } from "./engineBinary.ts";
import {
  DEFAULT_THREAD_GOVERNOR,
  ThreadGovernor,
  type EnginePhase,
  type ThreadChoiceRecord,
  type ThreadGovernorOptions,
} from "./threadGovernor.ts";

export type StopCause = "stop_token" | "max_new_tokens";

export interface GenerationTimings {
  readonly prefillMs: number;
  readonly decodeMs: number;
  readonly totalMs: number;
}

export interface EngineGeneration {
  readonly rawOutputIds: number[];
  readonly stopCause: StopCause;
  readonly inputTokens: number;
  readonly prefixTokensReused: number;
  readonly prefillTokensEvaluated: number;
  readonly timings: GenerationTimings;
  /** Tokens processed per thread count since the engine was loaded. */
  readonly threadsUsed: Record<EnginePhase, Record<string, number>>;
  /** The governor's current choice and rate estimates per phase, after this call. */
  readonly threadChoice: ThreadChoiceRecord[];
}

export interface GenerateOptions {
  readonly maxNewTokens?: number;
  /** Keep the KV cache for the common prefix with the previous call (default true). */
  readonly reusePrefix?: boolean;
  /** Polled between prefill chunks and between decode steps. */
  readonly shouldAbort?: () => boolean;
  /**
   * Benchmark only: replace the stop ids (e.g. [] to always decode 128 tokens on a random
   * checkpoint). The worker never sets this; runs always stop on the Lab's ids.
   */
  readonly stopTokenIds?: readonly number[];
  /**
   * Called after each engine step (tests and the bench use it to inject aborts at exact points;
   * the worker turns it into throttled progress messages). In prefill, `tokensSoFar` counts the
   * input tokens evaluated in this call (the reused prefix excluded) and `phaseTotal` is how many
   * it will evaluate; the step that reaches `phaseTotal` also sampled the first new token. In
   * decode, `tokensSoFar` counts new tokens and `phaseTotal` is the call's bound on them.
   */
  readonly onStep?: (phase: EnginePhase, tokensSoFar: number, phaseTotal: number) => void;
}

export interface EngineLoadOptions {
  readonly ggufPath: string;
  /** Embedding rows (config vocab_size): valid token ids are 0..vocabularySize-1. */
  readonly vocabularySize: number;
  readonly governor?: ThreadGovernorOptions;
  readonly prefillChunkTokens?: number;
  readonly now?: () => number;
  /** Context size, input budget and default new-token bound; the Lab profile when absent. */
  readonly profile?: GenerationProfile;
  /** Which binary to load; from TCA_ENGINE_BINARY and the native build on disk when absent. */
  readonly binary?: EngineBinarySelection;
}

export type EngineErrorCode = "engine_unavailable" | "model_error" | "context_limit" | "cancelled" | "input_invalid";

export class LlamaEngine {
  private readonly governor: ThreadGovernor;
  private busy = false;

  private constructor(
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
    private readonly options: EngineLoadOptions,
    readonly loadMs: number,
    readonly binary: EngineBinarySelection,
  ) {
    this.governor = new ThreadGovernor(options.governor ?? DEFAULT_THREAD_GOVERNOR);
  }

  static async load(options: EngineLoadOptions): Promise<Result<LlamaEngine, "engine_unavailable">> {
    const now = options.now ?? (() => performance.now());
    const started = now();
    const selected = options.binary !== undefined ? ok(options.binary) : currentEngineBinarySelection();
    if (!selected.ok) return err("engine_unavailable", selected.message);
    const binaryOptions = getLlamaBinaryOptions(selected.value.binary);
    let llama: Llama;
    try {
      llama = await getLlama({
        gpu: false,
        build: "never",
        usePrebuiltBinaries: binaryOptions.usePrebuiltBinaries,
        cmakeOptions: binaryOptions.cmakeOptions,
        skipDownload: true,
        progressLogs: false,
        logLevel: LlamaLogLevel.error,
        maxThreads: ENGINE_SETTINGS.maxThreads,
      });
    } catch {
      return err("engine_unavailable", `the ${selected.value.binary} llama.cpp binary could not be loaded`);
    }
    // Never run another binary than the one selected and recorded.
    if (llama.buildType !== binaryOptions.expectedBuildType) {
      await llama.dispose().catch(() => undefined);
      return err(
        "engine_unavailable",
        `node-llama-cpp loaded a ${llama.buildType} binary, not the selected ${selected.value.binary} one`,
      );
    }
    try {
      const model = await llama.loadModel({
        modelPath: options.ggufPath,
        gpuLayers: 0,
        useMmap: true,
        useMlock: false,
        defaultContextFlashAttention: false,
      });
      const context = await model.createContext({
        contextSize: (options.profile ?? GENERATION_PROFILES.lab).contextSize,
        batchSize: Math.max(ENGINE_SETTINGS.prefillChunkTokens, options.prefillChunkTokens ?? 0),
        sequences: 1,
        flashAttention: ENGINE_SETTINGS.flashAttention,
        threads: { ideal: ENGINE_SETTINGS.maxThreads, min: 1 },
        experimentalKvCacheKeyType: ENGINE_SETTINGS.kvCacheType,
        experimentalKvCacheValueType: ENGINE_SETTINGS.kvCacheType,
        failedCreationRemedy: false,
      });
      const sequence = context.getSequence({
        contextShift: {
          // Never shift silently: the input guard makes this unreachable, so reaching it is an error.
          strategy: () => {
            throw new Error("context shift refused");
          },
        },
      });
      return ok(new LlamaEngine(llama, model, context, sequence, options, now() - started, selected.value));
    } catch {
      await llama.dispose().catch(() => undefined);
      return err("engine_unavailable", "the model file could not be loaded by llama.cpp");
    }
  }

  private profile(): GenerationProfile {
    return this.options.profile ?? GENERATION_PROFILES.lab;
  }

  private now(): number {
    return (this.options.now ?? (() => performance.now()))();
  }

  private useThreads(phase: EnginePhase): number {
    const threads = this.governor.choose(phase);
    // Public node-llama-cpp knob: the context's thread allocation is capped by llama.maxThreads on every batch.
    this.llama.maxThreads = threads;
    return threads;
  }

  identity(): Record<string, unknown> {
    return {
      engine: "llama.cpp via node-llama-cpp",
      versions: libraryVersions(),
      binary: {
        kind: this.binary.binary,
        requested: this.binary.requested,
        reason: this.binary.reason,
        native_files_sha256: this.binary.nativeFiles,
      },
      llama_cpp_build: {
        ...this.llama.llamaCppRelease,
        build_type: this.llama.buildType,
        gpu: this.llama.gpu,
        cpu_features: this.llama.systemInfo.trim(),
      },
      host: hostDescription(),
      precision: {
        weights: ENGINE_SETTINGS.weights,
        kv_cache: ENGINE_SETTINGS.kvCacheType,
        stored: "BF16",
        override: "float32 at load time (exact widening); config.json untouched",
      },
      attention:
        "llama.cpp CPU attention, flash attention off (the reference is Transformers eager attention; results agree within float32 rounding, not bitwise)",
      context_size: this.context.contextSize,
      kv_cache_types: { key: this.context.kvCacheKeyType, value: this.context.kvCacheValueType },
      flash_attention: this.context.flashAttention,
      threads: {
        max: ENGINE_SETTINGS.maxThreads,
        policy: "per step, the ThreadGovernor picks 2 or 1 threads by measured rate and re-measures periodically",
        current_choice: this.governor.snapshot(),
      },
      prefill_chunk_tokens: this.chunkTokens(),
      seed: ENGINE_SETTINGS.seed,
      load_ms: Math.round(this.loadMs),
    };
  }

  threadRecord(): unknown {
    return this.governor.snapshot();
  }

  private chunkTokens(): number {
    return this.options.prefillChunkTokens ?? ENGINE_SETTINGS.prefillChunkTokens;
  }

  /** The tokens currently held in the KV cache (for tests of prefix reuse). */
  cachedTokens(): number[] {
    return [...this.sequence.contextTokens];
  }

  async clearCache(): Promise<void> {
    await this.sequence.clearHistory();
  }

  private checkInput(
    inputIds: readonly number[],
    maxNewTokens: number,
  ): Result<void, "context_limit" | "input_invalid"> {
    if (inputIds.length === 0) return err("input_invalid", "empty input");
    const rows = this.options.vocabularySize;
    for (const id of inputIds) {
      if (!Number.isSafeInteger(id) || id < 0 || id >= rows) return err("input_invalid", "token id out of range");
    }
    const budget = this.profile().maxInputTokens;
    if (inputIds.length > budget)
      return err("context_limit", `input exceeds the ${budget.toLocaleString("en-US")}-token budget`);
    if (inputIds.length + maxNewTokens > this.context.contextSize)
      return err("context_limit", "input plus new tokens exceeds the context");
    return ok(undefined);
  }

  /** Move the KV cache to the longest usable common prefix; returns the number of cached tokens kept. */
  private async alignCache(inputIds: readonly number[], reuse: boolean): Promise<number> {
    const cached = this.sequence.contextTokens;
    let common = 0;
    if (reuse) {
      while (common < cached.length && common < inputIds.length && cached[common] === inputIds[common]) common++;
    }
    // At least one input token must be evaluated so that its logits exist.
    common = Math.min(common, inputIds.length - 1);
    if (common < this.sequence.nextTokenIndex) {
      await this.sequence.eraseContextTokenRanges([{ start: common, end: this.sequence.nextTokenIndex }]);
    }
    return common;
  }

  async generate(
    inputIds: readonly number[],
    options: GenerateOptions = {},
  ): Promise<Result<EngineGeneration, EngineErrorCode>> {
    const maxNewTokens = options.maxNewTokens ?? this.profile().maxNewTokens;
    const checked = this.checkInput(inputIds, maxNewTokens);
    if (!checked.ok) return checked;
    if (this.busy) return err("model_error", "the engine is already generating");
    this.busy = true;
    const aborted = options.shouldAbort ?? (() => false);
    const stopIds: readonly number[] = options.stopTokenIds ?? ENGINE_SETTINGS.stopTokenIds;
    const started = this.now();
    try {
      const reused = await this.alignCache(inputIds, options.reusePrefix ?? true);
      const rest = inputIds.slice(reused) as Token[];
      const chunk = this.chunkTokens();
      // All but the last chunk are evaluated without sampling, with an abort check before each.
      let position = 0;
      while (rest.length - position > chunk) {
        if (aborted()) return err("cancelled", "aborted during prefill");
        const threads = this.useThreads("prefill");
        const t0 = this.now();
        await this.sequence.evaluateWithoutGeneratingNewTokens(rest.slice(position, position + chunk));
        this.governor.record("prefill", threads, chunk, this.now() - t0);
        position += chunk;
        options.onStep?.("prefill", position, rest.length);
      }
      if (aborted()) return err("cancelled", "aborted during prefill");
      const lastChunk = rest.slice(position);
      const iterator = this.sequence.evaluate(lastChunk, {
        temperature: 0,
        seed: ENGINE_SETTINGS.seed,
        yieldEogToken: true,
      });
      const output: number[] = [];
      let stopCause: StopCause = "max_new_tokens";
      let prefillEnd = started;
      try {
        let phase: EnginePhase = "prefill";
        let threads = this.useThreads(phase);
        let t0 = this.now();
        let step = await iterator.next();
        while (!step.done) {
          const stepMs = this.now() - t0;
          this.governor.record(phase, threads, phase === "prefill" ? lastChunk.length : 1, stepMs);
          if (phase === "prefill") prefillEnd = this.now();
          options.onStep?.(
            phase,
            phase === "prefill" ? rest.length : output.length + 1,
            phase === "prefill" ? rest.length : maxNewTokens,
          );
          const token = step.value;
          output.push(token);
          if (stopIds.includes(token)) {
            stopCause = "stop_token";
            break;
          }
          if (output.length >= maxNewTokens) break;
          if (aborted()) return err("cancelled", "aborted during decode");
          phase = "decode";
          threads = this.useThreads(phase);
          t0 = this.now();
          step = await iterator.next();
        }
        if (step.done === true) return err("model_error", "the engine ended generation without a token");
      } finally {
        await iterator.return(undefined);
      }
      const ended = this.now();
      return ok({
        rawOutputIds: output,
        stopCause,
        inputTokens: inputIds.length,
        prefixTokensReused: reused,
        prefillTokensEvaluated: rest.length,
        timings: { prefillMs: prefillEnd - started, decodeMs: ended - prefillEnd, totalMs: ended - started },
        threadsUsed: this.governor.tokensByThreads(),
        threadChoice: this.governor.snapshot(),
      });
    } catch (error) {
      // The sequence state is unknown after a failure: drop the cache so the next call starts clean.
      await this.sequence.clearHistory().catch(() => undefined);
      return err("model_error", error instanceof Error ? error.message.slice(0, 200) : "generation failed");
    } finally {
      this.busy = false;
    }
  }

  /**
   * Final-position log-probabilities (log-softmax of the logits) for `inputIds` over the whole
   * vocabulary, for the numerical check. node-llama-cpp 3.21 exposes the next-token
   * distribution, not raw logits: with temperature 1 and every truncation disabled, it is the
   * softmax of the logits, so log-probabilities equal logits minus their log-sum-exp.
   */
  async finalLogProbabilities(inputIds: readonly number[]): Promise<Float64Array> {
    await this.sequence.clearHistory();
    const vocabularySize = this.options.vocabularySize;
    const last: ControlledEvaluateInputItem = [
      inputIds[inputIds.length - 1] as Token,
      { generateNext: { probabilities: true, options: { temperature: 1, topK: vocabularySize, topP: 1, minP: 0 } } },
    ];
    const items: ControlledEvaluateInputItem[] = [...inputIds.slice(0, -1).map((id) => id as Token), last];
    const results = await this.sequence.controlledEvaluate(items);
    const probabilities = results[inputIds.length - 1]?.next.probabilities;
    if (probabilities === undefined) throw new Error("no probabilities returned");
    if (probabilities.size !== vocabularySize) throw new Error("the distribution does not cover the whole vocabulary");
    const out = new Float64Array(vocabularySize);
    for (const [token, value] of probabilities) out[token] = Math.log(value);
    await this.sequence.clearHistory();
    return out;
  }

  async dispose(): Promise<void> {
    await this.context.dispose().catch(() => undefined);
    await this.model.dispose().catch(() => undefined);
    await this.llama.dispose().catch(() => undefined);
  }
}
