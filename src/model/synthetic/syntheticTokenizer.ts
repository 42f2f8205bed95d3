// A small synthetic byte-level BPE tokenizer in Qwen2's tokenizer.json layout: the 256
// byte tokens, a few hundred merges learned from the Lab's own texts, and the Qwen
// special tokens at their pinned ids. Everything is derived deterministically, so two
// checkpoints written with any seed share the same tokenizer bytes.
import { BASELINE_PROPOSALS, INITIAL_TOY_MATH_PY, SYSTEM_INSTRUCTION, TASK_TXT } from "../../constants/labConstants.ts";
import { bytesToUnicode } from "./byteLevel.ts";
import { qwen2TokenizerConfig } from "../tokenizer/qwen2TokenizerConfig.ts";

export const SPECIAL_TOKENS = [
  { id: 151643, content: "<|endoftext|>" },
  { id: 151644, content: "<|im_start|>" },
  { id: 151645, content: "<|im_end|>" },
] as const;

/** The pre-tokenizer pattern Qwen2 publishes in its tokenizer.json. */
export const QWEN2_SPLIT_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** ChatML in the shape of Qwen2.5's template (default system message when none is given). */
export const SYNTHETIC_CHAT_TEMPLATE =
  "{%- if messages[0]['role'] == 'system' %}" +
  "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}" +
  "{%- else %}" +
  "{{- '<|im_start|>system\\nYou are a synthetic test model.<|im_end|>\\n' }}" +
  "{%- endif %}" +
  "{%- for message in messages %}" +
  "{%- if not (message['role'] == 'system' and loop.first) %}" +
  "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}" +
  "{%- endif %}" +
  "{%- endfor %}" +
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";

const MERGE_COUNT = 320;

function trainingWords(): Map<string, number> {
  const corpus = [SYSTEM_INSTRUCTION, TASK_TXT, INITIAL_TOY_MATH_PY, ...BASELINE_PROPOSALS].join("\n");
  const byteChars = bytesToUnicode();
  const words = new Map<string, number>();
  for (const match of corpus.matchAll(/ ?\p{L}+| ?\p{N}| ?[^\s\p{L}\p{N}]+|\s+/gu)) {
    const mapped = [...Buffer.from(match[0], "utf8")].map((b) => byteChars[b] as string).join("\u0000");
    words.set(mapped, (words.get(mapped) ?? 0) + 1);
  }
  return words;
}

/** Plain BPE training: merge the most frequent adjacent pair, ties broken by the pair text. */
function learnMerges(count: number): [string, string][] {
  let words = [...trainingWords()].map(([w, n]) => ({ parts: w.split("\u0000"), n }));
  const merges: [string, string][] = [];
  for (let step = 0; step < count; step++) {
    const pairs = new Map<string, number>();
    for (const { parts, n } of words) {
      for (let i = 0; i + 1 < parts.length; i++) {
        const key = `${parts[i]}\u0000${parts[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + n);
      }
    }
    let best: string | undefined;
    let bestCount = 0;
    for (const [key, n] of pairs) {
      if (n > bestCount || (n === bestCount && best !== undefined && key < best)) {
        best = key;
        bestCount = n;
      }
    }
    if (best === undefined || bestCount < 2) break;
    const [a, b] = best.split("\u0000") as [string, string];
    merges.push([a, b]);
    words = words.map(({ parts, n }) => {
      const out: string[] = [];
      for (let i = 0; i < parts.length; i++) {
        if (i + 1 < parts.length && parts[i] === a && parts[i + 1] === b) {
          out.push(a + b);
          i++;
        } else {
          out.push(parts[i] as string);
        }
      }
      return { parts: out, n };
    });
  }
  return merges;
}

export interface SyntheticTokenizerFiles {
  readonly tokenizerJson: string;
  readonly tokenizerConfigJson: string;
  readonly normalVocabSize: number;
}

export function buildSyntheticTokenizer(): SyntheticTokenizerFiles {
  const byteChars = bytesToUnicode();
  const vocab: Record<string, number> = {};
  byteChars.forEach((ch, id) => {
    vocab[ch] = id;
  });
  let nextId = 256;
  const merges = learnMerges(MERGE_COUNT);
  for (const [a, b] of merges) {
    if (!(a + b in vocab)) vocab[a + b] = nextId++;
  }
  const addedTokens = SPECIAL_TOKENS.map((t) => ({
    id: t.id,
    content: t.content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const byteLevel = { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false };
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: { type: "NFC" },
    pre_tokenizer: {
      type: "Sequence",
      pretokenizers: [
        { type: "Split", pattern: { Regex: QWEN2_SPLIT_PATTERN }, behavior: "Isolated", invert: false },
        byteLevel,
      ],
    },
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: "",
      end_of_word_suffix: "",
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: merges.map(([a, b]) => `${a} ${b}`),
    },
  };
  const addedDecoder: Record<string, unknown> = {};
  for (const t of addedTokens) {
    addedDecoder[String(t.id)] = {
      content: t.content,
      lstrip: false,
      normalized: false,
      rstrip: false,
      single_word: false,
      special: true,
    };
  }
  const config = qwen2TokenizerConfig({
    addedTokensDecoder: addedDecoder,
    additionalSpecialTokens: ["<|im_start|>", "<|im_end|>"],
    chatTemplate: SYNTHETIC_CHAT_TEMPLATE,
  });
  return {
    tokenizerJson: JSON.stringify(tokenizer, null, 2) + "\n",
    tokenizerConfigJson: JSON.stringify(config, null, 2) + "\n",
    normalVocabSize: nextId,
  };
}
