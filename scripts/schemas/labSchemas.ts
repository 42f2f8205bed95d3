// The Lab's evidence files whose schemas/ files are generated: audit.jsonl records, manifest.json,
// final.json (filled in as each moves onto a TypeBox definition).
import type { SchemaFile } from "./schemaFile.ts";

export const LAB_SCHEMA_FILES: readonly SchemaFile[] = [];
