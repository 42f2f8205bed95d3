// Closed set of error codes for the local engine room (conversion, loading, tokenizer,
// worker, supervisor). Tests assert these codes, never messages.
export const ENGINE_ERROR_CODES = [
  "model_directory_invalid",
  "model_not_verified",
  "unexpected_file",
  "config_rejected",
  "checkpoint_invalid",
  "conversion_failed",
  "tokenizer_invalid",
  "template_invalid",
  "context_limit",
  "input_invalid",
  "engine_unavailable",
  "model_error",
  "time_limit",
  "cancelled",
  "destination_exists",
  "tokenizer_source_unavailable",
  "build_tools_missing",
  "native_build_failed",
] as const;
export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];
