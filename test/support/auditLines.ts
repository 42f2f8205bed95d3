// Audit lines built by hand for tests, through the recorder's own encoder and typed by the Lab
// audit's catalog: a fixture that drifts from what the readers accept fails tsc, as a writer would.
import { encodeRecord, EVIDENCE_FORMAT_VERSION, type DataOf } from "../../src/recording/evidenceEnvelope.ts";
import { LAB_AUDIT_FORMAT, type LabAuditCatalog, type LabAuditEventType } from "../../src/recording/labAuditEvents.ts";

export interface LineEnvelope {
  readonly event_id?: number;
  readonly proposal?: number | null;
  readonly t_ms?: number;
  readonly run_id?: string;
  readonly source?: string;
}

/** One audit.jsonl line (without its newline) of format 2. */
export function auditLine<K extends LabAuditEventType>(
  type: K,
  data: DataOf<LabAuditCatalog, K>,
  envelope: LineEnvelope = {},
): string {
  return encodeRecord<LabAuditCatalog, K>({
    format: LAB_AUDIT_FORMAT,
    v: EVIDENCE_FORMAT_VERSION,
    run_id: envelope.run_id ?? "run",
    event_id: envelope.event_id ?? 1,
    t_ms: envelope.t_ms ?? 0,
    type,
    source: envelope.source ?? "model",
    proposal: envelope.proposal ?? null,
    data,
  }).trimEnd();
}

/** A request record's data: the smallest a reader accepts. */
export const REQUEST_DATA: DataOf<LabAuditCatalog, "request"> = {
  messages: [
    { role: "system", content: "s" },
    { role: "user", content: "u" },
  ],
  input_tokens: null,
  omitted_event_ids: [],
  call_deadline_ms: 1,
};

/** A text generation's data with the source's token count. */
export function generationData(outputTokens: number, elapsedMs: number): DataOf<LabAuditCatalog, "generation"> {
  return { outcome: "text", raw_text: "{}", message: null, metadata: { outputTokens }, elapsed_ms: elapsedMs };
}
