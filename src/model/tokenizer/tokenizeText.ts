// `tca model tokenize`: the ids the engine would be given, from a gated checkpoint's own
// tokenizer and chat template. Plain text is encoded without special tokens; --system/--user
// are rendered through the chat template (generation prompt included) and then encoded,
// exactly as the worker and the request assembler's token counter do.
import { err, ok, type Result } from "../../core/result.ts";
import { openCheckpointDirectory, type CheckpointErrorCode } from "../loader/checkpointDirectory.ts";
import { checkpointTokenizer } from "../synthetic/syntheticManifest.ts";
import { createChatTokenizer } from "./chatTokenizer.ts";

export type TokenizeInput =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "chat"; readonly system: string; readonly user: string };

export interface TokenizeReport {
  readonly ids: number[];
  readonly count: number;
  readonly input: "text" | "chat_template";
  /** "pinned", "synthetic-bpe" or "qwen2.5-stand-in": which tokenizer produced the ids. */
  readonly tokenizer: string;
  readonly label: string;
}

export async function tokenizeWithCheckpoint(
  modelDirectory: string,
  input: TokenizeInput,
): Promise<Result<TokenizeReport, CheckpointErrorCode | "template_invalid">> {
  const checkpoint = await openCheckpointDirectory(modelDirectory);
  if (!checkpoint.ok) return checkpoint;
  const chat = createChatTokenizer(checkpoint.value.tokenizerJson, checkpoint.value.tokenizerConfigJson);
  if (!chat.ok) return chat;
  let text: string;
  if (input.kind === "chat") {
    const rendered = chat.value.render([
      { role: "system", content: input.system },
      { role: "user", content: input.user },
    ]);
    if (!rendered.ok) return err(rendered.error, rendered.message);
    text = rendered.value;
  } else {
    text = input.text;
  }
  const ids = chat.value.encode(text);
  const manifest = checkpoint.value.synthetic;
  return ok({
    ids,
    count: ids.length,
    input: input.kind === "chat" ? "chat_template" : "text",
    tokenizer: manifest === null ? "pinned" : checkpointTokenizer(manifest),
    label: manifest === null ? "model" : manifest.label,
  });
}
