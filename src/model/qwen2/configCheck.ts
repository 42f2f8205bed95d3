// Checks config.json before anything is loaded: the architecture must be exactly
// Qwen2ForCausalLM with no remote code (auto_map) and the shape fields must be coherent.
// The bytes themselves are never rewritten; the float32 override is recorded separately.
import { err, ok, type Result } from "../../core/result.ts";
import type { Qwen2Architecture } from "./architecture.ts";

export type ConfigCheckErrorCode = "config_rejected";

function positiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}

function positiveFinite(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

export function checkQwen2Config(bytes: Buffer): Result<Qwen2Architecture, ConfigCheckErrorCode> {
  if (bytes.length > 64 * 1024) {
    return err("config_rejected", "config.json is larger than any Qwen2 configuration");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return err("config_rejected", "config.json is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return err("config_rejected", "config.json is not a JSON object");
  }
  const c = parsed as Record<string, unknown>;
  if ("auto_map" in c) {
    return err("config_rejected", "config.json requests remote code (auto_map)");
  }
  for (const key of ["custom_pipelines", "trust_remote_code"]) {
    if (key in c) return err("config_rejected", `config.json contains ${key}`);
  }
  const archs = c.architectures;
  if (!Array.isArray(archs) || archs.length !== 1 || archs[0] !== "Qwen2ForCausalLM") {
    return err("config_rejected", 'architectures must be exactly ["Qwen2ForCausalLM"]');
  }
  if (c.model_type !== "qwen2") return err("config_rejected", "model_type must be qwen2");
  if (c.hidden_act !== "silu") return err("config_rejected", "hidden_act must be silu");
  if (c.tie_word_embeddings !== true) return err("config_rejected", "only tied word embeddings are supported");
  if (c.use_sliding_window !== false) return err("config_rejected", "sliding-window attention is not supported");
  if ("rope_scaling" in c && c.rope_scaling !== null) return err("config_rejected", "rope_scaling is not supported");
  const fields = {
    hidden_size: c.hidden_size,
    intermediate_size: c.intermediate_size,
    num_hidden_layers: c.num_hidden_layers,
    num_attention_heads: c.num_attention_heads,
    num_key_value_heads: c.num_key_value_heads,
    vocab_size: c.vocab_size,
    max_position_embeddings: c.max_position_embeddings,
  };
  for (const [name, value] of Object.entries(fields)) {
    if (!positiveInteger(value) || value > 1_000_000)
      return err("config_rejected", `${name} must be a positive integer`);
  }
  if (!positiveFinite(c.rms_norm_eps) || !positiveFinite(c.rope_theta)) {
    return err("config_rejected", "rms_norm_eps and rope_theta must be positive numbers");
  }
  const arch: Qwen2Architecture = {
    hiddenSize: fields.hidden_size as number,
    intermediateSize: fields.intermediate_size as number,
    numHiddenLayers: fields.num_hidden_layers as number,
    numAttentionHeads: fields.num_attention_heads as number,
    numKeyValueHeads: fields.num_key_value_heads as number,
    vocabSize: fields.vocab_size as number,
    maxPositionEmbeddings: fields.max_position_embeddings as number,
    rmsNormEps: c.rms_norm_eps,
    ropeTheta: c.rope_theta,
    tieWordEmbeddings: true,
  };
  if (arch.hiddenSize % arch.numAttentionHeads !== 0 || arch.numAttentionHeads % arch.numKeyValueHeads !== 0) {
    return err("config_rejected", "head counts do not divide the hidden size");
  }
  if ((arch.hiddenSize / arch.numAttentionHeads) % 2 !== 0) {
    return err("config_rejected", "head dimension must be even for rotary embeddings");
  }
  return ok(arch);
}
