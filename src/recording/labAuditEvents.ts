// Every event of the Lab audit (audit.jsonl), declared once: event type → TypeBox schema of its
// `data`. The controller loop, the Lab run and the workspace's edit journal write through
// EvidenceLog<LabAuditCatalog> (src/recording/auditRecorder.ts), so a payload that drifts from
// this catalog fails tsc; every reader parses through eventReader(LAB_AUDIT_FORMAT, …), so a record
// that drifts from it is a coded problem. schemas/audit-record.schema.json is generated from it
// (npm run schemas). docs/evidence-format.md describes each event. Data keys are snake_case; the
// two exceptions are recorded as found: run_started.initial_state (the workspace's state view,
// camelCase since format 1) and generation.metadata (the source's own call metadata, kept as-is).
//
// It lives in `recording` because the workspace writes events too (its edit journal) and the
// workspace room is below the controller and the Lab.
import Type, { type Static, type TSchema } from "typebox";
import { FUNCTION_NAMES, MANAGED_FILES, STOP_REASONS } from "../constants/labConstants.ts";
import type { DeepReadonly, EventOf } from "./evidenceEnvelope.ts";

/** The format id of every audit.jsonl record. */
export const LAB_AUDIT_FORMAT = "tca.audit";
/** The versions of the audit format before 2 ("tca.audit/1"): refused with old_format_version. */
export const LAB_AUDIT_OLDER_VERSIONS: readonly number[] = [1];

const closed = { additionalProperties: false } as const;

/** A closed set of strings (a JSON Schema enum). */
// (`readonly [...T]` keeps the literals: with `T extends readonly string[]` the static type widens to string.)
function oneOf<const T extends string[]>(values: readonly [...T]) {
  return Type.Enum(values);
}
function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

const Sha256 = Type.String({ pattern: "^[0-9a-f]{64}$" });
const Version = Type.Integer({ minimum: 0 });
const Count = Type.Integer({ minimum: 0 });
const Ms = Type.Number({ minimum: 0 });
/** An object whose keys are not fixed by this format (a source's metadata, run labels' extras). */
const OpenObject = Type.Record(Type.String(), Type.Unknown());

const StopReasonSchema = oneOf(STOP_REASONS);
const FunctionNameSchema = oneOf(["clamp", "total"] as const satisfies typeof FUNCTION_NAMES);
const ManagedFileSchema = oneOf(MANAGED_FILES);
const ActionNameSchema = oneOf(["read", "replace", "test", "finish"] as const);
const Expressions = Type.Object({ clamp: Type.String(), total: Type.String() }, closed);
const Snapshot = Type.Object({ version: Version, sha256: Sha256 }, closed);

/** The proposal contract's four actions (Part 5), as validated and dispatched. */
export const ActionSchema = Type.Union([
  Type.Object({ action: Type.Literal("read"), file: ManagedFileSchema }, closed),
  Type.Object(
    {
      action: Type.Literal("replace"),
      function: FunctionNameSchema,
      old: Type.String(),
      new: Type.String(),
      version: Version,
    },
    closed,
  ),
  Type.Object({ action: Type.Literal("test") }, closed),
  Type.Object({ action: Type.Literal("finish"), version: Version }, closed),
]);

const ReconcileOutcome = oneOf(["committed", "not_committed", "conflict", "none_pending"] as const);

/** A committed (or unchanged) replace: its observation, and the edit journal's commit record, which adds the intent. */
const REPLACE_OBSERVATION_FIELDS = {
  ok: Type.Literal(true),
  action: Type.Literal("replace"),
  status: oneOf(["edit_committed", "no_change"] as const),
  function: FunctionNameSchema,
  old_version: Version,
  version: Version,
  sha256: Sha256,
  expressions: Expressions,
};

/** Every observation the controller records and shows the agent (src/workspace/observation.ts and the controller's own). */
export const ObservationSchema = Type.Union([
  Type.Object(
    {
      ok: Type.Literal(true),
      action: Type.Literal("read"),
      file: ManagedFileSchema,
      version: Version,
      sha256: Sha256,
      content: Type.String(),
      expressions: Type.Optional(Expressions),
    },
    closed,
  ),
  Type.Object(REPLACE_OBSERVATION_FIELDS, closed),
  Type.Object(
    {
      ok: Type.Literal(true),
      action: Type.Literal("test"),
      version: Version,
      sha256: Sha256,
      passed: Count,
      total: Count,
      cases: Type.Array(
        Type.Union([
          Type.Object(
            {
              function: FunctionNameSchema,
              inputs: Type.Array(Type.Integer()),
              expected: Type.Integer(),
              actual: Type.Integer(),
            },
            closed,
          ),
          Type.Object(
            {
              function: FunctionNameSchema,
              inputs: Type.Array(Type.Integer()),
              expected: Type.Integer(),
              error: Type.String(),
            },
            closed,
          ),
        ]),
      ),
    },
    closed,
  ),
  Type.Object(
    {
      ok: Type.Literal(true),
      action: Type.Literal("finish"),
      status: Type.Literal("finish_accepted"),
      version: Version,
      sha256: Sha256,
    },
    closed,
  ),
  Type.Object(
    {
      ok: Type.Literal(false),
      /** The attempted action when it could be parsed, else null. */
      action: nullable(ActionNameSchema),
      error: Type.String(),
      message: Type.String(),
      version: Version,
      /** An interrupted edit after reconciliation: what the bytes showed. */
      reconciled: Type.Optional(ReconcileOutcome),
      expressions: Type.Optional(Expressions),
    },
    closed,
  ),
]);
/** Every observation the controller records and shows the agent, exactly (the controller's Observation). */
export type RecordedObservation = DeepReadonly<Static<typeof ObservationSchema>>;

const ChatMessageSchema = Type.Object({ role: oneOf(["system", "user"] as const), content: Type.String() }, closed);

/** Where a run stopped, when the stop record says (the loop's and the Lab run's own stops). */
const StopAt = oneOf([
  "before_request",
  "request_assembly",
  "after_request_assembly",
  "generation",
  "after_generation",
  "integrity_check",
  "before_dispatch",
  "dispatch",
  "manifest",
  "source_load",
] as const);

const Diagnostic = { error_name: Type.String(), error_message: Type.String() };
const EditIntentFields = {
  intent_id: Type.String(),
  function: FunctionNameSchema,
  old_version: Version,
  new_version: Version,
  before_sha256: Sha256,
  after_sha256: Sha256,
  expressions_before: Expressions,
  expressions_after: Expressions,
  backup_file: Type.String(),
  temp_file: Type.String(),
};

/** The run kinds the Lab records (run_started.run_kind, labels.kind). */
export const LAB_RUN_KINDS = [
  "scripted_baseline",
  "negative_check",
  "model_trial",
  "extension",
  "synthetic_pipeline_check",
  /** A trial on the rehearsal checkpoint (trained in-project); older runs recorded it as synthetic_pipeline_check. */
  "rehearsal_trial",
] as const;

/** The Lab audit's events. */
export const LAB_AUDIT_EVENTS = {
  // ---- the controller loop (src/controller/controllerLoop.ts)
  stop: Type.Object(
    {
      stop_reason: StopReasonSchema,
      at: Type.Optional(StopAt),
      /** script_exhausted: how many proposals the script had. */
      proposals_scripted: Type.Optional(Count),
      /** observation_limit: the event id of the observation that did not fit. */
      observation_event_id: Type.Optional(Type.Integer({ minimum: 1 })),
    },
    closed,
  ),
  /** A check's planted observation (the injection check): shaped like any observation, never a tool's. */
  synthetic_observation_injected: Type.Object({ observation: ObservationSchema }, closed),
  context_limit: Type.Object(
    { input_tokens: Type.Integer(), omitted_event_ids: Type.Array(Type.Integer({ minimum: 1 })) },
    closed,
  ),
  request: Type.Object(
    {
      messages: Type.Array(ChatMessageSchema, { minItems: 2 }),
      input_tokens: nullable(Type.Integer()),
      omitted_event_ids: Type.Array(Type.Integer({ minimum: 1 })),
      call_deadline_ms: Type.Number(),
    },
    closed,
  ),
  late_proposal_discarded: Type.Object(
    {
      kind: oneOf(["text", "context_limit", "model_error", "time_limit", "cancelled", "late_error"] as const),
      raw_text: nullable(Type.String()),
    },
    closed,
  ),
  generation: Type.Object(
    {
      outcome: oneOf(["text", "context_limit", "model_error", "time_limit", "cancelled"] as const),
      raw_text: nullable(Type.String()),
      message: nullable(Type.String()),
      metadata: OpenObject,
      elapsed_ms: Ms,
    },
    closed,
  ),
  proposal_discarded: Type.Object(
    {
      reason: oneOf(["cancelled", "time_limit"] as const),
      at: oneOf(["after_generation", "before_dispatch"] as const),
    },
    closed,
  ),
  validation: Type.Union([
    Type.Object({ ok: Type.Literal(true), action: ActionSchema }, closed),
    Type.Object(
      {
        ok: Type.Literal(false),
        error: Type.String(),
        message: Type.String(),
        attempted_action: nullable(ActionNameSchema),
      },
      closed,
    ),
  ]),
  integrity_check: Type.Union([
    Type.Object({ ok: Type.Literal(true), at: Type.Literal("before_dispatch") }, closed),
    Type.Object({ ok: Type.Literal(false), at: Type.Literal("before_dispatch"), message: Type.String() }, closed),
  ]),
  authorization: Type.Union([
    Type.Object({ allowed: Type.Literal(true) }, closed),
    Type.Object({ allowed: Type.Literal(false), error: Type.String(), message: Type.String() }, closed),
  ]),
  dispatch: Type.Object({ action: ActionSchema }, closed),
  observation: Type.Object({ observation: ObservationSchema }, closed),
  tool_result: Type.Object({ ok: Type.Literal(false), error: nullable(Type.String()) }, closed),

  // ---- the Lab run (src/lab/labRun.ts)
  source_load: Type.Object(
    {
      ok: Type.Boolean(),
      error: nullable(oneOf(["model_error", "time_limit", "cancelled"] as const)),
      message: nullable(Type.String()),
      elapsed_ms: Ms,
    },
    closed,
  ),
  run_started: Type.Object(
    {
      run_kind: oneOf(LAB_RUN_KINDS),
      /** The run's labels (kind, scripted, …, plus a rehearsal's extras), the same as manifest.json's and final.json's. */
      labels: OpenObject,
      initial_state: Type.Object(
        { version: Version, sourceSha256: Sha256, taskSha256: Sha256, expressions: Expressions },
        closed,
      ),
      overall_deadline_ms: Type.Number(),
    },
    closed,
  ),
  harness_error: Type.Union([
    Type.Object(
      {
        at: oneOf(["manifest", "audit_identity", "before_final", "final"] as const),
        error: Type.String(),
        message: Type.String(),
      },
      closed,
    ),
    Type.Object({ at: Type.Literal("final_evaluation"), ...Diagnostic }, closed),
    Type.Object(Diagnostic, closed),
  ]),
  source_close_failed: Type.Object(Diagnostic, closed),
  final_evaluation: Type.Object(
    {
      status: Type.String(),
      snapshot: nullable(Snapshot),
      public_passed: Count,
      held_out_passed: Count,
      verified_success: Type.Boolean(),
    },
    closed,
  ),
  process_watch: Type.Object(
    {
      watched: Type.Array(Type.String()),
      processes_started: Count,
      threads_started: Count,
      native_addons_loaded: Count,
      calls: Type.Array(Type.String()),
    },
    closed,
  ),
  run_finished: Type.Object({ stop_reason: StopReasonSchema, verified_success: Type.Boolean() }, closed),

  // ---- the workspace's edit journal (src/workspace/editJournal.ts, through auditEditJournal)
  edit_intent: Type.Object(EditIntentFields, closed),
  edit_committed: Type.Object({ intent_id: Type.String(), ...REPLACE_OBSERVATION_FIELDS }, closed),
  edit_aborted: Type.Object({ intent_id: Type.String(), reason: Type.String(), version: Version }, closed),
  edit_reconciled: Type.Union([
    Type.Object({ intent_id: Type.String(), outcome: Type.Literal("conflict"), version: Version }, closed),
    Type.Object(
      {
        intent_id: Type.String(),
        outcome: oneOf(["committed", "not_committed"] as const),
        version: Version,
        sha256: Sha256,
        expressions: Expressions,
      },
      closed,
    ),
  ]),
  edit_interrupted: Type.Object({ intent_id: Type.String(), diagnostic: Type.String() }, closed),
} as const;

export type LabAuditCatalog = typeof LAB_AUDIT_EVENTS;
export type LabAuditEventType = keyof LabAuditCatalog & string;
/** One record of audit.jsonl, narrowed by `type`. */
export type LabAuditRecord = EventOf<LabAuditCatalog>;
/** The record of one event type. */
export type LabAuditRecordOf<K extends LabAuditEventType> = Extract<LabAuditRecord, { type: K }>;
/** The edit journal's five events (written by the workspace). */
export type EditJournalEventType =
  "edit_intent" | "edit_committed" | "edit_aborted" | "edit_interrupted" | "edit_reconciled";
