// The text tool-call protocol for a model whose chat template has no native tool calling:
// Qwen2.5's own convention, written by hand here because it is the trust boundary between
// model text and tool calls. Tool schemas go into the system message as a "# Tools" section
// with one JSON schema per line inside <tools></tools>; an assistant tool call is a
// <tool_call>{"name": …, "arguments": {…}}</tool_call> block; tool results go back as a user
// message of <tool_response> blocks. Parsing takes only well-formed blocks as calls; everything
// outside them is content, and a malformed block stays in the content, verbatim, and is
// reported — never repaired.
import type { ChatTurnMessage, ProposedToolCall, ToolFunctionSchema } from "./openaiCompatibleChat.ts";
import { isRecord } from "../core/isRecord.ts";

export const TOOL_CALL_OPEN = "<tool_call>";
export const TOOL_CALL_CLOSE = "</tool_call>";

export const MALFORMED_TOOL_CALL_REASONS = [
  "unclosed_block",
  "invalid_json",
  "not_an_object",
  "missing_name",
  "invalid_arguments",
] as const;
export type MalformedToolCallReason = (typeof MALFORMED_TOOL_CALL_REASONS)[number];

export interface MalformedToolCall {
  /** Position of the block among all blocks of the reply (0-based). */
  readonly index: number;
  readonly reason: MalformedToolCallReason;
  /** The block as written (at most 2,000 characters, for the trace). */
  readonly text: string;
}

export interface ParsedAssistantText {
  readonly content: string;
  readonly toolCalls: readonly ProposedToolCall[];
  readonly malformed: readonly MalformedToolCall[];
}

/**
 * JSON as Python's json.dumps writes it (", " and ": " separators, non-ASCII kept), which is
 * what the chat template's `tojson` produces; used so the text protocol renders exactly like
 * Qwen2.5's template.
 */
export function pythonStyleJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonStyleJson).join(", ")}]`;
  if (isRecord(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonStyleJson(v)}`)
      .join(", ")}}`;
  return JSON.stringify(value) ?? "null";
}

/** The arguments as the template receives them: the parsed object, or the raw text when it is not a JSON object. */
export function argumentsValue(argumentsText: string): unknown {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return isRecord(parsed) ? parsed : argumentsText;
  } catch {
    return argumentsText;
  }
}

/** The "# Tools" section appended to the system message (Qwen2.5's wording and layout). */
export function toolsSystemSection(tools: readonly ToolFunctionSchema[]): string {
  return (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>" +
    tools.map((t) => "\n" + pythonStyleJson(t)).join("") +
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n" +
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
  );
}

export function renderToolCallBlock(call: Pick<ProposedToolCall, "name" | "argumentsText">): string {
  return `${TOOL_CALL_OPEN}\n{"name": ${JSON.stringify(call.name)}, "arguments": ${pythonStyleJson(argumentsValue(call.argumentsText))}}\n${TOOL_CALL_CLOSE}`;
}

export function renderToolResponseBlock(content: string): string {
  return `<tool_response>\n${content}\n</tool_response>`;
}

export type PlainChatMessage = { readonly role: "system" | "user" | "assistant"; readonly content: string };

/**
 * The conversation as plain system/user/assistant messages for a template without tool
 * support: tools described in the system message, calls as blocks in the assistant content,
 * consecutive tool results as one user message of <tool_response> blocks.
 */
export function textProtocolMessages(
  messages: readonly ChatTurnMessage[],
  tools: readonly ToolFunctionSchema[],
): PlainChatMessage[] {
  const out: PlainChatMessage[] = [];
  const first = messages[0];
  let rest = messages;
  if (tools.length > 0) {
    const section = toolsSystemSection(tools);
    if (first?.role === "system") {
      out.push({ role: "system", content: `${first.content}\n\n${section}` });
      rest = messages.slice(1);
    } else {
      out.push({ role: "system", content: section });
    }
  }
  let pendingResponses: string[] = [];
  const flush = (): void => {
    if (pendingResponses.length > 0) out.push({ role: "user", content: pendingResponses.join("\n") });
    pendingResponses = [];
  };
  for (const m of rest) {
    if (m.role === "tool") {
      pendingResponses.push(renderToolResponseBlock(m.content));
      continue;
    }
    flush();
    if (m.role === "assistant") {
      const parts = [...(m.content === "" ? [] : [m.content]), ...m.toolCalls.map(renderToolCallBlock)];
      out.push({ role: "assistant", content: parts.join("\n") });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  flush();
  return out;
}

type BlockParse = { readonly call: Omit<ProposedToolCall, "id"> } | { readonly reason: MalformedToolCallReason };

function parseBlockBody(body: string): BlockParse {
  let value: unknown;
  try {
    value = JSON.parse(body.trim());
  } catch {
    return { reason: "invalid_json" };
  }
  if (!isRecord(value)) return { reason: "not_an_object" };
  if (typeof value.name !== "string" || value.name === "") return { reason: "missing_name" };
  const args = value.arguments;
  // Same rule as the HTTP client: an object is kept as JSON text, a string is already the
  // JSON text (the tool executor validates it), absent means no arguments.
  if (args === undefined) return { call: { name: value.name, argumentsText: "{}" } };
  if (typeof args === "string") return { call: { name: value.name, argumentsText: args } };
  if (isRecord(args)) return { call: { name: value.name, argumentsText: JSON.stringify(args) } };
  return { reason: "invalid_arguments" };
}

/**
 * Splits a reply into content and tool calls. Well-formed blocks become calls with ids
 * `${idPrefix}_<n>`; the text outside them is the content, trimmed at both ends (the
 * template puts a line break between content and blocks). A malformed or unclosed block
 * stays in the content as written and is reported.
 */
export function parseToolCallText(text: string, idPrefix = "call"): ParsedAssistantText {
  const contentParts: string[] = [];
  const toolCalls: ProposedToolCall[] = [];
  const malformed: MalformedToolCall[] = [];
  let position = 0;
  let blockIndex = 0;
  for (;;) {
    const open = text.indexOf(TOOL_CALL_OPEN, position);
    if (open === -1) {
      contentParts.push(text.slice(position));
      break;
    }
    contentParts.push(text.slice(position, open));
    const close = text.indexOf(TOOL_CALL_CLOSE, open + TOOL_CALL_OPEN.length);
    if (close === -1) {
      const rest = text.slice(open);
      malformed.push({ index: blockIndex, reason: "unclosed_block", text: rest.slice(0, 2000) });
      contentParts.push(rest);
      break;
    }
    const end = close + TOOL_CALL_CLOSE.length;
    const block = text.slice(open, end);
    const parsed = parseBlockBody(text.slice(open + TOOL_CALL_OPEN.length, close));
    if ("call" in parsed) {
      toolCalls.push({ id: `${idPrefix}_${toolCalls.length}`, ...parsed.call });
    } else {
      malformed.push({ index: blockIndex, reason: parsed.reason, text: block.slice(0, 2000) });
      contentParts.push(block);
    }
    position = end;
    blockIndex++;
  }
  return { content: contentParts.join("").trim(), toolCalls, malformed };
}
