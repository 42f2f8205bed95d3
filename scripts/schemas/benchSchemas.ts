// The benchmark's evidence files whose schemas/ files are generated: run.json, tasks.ndjson records,
// results.json, verification.json, regeneration.json (src/bench/runs/runFileSchemas.ts) and the records of a task trace
// (traces/<task>.ndjson: the v2 envelope over the trace's catalog, src/bench/runs/benchTrace.ts).
import {
  BenchRegenerationJsonSchema,
  ResultsJsonSchema,
  RunJsonSchema,
  TaskRecordSchema,
  VerificationJsonSchema,
} from "../../src/bench/runs/runFileSchemas.ts";
import { recordSchema } from "../../src/recording/evidenceEnvelope.ts";
import { BENCH_TRACE_EVENTS, BENCH_TRACE_FORMAT } from "../../src/bench/runs/benchTrace.ts";
import type { SchemaFile } from "./schemaFile.ts";

export const BENCH_SCHEMA_FILES: readonly SchemaFile[] = [
  {
    name: "bench-run.schema.json",
    title: "quixbugs-run schema 1 — run.json of one bench run",
    description: "The bench run's manifest (src/bench/runs/runFileSchemas.ts).",
    schema: RunJsonSchema,
  },
  {
    name: "bench-task-record.schema.json",
    title: "one record of tasks.ndjson",
    description: "A finished bench task: outcome, claim, grade, guardrails (src/bench/runs/runFileSchemas.ts).",
    schema: TaskRecordSchema,
  },
  {
    name: "bench-results.schema.json",
    title: "results.json of one bench run",
    description: "The run's tables, rewritten after every task (src/bench/runs/runFileSchemas.ts).",
    schema: ResultsJsonSchema,
  },
  {
    name: "bench-verification.schema.json",
    title: "quixbugs-verification schema 1 — verification.json",
    description: "verify-run's re-grade of a bench run (src/bench/runs/runFileSchemas.ts).",
    schema: VerificationJsonSchema,
  },
  {
    name: "bench-regeneration.schema.json",
    title: "quixbugs-regeneration schema 1 — regeneration.json",
    description: "verify-run --regenerate's re-asking of the model (src/bench/runs/runFileSchemas.ts).",
    schema: BenchRegenerationJsonSchema,
  },
  {
    name: "bench-trace-record.schema.json",
    title: `${BENCH_TRACE_FORMAT} version 2 — one record of traces/<task>.ndjson`,
    description:
      "One event of a bench task's trace: the evidence envelope, its data per event type " +
      "(src/bench/agent/traceEvents.ts, src/bench/runs/traceResultEvents.ts).",
    schema: recordSchema(BENCH_TRACE_FORMAT, BENCH_TRACE_EVENTS, `${BENCH_TRACE_FORMAT} version 2 — one record of traces/<task>.ndjson`),
  },
];
