// The report room's stable error codes (a closed union; tests assert these, never messages).
export const REPORT_ERROR_CODES = [
  "run_directory_not_found",
  "not_a_directory",
  "unknown_run_kind",
  "evidence_unreadable",
  "evidence_malformed",
  "evidence_too_large",
  "output_inside_run_directory",
  "output_exists",
  "output_unwritable",
  "server_failed",
  "evidence_invalid",
] as const;

export type ReportErrorCode = (typeof REPORT_ERROR_CODES)[number];
