// The agent's events of a task trace (traces/<task>.ndjson), declared once: event type → TypeBox
// schema of its `data` (the envelope: src/recording/evidenceEnvelope.ts). The agent loop and its
// tools write through TraceSink (taskTrace.ts: EvidenceLog's typed append), so a payload that drifts from
// this catalog fails tsc; the one reader (src/bench/runs/benchTrace.ts) parses every record through
// it, so a record that drifts from it is a coded problem. The task runner's own events (grade, diff,
// task_end) are declared beside the results they carry (src/bench/runs/traceResultEvents.ts): this
// room may not import the grader or the tables.
//
// Data keys are camelCase, as the trace has had them since format 1 (the task record, which
// task_end carries whole, is camelCase too); they keep their names. What moved: the model turn an
// event belongs to is the envelope's `proposal` (1-based), no longer a `turn` key in the data.
import Type, { type Static, type TSchema } from "typebox";
import type { EventOf } from "../../recording/evidenceEnvelope.ts";

const closed = { additionalProperties: false } as const;
/** An array the writer may hand over read-only (the JSON Schema is a plain array). */
function list<T extends TSchema>(items: T) {
  return Type.Immutable(Type.Array(items));
}
const Count = Type.Integer({ minimum: 0 });
const Seconds = Type.Number({ minimum: 0 });
const Sha256 = Type.String({ pattern: "^[0-9a-f]{64}$" });
function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** What the run's labels were when the task started (src/bench/runs/runDirectory.ts runBinding). */
export const RunBindingSchema = Type.Object(
  {
    fingerprintSha256: Sha256,
    label: nullable(Type.String()),
    pipelineCheck: Type.Boolean(),
    conditions: list(Type.String()),
    programs: list(Type.String()),
    repeats: Type.Integer({ minimum: 1 }),
    shard: nullable(Type.String()),
  },
  closed,
);

/** The raw model exchange, kept verbatim: request and response bodies are the endpoint's or engine's own. */
const ExchangeSchema = Type.Object(
  {
    request: Type.Unknown(),
    response: Type.Unknown(),
    httpStatus: nullable(Type.Integer()),
    elapsedMs: Type.Number({ minimum: 0 }),
    retries: Type.Optional(
      list(Type.Object({ status: nullable(Type.Integer()), waitMs: Type.Number({ minimum: 0 }) }, closed)),
    ),
  },
  closed,
);

const TestCountsSchema = Type.Object({ passed: Count, failed: Count, errors: Count, skipped: Count }, closed);
const TestOutcomeSchema = Type.Enum(["passed", "failed", "timeout", "error"] as const);

export const AGENT_TRACE_EVENTS = {
  task_start: Type.Object(
    {
      taskId: Type.String(),
      program: Type.String(),
      condition: Type.String(),
      budget: Type.Object(
        { maxTurns: Count, maxTokensPerTurn: Count, taskTimeoutMs: Type.Number({ minimum: 0 }) },
        closed,
      ),
      target: Type.String(),
      originalSha256: Sha256,
      programSha256: Sha256,
      /** The buggy file itself, bound by originalSha256: where the bench replay starts. */
      original: Type.String(),
      /** The files the tool policy lets C and D read, path → SHA-256: the replay authorizes reads against them. */
      testFiles: Type.Record(Type.String(), Sha256),
      /** Absent only where a task ran outside a run directory (tests of one task). */
      run: Type.Optional(RunBindingSchema),
      tools: list(Type.String()),
      attempt: Type.Integer({ minimum: 1 }),
      repeat: Type.Integer({ minimum: 1 }),
      seed: Type.Optional(Type.Integer()),
      /** The held-out grading inputs' seed this task is graded with (absent where held-out grading is off). */
      heldOutSeed: Type.Optional(Type.Integer()),
    },
    closed,
  ),
  model_request: Type.Object(
    {
      messages: Count,
      /** Each message's SHA-256 of its canonical JSON (harnessDecisions.ts messageSha256), in order. */
      messageSha256s: list(Sha256),
      /** The request's SHA-256 over those digests, the tools, the token limit and the seed (requestSha256). */
      requestSha256: Sha256,
    },
    closed,
  ),
  model_error: Type.Object(
    { error: Type.String(), message: Type.String(), exchange: ExchangeSchema, retries: Count },
    closed,
  ),
  model_response: Type.Object(
    {
      content: Type.String(),
      toolCalls: list(Type.Object({ id: Type.String(), name: Type.String(), argumentsText: Type.String() }, closed)),
      finishReason: nullable(Type.String()),
      usage: Type.Object(
        {
          promptTokens: nullable(Count),
          completionTokens: nullable(Count),
          source: Type.Enum(["server", "none", "local"] as const),
        },
        closed,
      ),
      servedModel: nullable(Type.String()),
      exchange: ExchangeSchema,
    },
    closed,
  ),
  /** The model asked to stop (or condition A answered); `accepted` is the harness's decision. */
  stop_attempt: Type.Object(
    {
      accepted: Type.Boolean(),
      /** Condition A: whether the answer held a code block. */
      codeBlock: Type.Optional(Type.Boolean()),
      truncated: Type.Optional(Type.Boolean()),
      malformedToolCall: Type.Optional(Type.Literal(true)),
      /** Condition D: the harness's refusal, as sent to the model. */
      refusal: Type.Optional(Type.String()),
    },
    closed,
  ),
  protocol_finding: Type.Object(
    { kind: Type.Enum(["tool_calls_as_text", "malformed_tool_call_text"] as const), blocks: Count },
    closed,
  ),
  tool_call: Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() }, closed),
  tool_error: Type.Object({ id: Type.String(), error: Type.String(), message: Type.Optional(Type.String()) }, closed),
  tool_refused: Type.Object(
    {
      id: Type.String(),
      tool: Type.String(),
      path: nullable(Type.String()),
      error: Type.String(),
      message: Type.String(),
    },
    closed,
  ),
  tool_result: Type.Union([
    Type.Object({ id: Type.String(), tool: Type.Literal("read_file"), path: Type.String(), chars: Count }, closed),
    Type.Object(
      { id: Type.String(), tool: Type.Literal("write_file"), path: Type.String(), chars: Count, sha256: Sha256 },
      closed,
    ),
  ]),
  test_run: Type.Object(
    {
      id: Type.String(),
      purpose: Type.Literal("run_tests"),
      targetSha256: Sha256,
      outcome: TestOutcomeSchema,
      counts: TestCountsSchema,
      seconds: Seconds,
      exitCode: nullable(Type.Integer()),
      output: Type.String(),
      /** The runner's one-line summary, from which the replay rebuilds the model's observation. */
      summary: Type.String(),
      /** The timeout the run had (ms), also part of the observation. */
      timeoutMs: Type.Integer({ minimum: 1 }),
    },
    closed,
  ),
  budget_exhausted: Type.Object(
    { reason: Type.Enum(["turn_budget", "time_budget", "context_limit"] as const), turns: Count },
    closed,
  ),
  task_interrupted: Type.Object(
    { stage: Type.Enum(["agent", "grading"] as const), seconds: Seconds, note: Type.String() },
    closed,
  ),
} as const;

export type AgentTraceCatalog = typeof AGENT_TRACE_EVENTS;
export type AgentTraceEventType = keyof AgentTraceCatalog & string;
/** One agent record of a trace, narrowed by `type`. */
export type AgentTraceRecord = EventOf<AgentTraceCatalog>;
export type TraceRunBinding = Static<typeof RunBindingSchema>;
