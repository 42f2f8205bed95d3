// Writes a random-weight Qwen2 checkpoint in the pinned file layout: config.json,
// generation_config.json (with the checkpoint's sampling defaults, which the engine must
// ignore), tokenizer.json, tokenizer_config.json, BF16 model.safetensors, and last the
// synthetic manifest. Deterministic for a given (size, seed).
import { mkdir, open, writeFile } from "node:fs/promises";
import path from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import {
  PINNED_CONFIG_JSON,
  TINY_CONFIG_OVERRIDES,
  parameterCount,
  qwen2TensorSpecs,
  type Qwen2Architecture,
} from "../qwen2/architecture.ts";
import { checkQwen2Config } from "../qwen2/configCheck.ts";
import { writeSafetensors } from "../safetensors/safetensorsWriter.ts";
import { WeightStream, fillBf16 } from "./randomWeights.ts";
import { SPECIAL_TOKENS, buildSyntheticTokenizer } from "./syntheticTokenizer.ts";
import {
  SYNTHETIC_FORMAT_VERSION,
  SYNTHETIC_LABEL,
  SYNTHETIC_MANIFEST_NAME,
  type CheckpointTokenizer,
  type SyntheticManifest,
  type SyntheticSize,
} from "./syntheticManifest.ts";
import { sha256Hex } from "../../core/digest.ts";
import { STAND_IN_TOKENIZER_NOTE, buildStandInTokenizer } from "../tokenizer/standInTokenizer.ts";

/** The sampling defaults Qwen publishes in generation_config.json; the engine never inherits them. */
export const CHECKPOINT_GENERATION_DEFAULTS = {
  bos_token_id: 151643,
  pad_token_id: 151643,
  do_sample: true,
  eos_token_id: [151645, 151643],
  repetition_penalty: 1.1,
  temperature: 0.7,
  top_p: 0.8,
  top_k: 20,
  transformers_version: "4.37.0",
} as const;

export function syntheticConfigJson(size: SyntheticSize): string {
  const config = size === "full" ? PINNED_CONFIG_JSON : { ...PINNED_CONFIG_JSON, ...TINY_CONFIG_OVERRIDES };
  return JSON.stringify(config, null, 2) + "\n";
}

export interface MakeCheckpointOptions {
  readonly directory: string;
  readonly size: SyntheticSize;
  readonly seed: number;
  /** The project's synthetic BPE (default) or the Qwen2.5 stand-in derived from installed packages. */
  readonly tokenizer?: CheckpointTokenizer;
  readonly onProgress?: (bytesWritten: number, totalBytes: number) => void;
}

export type MakeCheckpointError =
  "destination_exists" | "input_invalid" | "model_directory_invalid" | "tokenizer_source_unavailable";

interface TokenizerChoice {
  readonly tokenizerJson: string;
  readonly tokenizerConfigJson: string;
  readonly defined: (row: number) => boolean;
  readonly manifestFields: Pick<SyntheticManifest, "tokenizer" | "tokenizer_note" | "tokenizer_provenance">;
}

async function chooseTokenizer(
  kind: CheckpointTokenizer,
): Promise<Result<TokenizerChoice, "tokenizer_source_unavailable">> {
  if (kind === "qwen2.5-stand-in") {
    const standIn = await buildStandInTokenizer();
    if (!standIn.ok) return standIn;
    return ok({
      tokenizerJson: standIn.value.tokenizerJson,
      tokenizerConfigJson: standIn.value.tokenizerConfigJson,
      defined: (row) => row < standIn.value.definedTokenCount,
      manifestFields: {
        tokenizer: kind,
        tokenizer_note: STAND_IN_TOKENIZER_NOTE,
        tokenizer_provenance: standIn.value.provenance,
      },
    });
  }
  const synthetic = buildSyntheticTokenizer();
  return ok({
    tokenizerJson: synthetic.tokenizerJson,
    tokenizerConfigJson: synthetic.tokenizerConfigJson,
    defined: (row) => row < synthetic.normalVocabSize || SPECIAL_TOKENS.some((t) => t.id === row),
    manifestFields: { tokenizer: kind },
  });
}

export async function makeTestCheckpoint(
  options: MakeCheckpointOptions,
): Promise<Result<SyntheticManifest, MakeCheckpointError>> {
  if (!Number.isSafeInteger(options.seed) || options.seed < 0 || options.seed > 0xffffffff) {
    return err("input_invalid", "seed must be an integer from 0 to 4294967295");
  }
  const directory = path.resolve(options.directory);
  // Derived before the directory exists, so a missing source leaves nothing behind.
  const tokenizer = await chooseTokenizer(options.tokenizer ?? "synthetic-bpe");
  if (!tokenizer.ok) return tokenizer;
  try {
    // Exclusive creation: an existing destination is refused, never overwritten.
    await mkdir(directory, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return err("destination_exists", "destination already exists");
    return err("model_directory_invalid", "cannot create destination directory");
  }
  const configText = syntheticConfigJson(options.size);
  const checked = checkQwen2Config(Buffer.from(configText));
  if (!checked.ok) throw new Error("synthetic configuration failed its own check");
  const arch: Qwen2Architecture = checked.value;
  const small: Record<string, string> = {
    "config.json": configText,
    "generation_config.json": JSON.stringify(CHECKPOINT_GENERATION_DEFAULTS, null, 2) + "\n",
    "tokenizer.json": tokenizer.value.tokenizerJson,
    "tokenizer_config.json": tokenizer.value.tokenizerConfigJson,
  };
  const files: Record<string, { bytes: number; sha256: string }> = {};
  for (const [name, text] of Object.entries(small)) {
    const bytes = Buffer.from(text, "utf8");
    await writeFile(path.join(directory, name), bytes, { flag: "wx", mode: 0o600 });
    files[name] = { bytes: bytes.length, sha256: sha256Hex(bytes) };
  }
  const specs = qwen2TensorSpecs(arch);
  const streams = new Map<number, WeightStream>();
  const offsets = new Map<number, number>();
  const unusedRowScale = (row: number): number => (tokenizer.value.defined(row) ? 1 : 1 / 64);
  const handle = await open(path.join(directory, "model.safetensors"), "wx", 0o600);
  try {
    const written = await writeSafetensors(
      handle,
      specs,
      (spec, index, out, first) => {
        if (first) {
          streams.set(index, new WeightStream(options.seed, index));
          offsets.set(index, 0);
        }
        const start = offsets.get(index) as number;
        fillBf16(
          streams.get(index) as WeightStream,
          spec,
          out,
          start,
          spec.kind === "embedding" ? unusedRowScale : undefined,
        );
        offsets.set(index, start + out.length);
      },
      options.onProgress,
    );
    await handle.sync();
    files["model.safetensors"] = written;
  } finally {
    await handle.close();
  }
  const manifest: SyntheticManifest = {
    synthetic: true,
    label: SYNTHETIC_LABEL,
    format_version: SYNTHETIC_FORMAT_VERSION,
    size: options.size,
    seed: options.seed,
    parameters: parameterCount(arch),
    note: "Random weights. Output from this checkpoint is a pipeline check, never a model trial.",
    ...tokenizer.value.manifestFields,
    files,
  };
  await writeFile(path.join(directory, SYNTHETIC_MANIFEST_NAME), JSON.stringify(manifest, null, 2) + "\n", {
    flag: "wx",
    mode: 0o600,
  });
  return ok(manifest);
}
