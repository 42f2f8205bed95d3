// Tokenization and chat template from the verified files only: @huggingface/tokenizers
// loads the verified tokenizer.json, @huggingface/jinja renders the chat template from the
// verified tokenizer_config.json with add_generation_prompt. The rendered text already
// contains the special tokens, so encoding uses add_special_tokens=false (no special token
// is added twice). Token ids go to the engine directly.
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import { err, ok, type Result } from "../../core/result.ts";
import type { ChatMessage } from "../../core/chatMessage.ts";

export type ChatTokenizerErrorCode = "tokenizer_invalid" | "template_invalid";

export interface ChatTokenizer {
  /** Render the chat template (system + user, generation prompt) to text. */
  render(messages: readonly ChatMessage[]): Result<string, "template_invalid">;
  /** Encode rendered text without adding special tokens. */
  encode(text: string): number[];
  /** Decode ids keeping special tokens and spacing exactly (Part 8's decode settings). */
  decode(ids: readonly number[]): string;
}

export function createChatTokenizer(
  tokenizerJson: Buffer,
  tokenizerConfigJson: Buffer,
): Result<ChatTokenizer, ChatTokenizerErrorCode> {
  let tokenizerObject: Record<string, unknown>;
  let configObject: Record<string, unknown>;
  try {
    tokenizerObject = JSON.parse(tokenizerJson.toString("utf8")) as Record<string, unknown>;
    configObject = JSON.parse(tokenizerConfigJson.toString("utf8")) as Record<string, unknown>;
  } catch {
    return err("tokenizer_invalid", "tokenizer files are not JSON");
  }
  const templateText = configObject.chat_template;
  if (typeof templateText !== "string") return err("template_invalid", "no chat template");
  let tokenizer: Tokenizer;
  let template: Template;
  try {
    tokenizer = new Tokenizer(tokenizerObject, configObject);
  } catch {
    return err("tokenizer_invalid", "tokenizer.json could not be loaded");
  }
  try {
    template = new Template(templateText);
  } catch {
    return err("template_invalid", "chat template could not be parsed");
  }
  const specialText = (value: unknown): string => (typeof value === "string" ? value : "");
  return ok({
    render(messages) {
      try {
        return ok(
          template.render({
            messages: messages.map((m) => ({ role: m.role, content: m.content })),
            add_generation_prompt: true,
            bos_token: specialText(configObject.bos_token),
            eos_token: specialText(configObject.eos_token),
          }),
        );
      } catch {
        return err("template_invalid", "chat template failed to render");
      }
    },
    encode(text) {
      return tokenizer.encode(text, { add_special_tokens: false }).ids;
    },
    decode(ids) {
      // The library refuses an empty list; a generation that is only an end token decodes to "".
      if (ids.length === 0) return "";
      return tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
    },
  });
}
