// Every stable error code of the model-artifact room (plan, acquisition, verification,
// ledger). Tests assert these codes; docs/model-artifacts.md documents each one.
export const ARTIFACT_ERROR_CODES = [
  // refusals before anything is created or requested
  "endpoint_invalid",
  "ci_refuses_real_hub",
  "destination_invalid",
  "destination_exists",
  "consent_required",
  "consent_refused",
  "insufficient_disk",
  "insufficient_memory",
  "resource_check_failed",
  // transfer
  "http_status",
  "redirect_limit",
  "redirect_refused",
  "content_length_mismatch",
  "metadata_mismatch",
  "oversized_transfer",
  "transfer_interrupted",
  "header_timeout",
  "body_idle_timeout",
  "allowance_exceeded",
  "deadline_exceeded",
  // identity and directory contents (acquisition and verification)
  "size_mismatch",
  "hash_mismatch",
  "blob_id_mismatch",
  "file_missing",
  "file_not_regular",
  "unexpected_file",
  "unexpected_executable_file",
  "config_rejected",
  "config_mismatch",
  "directory_missing",
  "manifest_missing",
  "manifest_invalid",
  "manifest_not_verified",
  "manifest_mismatch",
  // ledger (the 30-minute window)
  "ledger_missing",
  "ledger_invalid",
  "window_expired",
  // local I/O that failed for a reason outside the rules above
  "io_error",
] as const;

export type ArtifactErrorCode = (typeof ARTIFACT_ERROR_CODES)[number];
