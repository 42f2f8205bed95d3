// Recognizes an in-project checkpoint (a rehearsal model or the tiny random-weight test
// checkpoint) served by an OpenAI-compatible endpoint, so that a benchmark run against, say, a
// llama-server serving the bench rehearsal GGUF is labelled REHEARSAL like the same run through
// --backend local, and never looks like a model result.
//
// Why the shape and not a name: a server can be started with any --alias, and llama-server
// exposes none of the GGUF's own metadata (general.name) through its API. What it does report,
// at /v1/models, is the loaded model's shape (meta: n_params, n_embd, n_vocab), computed by
// llama.cpp from the tensors themselves, so it holds under any alias, any chat-template
// override, any quantization and any converter. The in-project checkpoints have shapes no real
// model has (hidden size 96, 64 or 32 with Qwen2's 151,936-token vocabulary), taken here from
// the committed rehearsal weights' records, so retraining with another shape moves the
// fingerprint with it. An endpoint that reports no shape (vLLM, a hosted API) is not recognized
// and is labelled by --pipeline-check alone, as before.
import { checkQwen2Config } from "../../model/qwen2/configCheck.ts";
import { parameterCount, type Qwen2Architecture } from "../../model/qwen2/architecture.ts";
import { readRehearsalWeights, REHEARSAL_SETS, type RehearsalSet } from "../../model/rehearsal/rehearsalWeights.ts";
import { syntheticConfigJson } from "../../model/synthetic/makeTestCheckpoint.ts";
import { REHEARSAL_LABEL, REHEARSAL_NOTE, SYNTHETIC_LABEL } from "../../model/synthetic/syntheticManifest.ts";
import { isRecord } from "../../core/isRecord.ts";

export interface InProjectShape {
  /** "rehearsal" (trained in-project) or "synthetic" (random weights). */
  readonly kind: "rehearsal" | "synthetic";
  /** rehearsal-bench, rehearsal-lab, synthetic-tiny. */
  readonly name: string;
  readonly nParams: number;
  readonly nEmbd: number;
  readonly nVocab: number;
}

export interface RecognizedCheckpoint extends InProjectShape {
  /** The /v1/models entry that matched. */
  readonly servedId: string;
}

function shapeOf(kind: InProjectShape["kind"], name: string, arch: Qwen2Architecture): InProjectShape {
  return { kind, name, nParams: parameterCount(arch), nEmbd: arch.hiddenSize, nVocab: arch.vocabSize };
}

/** The shapes of the checkpoints this project makes, from the committed weights records. */
export async function inProjectShapes(): Promise<InProjectShape[]> {
  const shapes: InProjectShape[] = [];
  for (const set of Object.keys(REHEARSAL_SETS) as RehearsalSet[]) {
    const weights = await readRehearsalWeights(REHEARSAL_SETS[set].directory);
    // Unreadable committed weights cannot be served either; the other shapes still apply.
    if (weights.ok) shapes.push(shapeOf("rehearsal", `rehearsal-${set}`, weights.value.arch));
  }
  const tiny = checkQwen2Config(Buffer.from(syntheticConfigJson("tiny")));
  if (tiny.ok) shapes.push(shapeOf("synthetic", "synthetic-tiny", tiny.value));
  return shapes;
}

/**
 * The in-project checkpoint the endpoint serves for `requestedModel`, or null. `serverModels` is
 * the /v1/models body as describe() recorded it. The entry whose id or alias is the requested
 * model is checked; when the server lists exactly one model it is checked whatever its name,
 * because a single-model llama-server answers every request with that model.
 */
export function recognizeServedCheckpoint(
  serverModels: unknown,
  requestedModel: string,
  shapes: readonly InProjectShape[],
): RecognizedCheckpoint | null {
  if (!isRecord(serverModels) || !Array.isArray(serverModels.data)) return null;
  const entries = serverModels.data.filter(isRecord);
  const named = entries.filter(
    (e) => e.id === requestedModel || (Array.isArray(e.aliases) && e.aliases.includes(requestedModel)),
  );
  const candidates = named.length > 0 ? named : entries.length === 1 ? entries : [];
  for (const entry of candidates) {
    const meta = isRecord(entry.meta) ? entry.meta : null;
    if (meta === null) continue;
    const match = shapes.find(
      (s) => meta.n_params === s.nParams && meta.n_embd === s.nEmbd && meta.n_vocab === s.nVocab,
    );
    if (match !== undefined) return { ...match, servedId: typeof entry.id === "string" ? entry.id : "" };
  }
  return null;
}

/**
 * The fields a recognized checkpoint adds to the run's model description: the same labels the
 * local backend records for that checkpoint (synthetic, rehearsal, proposal_source, note), plus
 * how it was recognized.
 */
export function servedCheckpointLabels(recognized: RecognizedCheckpoint): Record<string, unknown> {
  const how = `recognized by the shape the endpoint reports at /v1/models (n_params ${recognized.nParams}, n_embd ${recognized.nEmbd}, n_vocab ${recognized.nVocab}: ${recognized.name})`;
  const servedCheckpoint = {
    name: recognized.name,
    served_id: recognized.servedId,
    n_params: recognized.nParams,
    n_embd: recognized.nEmbd,
    n_vocab: recognized.nVocab,
    recognized_by: "/v1/models meta",
  };
  if (recognized.kind === "rehearsal") {
    return {
      synthetic: true,
      rehearsal: true,
      proposal_source: REHEARSAL_LABEL,
      served_checkpoint: servedCheckpoint,
      note: `REHEARSAL model served by the endpoint, ${how}: ${REHEARSAL_NOTE}; this benchmark run is a PIPELINE CHECK, not a model result`,
    };
  }
  return {
    synthetic: true,
    proposal_source: SYNTHETIC_LABEL,
    served_checkpoint: servedCheckpoint,
    note: `synthetic random-weight checkpoint served by the endpoint, ${how}: this benchmark run is a PIPELINE CHECK, not a model result`,
  };
}
