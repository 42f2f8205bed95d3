// The Lab's evidence files whose schemas/ files are generated: audit.jsonl records, manifest.json,
// final.json (filled in as each moves onto a TypeBox definition).
import { LabFinalSchema, LabManifestSchema } from "../../src/recording/labRunFiles.ts";
import type { SchemaFile } from "./schemaFile.ts";

export const LAB_SCHEMA_FILES: readonly SchemaFile[] = [
  {
    name: "manifest.schema.json",
    title: "tca.manifest/1 — manifest.json of one run",
    description: "What a Lab run was made of, written once before the first proposal (src/recording/labRunFiles.ts).",
    schema: LabManifestSchema,
  },
  {
    name: "final.schema.json",
    title: "tca.final/1 — final.json of one run",
    description: "How a Lab run ended and what the independent final evaluation found (src/recording/labRunFiles.ts).",
    schema: LabFinalSchema,
  },
];
