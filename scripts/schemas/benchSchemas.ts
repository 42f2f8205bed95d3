// The benchmark's evidence files whose schemas/ files are generated: run.json, tasks.ndjson records,
// trace records, results (filled in as each moves onto a TypeBox definition).
import type { SchemaFile } from "./schemaFile.ts";

export const BENCH_SCHEMA_FILES: readonly SchemaFile[] = [];
