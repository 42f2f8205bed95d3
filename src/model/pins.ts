// The pinned checkpoint of Lab 16 Part 2, in exactly one place: identity, the eight files with
// their byte counts and identities, the aggregate transfer ceiling, the printed architecture
// config, and the Part 1 time and resource estimates. Everything here is copied from
// ../shared/spec/lab-16-build-a-tiny-coding-agent.txt; nothing is measured.

export const PINNED_MODEL = {
  repository: "Qwen/Qwen2.5-Coder-0.5B-Instruct",
  revision: "ea3f2471cf1b1f0db85067f1ef93848e38e88c25",
  license: "Apache-2.0",
  parameters: 494032768,
  format: "safetensors",
} as const satisfies {
  repository: "Qwen/Qwen2.5-Coder-0.5B-Instruct";
  revision: "ea3f2471cf1b1f0db85067f1ef93848e38e88c25";
  license: "Apache-2.0";
  parameters: 494032768;
  format: "safetensors";
};

/**
 * One pinned file. Small files carry the publisher's Git blob id (SHA-1 over
 * "blob <len>\0" + bytes); the weights carry the SHA256 of their bytes. A file may carry both.
 */
export interface PinnedFile {
  readonly name: string;
  readonly bytes: number;
  readonly sha256?: string;
  readonly gitBlobSha1?: string;
}

export interface PinSet {
  readonly repository: string;
  readonly revision: string;
  readonly files: readonly PinnedFile[];
  /** Hard aggregate payload allowance for one acquisition, partial responses and retries included. */
  readonly aggregateCeilingBytes: number;
  /** When present, config.json must also parse to this JSON object (checked at verification). */
  readonly expectedConfigJson?: string;
}

/** Part 2: the architecture configuration exactly as the spec prints it. */
export const PINNED_CONFIG_JSON = `{
  "architectures": ["Qwen2ForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "hidden_act": "silu",
  "hidden_size": 896,
  "initializer_range": 0.02,
  "intermediate_size": 4864,
  "max_position_embeddings": 32768,
  "max_window_layers": 24,
  "model_type": "qwen2",
  "num_attention_heads": 14,
  "num_hidden_layers": 24,
  "num_key_value_heads": 2,
  "rms_norm_eps": 0.000001,
  "rope_theta": 1000000.0,
  "sliding_window": 32768,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}
`;

/**
 * The exact 659 bytes of the pinned config.json: the spec's object as Transformers writes it
 * (json.dumps, indent 2, sorted keys, final newline). Its Git blob id equals the pinned
 * e2aa18293b0dd66539341467fa454878a5adb2be (a test checks this), so the printed object and the
 * pinned file are the same configuration. Useful for synthetic checkpoints and fixtures.
 */
export const PINNED_CONFIG_FILE_TEXT = `{
  "architectures": [
    "Qwen2ForCausalLM"
  ],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "hidden_act": "silu",
  "hidden_size": 896,
  "initializer_range": 0.02,
  "intermediate_size": 4864,
  "max_position_embeddings": 32768,
  "max_window_layers": 24,
  "model_type": "qwen2",
  "num_attention_heads": 14,
  "num_hidden_layers": 24,
  "num_key_value_heads": 2,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "sliding_window": 32768,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}
`;

/** Part 2: the eight files, in the spec's order. Total 999,597,691 bytes. */
export const PINNED_FILES: PinSet = {
  repository: PINNED_MODEL.repository,
  revision: PINNED_MODEL.revision,
  aggregateCeilingBytes: 1_200_000_000,
  expectedConfigJson: PINNED_CONFIG_JSON,
  files: [
    { name: "config.json", bytes: 659, gitBlobSha1: "e2aa18293b0dd66539341467fa454878a5adb2be" },
    { name: "generation_config.json", bytes: 243, gitBlobSha1: "c28f9c697cbc09f047434efec57556505af31111" },
    { name: "tokenizer_config.json", bytes: 7_305, gitBlobSha1: "acee076f49bf3c0298e15de0909d1da7b392f0c3" },
    { name: "tokenizer.json", bytes: 7_031_645, gitBlobSha1: "443909a61d429dff23010e5bddd28ff530edda00" },
    { name: "vocab.json", bytes: 2_776_833, gitBlobSha1: "4783fe10ac3adce15ac8f358ef5462739852c569" },
    { name: "merges.txt", bytes: 1_671_839, gitBlobSha1: "20024bfe7c83998e9aeaf98a0cd6a2ce6306c2f0" },
    {
      name: "model.safetensors",
      bytes: 988_097_824,
      sha256: "f9523886352217ded3aeeef552b381af79d568c6d49a4b9e423288cea56b0a44",
    },
    { name: "LICENSE", bytes: 11_343, gitBlobSha1: "6634c8cc3133b3848ec74b9f275acaaa1ea618ab" },
  ],
};

/** Part 2: the pinned total, stated by the spec (checked against the table in tests). */
export const PINNED_TOTAL_BYTES = 999_597_691;

/** The public hub; `--endpoint` or HF_ENDPOINT may name a mirror instead. */
export const DEFAULT_HUB_ENDPOINT = "https://huggingface.co";

/** Part 1: one 30-minute window, at most 20 minutes acquiring and 10 for load, trial and evaluation. */
export const TIME_LIMITS = {
  windowMs: 30 * 60 * 1000,
  acquisitionMs: 20 * 60 * 1000,
  trialMs: 10 * 60 * 1000,
} as const;

/**
 * Part 1 estimates (not measurements). The thresholds the resource check applies are the
 * spec's figures: 3 GB of free disk at the destination, and "several GB" of memory read as
 * at least 4 GB installed and 3 GB available (float32 parameters alone take ~1.98 GB).
 */
export const RESOURCE_ESTIMATES = {
  float32ParameterBytes: PINNED_MODEL.parameters * 4,
  minimumFreeDiskBytes: 3_000_000_000,
  minimumTotalMemoryBytes: 4_000_000_000,
  minimumAvailableMemoryBytes: 3_000_000_000,
} as const;

/** At most one retry per file (Part 2), and a bounded redirect chain (hub -> CDN). */
export const TRANSFER_RULES = {
  maxRetriesPerFile: 1,
  maxRedirects: 5,
} as const;
