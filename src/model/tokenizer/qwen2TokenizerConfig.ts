// The tokenizer_config.json fields a Qwen2 tokenizer is published with, written in one place for
// every checkpoint the project makes (synthetic and stand-in): only the added-token table, the
// special-token list and the chat template differ between them. Key order is part of the bytes.
export interface Qwen2TokenizerConfigParts {
  readonly addedTokensDecoder: Record<string, unknown>;
  readonly additionalSpecialTokens: unknown;
  readonly chatTemplate: string;
}

export function qwen2TokenizerConfig(parts: Qwen2TokenizerConfigParts): Record<string, unknown> {
  return {
    add_bos_token: false,
    add_prefix_space: false,
    added_tokens_decoder: parts.addedTokensDecoder,
    additional_special_tokens: parts.additionalSpecialTokens,
    bos_token: null,
    chat_template: parts.chatTemplate,
    clean_up_tokenization_spaces: false,
    eos_token: "<|im_end|>",
    errors: "replace",
    model_max_length: 32768,
    pad_token: "<|endoftext|>",
    split_special_tokens: false,
    tokenizer_class: "Qwen2Tokenizer",
    unk_token: null,
  };
}
