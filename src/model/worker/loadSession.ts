// Builds a ModelSession from a model directory: verification gate, derived GGUF, tokenizer
// and template, engine. Runs inside the worker process, bounded by the supervisor's deadline.
import { ok, type Result } from "../../core/result.ts";
import { ensureDerivedGguf } from "../gguf/derivedCache.ts";
import { LlamaEngine } from "../engine/llamaEngine.ts";
import { GENERATION_PROFILES, type GenerationProfileName } from "../engine/generationSettings.ts";
import { openCheckpointDirectory } from "../loader/checkpointDirectory.ts";
import { PINNED_MODEL } from "../pins.ts";
import { createChatTokenizer } from "../tokenizer/chatTokenizer.ts";
import { ModelSession } from "./modelSession.ts";

export const MODEL_LABEL = "model";

export async function loadSession(
  modelDirectory: string,
  now: () => number = () => performance.now(),
  profile: GenerationProfileName = "lab",
): Promise<Result<ModelSession, string>> {
  const started = now();
  const checkpoint = await openCheckpointDirectory(modelDirectory);
  if (!checkpoint.ok) return checkpoint;
  const c = checkpoint.value;
  const derived = await ensureDerivedGguf(c);
  if (!derived.ok) return derived;
  const tokenizer = createChatTokenizer(c.tokenizerJson, c.tokenizerConfigJson);
  if (!tokenizer.ok) return tokenizer;
  const engine = await LlamaEngine.load({
    ggufPath: derived.value.ggufPath,
    vocabularySize: c.arch.vocabSize,
    ...(profile === "lab" ? {} : { profile: GENERATION_PROFILES[profile] }),
  });
  if (!engine.ok) return engine;
  const synthetic = c.synthetic !== null;
  const record: Record<string, unknown> = {
    model: synthetic
      ? {
          synthetic: true,
          label: c.synthetic?.label,
          size: c.synthetic?.size,
          seed: c.synthetic?.seed,
          parameters: c.synthetic?.parameters,
          note: c.synthetic?.note,
          tokenizer: c.synthetic?.tokenizer ?? "synthetic-bpe",
          ...(c.synthetic?.tokenizer_note !== undefined ? { tokenizer_note: c.synthetic.tokenizer_note } : {}),
          ...(c.synthetic?.rehearsal !== undefined ? { rehearsal: c.synthetic.rehearsal } : {}),
        }
      : { synthetic: false, repository: PINNED_MODEL.repository, revision: PINNED_MODEL.revision },
    source_sha256: c.sha256,
    config_bytes_untouched: true,
    load_time_precision_override: "float32 (stored BF16 widened exactly by the project's converter)",
    checkpoint_generation_config_ignored: c.checkpointGenerationConfig,
    derived_gguf: {
      converter_version: derived.value.manifest.converter_version,
      sha256: derived.value.manifest.output.sha256,
      bytes: derived.value.manifest.output.bytes,
      rebuilt: derived.value.rebuilt,
      conversion_ms: derived.value.conversionMs === null ? null : Math.round(derived.value.conversionMs),
    },
    engine_load_ms: Math.round(engine.value.loadMs),
    total_load_ms: Math.round(now() - started),
  };
  return ok(
    new ModelSession({
      tokenizer: tokenizer.value,
      engine: engine.value,
      label: c.synthetic !== null ? c.synthetic.label : MODEL_LABEL,
      synthetic,
      record,
      profile,
    }),
  );
}
