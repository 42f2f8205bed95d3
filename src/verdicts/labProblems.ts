// The Lab verdicts' problems (runVerdict.ts, its replay and manifest check, checksVerdict.ts), as
// records (src/recording/evidenceProblem.ts): a stable code, the run file it was found in, where in
// it (the audit line, which is the record's event id, and its event type), and a detail for people.
// The verdicts, submission.md, the CLI and the report decide by `code` alone and print through
// formatProblem. Each code names one check of the verdict or one way a file could not be read; the
// audit reader's own codes (src/recording/auditLog.ts) pass through unchanged.
import type { AuditLogProblemCode } from "../recording/auditLog.ts";
import type { EvidenceProblem } from "../recording/evidenceProblem.ts";
import type { ModelCheckCode } from "./modelTrialCheck.ts";

/** Every code, with what it means (docs/evidence-format.md lists them from here: npm run evidence-doc). */
export const LAB_PROBLEM_MEANINGS = {
  file_missing:
    "an evidence file is not there although the run needs it: audit.jsonl always, manifest.json once the audit " +
    "records the start, final.json once it records the finish, checks.json in a checks root",
  file_unreadable:
    "an evidence file (or backups/) is a link, a FIFO, a directory, too large or otherwise unreadable " +
    "(the read error is in the detail)",
  audit_unreadable: "the audit reader could not read audit.jsonl (the read error is in the detail)",
  not_utf8: "a file is not valid UTF-8",
  cr_byte: "a file holds a CR byte: the harness writes LF line ends only and escapes every CR inside strings",
  not_json: "a JSON file, or a line of the audit, is not JSON",
  json_too_deep: "JSON nested deeper than the reader allows",
  not_json_object: "final.json, manifest.json or an audit line is not a JSON object",
  schema_mismatch: "final.json or manifest.json does not match its schema (the first mismatch's path is in the detail)",
  not_checks_report: "checks.json is not a tca.checks/1 report",
  audit_empty: "audit.jsonl is empty: a run always records events",
  truncated_audit: "audit.jsonl's last line is incomplete (a kill mid-write)",
  wrong_format: "an audit line is not of tca.audit (the strict reader's code)",
  old_format_version: "an audit of format 1: made by an older tca; rerun the run with this tca",
  unknown_format_version: "an audit line of an unknown format version",
  bad_envelope: "an audit line's envelope field is missing, unknown or of the wrong type",
  unknown_event: "an audit line's type is not an event of the Lab catalog",
  unknown_field: "an audit line's data has a field its event does not declare",
  missing_field: "an audit line's data lacks a required field",
  wrong_type: "a field of an audit line's data has the wrong type or value",
  out_of_order: "an audit event id out of sequence, or a time earlier than the record before",
  run_id_mixed: "the audit's records name more than one run id",
  record_duplicated: "more than one stop, final_evaluation, run_finished or accepted finish",
  record_missing:
    "no stop, final_evaluation or run_finished record although the run finished, or no run_finished " +
    "although final.json exists",
  audit_claim_differs:
    "final_evaluation's or run_finished's verified_success, or run_finished's stop reason, is not what the " +
    "audit's own records say",
  verified_success_differs:
    "the audit's records claim a verified_success that re-deriving it from the artifacts does not give",
  final_field_differs: "a field of final.json is not the audit's or the recomputed one (the field is in the detail)",
  final_evaluation_unrecorded: "final.json has a final evaluation the audit does not record",
  final_cases_differ: "final.json's case records are not those recomputed on the final version",
  labels_differ: "final.json's or manifest.json's labels differ from run_started's",
  final_version_differs: "the final evaluation names another version or digest than the replayed final version",
  final_source_differs: "workspace/toy_math.py's digest is not the final snapshot's",
  final_source_outside_grammar: "workspace/toy_math.py is outside the grammar, yet its evaluation completed",
  final_evaluation_recount: "the final evaluation's counts are not those of re-evaluating workspace/toy_math.py",
  manifest_field_differs:
    "a field of manifest.json (run id, budgets, fixtures, initial files, labels.kind, harness aggregate) is " +
    "not the recomputed one (the field is in the detail)",
  manifest_prompt_differs: "manifest.json's system instruction or action contract is not the spec's",
  source_label_differs: "manifest.json's proposal source is not the source of every audit record",
  proposal_budget_exceeded: "the audit records more proposals than the budget allows",
  backup_unexpected: "a file in backups/ is not the backup of a version the replay rebuilt",
  backup_differs: "a backup does not hold the rebuilt bytes of its version",
  backup_missing: "a committed edit left no backup of the version before it",
  replay_initial_state_differs: "run_started names an initial state other than the spec's initial files",
  replay_order_differs:
    "a record out of the decision chain's order: proposals not numbered 1, 2, 3, …, a record outside its " +
    "proposal or after the stop, a validated proposal's observation not before the next record, a second " +
    "observation or integrity check, the final evaluation before the stop",
  replay_text_missing: "a text generation without its raw text, or a validation without generated text",
  replay_validation_differs: "the recorded validation is not the one re-validating the raw text gives",
  replay_authorization_differs:
    "the recorded authorization is not the replayed authorizer's, or authorizes no validated action or " +
    "without a passing integrity check",
  replay_dispatch_differs: "a dispatch of an action that was not validated and allowed",
  replay_edit_differs:
    "an edit record is not the replace applied to the rebuilt source (versions, digests, expressions)",
  replay_version_differs: "a record names another version or digest than the replayed one",
  replay_observation_differs:
    "an observation is not the one replaying its action gives (read bytes, test result, receipt)",
  replay_finish_differs:
    "an accepted finish the replay refuses (no passing test on the same version, a second one), or a stop " +
    "reason that disagrees with the replayed finish",
  replay_request_differs: "a recorded request is not the one the request assembler builds from the replayed state",
  replay_omitted_differs:
    "a request or context limit leaves out other observations than compaction of the replayed log would " +
    "(or lacks its omitted ids)",
  model_directory_missing: "a run labelled with a model names no model directory",
  model_directory_unverified: "the run's model directory does not verify now through the loader's gate",
  not_the_pinned_model: "a run labelled a model trial whose model directory is not the pinned model",
  not_the_labelled_checkpoint: "a pipeline check whose model directory is not the checkpoint its labels name",
  model_digests_differ: "the model file digests or name the run recorded at load time are not its directory's now",
  check_directory_missing: "a check of the spec's table has no run directory under the checks root",
  check_run_invalid: "a check's run is EVIDENCE INVALID or INCOMPLETE (its first problem is in the detail)",
  check_row_missing: "checks.json has no row for a check of the spec's table",
  check_row_differs: "a row of checks.json records another expected, observed, unchanged or passed than re-derived",
  check_unknown: "checks.json lists a check that is not in the spec's table",
  checks_count_differs: "checks.json declares another total, passed or failed than re-derived",
  check_outcome_differs:
    "a check's run did not end as the check requires (the refusal it provokes, a finish that must or must " +
    "not verify); a row problem: it fails the row",
  check_recorded_problem: "checks.json records a failed assertion of the check runner for this row; it fails the row",
  problems_omitted: "more problems than the verdict lists (the count is in the detail)",
} as const satisfies Readonly<Record<string, string>>;

export type LabProblemCode = keyof typeof LAB_PROBLEM_MEANINGS;
export const LAB_PROBLEM_CODES = Object.keys(LAB_PROBLEM_MEANINGS) as LabProblemCode[];

export type LabProblem = EvidenceProblem<LabProblemCode>;

// Every code the audit reader gives is one of the verdict's (a new reader code fails tsc here).
type MissingAuditCodes = Exclude<AuditLogProblemCode, LabProblemCode>;
const _everyAuditCode: MissingAuditCodes extends never ? true : MissingAuditCodes = true;
void _everyAuditCode;
// Every model check's code is one of the verdict's, with its meaning above.
type MissingModelCodes = Exclude<ModelCheckCode, LabProblemCode>;
const _everyModelCode: MissingModelCodes extends never ? true : MissingModelCodes = true;
void _everyModelCode;

/** A problem of `file` (its name relative to the run folder, or to the checks root). */
export function labProblem(
  code: LabProblemCode,
  file: string,
  detail: string,
  where: { readonly line?: number; readonly event?: string } = {},
): LabProblem {
  return { code, file, ...where, detail };
}
