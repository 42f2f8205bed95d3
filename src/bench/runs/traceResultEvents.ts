// The task runner's events of a task trace (src/bench/taskRunner.ts): the trusted grade, the diff
// of the file the agent left, and the task's result, written after the agent's own events
// (src/bench/agent/traceEvents.ts). Declared here, in the room above the grader and the tables
// whose records they carry. Data keys are camelCase, as the grade and task records are.
import Type, { type TSchema } from "typebox";

const closed = { additionalProperties: false } as const;
/** An array the writer may hand over read-only (the JSON Schema is a plain array). */
function list<T extends TSchema>(items: T) {
  return Type.Immutable(Type.Array(items));
}
const Count = Type.Integer({ minimum: 0 });

/** The grade record (src/bench/grading/gradeRecord.ts) and the grader's full output. */
const GradeEventSchema = Type.Object(
  {
    outcome: Type.Enum(["passed", "failed", "timeout", "error"] as const),
    counts: Type.Object({ passed: Count, failed: Count, errors: Count, skipped: Count }, closed),
    seconds: Type.Number({ minimum: 0 }),
    summary: Type.String(),
    grader: Type.Optional(Type.String()),
    reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    fixedPublic: Type.Optional(Type.Boolean()),
    fixedWithHeldOut: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    heldOut: Type.Optional(
      Type.Union([
        Type.Object({ seed: Type.Integer(), passed: Count, total: Count, dropped: Count }, closed),
        Type.Null(),
      ]),
    ),
    excluded: Type.Optional(list(Type.String())),
    output: Type.String(),
  },
  closed,
);

export const TRACE_RESULT_EVENTS = {
  grade: GradeEventSchema,
  diff: Type.Object({ diff: Type.String() }, closed),
  task_end: Type.Object(
    {
      // The task record (src/bench/results/taskOutcome.ts TaskResult) less its paths. Its shape is
      // the task record's (runs/runDirectory.ts parseTaskResult checks it in tasks.ndjson); the
      // bench verdict requires this copy to equal that record exactly, so no key of it goes unchecked.
      result: Type.Record(Type.String(), Type.Unknown()),
      diff: Type.String(),
    },
    closed,
  ),
} as const;

export type TraceResultCatalog = typeof TRACE_RESULT_EVENTS;
