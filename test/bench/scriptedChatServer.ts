// A local OpenAI-compatible chat-completions server on 127.0.0.1 that replays scripted
// assistant turns (text and/or tool calls) in order and records every request it received.
// Test helper for the benchmark harness; it never runs a model.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedTurn {
  readonly content?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: unknown }[];
  readonly finishReason?: string;
  /** null: send no usage at all. */
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number } | null;
  /** Answer with this HTTP status and an error body instead. */
  readonly httpStatus?: number;
  /** The error body sent with httpStatus (default: an OpenAI-style "scripted failure"); a string is sent as is. */
  readonly errorBody?: unknown;
  /** Extra response headers (Retry-After, for instance). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Tool calls exactly as written into the response (for malformed ones, e.g. without a name). */
  readonly rawToolCalls?: readonly unknown[];
  /** Never answer (the connection stays open until the server closes). */
  readonly hang?: boolean;
}

export interface ScriptedServerOptions {
  /** Ids listed by GET /v1/models (default: [SCRIPTED_MODEL_ID]). */
  readonly models?: readonly string[];
  /** llama-server's `meta` record (n_params, n_embd, n_vocab, …) on every listed model (default: none). */
  readonly modelMeta?: Readonly<Record<string, unknown>>;
  /** Status for GET /v1/models (default 200). */
  readonly modelsStatus?: number;
  /** Body for GET /props (default: a llama-server-like record); null answers 404. */
  readonly props?: unknown;
  /** Answer 401 to every request without `Authorization: Bearer <this>`. */
  readonly apiKey?: string;
  /** Answer chat requests that carry tools with this status (a server without tool support). */
  readonly toolsStatus?: number;
  /** Wait this long before answering each chat request (a slow model, so a run can be stopped mid-task). */
  readonly responseDelayMs?: number;
}

export interface ScriptedServer {
  readonly endpoint: string;
  readonly requests: Record<string, unknown>[];
  close(): Promise<void>;
}

export const SCRIPTED_MODEL_ID = "scripted-model-v1";

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** When the script runs out, the server answers with `fallback` (default: a plain "done" reply). */
export function startScriptedServer(
  script: readonly ScriptedTurn[],
  fallback: ScriptedTurn = { content: "Done." },
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  let i = 0;
  return startRoutedServer(() => script[i++] ?? fallback, options);
}

/** A server whose reply is chosen from the request body (for concurrent tasks). */
export async function startRoutedServer(
  route: (body: Record<string, unknown>) => ScriptedTurn,
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const requests: Record<string, unknown>[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    void (async () => {
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        send(res, 401, { error: { message: "Invalid API Key", type: "authentication_error" } });
        return;
      }
      if (req.method === "GET" && req.url === "/v1/models") {
        if ((options.modelsStatus ?? 200) !== 200) {
          send(res, options.modelsStatus ?? 500, { error: { message: "scripted models failure" } });
          return;
        }
        send(res, 200, {
          object: "list",
          data: (options.models ?? [SCRIPTED_MODEL_ID]).map((id) => ({
            id,
            object: "model",
            owned_by: "test",
            ...(options.modelMeta ? { meta: options.modelMeta } : {}),
          })),
        });
        return;
      }
      if (req.method === "GET" && req.url === "/props") {
        if (options.props === null) send(res, 404, { error: "not found" });
        else
          send(
            res,
            200,
            options.props ?? {
              build_info: "scripted-server",
              model_path: "scripted.gguf",
              default_generation_settings: { n_ctx: 8192 },
            },
          );
        return;
      }
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        send(res, 404, { error: "not found" });
        return;
      }
      const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
      requests.push(body);
      next++;
      if (options.toolsStatus !== undefined && Array.isArray(body.tools)) {
        send(res, options.toolsStatus, {
          error: {
            code: options.toolsStatus,
            message: "tools param requires --jinja flag",
            type: "invalid_request_error",
          },
        });
        return;
      }
      const turn = route(body);
      if (options.responseDelayMs !== undefined)
        await new Promise((resolve) => setTimeout(resolve, options.responseDelayMs));
      if (turn.hang) return;
      if (turn.httpStatus !== undefined) {
        const errorBody = turn.errorBody ?? { error: { message: "scripted failure" } };
        res.writeHead(turn.httpStatus, {
          "content-type": typeof errorBody === "string" ? "text/plain" : "application/json",
          ...(turn.headers ?? {}),
        });
        res.end(typeof errorBody === "string" ? errorBody : JSON.stringify(errorBody));
        return;
      }
      const toolCalls =
        turn.rawToolCalls ??
        (turn.toolCalls ?? []).map((c, i) => ({
          id: `call_${next}_${i}`,
          type: "function",
          function: {
            name: c.name,
            arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
          },
        }));
      send(res, 200, {
        id: `chatcmpl-${next}`,
        object: "chat.completion",
        model: SCRIPTED_MODEL_ID,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: turn.content ?? (toolCalls.length > 0 ? null : ""),
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: turn.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
          },
        ],
        ...(turn.usage === null
          ? {}
          : { usage: turn.usage ?? { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } }),
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
