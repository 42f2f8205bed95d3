// The Lab's evidence files whose schemas/ files are generated: audit.jsonl records, manifest.json,
// final.json, each from its TypeBox definition.
import { recordSchema } from "../../src/recording/evidenceEnvelope.ts";
import { LAB_AUDIT_EVENTS, LAB_AUDIT_FORMAT } from "../../src/recording/labAuditEvents.ts";
import { LabFinalSchema, LabManifestSchema } from "../../src/recording/labRunFiles.ts";
import type { SchemaFile } from "./schemaFile.ts";

const AUDIT_TITLE = "tca.audit v2: one line of audit.jsonl";

/** One record of audit.jsonl: the v2 envelope, one branch per event of the Lab audit's catalog. */
const AUDIT_RECORD: SchemaFile = {
  name: "audit-record.schema.json",
  title: AUDIT_TITLE,
  description:
    "Every line of audit.jsonl is one JSON object written through a JSON encoder: the evidence envelope (format, v, run_id, event_id, t_ms, type, source, proposal) and the event's data. Event ids start at 1 and increase by one; t_ms never decreases. Generated from src/recording/labAuditEvents.ts (npm run schemas); docs/evidence-format.md describes each event.",
  schema: recordSchema(LAB_AUDIT_FORMAT, LAB_AUDIT_EVENTS, AUDIT_TITLE),
};


export const LAB_SCHEMA_FILES: readonly SchemaFile[] = [
  AUDIT_RECORD,
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
