// The committed rehearsal weights (training/rehearsal/weights.bin + weights.json, written by
// training/rehearsal/train_rehearsal.py). weights.bin holds BF16 tensors in the order listed
// in weights.json; the embedding holds rows only for the token ids the transcripts use
// (token_ids), which keeps the committed file small. The record is checked field by field and
// the weights' SHA256 must equal the recorded one before anything is built from them.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { err, ok, type Result } from "../../core/result.ts";
import { sha256Hex } from "../../core/digest.ts";
import { PINNED_CONFIG_JSON, elementCount, qwen2TensorSpecs, type Qwen2Architecture } from "../qwen2/architecture.ts";

/** Where the trained weights, their record, the training script and its data are committed. */
export const REHEARSAL_TRAINING_DIRECTORY = fileURLToPath(new URL("../../../training/rehearsal/", import.meta.url));
/** The bench rehearsal model's weights and data (trained by the same script: --data training/bench-rehearsal). */
export const BENCH_REHEARSAL_TRAINING_DIRECTORY = fileURLToPath(
  new URL("../../../training/bench-rehearsal/", import.meta.url),
);

/** Which rehearsal model: the Lab's (scripted Lab transcripts) or the benchmark's (the mini data set's agent transcripts). */
export type RehearsalSet = "lab" | "bench";
export const REHEARSAL_SETS: Readonly<Record<RehearsalSet, { readonly directory: string; readonly source: string }>> = {
  lab: {
    directory: REHEARSAL_TRAINING_DIRECTORY,
    source: "training/rehearsal (train_rehearsal.py, transcripts.ts, scenarios.ts)",
  },
  bench: {
    directory: BENCH_REHEARSAL_TRAINING_DIRECTORY,
    source:
      "training/bench-rehearsal (transcripts.ts, scenarios.ts; trained by training/rehearsal/train_rehearsal.py --data training/bench-rehearsal)",
  },
};

export interface RehearsalWeights {
  readonly arch: Qwen2Architecture;
  readonly tokenIds: readonly number[];
  /** BF16 bits per tensor, in qwen2TensorSpecs order; the embedding has tokenIds.length rows. */
  readonly tensors: readonly Uint16Array[];
  readonly weightsSha256: string;
  readonly record: Readonly<Record<string, unknown>>;
}

const DEFINED_TOKENS = 151_665;

function positiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}

export async function readRehearsalWeights(
  directory: string = REHEARSAL_TRAINING_DIRECTORY,
): Promise<Result<RehearsalWeights, "checkpoint_invalid">> {
  let record: Record<string, unknown>;
  let blob: Buffer;
  try {
    record = JSON.parse(await readFile(`${directory}/weights.json`, "utf8")) as Record<string, unknown>;
    blob = await readFile(`${directory}/weights.bin`);
  } catch {
    return err(
      "checkpoint_invalid",
      "the rehearsal weights (training/rehearsal/weights.json, weights.bin) are missing or unreadable",
    );
  }
  if (record.schema !== "tca.rehearsal-weights/1" || typeof record.weights_sha256 !== "string")
    return err("checkpoint_invalid", "weights.json has an unknown schema");
  if (sha256Hex(blob) !== record.weights_sha256 || blob.length !== record.weights_bytes) {
    return err("checkpoint_invalid", "weights.bin does not match the SHA256 recorded in weights.json");
  }
  const a = record.architecture as Record<string, unknown> | null;
  if (
    a === null ||
    typeof a !== "object" ||
    ![a.hidden_size, a.num_hidden_layers, a.num_attention_heads, a.num_key_value_heads, a.intermediate_size].every(
      positiveInteger,
    )
  ) {
    return err("checkpoint_invalid", "weights.json architecture is malformed");
  }
  const arch: Qwen2Architecture = {
    hiddenSize: a.hidden_size as number,
    intermediateSize: a.intermediate_size as number,
    numHiddenLayers: a.num_hidden_layers as number,
    numAttentionHeads: a.num_attention_heads as number,
    numKeyValueHeads: a.num_key_value_heads as number,
    vocabSize: PINNED_CONFIG_JSON.vocab_size,
    maxPositionEmbeddings: PINNED_CONFIG_JSON.max_position_embeddings,
    rmsNormEps: PINNED_CONFIG_JSON.rms_norm_eps,
    ropeTheta: PINNED_CONFIG_JSON.rope_theta,
    tieWordEmbeddings: true,
  };
  const ids = record.token_ids;
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    !ids.every(
      (id, i) => Number.isSafeInteger(id) && id >= 0 && id < DEFINED_TOKENS && (i === 0 || id > (ids[i - 1] as number)),
    )
  ) {
    return err("checkpoint_invalid", "weights.json token_ids must be increasing ids of defined tokens");
  }
  const specs = qwen2TensorSpecs(arch);
  const listed = record.tensors;
  if (!Array.isArray(listed) || listed.length !== specs.length)
    return err("checkpoint_invalid", "weights.json lists the wrong tensors");
  const tensors: Uint16Array[] = [];
  let offset = 0;
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i] as (typeof specs)[number];
    const entry = listed[i] as { name?: unknown; shape?: unknown } | null;
    const shape = spec.kind === "embedding" ? [ids.length, arch.hiddenSize] : [...spec.shape];
    if (entry === null || entry.name !== spec.hfName || JSON.stringify(entry.shape) !== JSON.stringify(shape)) {
      return err(
        "checkpoint_invalid",
        `weights.json tensor ${i} is not ${spec.hfName} with shape ${JSON.stringify(shape)}`,
      );
    }
    const bytes = elementCount(shape) * 2;
    if (offset + bytes > blob.length) return err("checkpoint_invalid", "weights.bin is shorter than its tensors");
    tensors.push(new Uint16Array(blob.buffer.slice(blob.byteOffset + offset, blob.byteOffset + offset + bytes)));
    offset += bytes;
  }
  if (offset !== blob.length) return err("checkpoint_invalid", "weights.bin is longer than its tensors");
  return ok({ arch, tokenIds: ids as number[], tensors, weightsSha256: record.weights_sha256, record });
}
