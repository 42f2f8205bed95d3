// The Qwen2 architecture as one data shape: the pinned checkpoint's configuration
// (Part 2 of the Lab, byte-identical field values) and the tiny test variant. The tensor
// table here is the single source for the checkpoint writer, the converter and the
// float64 reference forward pass in the tests.

/** The architecture fields the engine reads from config.json. */
export interface Qwen2Architecture {
  readonly hiddenSize: number;
  readonly intermediateSize: number;
  readonly numHiddenLayers: number;
  readonly numAttentionHeads: number;
  readonly numKeyValueHeads: number;
  readonly vocabSize: number;
  readonly maxPositionEmbeddings: number;
  readonly rmsNormEps: number;
  readonly ropeTheta: number;
  readonly tieWordEmbeddings: boolean;
}

/** Part 2: the pinned configuration, field for field (key order as published). */
export const PINNED_CONFIG_JSON = {
  architectures: ["Qwen2ForCausalLM"],
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151645,
  hidden_act: "silu",
  hidden_size: 896,
  initializer_range: 0.02,
  intermediate_size: 4864,
  max_position_embeddings: 32768,
  max_window_layers: 24,
  model_type: "qwen2",
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 0.000001,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  tie_word_embeddings: true,
  torch_dtype: "bfloat16",
  transformers_version: "4.43.1",
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
} as const;

export const PINNED_PARAMETER_COUNT = 494_032_768;

/** Tiny variant for tests: same vocabulary size (so padding is exercised), small everything else. */
export const TINY_CONFIG_OVERRIDES = {
  hidden_size: 32,
  intermediate_size: 64,
  max_window_layers: 2,
  num_attention_heads: 4,
  num_hidden_layers: 2,
  num_key_value_heads: 2,
} as const;

export interface TensorSpec {
  /** Hugging Face (safetensors) name. */
  readonly hfName: string;
  /** llama.cpp GGUF name. */
  readonly ggufName: string;
  /** Shape in safetensors (row-major) order. */
  readonly shape: readonly number[];
  readonly kind: "embedding" | "matrix" | "bias" | "norm";
}

/** Every tensor of a tied-embedding Qwen2 checkpoint, in the order the writer stores them. */
export function qwen2TensorSpecs(arch: Qwen2Architecture): TensorSpec[] {
  const h = arch.hiddenSize;
  const headDim = h / arch.numAttentionHeads;
  const kv = arch.numKeyValueHeads * headDim;
  const ff = arch.intermediateSize;
  const specs: TensorSpec[] = [
    {
      hfName: "model.embed_tokens.weight",
      ggufName: "token_embd.weight",
      shape: [arch.vocabSize, h],
      kind: "embedding",
    },
  ];
  for (let i = 0; i < arch.numHiddenLayers; i++) {
    const p = `model.layers.${i}.`;
    const g = `blk.${i}.`;
    specs.push(
      { hfName: `${p}input_layernorm.weight`, ggufName: `${g}attn_norm.weight`, shape: [h], kind: "norm" },
      { hfName: `${p}self_attn.q_proj.weight`, ggufName: `${g}attn_q.weight`, shape: [h, h], kind: "matrix" },
      { hfName: `${p}self_attn.q_proj.bias`, ggufName: `${g}attn_q.bias`, shape: [h], kind: "bias" },
      { hfName: `${p}self_attn.k_proj.weight`, ggufName: `${g}attn_k.weight`, shape: [kv, h], kind: "matrix" },
      { hfName: `${p}self_attn.k_proj.bias`, ggufName: `${g}attn_k.bias`, shape: [kv], kind: "bias" },
      { hfName: `${p}self_attn.v_proj.weight`, ggufName: `${g}attn_v.weight`, shape: [kv, h], kind: "matrix" },
      { hfName: `${p}self_attn.v_proj.bias`, ggufName: `${g}attn_v.bias`, shape: [kv], kind: "bias" },
      { hfName: `${p}self_attn.o_proj.weight`, ggufName: `${g}attn_output.weight`, shape: [h, h], kind: "matrix" },
      { hfName: `${p}post_attention_layernorm.weight`, ggufName: `${g}ffn_norm.weight`, shape: [h], kind: "norm" },
      { hfName: `${p}mlp.gate_proj.weight`, ggufName: `${g}ffn_gate.weight`, shape: [ff, h], kind: "matrix" },
      { hfName: `${p}mlp.up_proj.weight`, ggufName: `${g}ffn_up.weight`, shape: [ff, h], kind: "matrix" },
      { hfName: `${p}mlp.down_proj.weight`, ggufName: `${g}ffn_down.weight`, shape: [h, ff], kind: "matrix" },
    );
  }
  specs.push({ hfName: "model.norm.weight", ggufName: "output_norm.weight", shape: [h], kind: "norm" });
  return specs;
}

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

export function parameterCount(arch: Qwen2Architecture): number {
  return qwen2TensorSpecs(arch).reduce((sum, t) => sum + elementCount(t.shape), 0);
}
