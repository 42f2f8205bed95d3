// What each Lab audit event and its fields mean, for docs/evidence-format.md. Kept here, beside the
// generator, rather than as `description` annotations in src/recording/labAuditEvents.ts, so the catalog
// stays the writer's and reader's definition only. Typed by the catalog: an event added to or removed
// from LAB_AUDIT_EVENTS without its meaning here fails tsc, and test/docs/evidenceFormatDoc.test.ts fails
// when a field named here is no longer in the event's data.
import type { LabAuditEventType } from "../../src/recording/labAuditEvents.ts";

export interface EventDescription {
  /** When the event is written and what it says. */
  readonly meaning: string;
  /** Field path (as in the table: `initial_state.version`, `cases[].set`) → meaning. */
  readonly fields?: Readonly<Record<string, string>>;
}

export const LAB_AUDIT_DESCRIPTIONS: Readonly<Record<LabAuditEventType, EventDescription>> = {
  stop: {
    meaning:
      "The loop (or the Lab run) stopped. Exactly one per run, before final_evaluation. `proposal` is the proposal that " +
      "caused the stop, null when the stop came between proposals.",
    fields: {
      stop_reason: "why the run stopped: termination only, never correctness",
      at: "where the stop was decided, when not at the end of a proposal",
      proposals_scripted: "script_exhausted only: how many proposals the script had",
      observation_event_id: "observation_limit only: the event id of the observation that did not fit",
    },
  },
  synthetic_observation_injected: {
    meaning:
      "A negative check injected a synthetic observation into the log the next request shows; it changes no " +
      "controller state.",
    fields: { observation: "the injected observation, as given by the check" },
  },
  context_limit: {
    meaning: "The essential input of the next request does not fit the context: the run stops before generating.",
    fields: {
      input_tokens: "the input tokens the request would need",
      omitted_event_ids: "event ids of observations left out by compaction",
    },
  },
  request: {
    meaning: "The exact messages sent to the proposal source for this proposal. Every attempt counts as a proposal.",
    fields: {
      messages: "the chat messages, system first",
      "messages[].role": "system or user",
      "messages[].content": "the message text exactly as sent",
      input_tokens: "input tokens counted after the chat template; null when the source counts none",
      omitted_event_ids: "event ids of observations left out of this request by compaction",
      call_deadline_ms: "the monotonic time (ms, the writer's clock) by which the source must answer",
    },
  },
  late_proposal_discarded: {
    meaning: "The source answered after its call deadline; what it said is kept and never used.",
    fields: {
      kind: "what the late answer was",
      raw_text: "the late text, when it was text",
    },
  },
  generation: {
    meaning: "What the source returned for this proposal, unparsed.",
    fields: {
      outcome: "text, or why there is none (the run then stops with that reason)",
      raw_text: "the model's text exactly as returned (outcome text only)",
      message: "a model_error's bounded message",
      metadata: "the source's own call metadata (tokens, timings), kept as given",
      elapsed_ms: "how long the call took",
    },
  },
  proposal_discarded: {
    meaning: "A proposal was generated but the deadline passed or the run was cancelled before it could be used.",
    fields: { reason: "time_limit or cancelled", at: "after generation, or just before dispatch" },
  },
  validation: {
    meaning: "The proposal text checked against the closed action contract (strict JSON, exact keys, no extras).",
    fields: {
      ok: "whether the text is one valid action",
      action: "the validated action",
      error: "the contract's error code",
      message: "a short message for the model",
      attempted_action: "the action name the text tried, when it could be read",
    },
  },
  integrity_check: {
    meaning: "Before dispatching a valid action, the managed files were checked against the controller's state.",
    fields: {
      ok: "whether the managed files are still the controller's",
      at: "when the check was made",
      message: "what changed outside the controller (logical names only)",
    },
  },
  authorization: {
    meaning:
      "The controller's decision on a valid action (read before edit, current version, passing test before finish).",
    fields: {
      allowed: "whether the action may run",
      error: "the refusal's code",
      message: "the refusal, for the model",
    },
  },
  dispatch: {
    meaning: "An authorized action is being executed against the workspace.",
    fields: { action: "the action dispatched" },
  },
  observation: {
    meaning: "What the agent is shown after this proposal: a tool's result or a refusal (bounded in size).",
    fields: { observation: "the observation, as it enters the next request" },
  },
  tool_result: {
    meaning: "A dispatched tool refused (wrong old expression, forbidden new expression, stale version).",
    fields: { error: "the tool's error code" },
  },
  source_load: {
    meaning: "Loading a model source (model trials): once, before the manifest, inside the run's deadline.",
    fields: {
      ok: "whether the source loaded",
      error: "why it did not",
      message: "a bounded message",
      elapsed_ms: "how long loading took",
    },
  },
  run_started: {
    meaning: "The run began: its kind, labels, the fresh workspace's state and the overall deadline.",
    fields: {
      run_kind:
        "the run's kind (the same as labels.kind). A trial on the rehearsal checkpoint is `rehearsal_trial`; a version-2 run written before that word existed recorded it as `synthetic_pipeline_check` with labels.rehearsal true, and is read as the same kind (a rehearsal) with a note in the verdict, not refused: the checkpoint check is the same (its own rehearsal manifest), only the word changed, and refusing would strand finished rehearsals with no way to rewrite them",
      initial_state: "the fresh workspace: version 0 and its digests and expressions (camelCase since format 1)",
      "initial_state.version": "the workspace version (0 when fresh)",
      "initial_state.sourceSha256": "sha256 of toy_math.py",
      "initial_state.taskSha256": "sha256 of TASK.txt",
      "initial_state.expressions": "the two functions' current expressions",
      overall_deadline_ms: "the monotonic time (ms, the writer's clock) at which the run's budget ends",
    },
  },
  harness_error: {
    meaning:
      "A fault of the harness, not of the proposal: an unexpected exception, an evidence file replaced or already " +
      "present, a failed final evaluation. The run ends as harness_error and can never be a success.",
    fields: {
      at: "where the fault happened",
      error: "the fault's code",
      message: "a bounded message",
      error_name: "the exception's class name",
      error_message: "the exception's bounded message",
    },
  },
  source_close_failed: {
    meaning: "The proposal source could not be closed (a worker that will not exit). Changes no result.",
  },
  final_evaluation: {
    meaning:
      "The independent final evaluation of the accepted snapshot on all twelve cases (final.json has the cases).",
    fields: {
      status: "completed, or why the evaluation did not run to the end",
      snapshot: "the (version, sha256) evaluated; null when there was none",
      public_passed: "public cases passed (of 4)",
      held_out_passed: "held-out cases passed (of 8)",
      verified_success: "accepted finish, twelve of twelve, no source change detected",
    },
  },
  process_watch: {
    meaning: "Scripted runs: how many processes, threads and native add-ons were started while the run was watched.",
    fields: {
      watched: "the functions watched",
      calls: "the first calls seen, as function name and the command's base name",
    },
  },
  run_finished: {
    meaning: "The last record of every run, after final.json was written.",
    fields: { stop_reason: "as in final.json", verified_success: "as in final.json" },
  },
  edit_intent: {
    meaning:
      "The workspace's edit journal: a replace is about to be committed (backup written, temporary file ready). " +
      "With edit_committed, edit_aborted or edit_reconciled it makes every edit recoverable.",
    fields: {
      intent_id: "ties the intent to its outcome record",
      backup_file: "the backup's name under backups/",
      temp_file: "the temporary file's name in the workspace",
    },
  },
  edit_committed: {
    meaning: "The edit of an intent was committed (renamed into place): the new version and its digest.",
  },
  edit_aborted: {
    meaning: "The edit of an intent was not committed; the file is unchanged.",
    fields: { reason: "why it was aborted" },
  },
  edit_reconciled: {
    meaning: "After an interruption, the bytes on disk decided the intent's outcome.",
    fields: { outcome: "committed, not_committed, or conflict (neither the old nor the new bytes)" },
  },
  edit_interrupted: {
    meaning: "The edit of an intent was interrupted before its outcome was known; reconciliation follows.",
    fields: { diagnostic: "a bounded diagnostic" },
  },
};

/** The shared types of the Lab audit: printed once, linked from every field that has them. */
export const LAB_ACTION_DESCRIPTION = {
  meaning:
    "One action of the closed proposal contract (Part 5), as validated and dispatched (docs/proposal-contract.md). " +
    "The shape is known from `action`.",
  descriptions: {
    file: "the managed file to read",
    function: "the function whose expression is replaced",
    old: "the exact current expression",
    new: "the replacement expression (the restricted expression language)",
    version: "the workspace version the proposal was made against",
  },
} as const;

export const LAB_OBSERVATION_DESCRIPTION = {
  meaning:
    "What the agent is shown after a proposal (src/workspace/observation.ts and the controller's own refusals). " +
    "The shape is known from `ok` and `action`.",
  descriptions: {
    ok: "whether the action succeeded",
    action: "the action observed (null in a refusal when none could be parsed)",
    version: "the workspace version after the action",
    sha256: "sha256 of toy_math.py at that version",
    content: "the file's text (read)",
    expressions: "the two functions' expressions at that version",
    status: "what the action did",
    old_version: "the version before the edit",
    passed: "public cases passed",
    total: "public cases run",
    cases: "each public case: its inputs, expected value and actual value or error code",
    error: "the refusal's error code",
    message: "the refusal's message, for the model",
    reconciled: "an interrupted edit after reconciliation: what the bytes showed",
  },
} as const;
