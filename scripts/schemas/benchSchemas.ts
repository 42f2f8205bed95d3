// The benchmark's evidence files whose schemas/ files are generated: run.json, tasks.ndjson records,
// results.json, verification.json (src/bench/runs/runFileSchemas.ts) and trace records (added when the
// trace moves onto its catalog).
import {
  ResultsJsonSchema,
  RunJsonSchema,
  TaskRecordSchema,
  VerificationJsonSchema,
} from "../../src/bench/runs/runFileSchemas.ts";
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
];
