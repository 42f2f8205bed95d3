// The benchmark's second model backend: the project's local engine (the pinned Qwen
// checkpoint or a synthetic one) behind the ChatBackend contract. The controller process
// renders the conversation with the verified chat template (tools natively when the template
// supports them, else the text protocol), tokenizes it with the verified tokenizer, checks the
// bench profile's input budget, and sends the ids to one supervised worker loaded with the
// bench profile. The worker generates greedily and decodes; tool calls are parsed here from
// <tool_call> blocks. Usage is counted exactly (input ids, output tokens). It never
// substitutes text: every failure comes back as an error code.
import { systemClock, type MonotonicClock } from "../core/clock.ts";
import { err, ok, type Result } from "../core/result.ts";
import { GENERATION_PROFILES } from "../model/engine/generationSettings.ts";
import { openCheckpointDirectory, type CheckpointDirectory } from "../model/loader/checkpointDirectory.ts";
import { PINNED_MODEL } from "../model/pins.ts";
import { createChatTokenizer, type ChatTokenizer } from "../model/tokenizer/chatTokenizer.ts";
import {
  ModelSupervisor,
  type LoadedWorker,
  type SupervisedProgress,
  type SupervisorOptions,
} from "../model/worker/supervisor.ts";
import { createConversationRenderer, type ConversationRenderer } from "./localChatRendering.ts";
import type {
  ChatBackend,
  ChatErrorCode,
  ChatExchange,
  ChatTurnRequest,
  ChatTurnResult,
} from "./openaiCompatibleChat.ts";
import { parseToolCallText, type ParsedAssistantText } from "./textToolCalls.ts";
import { sha256Hex } from "../core/digest.ts";
import { isRecord } from "../core/isRecord.ts";

/** Why the backend could not be created (the checkpoint gate's codes, then the worker's). */
export const LOCAL_BACKEND_ERROR_CODES = [
  "model_directory_invalid",
  "model_not_verified",
  "unexpected_file",
  "config_rejected",
  "checkpoint_invalid",
  "tokenizer_invalid",
  "template_invalid",
  "time_limit",
  "model_error",
  "cancelled",
] as const;
export type LocalBackendErrorCode = (typeof LOCAL_BACKEND_ERROR_CODES)[number];

export const BENCH_PROFILE = GENERATION_PROFILES.bench;
const DEFAULT_LOAD_BUDGET_MS = 10 * 60 * 1000;
/** Upper bound on one call; the task's own time budget (the request's signal) normally ends it first. */
const DEFAULT_CALL_CEILING_MS = 10 * 60 * 1000;

export interface LocalEngineChatOptions {
  readonly modelDirectory: string;
  /** Loading (verification, conversion, engine load) must finish within this; default 10 minutes. */
  readonly loadBudgetMs?: number;
  readonly callCeilingMs?: number;
  readonly clock?: MonotonicClock;
  readonly supervisor?: Omit<SupervisorOptions, "clock" | "callDeadlineMs">;
  /** Live token counts of each running call, for a terminal's progress bar only (never recorded). */
  readonly onGenerationProgress?: (progress: SupervisedProgress) => void;
}

function checkpointName(c: CheckpointDirectory): string {
  const weights = (c.sha256["model.safetensors"] ?? "").slice(0, 12);
  const name = c.synthetic === null ? `${PINNED_MODEL.repository}@${PINNED_MODEL.revision.slice(0, 12)}` : c.modelName;
  return `local:${name}:${weights}`;
}

/** The worker verified the same files the controller verified (same names, same hashes). */
function sameHashes(identity: Record<string, unknown>, expected: Readonly<Record<string, string>>): boolean {
  const reported = identity.source_sha256;
  if (!isRecord(reported)) return false;
  const keys = Object.keys(expected).sort();
  return keys.join("\n") === Object.keys(reported).sort().join("\n") && keys.every((k) => reported[k] === expected[k]);
}

/**
 * The model's decoded text as this turn's content and tool calls, parsed by the project's
 * tool-call path; condition A offers no tools, so there the whole reply is content. Exported so
 * that the bench rehearsal's transcript generator parses its scripted replies the same way.
 */
export function parseAssistantReply(
  text: string,
  request: Pick<ChatTurnRequest, "messages" | "tools">,
): ParsedAssistantText {
  const assistantTurn = request.messages.filter((m) => m.role === "assistant").length + 1;
  return request.tools.length > 0
    ? parseToolCallText(text, `call_t${assistantTurn}`)
    : { content: text, toolCalls: [], malformed: [] };
}

export class LocalEngineChat implements ChatBackend {
  /** Identifies model and weights in the run's fingerprint (resume and merge compare it). */
  readonly modelName: string;
  readonly synthetic: boolean;
  private queue: Promise<void> = Promise.resolve();
  private restarts = 0;
  private closed = false;

  private constructor(
    private readonly options: LocalEngineChatOptions,
    private readonly checkpoint: CheckpointDirectory,
    private readonly tokenizer: ChatTokenizer,
    private readonly renderer: ConversationRenderer,
    private supervisor: ModelSupervisor,
    private loaded: LoadedWorker,
  ) {
    this.modelName = checkpointName(checkpoint);
    this.synthetic = checkpoint.synthetic !== null;
  }

  private static clock(options: LocalEngineChatOptions): MonotonicClock {
    return options.clock ?? systemClock;
  }

  private static async startWorker(
    options: LocalEngineChatOptions,
    checkpoint: CheckpointDirectory,
  ): Promise<Result<{ supervisor: ModelSupervisor; loaded: LoadedWorker }, LocalBackendErrorCode>> {
    const clock = LocalEngineChat.clock(options);
    const supervisor = new ModelSupervisor({
      ...options.supervisor,
      clock,
      callDeadlineMs: options.callCeilingMs ?? DEFAULT_CALL_CEILING_MS,
    });
    const loaded = await supervisor.load(
      checkpoint.directory,
      clock.now() + (options.loadBudgetMs ?? DEFAULT_LOAD_BUDGET_MS),
      { profile: "bench" },
    );
    if (!loaded.ok) {
      await supervisor.close();
      return err(loaded.error, loaded.message);
    }
    if (!sameHashes(loaded.value.identity, checkpoint.sha256)) {
      await supervisor.close();
      return err("model_not_verified", "the worker verified different checkpoint files than the controller");
    }
    return ok({ supervisor, loaded: loaded.value });
  }

  /** Verifies the checkpoint here (tokenizer and template bytes), then loads one worker with the bench profile. */
  static async create(options: LocalEngineChatOptions): Promise<Result<LocalEngineChat, LocalBackendErrorCode>> {
    let checkpoint: CheckpointDirectory;
    try {
      const opened = await openCheckpointDirectory(options.modelDirectory);
      if (!opened.ok) return opened;
      checkpoint = opened.value;
    } catch {
      return err("model_directory_invalid", "the model directory could not be read");
    }
    const tokenizer = createChatTokenizer(checkpoint.tokenizerJson, checkpoint.tokenizerConfigJson);
    if (!tokenizer.ok) return tokenizer;
    const renderer = createConversationRenderer(checkpoint.tokenizerConfigJson);
    if (!renderer.ok) return renderer;
    const worker = await LocalEngineChat.startWorker(options, checkpoint);
    if (!worker.ok) return worker;
    return ok(
      new LocalEngineChat(
        options,
        checkpoint,
        tokenizer.value,
        renderer.value,
        worker.value.supervisor,
        worker.value.loaded,
      ),
    );
  }

  /** How tool calls are rendered: the template's own tools support, or the text protocol. */
  get toolRendering(): ConversationRenderer["toolRendering"] {
    return this.renderer.toolRendering;
  }

  async describe(_signal: AbortSignal): Promise<Readonly<Record<string, unknown>>> {
    const identity = this.loaded.identity;
    return {
      ...identity,
      backend: "local-engine",
      label: this.modelName,
      modelName: this.modelName,
      proposal_source: this.loaded.label,
      // The run report labels the whole run a PIPELINE CHECK when this is true.
      synthetic: this.synthetic,
      // results.md, the report banner and compare name a rehearsal model's run REHEARSAL.
      ...(this.loaded.label === "rehearsal" ? { rehearsal: true } : {}),
      ...(this.synthetic
        ? {
            note:
              this.loaded.label === "rehearsal"
                ? "REHEARSAL model (trained in-project on scripted transcripts): this benchmark run is a PIPELINE CHECK, not a model result"
                : "synthetic random-weight checkpoint: this benchmark run is a PIPELINE CHECK, not a model result",
          }
        : {}),
      tool_call_rendering: this.renderer.toolRendering,
      tool_call_protocol:
        this.renderer.toolRendering === "chat_template"
          ? "the verified chat template renders tools, tool_calls and tool results itself; replies are parsed as <tool_call> blocks"
          : "text protocol (Qwen2.5's convention): tool schemas in the system message inside <tools>, calls as <tool_call> JSON blocks in the assistant text, results as user <tool_response> blocks",
      generation_profile: BENCH_PROFILE,
      sampling: { temperature: 0, greedy: true, seed: 0 },
      supervised_load_ms: Math.round(this.loaded.loadMs),
    };
  }

  /** Runs `fn` when no other call is in flight (the worker answers one call at a time). */
  private async exclusive<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T | "aborted"> {
    const previous = this.queue;
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next caller waits for the previous holder and for this one, even if this one gives up early.
    this.queue = previous.then(() => mine);
    try {
      const aborted = await new Promise<boolean>((resolve) => {
        if (signal.aborted) return resolve(true);
        const onAbort = (): void => resolve(true);
        signal.addEventListener("abort", onAbort, { once: true });
        void previous.then(() => {
          signal.removeEventListener("abort", onAbort);
          resolve(false);
        });
      });
      if (aborted) return "aborted";
      return await fn();
    } finally {
      release();
    }
  }

  /** A killed worker is never reused: a fresh one is loaded before the next call. */
  private async ensureWorker(): Promise<Result<void, LocalBackendErrorCode>> {
    if (this.supervisor.alive) return ok(undefined);
    await this.supervisor.close();
    const worker = await LocalEngineChat.startWorker(this.options, this.checkpoint);
    if (!worker.ok) return worker;
    this.supervisor = worker.value.supervisor;
    this.loaded = worker.value.loaded;
    this.restarts++;
    return ok(undefined);
  }

  async complete(request: ChatTurnRequest): Promise<ChatTurnResult> {
    const clock = LocalEngineChat.clock(this.options);
    const started = clock.now();
    const requestRecord: Record<string, unknown> = {
      backend: "local-engine",
      profile: BENCH_PROFILE.name,
      toolRendering: this.renderer.toolRendering,
      messages: request.messages.length,
      tools: request.tools.map((t) => t.function.name),
      maxNewTokens: request.maxTokens,
    };
    const exchange = (response: unknown): ChatExchange => ({
      request: requestRecord,
      response,
      httpStatus: null,
      elapsedMs: clock.now() - started,
    });
    const fail = (error: ChatErrorCode, message: string, response: unknown = null): ChatTurnResult => ({
      ok: false,
      error,
      message,
      exchange: exchange(response),
    });
    if (this.closed) return fail("model_engine_error", "the local backend is closed");
    if (
      !Number.isSafeInteger(request.maxTokens) ||
      request.maxTokens < 1 ||
      request.maxTokens > BENCH_PROFILE.maxNewTokens
    ) {
      return fail(
        "model_engine_error",
        `max tokens per turn must be 1..${BENCH_PROFILE.maxNewTokens} for the local engine`,
      );
    }
    const rendered = this.renderer.render(request.messages, request.tools);
    if (!rendered.ok) return fail("model_engine_error", rendered.message);
    const inputIds = this.tokenizer.encode(rendered.value);
    requestRecord.promptSha256 = sha256Hex(rendered.value);
    requestRecord.inputTokens = inputIds.length;
    // Never truncated: an over-budget conversation ends the task with a clear error.
    if (inputIds.length > BENCH_PROFILE.maxInputTokens) {
      return fail(
        "model_context_limit",
        `the conversation is ${inputIds.length} tokens; the local engine's input budget is ${BENCH_PROFILE.maxInputTokens}`,
      );
    }
    const outcome = await this.exclusive(request.signal, async () => {
      const worker = await this.ensureWorker();
      if (!worker.ok)
        return {
          kind: "model_error" as const,
          message: `the model worker could not be restarted (${worker.error})`,
          elapsedMs: 0,
        };
      return this.supervisor.generate(
        { kind: "ids", ids: inputIds },
        {
          overallDeadlineMs: clock.now() + (this.options.callCeilingMs ?? DEFAULT_CALL_CEILING_MS),
          signal: request.signal,
          profile: "bench",
          maxNewTokens: request.maxTokens,
          ...(this.options.onGenerationProgress !== undefined ? { onProgress: this.options.onGenerationProgress } : {}),
        },
      );
    });
    if (outcome === "aborted")
      return fail("model_timeout", "the task's time budget ran out while waiting for the engine");
    switch (outcome.kind) {
      case "context_limit":
        return fail("model_context_limit", `the engine refused ${outcome.inputTokens} input tokens`);
      case "time_limit":
      case "cancelled":
        return fail(
          "model_timeout",
          request.signal.aborted
            ? "the model call ran past the task's time budget"
            : "the model call ran past the call ceiling",
        );
      case "model_error":
        return fail("model_engine_error", outcome.message);
      case "result":
        break;
    }
    const r = outcome.report;
    const parsed = parseAssistantReply(r.text, request);
    const finishReason =
      r.stopCause === "max_new_tokens" ? "length" : parsed.toolCalls.length > 0 ? "tool_calls" : "stop";
    return {
      ok: true,
      content: parsed.content,
      toolCalls: parsed.toolCalls,
      finishReason,
      usage: { promptTokens: inputIds.length, completionTokens: r.outputTokens, source: "local" },
      servedModel: this.modelName,
      exchange: exchange({
        text: r.text,
        rawOutputIds: r.rawOutputIds,
        outputTokens: r.outputTokens,
        stopCause: r.stopCause,
        prefixTokensReused: r.prefixTokensReused,
        timingsMs: r.timingsMs,
        threads: r.threads,
        workerPeakRssBytes: r.peakRssBytes,
        malformedToolCalls: parsed.malformed,
        workerRestarts: this.restarts,
      }),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.supervisor.close();
  }
}
