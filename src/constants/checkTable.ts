// Part 7's table of harness checks as data: each check's id, the code the spec requires it to
// observe, where in its own run directory that code is read from, and the proposal whose denial
// must leave source and version as they were. The checks verdict (src/verdicts/checksVerdict.ts)
// takes every expected code from here, never from a checks.json; test/lab/negativeChecks.test.ts
// holds the runner's definitions (src/lab) to this table.

/** Where a check's observed code is read from, in its own run directory. */
export type CheckObservation =
  /** the last observation's error code in the audit */
  | "last_error"
  /** the audit's stop reason */
  | "stop_reason"
  /** the audit's final-evaluation status */
  | "final_status"
  /** a late proposal recorded as discarded for the denied proposal, never validated */
  | "late_discarded"
  /** the validator's code for the file left in the workspace (a refused read) */
  | "source_validator"
  /** the denied proposal's receipt status */
  | "no_change"
  /** no run: the pre-existing destination holds only its own file */
  | "destination_untouched";

export interface CheckExpectation {
  readonly id: string;
  readonly expected: string;
  readonly observe: CheckObservation;
  readonly deniedProposal: number;
}

export const CHECK_TABLE: readonly CheckExpectation[] = [
  { id: "altered_signature", expected: "signature_mismatch", observe: "source_validator", deniedProposal: 1 },
  { id: "extra_statement", expected: "statement_not_allowed", observe: "source_validator", deniedProposal: 1 },
  {
    id: "unexpected_source_content",
    expected: "module_expression_not_allowed",
    observe: "source_validator",
    deniedProposal: 1,
  },
  { id: "unknown_action", expected: "unknown_action", observe: "last_error", deniedProposal: 1 },
  { id: "extra_field", expected: "extra_key", observe: "last_error", deniedProposal: 1 },
  { id: "duplicate_key", expected: "duplicate_key", observe: "last_error", deniedProposal: 1 },
  { id: "trailing_prose", expected: "trailing_text", observe: "last_error", deniedProposal: 1 },
  { id: "boolean_version", expected: "wrong_type", observe: "last_error", deniedProposal: 1 },
  { id: "oversized_proposal", expected: "proposal_too_large", observe: "last_error", deniedProposal: 1 },
  { id: "forbidden_filename", expected: "unknown_file", observe: "last_error", deniedProposal: 1 },
  { id: "replace_before_read", expected: "read_required", observe: "last_error", deniedProposal: 1 },
  { id: "task_read_is_not_source_read", expected: "read_required", observe: "last_error", deniedProposal: 2 },
  { id: "stale_version", expected: "stale_version", observe: "last_error", deniedProposal: 3 },
  { id: "future_version", expected: "stale_version", observe: "last_error", deniedProposal: 2 },
  { id: "wrong_old", expected: "old_expression_mismatch", observe: "last_error", deniedProposal: 2 },
  { id: "unlisted_function", expected: "unknown_function", observe: "last_error", deniedProposal: 2 },
  { id: "call", expected: "forbidden_call", observe: "last_error", deniedProposal: 2 },
  { id: "attribute", expected: "forbidden_attribute", observe: "last_error", deniedProposal: 2 },
  { id: "import", expected: "forbidden_call", observe: "last_error", deniedProposal: 2 },
  { id: "power", expected: "forbidden_power", observe: "last_error", deniedProposal: 2 },
  { id: "huge_integer", expected: "integer_token_too_long", observe: "last_error", deniedProposal: 2 },
  { id: "excessive_nesting", expected: "paren_nesting_too_deep", observe: "last_error", deniedProposal: 2 },
  { id: "unselected_branch_call", expected: "forbidden_call", observe: "last_error", deniedProposal: 2 },
  { id: "multiline_statement", expected: "expression_multiline", observe: "last_error", deniedProposal: 2 },
  { id: "oversized_multiplication", expected: "value_out_of_range", observe: "last_error", deniedProposal: 2 },
  { id: "symlink_target", expected: "workspace_conflict", observe: "last_error", deniedProposal: 1 },
  { id: "hard_link_target", expected: "workspace_conflict", observe: "last_error", deniedProposal: 1 },
  { id: "workspace_directory_replaced", expected: "workspace_conflict", observe: "last_error", deniedProposal: 1 },
  { id: "altered_signature_on_disk", expected: "workspace_conflict", observe: "last_error", deniedProposal: 1 },
  { id: "extra_statement_on_disk", expected: "workspace_conflict", observe: "last_error", deniedProposal: 1 },
  { id: "changed_between_read_and_edit", expected: "workspace_conflict", observe: "last_error", deniedProposal: 2 },
  { id: "changed_between_test_and_finish", expected: "workspace_conflict", observe: "last_error", deniedProposal: 6 },
  {
    id: "changed_between_finish_and_final_evaluation",
    expected: "workspace_conflict",
    observe: "final_status",
    deniedProposal: 6,
  },
  { id: "premature_finish", expected: "tests_not_passing", observe: "last_error", deniedProposal: 3 },
  { id: "repeated_uncertain_edit", expected: "uncertain_edit", observe: "last_error", deniedProposal: 3 },
  { id: "cancelled_during_generation", expected: "cancelled", observe: "stop_reason", deniedProposal: 2 },
  { id: "deadline_during_generation", expected: "time_limit", observe: "stop_reason", deniedProposal: 2 },
  { id: "late_proposal_discarded", expected: "late_proposal_discarded", observe: "late_discarded", deniedProposal: 2 },
  { id: "cancelled_before_commit", expected: "cancelled", observe: "stop_reason", deniedProposal: 2 },
  { id: "deadline_before_commit", expected: "time_limit", observe: "stop_reason", deniedProposal: 2 },
  { id: "injected_instruction_observation", expected: "unknown_file", observe: "last_error", deniedProposal: 2 },
  { id: "no_change_keeps_passing_test", expected: "no_change", observe: "no_change", deniedProposal: 5 },
  { id: "no_change_resets_invalid_counter", expected: "proposal_limit", observe: "stop_reason", deniedProposal: 1 },
  {
    id: "existing_output_destination",
    expected: "run_destination_exists",
    observe: "destination_untouched",
    deniedProposal: 1,
  },
];
