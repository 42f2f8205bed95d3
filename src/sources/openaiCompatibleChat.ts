// The chat-with-tools contract every benchmark model backend implements: the
// OpenAI-compatible HTTP client (openaiCompatibleClient.ts) and the project's local engine
// (localEngineChat.ts). A backend takes the chat messages and tool schemas and returns one assistant message
// (text and/or tool calls) with usage; it never executes tools and never decides anything.

export interface ToolFunctionSchema {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: Readonly<Record<string, unknown>>;
  };
}

/** One tool call as the model proposed it. `argumentsText` is the raw JSON text, unparsed. */
export interface ProposedToolCall {
  readonly id: string;
  readonly name: string;
  readonly argumentsText: string;
}

export type ChatTurnMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string; readonly toolCalls: readonly ProposedToolCall[] }
  | { readonly role: "tool"; readonly toolCallId: string; readonly name: string; readonly content: string };

export interface ChatTurnRequest {
  readonly messages: readonly ChatTurnMessage[];
  /** Empty: no tools offered (condition A). */
  readonly tools: readonly ToolFunctionSchema[];
  readonly maxTokens: number;
  readonly signal: AbortSignal;
  /** Sampling seed for this request (repeats use one seed each); the backend's default otherwise. */
  readonly seed?: number;
}

export interface ChatUsage {
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  /**
   * "server" when the endpoint reported usage, "none" when it did not, "local" when the local
   * engine counted the tokens itself (input ids sent, output tokens generated).
   */
  readonly source: "server" | "none" | "local";
}

/** The raw exchange, kept verbatim in the trace (request body and parsed response body). */
export interface ChatExchange {
  readonly request: unknown;
  readonly response: unknown;
  readonly httpStatus: number | null;
  readonly elapsedMs: number;
  /** Requests retried after a transient failure (429, 502-504, connection refused), with the wait before each. */
  readonly retries?: readonly { readonly status: number | null; readonly waitMs: number }[];
}

/**
 * model_context_limit: the rendered conversation exceeds the model's input budget (nothing was
 * generated, nothing truncated); model_engine_error: the local engine or its worker failed;
 * model_output_unparsed: the server accepted the request but its own chat parser rejected what
 * the model generated (llama-server: HTTP 500 "The model produced output that does not match the expected … format"), a
 * model failure rather than a transport one.
 */
export const CHAT_ERROR_CODES = [
  "model_http_error",
  "model_protocol_error",
  "model_timeout",
  "model_unreachable",
  "model_context_limit",
  "model_engine_error",
  "model_output_unparsed",
] as const;
export type ChatErrorCode = (typeof CHAT_ERROR_CODES)[number];

export type ChatTurnResult =
  | {
      readonly ok: true;
      readonly content: string;
      readonly toolCalls: readonly ProposedToolCall[];
      /** "stop", "tool_calls", "length", ... as reported; null if absent. */
      readonly finishReason: string | null;
      readonly usage: ChatUsage;
      /** The model name the server says answered. */
      readonly servedModel: string | null;
      readonly exchange: ChatExchange;
    }
  | { readonly ok: false; readonly error: ChatErrorCode; readonly message: string; readonly exchange: ChatExchange };

export interface ChatBackend {
  /** Identity and settings recorded in the run manifest (model, server, build, sampling). */
  describe(signal: AbortSignal): Promise<Readonly<Record<string, unknown>>>;
  complete(request: ChatTurnRequest): Promise<ChatTurnResult>;
  close(): Promise<void>;
}
