// An OpenAI-compatible chat-completions client with tool calling (llama.cpp's llama-server,
// vLLM, Ollama, LM Studio). Greedy by default. Every response body is treated as untrusted:
// size-capped, parsed, and validated field by field before anything downstream sees it.
import { jsonDepth, MODEL_REPLY_MAX_DEPTH, parseBoundedJson } from "../core/boundedJson.ts";
import type {
  ChatBackend,
  ChatExchange,
  ChatTurnMessage,
  ChatTurnRequest,
  ChatTurnResult,
  ProposedToolCall,
} from "./openaiCompatibleChat.ts";
import { DEFAULT_RETRY, RETRYABLE_STATUS, retryAfterMs, sleepUnlessAborted, type RetryPolicy } from "./httpRetry.ts";
import { isOutputParseFailure, serverMessage } from "./serverErrorMessage.ts";
import { isRecord } from "../core/isRecord.ts";

export interface OpenAiCompatibleOptions {
  /** Base URL including the API prefix, e.g. http://127.0.0.1:8080/v1 */
  readonly endpoint: string;
  readonly model: string;
  /** Sent as Authorization: Bearer …, never recorded. */
  readonly apiKey?: string;
  /** Extra top-level request fields (e.g. chat_template_kwargs), recorded in every request. */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  readonly temperature?: number;
  readonly seed?: number;
  readonly responseMaxBytes?: number;
  /** Transient failures (429, 502, 503, 504, connection refused) are retried within the caller's deadline. */
  readonly retry?: RetryPolicy;
}

const DEFAULT_RESPONSE_MAX_BYTES = 8 * 1024 * 1024;

function wireMessage(m: ChatTurnMessage): Record<string, unknown> {
  switch (m.role) {
    case "system":
    case "user":
      return { role: m.role, content: m.content };
    case "assistant":
      return m.toolCalls.length === 0
        ? { role: "assistant", content: m.content }
        : {
            role: "assistant",
            content: m.content === "" ? null : m.content,
            tool_calls: m.toolCalls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: c.argumentsText },
            })),
          };
    case "tool":
      return { role: "tool", tool_call_id: m.toolCallId, name: m.name, content: m.content };
  }
}

export function buildRequestBody(
  options: OpenAiCompatibleOptions,
  request: Omit<ChatTurnRequest, "signal">,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...(options.extraBody ?? {}),
    model: options.model,
    messages: request.messages.map(wireMessage),
    temperature: options.temperature ?? 0,
    top_p: 1,
    seed: request.seed ?? options.seed ?? 0,
    max_tokens: request.maxTokens,
    stream: false,
  };
  if (request.tools.length > 0) {
    body.tools = request.tools;
    body.tool_choice = "auto";
  }
  return body;
}

async function readCapped(response: Response, max: number): Promise<{ text: string; tooLarge: boolean }> {
  if (!response.body) return { text: "", tooLarge: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      return { text: "", tooLarge: true };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), tooLarge: false };
}

type ParsedChoice = { content: string; toolCalls: ProposedToolCall[]; finishReason: string | null };

/** Validates the first choice of a chat-completions response. Returns a reason string on failure. */
export function parseChoice(body: unknown): ParsedChoice | string {
  if (!isRecord(body) || !Array.isArray(body.choices) || body.choices.length === 0) return "no choices in the response";
  const choice: unknown = body.choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) return "the first choice has no message";
  const msg = choice.message;
  const content = msg.content === null || msg.content === undefined ? "" : msg.content;
  if (typeof content !== "string") return "message content is not text";
  const toolCalls: ProposedToolCall[] = [];
  if (msg.tool_calls !== undefined && msg.tool_calls !== null) {
    if (!Array.isArray(msg.tool_calls)) return "tool_calls is not a list";
    for (const [i, raw] of msg.tool_calls.entries()) {
      if (!isRecord(raw) || !isRecord(raw.function)) return "a tool call has no function";
      // A call without a name is the model's mistake, not the server's: it goes to the tool
      // executor as a call named "" and is counted there as one tool error (unknown_tool).
      const name = typeof raw.function.name === "string" ? raw.function.name : "";
      const args = raw.function.arguments;
      // Some servers send arguments as an object instead of JSON text; keep the text form.
      const argumentsText = typeof args === "string" ? args : args === undefined ? "{}" : JSON.stringify(args);
      const id = typeof raw.id === "string" && raw.id !== "" ? raw.id : `call_${i}`;
      toolCalls.push({ id, name, argumentsText });
    }
  }
  const finishReason = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  return { content, toolCalls, finishReason };
}

function usageOf(body: unknown): {
  promptTokens: number | null;
  completionTokens: number | null;
  source: "server" | "none";
} {
  if (isRecord(body) && isRecord(body.usage)) {
    const p = body.usage.prompt_tokens;
    const c = body.usage.completion_tokens;
    if (typeof p === "number" || typeof c === "number") {
      return {
        promptTokens: typeof p === "number" ? p : null,
        completionTokens: typeof c === "number" ? c : null,
        source: "server",
      };
    }
  }
  return { promptTokens: null, completionTokens: null, source: "none" };
}

export interface ModelList {
  readonly ok: boolean;
  /** HTTP status; null when nothing answered. */
  readonly status: number | null;
  /** Model ids the server offers (empty when the list could not be read). */
  readonly ids: readonly string[];
  readonly message: string;
}

/** What to do about a 401 or 403: one wording for the bench preflight and for verify-run --regenerate, beside the client that sends the key. */
export function authHint(apiKeySent: boolean): string {
  return apiKeySent
    ? "the server refused the API key; check the variable named by --api-key-env (or OPENAI_API_KEY)"
    : "the server wants an API key: set OPENAI_API_KEY or pass --api-key-env VAR";
}

export class OpenAiCompatibleClient implements ChatBackend {
  constructor(private readonly options: OpenAiCompatibleOptions) {}

  private url(path: string): string {
    return `${this.options.endpoint.replace(/\/+$/, "")}${path}`;
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { "content-type": "application/json" };
    if (this.options.apiKey) h.authorization = `Bearer ${this.options.apiKey}`;
    return h;
  }

  private async getJson(url: string, signal: AbortSignal): Promise<unknown> {
    try {
      const r = await fetch(url, { headers: this.headers(), signal });
      if (!r.ok) return { httpStatus: r.status };
      const { text, tooLarge } = await readCapped(r, 1024 * 1024);
      if (tooLarge) return { error: "too large" };
      // Depth-checked (src/core/boundedJson): a /props nested 100,000 deep would end in run.json.
      const parsed = parseBoundedJson(text, url, MODEL_REPLY_MAX_DEPTH);
      return parsed.ok ? parsed.value : { error: parsed.message };
    } catch {
      return null;
    }
  }

  /** GET <endpoint>/models with the status and the server's message, for the preflight. */
  async listModels(signal: AbortSignal): Promise<ModelList> {
    let r: Response;
    try {
      r = await fetch(this.url("/models"), { headers: this.headers(), signal });
    } catch {
      return { ok: false, status: null, ids: [], message: "nothing answered" };
    }
    let body: unknown;
    try {
      const { text, tooLarge } = await readCapped(r, 1024 * 1024);
      const parsed = tooLarge ? null : parseBoundedJson(text, "the model list", MODEL_REPLY_MAX_DEPTH);
      body = parsed?.ok === true ? parsed.value : null;
    } catch {
      body = null;
    }
    if (!r.ok) return { ok: false, status: r.status, ids: [], message: serverMessage(body) };
    const data = isRecord(body) && Array.isArray(body.data) ? body.data : [];
    const ids = data.flatMap((m: unknown) => (isRecord(m) && typeof m.id === "string" ? [m.id] : []));
    return { ok: true, status: r.status, ids, message: "" };
  }

  async describe(signal: AbortSignal): Promise<Readonly<Record<string, unknown>>> {
    const models = await this.getJson(this.url("/models"), signal);
    // llama-server reports its build and the loaded model at /props (outside the /v1 prefix).
    let props: unknown = null;
    try {
      const origin = new URL(this.options.endpoint).origin;
      const raw = await this.getJson(`${origin}/props`, signal);
      if (isRecord(raw)) {
        const settings = isRecord(raw.default_generation_settings) ? raw.default_generation_settings : {};
        props = {
          build_info: raw.build_info ?? null,
          model_path: raw.model_path ?? null,
          model_alias: raw.model_alias ?? null,
          n_ctx: settings.n_ctx ?? null,
          chat_template_caps: raw.chat_template_caps ?? null,
        };
      }
    } catch {
      props = null;
    }
    return {
      backend: "openai-compatible",
      reachable: isRecord(models) && !("httpStatus" in models) && !("error" in models),
      endpoint: this.options.endpoint,
      requestedModel: this.options.model,
      sampling: { temperature: this.options.temperature ?? 0, top_p: 1, seed: this.options.seed ?? 0 },
      extraBody: this.options.extraBody ?? {},
      serverModels: models,
      serverProps: props,
    };
  }

  async complete(request: ChatTurnRequest): Promise<ChatTurnResult> {
    const body = buildRequestBody(this.options, request);
    const policy = this.options.retry ?? DEFAULT_RETRY;
    const started = performance.now();
    const retries: { status: number | null; waitMs: number }[] = [];
    const exchange = (response: unknown, httpStatus: number | null): ChatExchange => ({
      request: body,
      response,
      httpStatus,
      elapsedMs: performance.now() - started,
      retries: [...retries],
    });
    const timeout = (status: number | null): ChatTurnResult => ({
      ok: false,
      error: "model_timeout",
      message: "the model call ran past the task's time budget",
      exchange: exchange(null, status),
    });
    for (let attempt = 0; ; attempt++) {
      let r: Response;
      try {
        r = await fetch(this.url("/chat/completions"), {
          method: "POST",
          headers: this.headers(),
          body: JSON.stringify(body),
          signal: request.signal,
        });
      } catch {
        if (request.signal.aborted) return timeout(null);
        // Connection refused or reset: a restarting server; retried like a 503.
        if (attempt < policy.maxRetries) {
          const waitMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
          retries.push({ status: null, waitMs });
          if (!(await sleepUnlessAborted(waitMs, request.signal))) return timeout(null);
          continue;
        }
        return {
          ok: false,
          error: "model_unreachable",
          message: "the endpoint could not be reached",
          exchange: exchange(null, null),
        };
      }
      let text: string;
      let tooLarge: boolean;
      try {
        ({ text, tooLarge } = await readCapped(r, this.options.responseMaxBytes ?? DEFAULT_RESPONSE_MAX_BYTES));
      } catch {
        return request.signal.aborted
          ? timeout(r.status)
          : {
              ok: false,
              error: "model_protocol_error",
              message: "the response body could not be read",
              exchange: exchange(null, r.status),
            };
      }
      if (RETRYABLE_STATUS.has(r.status) && attempt < policy.maxRetries) {
        // Bounded backoff; the wait is inside the caller's deadline (the signal), never added to it.
        const waitMs = Math.min(
          policy.maxDelayMs,
          retryAfterMs(r.headers.get("retry-after")) ?? policy.baseDelayMs * 2 ** attempt,
        );
        retries.push({ status: r.status, waitMs });
        if (!(await sleepUnlessAborted(waitMs, request.signal))) return timeout(r.status);
        continue;
      }
      if (tooLarge)
        return {
          ok: false,
          error: "model_protocol_error",
          message: "the response body is too large",
          exchange: exchange(null, r.status),
        };
      // A reply nested past MODEL_REPLY_MAX_DEPTH is a model error for this task (the run goes on),
      // refused before JSON.parse, so nothing later recurses over it (src/core/boundedJson).
      if (jsonDepth(text, MODEL_REPLY_MAX_DEPTH) > MODEL_REPLY_MAX_DEPTH) {
        return {
          ok: false,
          error: "model_protocol_error",
          message: `HTTP ${r.status}, the response nests deeper than ${MODEL_REPLY_MAX_DEPTH} levels`,
          exchange: exchange(null, r.status),
        };
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        if (!r.ok) {
          const msg = serverMessage(text);
          return {
            ok: false,
            error: isOutputParseFailure(r.status, msg) ? "model_output_unparsed" : "model_http_error",
            message: `HTTP ${r.status}${msg ? `: ${msg}` : ""}`,
            exchange: exchange(text.slice(0, 4096), r.status),
          };
        }
        return {
          ok: false,
          error: "model_protocol_error",
          message: `HTTP ${r.status}, body is not JSON`,
          exchange: exchange(text.slice(0, 4096), r.status),
        };
      }
      if (!r.ok) {
        const msg = serverMessage(parsed);
        return {
          ok: false,
          error: isOutputParseFailure(r.status, msg) ? "model_output_unparsed" : "model_http_error",
          message: `HTTP ${r.status}${msg ? `: ${msg}` : ""}`,
          exchange: exchange(parsed, r.status),
        };
      }
      const choice = parseChoice(parsed);
      if (typeof choice === "string")
        return { ok: false, error: "model_protocol_error", message: choice, exchange: exchange(parsed, r.status) };
      return {
        ok: true,
        content: choice.content,
        toolCalls: choice.toolCalls,
        finishReason: choice.finishReason,
        usage: usageOf(parsed),
        servedModel: isRecord(parsed) && typeof parsed.model === "string" ? parsed.model : null,
        exchange: exchange(parsed, r.status),
      };
    }
  }

  async close(): Promise<void> {
    // Stateless HTTP: nothing to release.
  }
}
