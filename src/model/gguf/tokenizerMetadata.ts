// Tokenizer metadata for the GGUF, taken from the verified tokenizer.json: the token
// strings indexed by id (padded with unique "[PAD<id>]" tokens up to the embedding rows,
// as llama.cpp's own converter does), token types (special added tokens are CONTROL, so
// llama.cpp treats them as such) and the BPE merges.
import { err, ok, type Result } from "../../core/result.ts";

export const TOKEN_TYPE = { normal: 1, control: 3, userDefined: 4, unused: 5 } as const;

export interface GgufVocabulary {
  readonly tokens: string[];
  readonly tokenTypes: number[];
  readonly merges: string[];
  /** Ids that exist in the tokenizer (the rest are padding). */
  readonly definedTokenCount: number;
}

export function buildGgufVocabulary(
  tokenizerJson: Buffer,
  embeddingRows: number,
): Result<GgufVocabulary, "tokenizer_invalid"> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(tokenizerJson.toString("utf8"));
  } catch {
    return err("tokenizer_invalid", "tokenizer.json is not JSON");
  }
  const root = parsed as Record<string, unknown> | null;
  const model = root?.model as Record<string, unknown> | undefined;
  if (root === null || typeof root !== "object" || model === undefined || model.type !== "BPE") {
    return err("tokenizer_invalid", "tokenizer.json is not a BPE tokenizer");
  }
  const vocab = model.vocab as Record<string, unknown> | undefined;
  const mergesRaw = model.merges;
  if (typeof vocab !== "object" || vocab === null || !Array.isArray(mergesRaw)) {
    return err("tokenizer_invalid", "tokenizer.json lacks vocab or merges");
  }
  const tokens: (string | undefined)[] = new Array<string | undefined>(embeddingRows).fill(undefined);
  const types: number[] = new Array<number>(embeddingRows).fill(TOKEN_TYPE.unused);
  const place = (id: unknown, text: string, type: number): string | null => {
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0 || id >= embeddingRows) {
      return "token id outside the embedding rows";
    }
    const existing = tokens[id];
    if (existing !== undefined && existing !== text) return "two different tokens share one id";
    tokens[id] = text;
    types[id] = type;
    return null;
  };
  for (const [text, id] of Object.entries(vocab)) {
    const problem = place(id, text, TOKEN_TYPE.normal);
    if (problem !== null) return err("tokenizer_invalid", problem);
  }
  const added = root.added_tokens;
  if (!Array.isArray(added)) return err("tokenizer_invalid", "tokenizer.json lacks added_tokens");
  for (const entry of added) {
    const t = entry as Record<string, unknown>;
    if (typeof t.content !== "string") return err("tokenizer_invalid", "added token without content");
    const problem = place(t.id, t.content, t.special === true ? TOKEN_TYPE.control : TOKEN_TYPE.userDefined);
    if (problem !== null) return err("tokenizer_invalid", problem);
  }
  let defined = 0;
  const seen = new Set<string>();
  const finalTokens: string[] = [];
  for (let id = 0; id < embeddingRows; id++) {
    let text = tokens[id];
    if (text === undefined) {
      text = `[PAD${id}]`;
    } else {
      defined++;
    }
    if (seen.has(text)) return err("tokenizer_invalid", "token strings are not unique");
    seen.add(text);
    finalTokens.push(text);
  }
  const merges: string[] = [];
  for (const m of mergesRaw) {
    if (typeof m === "string") {
      merges.push(m);
    } else if (Array.isArray(m) && m.length === 2 && typeof m[0] === "string" && typeof m[1] === "string") {
      merges.push(`${m[0]} ${m[1]}`);
    } else {
      return err("tokenizer_invalid", "malformed merge entry");
    }
  }
  return ok({ tokens: finalTokens, tokenTypes: types, merges, definedTokenCount: defined });
}
