// Thinking (Qwen3's reasoning mode): off in the benchmark's document, so off by default here.
// It travels as chat_template_kwargs {enable_thinking}, the field llama-server and vLLM pass to
// the chat template; server-default sends no field (for a server that refuses it). It is in the
// run's fingerprint, so a run is never resumed or merged under another mode.
import { err, ok, type Result } from "../../core/result.ts";
import type { BenchErrorCode } from "../errorCodes.ts";

export const THINKING_MODES = ["off", "on", "server-default"] as const;
export type ThinkingMode = (typeof THINKING_MODES)[number];

/** The document's method: "thinking off". */
export const DEFAULT_THINKING: ThinkingMode = "off";

/** --thinking MODE, and the older --disable-thinking (the same as --thinking off). */
export function parseThinking(
  flag: string | undefined,
  disableThinking: boolean,
): Result<ThinkingMode, BenchErrorCode> {
  const mode = THINKING_MODES.find((m) => m === flag);
  if (flag !== undefined && mode === undefined)
    return err("invalid_option", `--thinking takes ${THINKING_MODES.join(", ")} (got "${flag}")`);
  if (disableThinking && mode !== undefined && mode !== "off")
    return err("invalid_option", `--disable-thinking is --thinking off; it contradicts --thinking ${mode}`);
  return ok(mode ?? DEFAULT_THINKING);
}

/** The request fields a mode adds to every chat request (none for server-default). */
export function thinkingRequestFields(mode: ThinkingMode): Readonly<Record<string, unknown>> | undefined {
  return mode === "server-default" ? undefined : { chat_template_kwargs: { enable_thinking: mode === "on" } };
}
