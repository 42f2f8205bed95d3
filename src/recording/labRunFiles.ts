// manifest.json and final.json of one Lab run, declared once in TypeBox: the writer (src/lab/labRun.ts)
// builds its values as these static types, so a field that drifts fails tsc; the verdict validates both
// files against schemas/manifest.schema.json and final.schema.json, which npm run schemas generates from
// these same definitions (test/docs/schemasGenerated.test.ts fails when a committed file differs), and
// docs/evidence-format.md describes them. TypeBox for the same reason as the audit catalog
// (src/recording/evidenceEnvelope.ts): one definition, the static type and a plain JSON Schema ajv compiles.
//
// They live in `recording` because the writer (lab) and the reader (verdicts) are in different rooms and
// the reader's room is below the writer's. Where a part of a file is written by another room's own
// describe() (a proposal source's identity, the runtime, a model trial's identity), the schema fixes the
// keys the verdict and the reports read and leaves the rest open, as the hand-kept schemas did.
import Type, { type Static, type TSchema } from "typebox";
import { HELD_OUT_FIXTURES, PUBLIC_FIXTURES, STOP_REASONS } from "../constants/labConstants.ts";
import { LAB_RUN_KINDS } from "./labAuditEvents.ts";

const closed = { additionalProperties: false } as const;
function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
const Sha256 = Type.String({ pattern: "^[0-9a-f]{64}$" });
const Version = Type.Integer({ minimum: 0 });
const Count = Type.Integer({ minimum: 0 });
const Ms = Type.Number({ minimum: 0 });
/** A count fixed by the Lab (4 public cases, 8 held-out): a number to the writer, the one value to the schema. */
const FixtureCount = (count: number) => Type.Unsafe<number>({ type: "integer", const: count });
const FileIdentity = Type.Object({ bytes: Count, sha256: Sha256 }, closed);

/** The manifest's and final.json's schema ids (unchanged by the audit's format 2: these files kept their shape). */
export const LAB_MANIFEST_SCHEMA_ID = "tca.manifest/1";
export const LAB_FINAL_SCHEMA_ID = "tca.final/1";

/** The run kinds the Lab writes (labels.kind, and the audit's run_started.run_kind). */
const RunKindSchema = Type.Enum(LAB_RUN_KINDS);

/** The labels of a run: the same object in manifest.json, final.json and the audit's run_started. */
export const LabRunLabelsSchema = Type.Object(
  {
    kind: RunKindSchema,
    scripted: Type.Boolean({ description: "a scripted run (baseline or negative check): no model" }),
    synthetic_pipeline_check: Type.Boolean({
      description: "a random-weight checkpoint: a pipeline check, never a model result",
    }),
    model_invoked_expected: Type.Boolean({
      description: "a model is expected to be called (model trial, extension, pipeline check)",
    }),
    checkpoint_label: Type.Optional(
      Type.String({ description: "the synthetic checkpoint's own label (synthetic-pipeline-check or rehearsal)" }),
    ),
    rehearsal: Type.Optional(
      Type.Boolean({ description: "a checkpoint trained in this project: a rehearsal, never a model result" }),
    ),
    tokenizer: Type.Optional(Type.String({ description: "the tokenizer a synthetic checkpoint declares" })),
    stand_in_tokenizer: Type.Optional(Type.Boolean({ description: "the tokenizer is the Qwen2.5 stand-in" })),
  },
  closed,
);

const HarnessVerification = Type.Object(
  {
    current_harness_sha256: Type.Unknown(),
    baseline: Type.Unknown(),
    checks: Type.Unknown(),
    verified_before_loading: Type.Boolean(),
  },
  { description: "the harness verification recorded before the model was loaded" },
);

/** manifest.json's model_trial: what a model trial, extension or pipeline check ran on (src/lab/modelTrial.ts). */
const ModelTrial = Type.Object(
  {
    model_directory: Type.Unknown(),
    synthetic: Type.Unknown(),
    run_consent: Type.Unknown(),
    predictions_choice: Type.Unknown(),
    runtime_lock_file: Type.Unknown(),
    trial_role: Type.Optional(nullable(Type.Enum(["trial", "extension"] as const))),
    trial_ordinal: Type.Optional(nullable(Type.Integer({ minimum: 1 }))),
    declared_change: Type.Optional(nullable(Type.String())),
    earlier_trial_windows: Type.Optional(Type.Array(Type.String())),
    harness_verification: Type.Optional(HarnessVerification),
  },
  {
    description:
      "present for model trials, extensions and synthetic pipeline checks: model directory and manifest, verified file " +
      "hashes, load-time override, run consent, predictions, trial window, runtime lock file, trial role (the first trial " +
      "of the ledger, or an extension with its declared change), acquisition consent, and the harness verification " +
      "recorded before loading",
    // An extension names what it changed (Part 10): a declared change of at least one character.
    allOf: [
      {
        if: { properties: { trial_role: { const: "extension" } }, required: ["trial_role"] },
        then: { properties: { declared_change: { type: "string", minLength: 1 } }, required: ["declared_change"] },
      },
    ],
  },
);

/** manifest.json: what a run was made of, written once before the first proposal. */
export const LabManifestSchema = Type.Object(
  {
    schema: Type.Literal(LAB_MANIFEST_SCHEMA_ID),
    run_id: Type.String({ minLength: 1, description: "the run id every audit record carries" }),
    created_at: Type.String({
      format: "date-time",
      description: "wall-clock time the manifest was written (ISO 8601)",
    }),
    labels: LabRunLabelsSchema,
    proposal_source: Type.Object(
      {
        label: Type.String({ minLength: 1, description: "the proposal-source label every audit record carries" }),
        load_failure: Type.Optional(
          Type.Object(
            { error: Type.Enum(["model_error", "time_limit", "cancelled"] as const), message: Type.String() },
            closed,
          ),
        ),
      },
      { description: "the source's own description (scripted: steps and script hash; a model: its identity)" },
    ),
    runtime: Type.Object(
      {
        node: Type.String(),
        platform: Type.String(),
        arch: Type.String(),
        cpu_model: Type.String(),
        cpu_count: Count,
      },
      { description: "the host and the running code (src/recording/runtimeIdentity.ts)" },
    ),
    prompt: Type.Object({ system_instruction: Type.String(), system_instruction_sha256: Sha256 }, closed),
    contract: Type.Object(
      {
        text: Type.String({ description: "the closed action contract shown to the model" }),
        sha256: Sha256,
        actions: Type.Array(Type.Enum(["read", "replace", "test", "finish"] as const), { minItems: 4, maxItems: 4 }),
      },
      closed,
    ),
    fixtures: Type.Object(
      {
        public_count: FixtureCount(PUBLIC_FIXTURES.length),
        public_sha256: Sha256,
        held_out_count: FixtureCount(HELD_OUT_FIXTURES.length),
        held_out_sha256: Sha256,
      },
      closed,
    ),
    harness: Type.Object(
      {
        aggregate_sha256: Sha256,
        files: Type.Record(Type.String(), Sha256, { description: "path → sha256 of every shipped harness file" }),
      },
      closed,
    ),
    initial_files: Type.Object({ "TASK.txt": FileIdentity, "toy_math.py": FileIdentity }, closed),
    budgets: Type.Object(
      {
        max_proposals: Type.Integer(),
        max_consecutive_invalid: Type.Integer(),
        overall_deadline_ms: Type.Integer(),
        per_call_deadline_ms: Type.Integer(),
        max_input_tokens: Type.Integer(),
        max_new_tokens: Type.Integer(),
        observation_max_bytes: Type.Integer(),
        proposal_max_bytes: Type.Integer(),
      },
      closed,
    ),
    model_trial: Type.Optional(ModelTrial),
  },
  closed,
);
export type LabManifest = Static<typeof LabManifestSchema>;

const CaseSchema = Type.Object(
  {
    set: Type.Enum(["public", "held_out"] as const),
    function: Type.Enum(["clamp", "total"] as const),
    inputs: Type.Array(Type.Integer(), { minItems: 3, maxItems: 3 }),
    expected: Type.Integer(),
    actual: nullable(Type.Integer()),
    error: nullable(Type.String()),
    passed: Type.Boolean(),
  },
  closed,
);

/** final.json: how the run ended and what the independent final evaluation found. */
export const LabFinalSchema = Type.Object(
  {
    schema: Type.Literal(LAB_FINAL_SCHEMA_ID),
    run_id: Type.String({ minLength: 1 }),
    labels: LabRunLabelsSchema,
    stop_reason: Type.Enum(STOP_REASONS, { description: "why the loop stopped (termination, not correctness)" }),
    proposals_used: Type.Integer({ minimum: 0, maximum: 6 }),
    invalid_proposals: Type.Integer({ minimum: 0, maximum: 6 }),
    finish: nullable(Type.Object({ version: Version, sha256: Sha256 }, closed)),
    final_evaluation: Type.Object(
      {
        status: Type.Enum([
          "completed",
          "not_started_deadline",
          "interrupted",
          "workspace_conflict",
          "not_run_harness_error",
        ] as const),
        version: nullable(Version),
        sha256: nullable(Sha256),
        public_passed: Type.Integer({ minimum: 0, maximum: 4 }),
        public_total: FixtureCount(PUBLIC_FIXTURES.length),
        held_out_passed: Type.Integer({ minimum: 0, maximum: 8 }),
        held_out_total: FixtureCount(HELD_OUT_FIXTURES.length),
        cases: Type.Array(CaseSchema, { maxItems: 12 }),
      },
      closed,
    ),
    verified_success: Type.Boolean({
      description:
        "true only for an accepted finish whose (version, sha256) passed all twelve cases with no detected source change",
    }),
    elapsed_ms: Type.Object(
      {
        acquisition: nullable(
          Type.Number({
            minimum: 0,
            description: "model acquisition from the acquisition ledger; null when no acquisition belongs to this run",
          }),
        ),
        load: nullable(
          Type.Number({
            minimum: 0,
            description: "loading the proposal source; null for sources that need no loading",
          }),
        ),
        generation: Ms,
        validation: Ms,
        edit: Ms,
        test: Ms,
        final_evaluation: Ms,
        total: Ms,
      },
      closed,
    ),
    diagnostic: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "bounded trusted diagnostics for harness_error; never shown to a model",
      }),
    ),
  },
  {
    ...closed,
    description:
      "Termination (stop_reason) and final correctness (final_evaluation) are recorded separately. verified_success is " +
      "true only for an accepted finish whose (version, sha256) passed all twelve cases with no detected source change.",
  },
);
export type LabFinal = Static<typeof LabFinalSchema>;
