// The task runner's events of a task trace (src/bench/taskRunner.ts): the trusted grade, the diff
// of the file the agent left, and the task's result, written after the agent's own events
// (src/bench/agent/traceEvents.ts). Declared here, in the room above the grader and the tables
// whose records they carry. Data keys are camelCase, as the grade and task records are.
import Type from "typebox";
import { TaskRecordSchema } from "./runFileSchemas.ts";

const closed = { additionalProperties: false } as const;

// The task record's own definition (runFileSchemas.ts): the grade event is its grade plus the grader's
// output, task_end's result is the record less its paths.
const { tracePath: _tracePath, diffPath: _diffPath, ...TASK_RESULT_FIELDS } = TaskRecordSchema.properties;

/** The grade record (src/bench/grading/gradeRecord.ts) and the grader's full output. */
const GradeEventSchema = Type.Object(
  { ...TaskRecordSchema.properties.grade.properties, output: Type.String() },
  closed,
);

export const TRACE_RESULT_EVENTS = {
  grade: GradeEventSchema,
  diff: Type.Object({ diff: Type.String() }, closed),
  task_end: Type.Object(
    {
      // The task record as tasks.ndjson holds it, less tracePath and diffPath; the bench verdict also
      // requires it to equal that record exactly.
      result: Type.Object(TASK_RESULT_FIELDS, closed),
      diff: Type.String(),
    },
    closed,
  ),
} as const;

export type TraceResultCatalog = typeof TRACE_RESULT_EVENTS;
