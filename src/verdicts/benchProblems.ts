// The bench verdict's problems, as records (src/recording/evidenceProblem.ts): a stable code, the run
// file it was found in, where in it, and a detail for people. The verdict, the CLI and the report
// decide by `code` alone; they print through formatProblem. Each code names one check of the verdict
// (benchVerdict.ts's header) or one way a file could not be read (benchSnapshot.ts, and the trace
// reader's codes, src/bench/runs/benchTrace.ts).
import type { TraceProblemCode } from "../bench/runs/benchTrace.ts";
import type { EvidenceProblem } from "../recording/evidenceProblem.ts";
import type { BenchReplayCode } from "./benchReplay.ts";

/** Every code, with what it means (docs/evidence-format.md lists them from here: npm run evidence-doc). */
export const BENCH_PROBLEM_MEANINGS = {
  file_unreadable:
    "a run file is missing, a link, too large, not a plain file or not UTF-8 (the read error is in the detail)",
  not_json: "a JSON file, or a line of tasks.ndjson or of a trace, is not JSON",
  json_too_deep: "JSON nested deeper than the reader allows",
  not_json_object: "run.json, results.json or verification.json is not a JSON object",
  truncated_log: "tasks.ndjson's last line is incomplete",
  not_task_result: "a line of tasks.ndjson is not a task result",
  truncated_trace: "a trace's last line is incomplete (a kill mid-write)",
  wrong_format: "a trace line is not of tca.trace (the strict reader's code)",
  old_format_version: "a trace of format 1: made by an older tca; rerun the run (one problem per file)",
  unknown_format_version: "a trace line of an unknown version",
  bad_envelope: "a trace line's envelope field is missing, unknown or of the wrong type",
  unknown_event: "a trace line's type is not an event of the trace's catalog",
  unknown_field: "a trace line's data has a field its event does not declare",
  missing_field: "a trace line's data lacks a required field",
  wrong_type: "a field of a trace line's data has the wrong type or value",
  not_run_manifest: "run.json is not a QuixBugs run manifest of this schema",
  not_in_plan: "a task of tasks.ndjson is not in run.json's plan",
  outcome_mismatch: "a task's outcome is not the one its grade, stop reason and change give",
  false_fixed_mismatch: "a task's falseFixed (or falseFixedHeldOut) disagrees with its claim and grade",
  no_trace_named: "a task record names no trace",
  trace_start_missing: "a trace does not start with task_start",
  trace_task_mismatch: "a trace's task_start names another task",
  trace_binding_mismatch: "a trace's task_start was made under other run labels than run.json's",
  trace_end_missing: "a trace does not end in task_end",
  task_end_mismatch: "a trace's task_end differs from the task's record",
  grade_event_count: "a trace has no grade event, or more than one",
  grade_mismatch: "a trace's grade event differs from the record's grade",
  guardrail_recount: "the guardrail counts recounted from the trace differ from the record's",
  claimed_fixed_mismatch: "the record's claimedFixed disagrees with the trace's accepted stop",
  claim_recount: "the claim recomputed from the trace differs from the record's",
  statements_recount: "the along-the-way statements recomputed from the trace differ from the record's",
  diff_event_count: "a trace's diff events do not match the task's change",
  diff_path_mismatch: "a record names a diff without a change, or a change without a diff",
  diff_mismatch: "diffs/<task>.diff differs from the trace's diff event",
  results_missing: "results.json is missing for a run with finished tasks",
  results_tasks_mismatch: "results.json's tasks differ from tasks.ndjson's latest records",
  results_summary_mismatch: "results.json's summary differs from the summary of tasks.ndjson",
  results_count_mismatch: "results.json's tasksDone, tasksExpected or complete disagree with the recomputed counts",
  results_fingerprint_mismatch: "results.json's fingerprint differs from run.json's",
  dataset_identity_invalid: "run.json's dataset is malformed, or has no digest for a program it lists",
  dataset_digest_mismatch: "a task_start's programSha256 is not the digest run.json's dataset records",
  replay_inputs_missing: "a task_start lacks what the replay starts from (the original file, the test files' digests)",
  replay_original_invalid: "the recorded original file is not the one its digest (or the data set) names",
  replay_test_files_invalid: "the recorded test files' digests are not the data set's",
  replay_budget_differs: "a task's budget is not run.json's",
  replay_seed_differs: "a task's sampling seed is not the plan's",
  replay_event_differs:
    "a recorded harness decision (tool call, refusal, result, stop) is not the one the replay makes",
  replay_event_missing: "the replay makes a decision the trace does not record",
  replay_event_extra: "the trace records a decision the replay does not make",
  replay_request_differs: "a recorded request digest is not the one the harness builds from the conversation so far",
  replay_response_invalid: "a recorded model response cannot be replayed (its tool calls or text are malformed)",
  replay_test_run_invalid:
    "a recorded test run is not on the replayed version, or its outcome does not follow from its counts",
  replay_final_differs: "the final file's digest is not the replayed file's",
  replay_diff_differs: "the recorded change or diff is not the replayed file's",
  replay_stop_differs: "the recorded stop reason, claim or turn count is not the replay's",
  replay_guardrails_differ: "the guardrail counts are not the ones the replay counts",
  replay_claim_differs: "the claim analysis or statements are not the ones recomputed from the replay",
  replay_held_out_seed_differs: "the grade's held-out seed is not the task's (or run.json's)",
  replay_grader_differs: "the grade's grader is not run.json's",
  problems_omitted: "more problems than the verdict lists (the count is in the detail)",
} as const satisfies Readonly<Record<string, string>>;

export type BenchProblemCode = keyof typeof BENCH_PROBLEM_MEANINGS;
export const BENCH_PROBLEM_CODES = Object.keys(BENCH_PROBLEM_MEANINGS) as BenchProblemCode[];

export type BenchProblem = EvidenceProblem<BenchProblemCode>;

// Every code the trace reader can give is one of the verdict's (a new reader code fails tsc here).
type MissingTraceCodes = Exclude<TraceProblemCode, BenchProblemCode>;
const _everyTraceCode: MissingTraceCodes extends never ? true : MissingTraceCodes = true;
void _everyTraceCode;
// Every code the replay gives is one of the verdict's, with its meaning above.
type MissingReplayCodes = Exclude<BenchReplayCode, BenchProblemCode>;
const _everyReplayCode: MissingReplayCodes extends never ? true : MissingReplayCodes = true;
void _everyReplayCode;

/** A problem of `file` (its name in the run directory). */
export function benchProblem(code: BenchProblemCode, file: string, detail: string): BenchProblem {
  return { code, file, detail };
}
