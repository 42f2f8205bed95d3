// What the fields of a run folder's JSON files mean, where their definitions carry no `description`
// (src/recording/labRunFiles.ts, src/bench/runs/runFileSchemas.ts), for docs/evidence-format.md.
// test/docs/evidenceFormatDoc.test.ts fails when a path named here is no longer a field of its file.

export const LAB_MANIFEST_FIELDS: Readonly<Record<string, string>> = {
  schema: "the file's schema id",
  labels: "the run's labels: the same object in final.json and the audit's run_started",
  "labels.kind":
    "the run's kind; `rehearsal_trial` for the rehearsal checkpoint (older version-2 runs: `synthetic_pipeline_check` with labels.rehearsal true, read as a rehearsal; see run_started.run_kind)",
  "proposal_source.load_failure": "a model source that failed to load: why (the run then stops at source_load)",
  prompt: "the system instruction shown to the model, and its digest",
  "contract.actions": "the four actions of the contract, in order",
  fixtures: "how many public and held-out cases there are, and digests of each set",
  harness: "digests of the code that decides: every file under src/ and bin/, package.json, package-lock.json",
  "harness.aggregate_sha256": "sha256 over the sorted `path\\0sha256\\n` lines of every file",
  initial_files: "the size and digest of each managed file as created",
  budgets: "the limits the run was held to",
  "budgets.max_proposals": "proposals allowed in the run",
  "budgets.max_consecutive_invalid": "invalid proposals in a row that stop the run",
  "budgets.overall_deadline_ms": "the run's time budget",
  "budgets.per_call_deadline_ms": "the time budget of one model call",
  "budgets.max_input_tokens": "the input token budget of one request",
  "budgets.max_new_tokens": "the output token budget of one call",
  "budgets.observation_max_bytes": "the largest observation shown to the model",
  "budgets.proposal_max_bytes": "the largest proposal accepted",
};

export const LAB_FINAL_FIELDS: Readonly<Record<string, string>> = {
  schema: "the file's schema id",
  run_id: "the run id every audit record carries",
  labels: "the run's labels, as in manifest.json",
  proposals_used: "proposals attempted (every attempt counts)",
  invalid_proposals: "proposals refused by validation, authorization or a tool",
  finish: "the accepted finish's (version, sha256); null when no finish was accepted",
  final_evaluation: "the independent final evaluation of the accepted snapshot",
  "final_evaluation.status": "completed, or why the evaluation did not run to the end",
  "final_evaluation.version": "the version evaluated; null when there was none",
  "final_evaluation.sha256": "the digest evaluated; null when there was none",
  "final_evaluation.cases": "every case evaluated, held-out included (never shown to a model)",
  "final_evaluation.cases[].actual": "the value computed; null when it raised",
  "final_evaluation.cases[].error": "the error code when it raised, else null",
  elapsed_ms: "milliseconds spent in each phase, and in all",
};

export const BENCH_RUN_FIELDS: Readonly<Record<string, string>> = {
  schema: "the file's schema version",
  kind: "what the file is",
  shard: "the shard this run is (`index` of `count`), null for an unsharded run",
};

export const BENCH_TASK_FIELDS: Readonly<Record<string, string>> = {
  program: "the QuixBugs program",
  condition:
    "A one-shot, no tools; B agent, cannot run tests; C agent with test feedback; D C, and only passing tests end the task",
  outcome: "the task's headline outcome, from the grade",
  stopReason: "why the agent loop ended",
  "claim.kind": "verified, or how the claim fell short",
  "claim.finalWords": "the reply that made the claim, verbatim (cut at 2000 characters, marked)",
  turns: "model turns used",
  promptTokens: "input tokens over all turns",
  completionTokens: "output tokens over all turns",
  seconds: "the task's wall time",
  "grade.outcome": "passed only when every required case passed",
  "grade.counts": "cases passed, failed, raised, skipped",
  "grade.seconds": "the grading's time",
  "grade.summary": "the grade in one line",
  "grade.reason": "the first failing cases, bounded",
  finalSha256: "sha256 of the file the task left (verify-run rebuilds it and compares)",
  specialCasing: "whether the fix matched literals of the tests (a sign of special-casing)",
  modelRetries: "requests retried after a transient endpoint failure",
  protocolFindings: "replies that held tool calls as text while tools were offered",
};

export const BENCH_RESULTS_FIELDS: Readonly<Record<string, string>> = {
  schema: "the file's schema version",
  manifest: "run.json as it was when the tables were written",
  tasksDone: "task records in the tables",
  tasksExpected: "tasks the run plans",
  pairs: "conditions compared program by program",
  repeats: "per condition, the spread over --repeats",
};

export const BENCH_VERIFICATION_FIELDS: Readonly<Record<string, string>> = {
  schema: "the file's schema version",
  kind: "what the file is",
  verifiedAt: "when verify-run wrote it",
  identical: "tasks whose re-grade equals the record",
  total: "tasks re-graded",
  seconds: "the re-grade's wall time",
  recordedGradingSeconds: "the grading time the run recorded, summed over the tasks",
};

export const BENCH_REGENERATION_FIELDS: Readonly<Record<string, string>> = {
  schema: "the file's schema version",
  kind: "what the file is",
  regeneratedAt: "when verify-run --regenerate wrote it",
  tracesSha256:
    "sha256 over the sorted `path\\0sha256\\n` lines of the traces regenerated (a later edit makes the record stale)",
  backend:
    "what was asked: the endpoint (with the model name sent) or the local engine's model directory (with the checkpoint's name)",
  strict: "whether --strict was given (any difference then made the run EVIDENCE INVALID)",
  compared: "requests sent whose recorded outcome is a model response",
  identical: "of those, the ones whose request and response were identical",
  notCompared: "requests listed but not sent: their recorded outcome is a model error (a timeout, an HTTP error)",
  outcome: "reproduced when every compared response was identical; else not_reproduced (not proof of forgery)",
  seconds: "the regeneration's wall time",
  turns: "one entry per request listed, in run order; both texts only where they differ",
  "turns[].firstDifferenceOffset": "the first differing byte of the compared texts; null when they are identical",
  "turns[].recorded": "the recorded response as compared (bounded); null when identical",
  "turns[].regenerated": "the regenerated response as compared, or the error message (bounded); null when identical",
};
