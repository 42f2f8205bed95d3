// The closed set of codes the workspace manager produces. Expression codes (for an invalid
// `new` expression) come from src/expr and are passed through unchanged; the commit guard's
// codes are the controller's (cancellation and the overall deadline).

export const WORKSPACE_ERROR_CODES = [
  // --- run directory creation ---
  /** the run directory path is not absolute. */
  "run_path_not_absolute",
  /** the path is not in normal form (`..`, `.`, doubled or trailing separators, NUL, the root). */
  "run_path_unsafe",
  /** the parent is missing, not a directory, or a symbolic link. */
  "run_parent_invalid",
  /** something (file, directory, link) already exists at the destination. */
  "run_destination_exists",
  /** the destination lies inside an existing git repository. */
  "run_inside_repository",
  /** the destination lies inside another run directory. */
  "run_inside_run",
  /** this platform lacks O_NOFOLLOW/O_DIRECTORY; the workspace refuses rather than weaken its checks. */
  "unsupported_platform",
  /** creating the layout failed for another reason (permissions, disk). */
  "run_create_failed",
  /** an existing run directory cannot be reopened for recovery (layout or journal unusable). */
  "run_recovery_failed",
  // --- managed files and edits ---
  /** a managed file or the workspace directory is not what the controller recorded. */
  "workspace_conflict",
  /** the proposal's version is not the current workspace version. */
  "stale_version",
  /** a read named something other than the two logical file keys. */
  "unknown_file",
  /** a replace named a function other than clamp or total. */
  "unlisted_function",
  /** `old` is not exactly the current return expression of that function. */
  "old_expression_mismatch",
  /** the regenerated whole source failed validation (defence in depth; not expected). */
  "regenerated_source_invalid",
  /** an edit whose outcome is uncertain is pending, or this exact uncertain edit was already tried. */
  "uncertain_edit",
  /** this replace was interrupted after its write-ahead intent; its outcome is uncertain until reconcile(). */
  "edit_interrupted",
  /** an I/O failure before the write-ahead intent; nothing was committed. */
  "workspace_io_error",
  /** the required observation does not fit in 2,048 bytes of serialized JSON. */
  "observation_limit",
] as const;
export type WorkspaceErrorCode = (typeof WORKSPACE_ERROR_CODES)[number];

/** Codes the controller's beforeCommit() guard may return to abort an edit just before the rename. */
export const COMMIT_ABORT_CODES = ["cancelled", "time_limit"] as const;
export type CommitAbortCode = (typeof COMMIT_ABORT_CODES)[number];
