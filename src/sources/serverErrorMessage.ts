// What an OpenAI-compatible server said when it refused a request: its message, bounded and
// safe to print, and whether it is llama-server's chat-parser failure (a model error class).
import { isRecord } from "../core/isRecord.ts";

/** The server's own error text (OpenAI `error.message`, llama-server, vLLM `message`), bounded. */
export function serverMessage(body: unknown): string {
  let text = "";
  if (typeof body === "string") text = body;
  else if (isRecord(body)) {
    if (isRecord(body.error) && typeof body.error.message === "string") text = body.error.message;
    else if (typeof body.error === "string") text = body.error;
    else if (typeof body.message === "string") text = body.message;
    else if (typeof body.detail === "string") text = body.detail;
  }
  // Control characters (terminal escapes included) never reach a terminal or a trace message.
  /* eslint-disable no-control-regex -- matching control characters is the point */
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  /* eslint-enable no-control-regex */
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/**
 * llama-server answers HTTP 500 when its chat parser cannot read what the model generated
 * (random weights, a template mismatch): the request was fine, the model's output was not.
 */
export function isOutputParseFailure(status: number, message: string): boolean {
  // llama.cpp common/chat.cpp: "The model produced output that does not match the expected <format name> format",
  // "Failed to parse tool call arguments as JSON: …".
  return (
    status === 500 && /does not match the expected (?:[\w .-]{0,40} )?format|failed to parse tool call/i.test(message)
  );
}
