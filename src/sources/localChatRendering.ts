// Renders a benchmark conversation (system, user, assistant with tool calls, tool results)
// with the checkpoint's verified chat template, in the controller process. A template that
// supports tools (Qwen2.5's real one) renders them itself; one that does not (the synthetic
// checkpoints' ChatML template) gets the text protocol of textToolCalls.ts. Which one applies
// is decided once, by rendering a probe conversation and checking that the tool schema, the
// call and the result all came out in the <tool_call>/<tool_response> convention the reply
// parser reads.
import { Template } from "@huggingface/jinja";
import { err, ok, type Result } from "../core/result.ts";
import type { ChatTurnMessage, ToolFunctionSchema } from "./openaiCompatibleChat.ts";
import { argumentsValue, parseToolCallText, renderToolResponseBlock, textProtocolMessages } from "./textToolCalls.ts";

export type ToolRendering = "chat_template" | "text_protocol";

export interface ConversationRenderer {
  /** How tools, calls and results are rendered (recorded in the run manifest). */
  readonly toolRendering: ToolRendering;
  /** The conversation as the model's prompt text, ending with the assistant generation prompt. */
  render(
    messages: readonly ChatTurnMessage[],
    tools: readonly ToolFunctionSchema[],
  ): Result<string, "template_invalid">;
}

const PROBE_TOOL = "tca_probe_tool";
const PROBE_RESULT = "tca probe result 4f1c";
const PROBE_TOOLS: readonly ToolFunctionSchema[] = [
  {
    type: "function",
    function: {
      name: PROBE_TOOL,
      description: "probe",
      parameters: { type: "object", properties: { probe_key: { type: "string" } } },
    },
  },
];
const PROBE_MESSAGES: readonly ChatTurnMessage[] = [
  { role: "system", content: "probe system" },
  { role: "user", content: "probe user" },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "probe_0", name: PROBE_TOOL, argumentsText: '{"probe_key":"probe_value"}' }],
  },
  { role: "tool", toolCallId: "probe_0", name: PROBE_TOOL, content: PROBE_RESULT },
];

/** Messages in the shape Hugging Face chat templates expect (OpenAI-style tool_calls). */
function templateMessages(messages: readonly ChatTurnMessage[]): Record<string, unknown>[] {
  return messages.map((m) => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: m.content };
      case "assistant":
        return m.toolCalls.length === 0
          ? { role: "assistant", content: m.content }
          : {
              role: "assistant",
              content: m.content,
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: argumentsValue(c.argumentsText) },
              })),
            };
      case "tool":
        return { role: "tool", tool_call_id: m.toolCallId, name: m.name, content: m.content };
    }
  });
}

function probeSupportsTools(
  renderNative: (messages: readonly ChatTurnMessage[], tools: readonly ToolFunctionSchema[]) => string,
): boolean {
  let text: string;
  try {
    text = renderNative(PROBE_MESSAGES, PROBE_TOOLS);
  } catch {
    return false;
  }
  // A <tools> block with content (the instructions mention an empty "<tools></tools>" first).
  const toolsSection = /<tools>\n([\s\S]*?)\n<\/tools>/.exec(text);
  if (!toolsSection?.[1]?.includes(PROBE_TOOL)) return false;
  if (!text.includes(renderToolResponseBlock(PROBE_RESULT))) return false;
  const calls = parseToolCallText(text).toolCalls.filter((c) => c.name === PROBE_TOOL);
  if (calls.length !== 1) return false;
  const args = argumentsValue(calls[0]?.argumentsText ?? "");
  return typeof args === "object" && args !== null && (args as Record<string, unknown>).probe_key === "probe_value";
}

export function createConversationRenderer(
  tokenizerConfigJson: Buffer,
): Result<ConversationRenderer, "template_invalid"> {
  let config: Record<string, unknown>;
  let template: Template;
  try {
    const parsed: unknown = JSON.parse(tokenizerConfigJson.toString("utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      return err("template_invalid", "tokenizer_config.json is not an object");
    config = parsed as Record<string, unknown>;
    if (typeof config.chat_template !== "string") return err("template_invalid", "no chat template");
    template = new Template(config.chat_template);
  } catch {
    return err("template_invalid", "chat template could not be parsed");
  }
  const specialText = (value: unknown): string => (typeof value === "string" ? value : "");
  const base = {
    add_generation_prompt: true,
    bos_token: specialText(config.bos_token),
    eos_token: specialText(config.eos_token),
  };
  const renderNative = (messages: readonly ChatTurnMessage[], tools: readonly ToolFunctionSchema[]): string =>
    template.render({
      ...base,
      messages: templateMessages(messages),
      ...(tools.length > 0 ? { tools: tools.map((t) => ({ type: t.type, function: { ...t.function } })) } : {}),
    });
  const toolRendering: ToolRendering = probeSupportsTools(renderNative) ? "chat_template" : "text_protocol";
  return ok({
    toolRendering,
    render(messages, tools) {
      try {
        if (toolRendering === "chat_template") return ok(renderNative(messages, tools));
        return ok(
          template.render({
            ...base,
            messages: textProtocolMessages(messages, tools).map((m) => ({ role: m.role, content: m.content })),
          }),
        );
      } catch {
        return err("template_invalid", "chat template failed to render");
      }
    },
  });
}
