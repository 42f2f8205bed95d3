// The bench verdict's problems, as records (src/recording/evidenceProblem.ts): a stable code, the run
// file it was found in, where in it, and a detail for people. The verdict, the CLI and the report
// decide by `code` alone; they print through formatProblem. Each code names one check of the verdict
// (benchVerdict.ts's header) or one way a file could not be read (benchSnapshot.ts, and the trace
// reader's codes, src/bench/runs/benchTrace.ts).
import type { TraceProblemCode } from "../bench/runs/benchTrace.ts";
import type { EvidenceProblem } from "../recording/evidenceProblem.ts";
import { BENCH_REPLAY_CODES } from "./benchReplay.ts";

export const BENCH_PROBLEM_CODES = [
  // Reading the folder (benchSnapshot.ts)
  "file_unreadable", // a run file is missing, a link, too large, not a plain file or not UTF-8 (the read error is in the detail)
  "not_json", // a JSON file, or a line of tasks.ndjson or of a trace, is not JSON
  "json_too_deep",
  "not_json_object", // run.json, results.json or verification.json is not a JSON object
  "truncated_log", // tasks.ndjson's last line is incomplete
  "not_task_result", // a line of tasks.ndjson is not a task result
  // A trace line that is not a record of the trace's catalog (the trace reader's codes)
  "truncated_trace",
  "wrong_format",
  "old_format_version",
  "unknown_format_version",
  "bad_envelope",
  "unknown_event",
  "unknown_field",
  "missing_field",
  "wrong_type",
  // run.json
  "not_run_manifest",
  // One task against its record, trace and diff (checkTask)
  "not_in_plan",
  "outcome_mismatch",
  "false_fixed_mismatch",
  "no_trace_named",
  "trace_start_missing",
  "trace_task_mismatch",
  "trace_binding_mismatch",
  "trace_end_missing",
  "task_end_mismatch",
  "grade_event_count",
  "grade_mismatch",
  "guardrail_recount",
  "claimed_fixed_mismatch",
  "claim_recount",
  "statements_recount",
  "diff_event_count",
  "diff_path_mismatch",
  "diff_mismatch",
  // results.json against the log (checkResults)
  "results_missing",
  "results_tasks_mismatch",
  "results_summary_mismatch",
  "results_count_mismatch",
  "results_fingerprint_mismatch",
  // run.json's data set identity against the traces (benchDatasetCheck.ts)
  "dataset_identity_invalid", // run.json's dataset is malformed, or has no digest for a program it lists
  "dataset_digest_mismatch", // a task_start's programSha256 is not the digest run.json's dataset records
  // The replay of a task with the harness's own decisions (benchReplay.ts)
  ...BENCH_REPLAY_CODES,
  // More problems than the verdict lists
  "problems_omitted",
] as const satisfies readonly (string | TraceProblemCode)[];

export type BenchProblemCode = (typeof BENCH_PROBLEM_CODES)[number];
export type BenchProblem = EvidenceProblem<BenchProblemCode>;

// Every code the trace reader can give is one of the verdict's (a new reader code fails tsc here).
type MissingTraceCodes = Exclude<TraceProblemCode, BenchProblemCode>;
const _everyTraceCode: MissingTraceCodes extends never ? true : MissingTraceCodes = true;
void _everyTraceCode;

/** A problem of `file` (its name in the run directory). */
export function benchProblem(code: BenchProblemCode, file: string, detail: string): BenchProblem {
  return { code, file, detail };
}
