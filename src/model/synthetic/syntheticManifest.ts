// The manifest that marks a directory as a synthetic (random-weight) checkpoint. It is
// written last, so its presence means the checkpoint is complete; it carries the SHA256 of
// every file so the loader can verify a synthetic directory before converting it.
import { err, ok, type Result } from "../../core/result.ts";

export const SYNTHETIC_MANIFEST_NAME = "synthetic-manifest.json";
export const SYNTHETIC_LABEL = "synthetic-pipeline-check";
/** A model trained in-project on scripted transcripts (src/model/rehearsal/): it proves the
 *  model path and says nothing about any real model's ability. Never the pinned model. */
export const REHEARSAL_LABEL = "rehearsal";
export const REHEARSAL_NOTE =
  "rehearsal model: a model trained in-project on scripted transcripts; it proves the model path and says nothing about any real model's ability";
export const CHECKPOINT_LABELS = [SYNTHETIC_LABEL, REHEARSAL_LABEL] as const;
export type CheckpointLabel = (typeof CHECKPOINT_LABELS)[number];
export const SYNTHETIC_FORMAT_VERSION = 1;

export const SYNTHETIC_SIZES = ["tiny", "full"] as const;
export type SyntheticSize = (typeof SYNTHETIC_SIZES)[number];
/** "rehearsal" is the trained rehearsal model's own shape (src/model/rehearsal/). */
export type CheckpointSize = SyntheticSize | "rehearsal";

/** Which tokenizer a synthetic checkpoint carries: the project's small synthetic BPE, or the
 *  Qwen2.5 stand-in derived from installed packages (src/model/tokenizer/standInTokenizer.ts). */
export const CHECKPOINT_TOKENIZERS = ["synthetic-bpe", "qwen2.5-stand-in"] as const;
export type CheckpointTokenizer = (typeof CHECKPOINT_TOKENIZERS)[number];

export interface SyntheticManifest {
  readonly synthetic: true;
  readonly label: CheckpointLabel;
  readonly format_version: number;
  readonly size: CheckpointSize;
  /** Absent in manifests written before the stand-in existed: read as "synthetic-bpe". */
  readonly tokenizer?: CheckpointTokenizer;
  readonly tokenizer_note?: string;
  readonly tokenizer_provenance?: Readonly<Record<string, string>>;
  /** Rehearsal checkpoints: the committed weights' SHA256 and training record. */
  readonly rehearsal?: Readonly<Record<string, unknown>>;
  readonly seed: number;
  readonly parameters: number;
  readonly note: string;
  readonly files: Readonly<Record<string, { readonly bytes: number; readonly sha256: string }>>;
}

export function parseSyntheticManifest(bytes: Buffer): Result<SyntheticManifest, "checkpoint_invalid"> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return err("checkpoint_invalid", "synthetic manifest is not JSON");
  }
  if (typeof value !== "object" || value === null)
    return err("checkpoint_invalid", "synthetic manifest is not an object");
  const m = value as Record<string, unknown>;
  if (
    m.synthetic !== true ||
    !CHECKPOINT_LABELS.includes(m.label as CheckpointLabel) ||
    m.format_version !== SYNTHETIC_FORMAT_VERSION
  ) {
    return err("checkpoint_invalid", "synthetic manifest has the wrong marker or version");
  }
  // A rehearsal label and the rehearsal size go together; a random-weight checkpoint is tiny or full.
  const sizeFits =
    m.label === REHEARSAL_LABEL ? m.size === "rehearsal" : SYNTHETIC_SIZES.includes(m.size as SyntheticSize);
  if (!sizeFits || !Number.isSafeInteger(m.seed) || !Number.isSafeInteger(m.parameters)) {
    return err("checkpoint_invalid", "synthetic manifest fields are malformed");
  }
  if (m.tokenizer !== undefined && !CHECKPOINT_TOKENIZERS.includes(m.tokenizer as CheckpointTokenizer)) {
    return err("checkpoint_invalid", "synthetic manifest names an unknown tokenizer");
  }
  if (m.label === REHEARSAL_LABEL && m.tokenizer !== "qwen2.5-stand-in") {
    return err("checkpoint_invalid", "a rehearsal checkpoint must carry the stand-in tokenizer");
  }
  const files = m.files;
  if (typeof files !== "object" || files === null)
    return err("checkpoint_invalid", "synthetic manifest lists no files");
  for (const entry of Object.values(files as Record<string, unknown>)) {
    const e = entry as Record<string, unknown> | null;
    if (
      e === null ||
      typeof e !== "object" ||
      !Number.isSafeInteger(e.bytes) ||
      typeof e.sha256 !== "string" ||
      !/^[0-9a-f]{64}$/.test(e.sha256)
    ) {
      return err("checkpoint_invalid", "synthetic manifest file entry is malformed");
    }
  }
  return ok(value as SyntheticManifest);
}

/** What a checkpoint's output is, in one line, for every place that prints or records it. */
export function checkpointOutputNote(label: string): string {
  return label === REHEARSAL_LABEL
    ? REHEARSAL_NOTE
    : "synthetic random-weight checkpoint: a pipeline check, not a model trial";
}

/** Labels a run records for a synthetic checkpoint: rehearsal or not, and which tokenizer. */
export function checkpointRunLabels(manifest: SyntheticManifest): Readonly<Record<string, unknown>> {
  const tokenizer = checkpointTokenizer(manifest);
  return {
    checkpoint_label: manifest.label,
    rehearsal: manifest.label === REHEARSAL_LABEL,
    tokenizer,
    stand_in_tokenizer: tokenizer === "qwen2.5-stand-in",
  };
}

/** The tokenizer a manifest declares (older manifests: the synthetic BPE). */
export function checkpointTokenizer(manifest: SyntheticManifest): CheckpointTokenizer {
  return manifest.tokenizer ?? "synthetic-bpe";
}
