// Every error code the benchmark room returns, as one closed union. Tests assert these codes,
// never messages; docs/quixbugs-benchmark.md documents each one.
export const BENCH_ERROR_CODES = [
  "dataset_missing",
  "dataset_invalid",
  "unknown_program",
  "python_unavailable",
  "sandbox_unavailable",
  "sandbox_self_test_failed",
  "sandbox_start_failed",
  "dataset_check_failed",
  "grading_cases_unavailable",
  "invalid_option",
  "endpoint_unreachable",
  // The preflight's connection was not refused but no answer came within --preflight-timeout
  // (a server still loading, hung, or another program on that port), told apart from nothing listening.
  "endpoint_silent",
  // The preflight (issue 13): the endpoint answered but refused (HTTP status, server message,
  // likely fix), does not list the --model name, or returns tool calls as text.
  "endpoint_rejected",
  "model_not_served",
  "tool_calls_not_parsed",
  // The server refuses the chat_template_kwargs field that --thinking off|on sends, and answers without it.
  "thinking_field_rejected",
  // A run in which every task ended in a model error: no result, non-zero exit.
  "model_errors_only",
  "run_dir_invalid",
  "results_invalid",
  // make-taskset (issue 25): its --out exists (the command layer's code, same meaning), or the
  // generation could not finish (the operators or a grade failed; nothing was written).
  "output_exists",
  "taskset_failed",
  // The run's evidence disagrees with itself or with its re-grade (verdicts/benchVerdict.ts,
  // runRegrade.ts): verify-run, compare and merge refuse it, naming the task or file.
  "evidence_invalid",
  // verify-run (issue 33): the run's data set is not found (run.json names it, or records none and
  // no --dataset was given), or --dataset is another data set than the one run.json records.
  "dataset_required",
  "dataset_mismatch",
  // verify-run --regenerate (issue 33): the run records no model response to send again; the backend
  // given is not the kind the run used; the model directory is not the run's checkpoint.
  "nothing_to_regenerate",
  "regeneration_backend_mismatch",
  "model_mismatch",
] as const;
export type BenchErrorCode = (typeof BENCH_ERROR_CODES)[number];

/** Codes a tool call can be refused or fail with; each one is logged in the trace. */
export const TOOL_ERROR_CODES = [
  "unknown_tool",
  "tool_not_allowed",
  "invalid_arguments",
  "write_not_allowed",
  "write_to_tests",
  "read_not_allowed",
  "read_reference_fix",
  "file_not_found",
  "content_too_large",
] as const;
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];
