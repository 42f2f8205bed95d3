// Before any task: is this endpoint usable for this benchmark? A wrong model name, a missing
// /v1, a missing API key or a server that cannot take tool calls would otherwise turn every
// task into a model error that looks like a (terrible) result. The preflight checks the model
// list and sends one tiny request (with a tool when a selected condition needs tools), and stops
// the command with the HTTP status, the server's own message and the likely fix.
import { err, ok, type Result } from "../../core/result.ts";
import type { ChatTurnResult } from "../../sources/openaiCompatibleChat.ts";
import { authHint, type OpenAiCompatibleClient } from "../../sources/openaiCompatibleClient.ts";
import { parseToolCallText } from "../../sources/textToolCalls.ts";
import { CONDITIONS } from "../agent/conditions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { toolSchemasFor } from "../agent/toolSchemas.ts";

export interface PreflightOptions {
  readonly endpoint: string;
  readonly model: string;
  /** A selected condition offers tools (B, C, D). */
  readonly needsTools: boolean;
  /** An API key is sent (from --api-key-env or OPENAI_API_KEY). */
  readonly apiKeySent: boolean;
  /**
   * --thinking off|on sends chat_template_kwargs; when the chat request is refused (400/422), the
   * same request through this client, which sends no such field, tells a server that refuses
   * the field apart from one that refuses the request.
   */
  readonly thinking?: { readonly mode: string; readonly withoutField: OpenAiCompatibleClient };
  /** Bounds the whole preflight (a slow CPU server answers a tiny request in seconds). */
  readonly timeoutMs?: number;
}

/** What the preflight saw; recorded in run.json. */
export interface PreflightReport {
  readonly modelIds: readonly string[];
  readonly chat: {
    readonly tools: boolean;
    readonly outcome: "answered" | "tool_call" | "model_output_unparsed";
    readonly httpStatus: number | null;
    readonly message: string;
  };
  readonly warnings: readonly string[];
}

export const TOOL_PARSING_FIX =
  "llama-server: start it with --jinja (the default in recent builds: drop --no-jinja) and a chat template that supports tools (--chat-template-file if the GGUF's has none); vLLM: --enable-auto-tool-choice --tool-call-parser hermes (or your model's parser); Ollama/LM Studio: a model with tool support";

function v1Hint(endpoint: string): string {
  return /\/v1\/?$/.test(endpoint)
    ? "check the URL"
    : `add the API prefix: --endpoint ${endpoint.replace(/\/+$/, "")}/v1`;
}

function chatFailure(
  reply: Extract<ChatTurnResult, { ok: false }>,
  o: PreflightOptions,
  ids: readonly string[],
): { error: BenchErrorCode; message: string } {
  const status = reply.exchange.httpStatus;
  const base = `POST ${o.endpoint.replace(/\/+$/, "")}/chat/completions: ${reply.message}`;
  if (reply.error === "model_unreachable")
    return { error: "endpoint_unreachable", message: `${base}; is the server running?` };
  if (reply.error === "model_timeout")
    return {
      error: "endpoint_silent",
      message: silentMessage(`POST ${o.endpoint.replace(/\/+$/, "")}/chat/completions`, o),
    };
  if (status === 401 || status === 403)
    return { error: "endpoint_rejected", message: `${base}; ${authHint(o.apiKeySent)}` };
  if (status === 404) {
    return {
      error: "endpoint_rejected",
      message: `${base}; the model ${JSON.stringify(o.model)} or the path is unknown to the server${ids.length > 0 ? `; it offers: ${ids.join(", ")}` : ""}; ${v1Hint(o.endpoint)}`,
    };
  }
  const toolRejection =
    status === 400 || status === 422 || status === 501 || (status === 500 && /tool|jinja/i.test(reply.message));
  if (toolRejection && o.needsTools) {
    return {
      error: "endpoint_rejected",
      message: `${base}; the server refused a request with tools (conditions B-D need tool calling): ${TOOL_PARSING_FIX}`,
    };
  }
  return { error: "endpoint_rejected", message: base };
}

/** The preflight's bound when the caller names none. */
const PREFLIGHT_TIMEOUT_MS = 120_000;

function timeoutSeconds(o: Pick<PreflightOptions, "timeoutMs">): number {
  return Math.round((o.timeoutMs ?? PREFLIGHT_TIMEOUT_MS) / 100) / 10;
}

/** The line a command prints before the preflight, so a silent server is not a silent wait. */
export function preflightStartLine(o: Pick<PreflightOptions, "endpoint" | "timeoutMs">): string {
  return `checking the endpoint ${o.endpoint} (the model list, then one tiny request; timeout ${timeoutSeconds(o)} s, --preflight-timeout)…`;
}

/** A request whose connection was not refused, with no answer within the preflight's time. */
function silentMessage(request: string, o: Pick<PreflightOptions, "timeoutMs">): string {
  return `${request}: connected but no answer within ${timeoutSeconds(o)} s (--preflight-timeout); the server may still be loading the model or be hung, or another program listens on that port`;
}

export async function preflightEndpoint(
  client: OpenAiCompatibleClient,
  o: PreflightOptions,
): Promise<Result<PreflightReport, BenchErrorCode>> {
  const signal = AbortSignal.timeout(o.timeoutMs ?? PREFLIGHT_TIMEOUT_MS);
  const listed = await client.listModels(signal);
  const modelsUrl = `GET ${o.endpoint.replace(/\/+$/, "")}/models`;
  // A refused or unresolvable connection fails at once; only a connection left unanswered reaches the bound.
  if (listed.status === null && signal.aborted) return err("endpoint_silent", silentMessage(modelsUrl, o));
  if (listed.status === null)
    return err("endpoint_unreachable", `nothing answered ${modelsUrl}; is the server running and the URL right?`);
  if (!listed.ok) {
    const msg = `${modelsUrl}: HTTP ${listed.status}${listed.message ? `: ${listed.message}` : ""}`;
    if (listed.status === 401 || listed.status === 403)
      return err("endpoint_rejected", `${msg}; ${authHint(o.apiKeySent)}`);
    if (listed.status === 404) return err("endpoint_rejected", `${msg}; ${v1Hint(o.endpoint)}`);
    return err("endpoint_rejected", msg);
  }
  const notListed = listed.ids.length > 0 && !listed.ids.includes(o.model);
  const notServed = `the server does not list the model ${JSON.stringify(o.model)}; it offers: ${listed.ids.join(", ")}. Pass one of them to --model`;
  // A server with one model (llama-server) may answer under any name; the chat request below
  // decides. With several models, the name must be one of them.
  if (notListed && listed.ids.length > 1) return err("model_not_served", notServed);
  const tools = o.needsTools ? toolSchemasFor(CONDITIONS.C).filter((t) => t.function.name === "run_tests") : [];
  const request = {
    messages: [
      {
        role: "user" as const,
        content: o.needsTools
          ? "This is a connection check. Call the run_tests tool once."
          : "This is a connection check. Reply with the word ok.",
      },
    ],
    tools,
    maxTokens: 64,
    signal,
  };
  const reply = await client.complete(request);
  if (
    !reply.ok &&
    o.thinking !== undefined &&
    (reply.exchange.httpStatus === 400 || reply.exchange.httpStatus === 422)
  ) {
    const plain = await o.thinking.withoutField.complete(request);
    if (plain.ok || plain.error === "model_output_unparsed") {
      return err(
        "thinking_field_rejected",
        `POST ${o.endpoint.replace(/\/+$/, "")}/chat/completions: ${reply.message}; the server refuses the chat_template_kwargs field that --thinking ${o.thinking.mode} sends, and answers without it. Pass --thinking server-default (the run then records thinking as the server's default; for the document's "thinking off", configure the server, e.g. a chat template with thinking off)`,
      );
    }
  }
  const warnings: string[] = [];
  if (!reply.ok) {
    // The server took the request (and its tools) but its own parser rejected what the model
    // wrote: a model problem that the tasks will record, not a configuration error.
    if (reply.error === "model_output_unparsed") {
      warnings.push(
        `the server could not parse the model's reply to the preflight request (${reply.message}); tasks where this happens are model errors of class model_output_unparsed`,
      );
      return ok({
        modelIds: listed.ids,
        chat: {
          tools: o.needsTools,
          outcome: "model_output_unparsed",
          httpStatus: reply.exchange.httpStatus,
          message: reply.message,
        },
        warnings,
      });
    }
    if (notListed && reply.exchange.httpStatus === 404)
      return err("model_not_served", `${notServed} (HTTP 404: ${reply.message})`);
    const f = chatFailure(reply, o, listed.ids);
    return err(f.error, f.message);
  }
  if (notListed)
    warnings.push(
      `the server lists only ${JSON.stringify(listed.ids[0])} but answered a request for ${JSON.stringify(o.model)} (llama-server serves its one model under any name); the run records ${JSON.stringify(o.model)}`,
    );
  if (o.needsTools && reply.toolCalls.length === 0 && reply.content.includes("<tool_call>")) {
    const parsed = parseToolCallText(reply.content);
    if (parsed.toolCalls.length + parsed.malformed.length > 0) {
      return err(
        "tool_calls_not_parsed",
        `the endpoint returned a tool call as text in the reply instead of a tool call: it is not parsing tool calls. ${TOOL_PARSING_FIX}`,
      );
    }
  }
  if (reply.finishReason === "length" && reply.content === "" && reply.toolCalls.length === 0)
    warnings.push("the preflight reply was empty and cut at its token limit");
  return ok({
    modelIds: listed.ids,
    chat: {
      tools: o.needsTools,
      outcome: reply.toolCalls.length > 0 ? "tool_call" : "answered",
      httpStatus: reply.exchange.httpStatus,
      message: "",
    },
    warnings,
  });
}

/**
 * llama-server's /props reports what its chat template can do (chat_template_caps). A template
 * that cannot render tool calls makes B-D meaningless even when requests are accepted.
 */
export function capabilityWarnings(serverProps: unknown, needsTools: boolean): string[] {
  if (!needsTools || typeof serverProps !== "object" || serverProps === null) return [];
  const caps = (serverProps as Record<string, unknown>).chat_template_caps;
  if (typeof caps !== "object" || caps === null) return [];
  const c = caps as Record<string, unknown>;
  const missing = ["supports_tools", "supports_tool_calls"].filter((k) => c[k] === false);
  return missing.length === 0
    ? []
    : [
        `the server's chat template reports ${missing.map((k) => `${k}: false`).join(", ")} (/props chat_template_caps): conditions B-D need tool calling; ${TOOL_PARSING_FIX}`,
      ];
}
