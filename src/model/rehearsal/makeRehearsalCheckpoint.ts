// `tca model make-rehearsal-checkpoint`: writes the rehearsal model in the pinned file layout
// (config.json, generation_config.json, tokenizer.json, tokenizer_config.json, BF16
// model.safetensors with the full 151,936-row tied embedding, then the manifest). The weights
// are the committed, SHA256-checked rehearsal weights; rows of token ids the training never
// used are zero. The tokenizer and template are the Qwen2.5 stand-in derived at creation time.
// Labelled "rehearsal" everywhere: a model trained in-project on scripted transcripts, which
// proves the model path and says nothing about any real model's ability. Two sets of weights
// share this writer: the Lab's (make-rehearsal-checkpoint) and the benchmark's
// (make-bench-rehearsal-checkpoint, trained on the mini data set's agent transcripts).
import { mkdir, open, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { sha256Hex } from "../../core/digest.ts";
import { PINNED_CONFIG_JSON, parameterCount, qwen2TensorSpecs } from "../qwen2/architecture.ts";
import { checkQwen2Config } from "../qwen2/configCheck.ts";
import { writeSafetensors } from "../safetensors/safetensorsWriter.ts";
import { CHECKPOINT_GENERATION_DEFAULTS } from "../synthetic/makeTestCheckpoint.ts";
import {
  REHEARSAL_LABEL,
  REHEARSAL_NOTE,
  SYNTHETIC_FORMAT_VERSION,
  SYNTHETIC_MANIFEST_NAME,
  type SyntheticManifest,
} from "../synthetic/syntheticManifest.ts";
import { STAND_IN_TOKENIZER_NOTE, buildStandInTokenizer } from "../tokenizer/standInTokenizer.ts";
import { REHEARSAL_SETS, readRehearsalWeights, type RehearsalSet } from "./rehearsalWeights.ts";

export type MakeRehearsalError =
  "destination_exists" | "model_directory_invalid" | "checkpoint_invalid" | "tokenizer_source_unavailable";

export interface MakeRehearsalOptions {
  readonly directory: string;
  /** Which committed weights (default: the Lab's). */
  readonly set?: RehearsalSet;
  /** Tests point this at other weights; the CLI uses the committed ones. */
  readonly weightsDirectory?: string;
}

export async function makeRehearsalCheckpoint(
  options: MakeRehearsalOptions,
): Promise<Result<SyntheticManifest, MakeRehearsalError>> {
  const set = REHEARSAL_SETS[options.set ?? "lab"];
  const weights = await readRehearsalWeights(options.weightsDirectory ?? set.directory);
  if (!weights.ok) return weights;
  const tokenizer = await buildStandInTokenizer();
  if (!tokenizer.ok) return tokenizer;
  const { arch, tokenIds, tensors } = weights.value;
  const config = {
    ...PINNED_CONFIG_JSON,
    hidden_size: arch.hiddenSize,
    intermediate_size: arch.intermediateSize,
    max_window_layers: arch.numHiddenLayers,
    num_attention_heads: arch.numAttentionHeads,
    num_hidden_layers: arch.numHiddenLayers,
    num_key_value_heads: arch.numKeyValueHeads,
  };
  const configText = JSON.stringify(config, null, 2) + "\n";
  const checked = checkQwen2Config(Buffer.from(configText));
  if (!checked.ok)
    return err(
      "checkpoint_invalid",
      `the rehearsal configuration is not a plain Qwen2 configuration (${checked.message})`,
    );

  const directory = path.resolve(options.directory);
  try {
    await mkdir(directory, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      return err("destination_exists", "destination already exists");
    return err("model_directory_invalid", "cannot create destination directory");
  }
  try {
    const files: Record<string, { bytes: number; sha256: string }> = {};
    const small: Record<string, string> = {
      "config.json": configText,
      "generation_config.json": JSON.stringify(CHECKPOINT_GENERATION_DEFAULTS, null, 2) + "\n",
      "tokenizer.json": tokenizer.value.tokenizerJson,
      "tokenizer_config.json": tokenizer.value.tokenizerConfigJson,
    };
    for (const [name, text] of Object.entries(small)) {
      const bytes = Buffer.from(text, "utf8");
      await writeFile(path.join(directory, name), bytes, { flag: "wx", mode: 0o600 });
      files[name] = { bytes: bytes.length, sha256: sha256Hex(bytes) };
    }
    const rowOf = new Map<number, number>(tokenIds.map((id, row) => [id, row]));
    const hidden = arch.hiddenSize;
    const offsets = new Map<number, number>();
    const handle = await open(path.join(directory, "model.safetensors"), "wx", 0o600);
    try {
      files["model.safetensors"] = await writeSafetensors(handle, qwen2TensorSpecs(arch), (spec, index, out, first) => {
        if (first) offsets.set(index, 0);
        const start = offsets.get(index) as number;
        const source = tensors[index] as Uint16Array;
        if (spec.kind === "embedding") {
          // Expand the trained rows to the full vocabulary; every other row is exactly zero.
          for (let i = 0; i < out.length; i++) {
            const element = start + i;
            const row = rowOf.get(Math.floor(element / hidden));
            out[i] = row === undefined ? 0 : (source[row * hidden + (element % hidden)] as number);
          }
        } else {
          out.set(source.subarray(start, start + out.length));
        }
        offsets.set(index, start + out.length);
      });
      await handle.sync();
    } finally {
      await handle.close();
    }
    const training = weights.value.record.training as Record<string, unknown> | undefined;
    const manifest: SyntheticManifest = {
      synthetic: true,
      label: REHEARSAL_LABEL,
      format_version: SYNTHETIC_FORMAT_VERSION,
      size: "rehearsal",
      seed: typeof training?.seed === "number" ? training.seed : 0,
      parameters: parameterCount(arch),
      note: REHEARSAL_NOTE,
      tokenizer: "qwen2.5-stand-in",
      tokenizer_note: STAND_IN_TOKENIZER_NOTE,
      tokenizer_provenance: tokenizer.value.provenance,
      rehearsal: {
        weights_sha256: weights.value.weightsSha256,
        transcripts_sha256: weights.value.record.transcripts_sha256,
        trained_token_ids: tokenIds.length,
        training: training ?? null,
        set: options.set ?? "lab",
        source: set.source,
      },
      files,
    };
    await writeFile(path.join(directory, SYNTHETIC_MANIFEST_NAME), JSON.stringify(manifest, null, 2) + "\n", {
      flag: "wx",
      mode: 0o600,
    });
    return ok(manifest);
  } catch (error) {
    // A half-written checkpoint has no manifest and would be refused anyway; remove it.
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}
