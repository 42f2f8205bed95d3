// The JSON files of a bench run folder, declared once in TypeBox: run.json (RunManifest), one task record
// of tasks.ndjson (TaskResult), results.json and verify-run's verification.json. npm run schemas writes
// schemas/bench-*.schema.json from these definitions, docs/evidence-format.md's tables are generated from
// them, and test/bench/runFileSchemas.test.ts holds a real bench run's files to them and checks, for
// tsc, that each static type and the writer's own type are the same type (a field added to one and not
// the other fails the typecheck). TypeBox for the reason src/recording/evidenceEnvelope.ts gives.
//
// The readers (runDirectory.ts's readManifest and parseTaskResult, the bench verdict) still check only
// the fields they use and keep older runs' records readable; these definitions describe what today's
// writers write, closed where the writer's type is closed. Parts another module fills from outside the
// benchmark's own vocabulary (the server's identity, the recorded environment, the statistics of
// results.json) are open objects here, with the keys the tables read named.
import Type, { type Static, type TSchema } from "typebox";
import { CONDITION_IDS } from "../agent/conditions.ts";
import { STOP_REASONS } from "../agent/agentLoop.ts";
import { CLAIM_KINDS } from "../results/claimAnalysis.ts";
import { STATEMENT_KINDS } from "../results/claimStatements.ts";
import { FIX_SIZE_KINDS } from "../results/fixSize.ts";
import { FIXED_MEANS, OUTCOME_CLASSES } from "../results/taskOutcome.ts";
import { RUN_SCHEMA_VERSION } from "./runDirectory.ts";

const closed = { additionalProperties: false } as const;
const open = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });
function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
const Sha256 = Type.String({ pattern: "^[0-9a-f]{64}$" });
const Count = Type.Integer({ minimum: 0 });
const Seconds = Type.Number({ minimum: 0 });
const Timestamp = Type.String({ format: "date-time" });

/** run.json: the run's manifest, rewritten when --resume continues the run (runDirectory.ts writeManifest). */
export const RunJsonSchema = Type.Object(
  {
    schema: Type.Literal(RUN_SCHEMA_VERSION),
    kind: Type.Literal("quixbugs-run"),
    createdAt: Type.String({ format: "date-time", description: "when the run first started (kept by --resume)" }),
    fingerprint: open(
      "what --resume and merge require to match: model, promptSetVersion, promptHashes, budget, testTimeoutMs, " +
        "includeSlow, and temperature, thinking, taskset when set",
    ),
    model: open("the model and server identity: backend, endpoint, sampling, /v1/models, /props, label, synthetic"),
    conditions: Type.Array(Type.Enum(CONDITION_IDS), { description: "every condition the run holds" }),
    programs: Type.Array(Type.String(), { description: "every program the run holds" }),
    shard: nullable(
      Type.Object(
        {
          index: Count,
          count: Type.Integer({ minimum: 1 }),
          from: Type.Optional(Type.String({ description: "where the index came from (--shard, Kubernetes, Slurm)" })),
        },
        closed,
      ),
    ),
    repeats: Type.Optional(
      Type.Integer({ minimum: 1, description: "--repeats k (absent in runs that never used it: 1)" }),
    ),
    environment: open("data set, Python and pytest, sandbox limits, hardware, data set check"),
    mergedFrom: Type.Optional(Type.Array(Type.String(), { description: "the runs a merge was made from" })),
    resumedAt: Type.Optional(Type.Array(Timestamp, { description: "each time --resume continued this run" })),
    dataset: Type.Optional(
      Type.Object(
        {
          root: Type.String({ description: "the data set folder the run read (absolute)" }),
          relativeToRun: Type.String({ description: "the same folder, relative to the run folder" }),
          sha256: Type.String({ pattern: "^[0-9a-f]{64}$", description: "sha256 of the canonical JSON of programs" }),
          programs: Type.Record(Type.String(), Sha256, {
            description: "every program of the data set and its digest (programDigest)",
          }),
        },
        { ...closed, description: "the data set's identity (absent in runs made before it was recorded)" },
      ),
    ),
  },
  closed,
);
export type RunJson = Static<typeof RunJsonSchema>;

const GradeSchema = Type.Object(
  {
    outcome: Type.Enum(["passed", "failed", "timeout", "error"] as const),
    counts: Type.Object({ passed: Count, failed: Count, errors: Count, skipped: Count }, closed),
    seconds: Seconds,
    summary: Type.String(),
    grader: Type.Optional(Type.String({ description: "the trusted grader's id" })),
    reason: Type.Optional(nullable(Type.String())),
    fixedPublic: Type.Optional(Type.Boolean({ description: "every public case passes" })),
    fixedWithHeldOut: Type.Optional(
      nullable(Type.Boolean({ description: "every public and held-out case passes; null: no held-out cases" })),
    ),
    heldOut: Type.Optional(
      nullable(Type.Object({ seed: Type.Integer(), passed: Count, total: Count, dropped: Count }, closed)),
    ),
    excluded: Type.Optional(Type.Array(Type.String(), { description: "cases not run, with why" })),
  },
  { ...closed, description: "the trusted grader's grade of the file the task left" },
);

const GuardrailsSchema = Type.Object(
  {
    testRuns: Count,
    blockedWrites: Count,
    blockedReads: Count,
    testEditAttempts: Count,
    referenceReadAttempts: Count,
    toolErrors: Count,
    refusedStopAttempts: Count,
  },
  { ...closed, description: "what the guardrails counted in the task" },
);

const StatementsSchema = Type.Object(
  Object.fromEntries(STATEMENT_KINDS.map((kind) => [kind, Type.Boolean()])) as Record<
    (typeof STATEMENT_KINDS)[number],
    ReturnType<typeof Type.Boolean>
  >,
  { ...closed, description: "the document's along-the-way statements the task made" },
);

/** One record of tasks.ndjson: a finished task (runDirectory.ts appendTaskResult). */
export const TaskRecordSchema = Type.Object(
  {
    taskId: Type.String({ description: "`<condition>-<program>`" }),
    program: Type.String(),
    condition: Type.Enum(CONDITION_IDS),
    outcome: Type.Enum(OUTCOME_CLASSES),
    stopReason: Type.Enum(STOP_REASONS),
    claimedFixed: Type.Boolean({ description: "the agent ended the task by saying it was done" }),
    falseFixed: Type.Boolean({ description: "claimed, and a public case fails" }),
    fixedMeans: Type.Optional(Type.Literal(FIXED_MEANS, { description: "what `fixed` means in this record" })),
    falseFixedHeldOut: Type.Optional(
      Type.Boolean({ description: "claimed, public cases pass, a held-out case fails" }),
    ),
    claim: Type.Optional(
      nullable(
        Type.Object(
          { kind: Type.Enum(CLAIM_KINDS), finalWords: Type.String() },
          {
            ...closed,
            description: "how the agent's done stood against its own test runs; null: no claim",
          },
        ),
      ),
    ),
    statements: Type.Optional(StatementsSchema),
    fixSize: Type.Optional(
      nullable(
        Type.Object(
          { linesChanged: Count, kind: Type.Enum(FIX_SIZE_KINDS) },
          {
            ...closed,
            description: "the change's size against the buggy line; null: the file is unchanged",
          },
        ),
      ),
    ),
    turns: Count,
    promptTokens: Count,
    completionTokens: Count,
    tokens: Type.Integer({ minimum: 0, description: "promptTokens + completionTokens over all turns" }),
    usageReported: Type.Boolean({ description: "the server reported the token usage" }),
    seconds: Seconds,
    guardrails: GuardrailsSchema,
    grade: GradeSchema,
    changed: Type.Boolean({ description: "the task left a file different from the buggy program" }),
    finalSha256: Sha256,
    specialCasing: nullable(
      Type.Object({ suspicious: Type.Boolean(), matchedLiterals: Type.Array(Type.String()) }, closed),
    ),
    servedModel: nullable(Type.String({ description: "the model the server said it served" })),
    modelRetries: Type.Optional(Count),
    protocolFindings: Type.Optional(Count),
    attempt: Type.Optional(
      Type.Integer({ minimum: 1, description: "1, or the next number when --resume redid the task" }),
    ),
    repeat: Type.Optional(Type.Integer({ minimum: 1, description: "which of --repeats k runs this is" })),
    tracePath: Type.Optional(Type.String({ description: "the trace, relative to the run folder" })),
    diffPath: Type.Optional(Type.String({ description: "the diff, relative to the run folder" })),
  },
  closed,
);
export type TaskRecord = Static<typeof TaskRecordSchema>;

/** results.json: rewritten after every task (runDirectory.ts writeResults). */
export const ResultsJsonSchema = Type.Object(
  {
    schema: Type.Literal(RUN_SCHEMA_VERSION),
    manifest: RunJsonSchema,
    complete: Type.Boolean({ description: "every planned task has a record" }),
    tasksDone: Count,
    tasksExpected: Count,
    warnings: Type.Array(Type.String(), { description: "what the endpoint's answers warn of" }),
    summary: Type.Array(open("one condition's table row (src/bench/results/resultsSummary.ts)"), {
      description: "per condition: tasks, fixed and its rate with a 95% interval, outcomes, claims, guardrails",
    }),
    findings: Type.Array(open("one condition's findings (src/bench/results/claimFindings.ts)"), {
      description: "per condition: held-out beside fixed, the false-fixed split, the claim breakdown",
    }),
    pairs: Type.Array(open("two conditions compared program by program (src/bench/results/pairedStatistics.ts)")),
    repeats: Type.Array(open("one condition's spread over repeats (src/bench/results/repeatStatistics.ts)")),
    tasks: Type.Array(TaskRecordSchema, { description: "each task's latest record, sorted by task id and repeat" }),
  },
  closed,
);
export type ResultsJson = Static<typeof ResultsJsonSchema>;

/** verification.json: verify-run's re-grade, tied to the tasks.ndjson it re-graded (runRegrade.ts writeVerification). */
export const VerificationJsonSchema = Type.Object(
  {
    schema: Type.Literal(1),
    kind: Type.Literal("quixbugs-verification"),
    verifiedAt: Timestamp,
    tasksSha256: Type.String({ description: "sha256 of the tasks.ndjson re-graded (empty when it could not be read)" }),
    grader: Type.String({ description: "the grader's id" }),
    dataset: Type.String({ description: "the data set folder re-graded with" }),
    datasetSha256: Sha256,
    datasetChoice: Type.Enum(["recorded", "given, same as recorded", "given, none recorded"] as const, {
      description: "how the data set was chosen: the run's recorded one, or --dataset (checked against it)",
    }),
    identical: Count,
    total: Count,
    seconds: Seconds,
    recordedGradingSeconds: Seconds,
    tasks: Type.Array(
      Type.Object(
        {
          key: Type.String({ description: "the task's key (task id, `.r<k>` for repeats)" }),
          identical: Type.Boolean(),
          differences: Type.Array(Type.String(), {
            description: "`field: recorded …, re-graded …` for each disagreement",
          }),
        },
        closed,
      ),
    ),
  },
  closed,
);
export type VerificationJson = Static<typeof VerificationJsonSchema>;

/** A text a record keeps: its first 4,096 characters, marked when cut (src/core/responseComparison.ts). */
const BoundedTextSchema = Type.Object({ text: nullable(Type.String()), truncated: Type.Boolean() }, closed);

/**
 * regeneration.json: verify-run --regenerate's re-asking of the model (src/bench/runRegeneration.ts), tied
 * to the tasks.ndjson and traces it re-asked. A record: the report shows it with its time, never as its own finding.
 */
export const BenchRegenerationJsonSchema = Type.Object(
  {
    schema: Type.Literal(1),
    kind: Type.Literal("quixbugs-regeneration"),
    regeneratedAt: Timestamp,
    tasksSha256: Type.String({ description: "sha256 of the tasks.ndjson whose run was regenerated" }),
    tracesSha256: Sha256,
    backend: Type.Object(
      {
        kind: Type.Enum(["openai-compatible", "local-engine"] as const),
        endpoint: nullable(Type.String({ description: "--endpoint, for an OpenAI-compatible server" })),
        modelDirectory: nullable(Type.String({ description: "--model-directory, for the local engine" })),
        model: Type.String({ description: "the model name sent (endpoint) or the loaded checkpoint's name" }),
        syntheticLabel: nullable(
          Type.String({ description: "rehearsal or synthetic-pipeline-check for a synthetic checkpoint; else null" }),
        ),
      },
      closed,
    ),
    normalization: Type.String({ description: "what a response goes through before the byte comparison" }),
    strict: Type.Boolean(),
    sample: nullable(
      Type.Object(
        { size: Count, of: Count, rule: Type.String({ description: "how the sample is chosen" }) },
        { ...closed, description: "--sample N: which requests were sent; null when every one was" },
      ),
    ),
    compared: Count,
    identical: Count,
    notCompared: Count,
    outcome: Type.Enum(["reproduced", "not_reproduced"] as const),
    seconds: Seconds,
    turns: Type.Array(
      Type.Object(
        {
          task: Type.String({ description: "the task's key (task id, `.r<k>` for repeats)" }),
          turn: Type.Integer({ minimum: 1 }),
          recordedOutcome: Type.String({ description: "response, or the model error the run recorded" }),
          regeneratedOutcome: Type.String({ description: "response, an error code, or not_asked" }),
          compared: Type.Boolean(),
          identical: Type.Boolean(),
          requestIdentical: nullable(
            Type.Boolean({
              description: "the request sent equals the recorded exchange's request; null when not sent",
            }),
          ),
          firstDifferenceOffset: nullable(Count),
          recorded: nullable(BoundedTextSchema),
          regenerated: nullable(BoundedTextSchema),
        },
        closed,
      ),
    ),
  },
  closed,
);
export type BenchRegenerationJson = Static<typeof BenchRegenerationJsonSchema>;
