// regeneration.json: the record of the last `tca lab verify --regenerate` of a Lab run (#33). It is
// a RECORD, never a finding: anyone can write one, so no verdict becomes valid because of it. The
// report shows it as "recorded regeneration (time): …", says it did not re-ask the model itself,
// and names the command that does. A record of another audit than the one read now is "stale".
import { isRecord } from "../core/isRecord.ts";
import { sha256Hex } from "../core/digest.ts";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { decodeUtf8Strict, readFileUnder } from "../core/safeRead.ts";
import { regeneratedSummary, type BoundedText } from "../core/responseComparison.ts";

export const REGENERATION_FILE = "regeneration.json";
/** Earlier regenerations, one JSON object a line, oldest first. */
export const REGENERATION_HISTORY_FILE = "regenerations.ndjson";
export const REGENERATION_SCHEMA = "tca.lab-regeneration/1";
/** What a response goes through before the byte comparison: nothing (src/core/responseComparison.ts says why). */
export const REGENERATION_NORMALIZATION = "none: raw_text compared byte for byte (UTF-8)";

export type { BoundedText };

export interface RegeneratedTurn {
  readonly proposal: number;
  readonly request_event_id: number;
  readonly recorded_outcome: string;
  /** The regenerated outcome kind, or "not_asked" for a turn whose recorded outcome is no model response. */
  readonly regenerated_outcome: string;
  readonly compared: boolean;
  readonly identical: boolean;
  readonly first_difference_offset: number | null;
  /** Both texts only where they differ (bounded). */
  readonly recorded: BoundedText | null;
  readonly regenerated: BoundedText | null;
}

export interface RegenerationRecord {
  readonly schema: typeof REGENERATION_SCHEMA;
  readonly regenerated_at: string;
  readonly run_id: string | null;
  /** The audit.jsonl this record is of (a later edit makes the record stale). */
  readonly audit_sha256: string;
  readonly model_directory: {
    readonly path: string;
    readonly model_name: string;
    /** "rehearsal" or "synthetic-pipeline-check" for a synthetic checkpoint; null for the pinned model. */
    readonly synthetic_label: string | null;
    readonly verified_by: string;
    readonly verified_file_sha256: Readonly<Record<string, string>>;
  };
  readonly normalization: string;
  readonly strict: boolean;
  readonly compared: number;
  readonly identical: number;
  readonly not_compared: number;
  readonly outcome: "reproduced" | "not_reproduced";
  readonly turns: readonly RegeneratedTurn[];
}

/** "regenerated n/m responses identical", labelled synthetic when the model was a synthetic checkpoint. */
export function regenerationSummary(
  record: Pick<RegenerationRecord, "identical" | "compared" | "model_directory">,
): string {
  return regeneratedSummary(record.identical, record.compared, record.model_directory.synthetic_label);
}

export type RecordedRegeneration =
  | { readonly state: "absent" }
  | { readonly state: "unreadable"; readonly reason: string }
  | { readonly state: "stale"; readonly regeneratedAt: string }
  | {
      readonly state: "recorded";
      readonly regeneratedAt: string;
      readonly summary: string;
      readonly reproduced: boolean;
    };

const RECORD_MAX_BYTES = 16 * 1024 * 1024;

/** regeneration.json of a run, read and checked against the audit read now; no state changes a verdict. */
export function readRecordedRegeneration(runDirectory: string): RecordedRegeneration {
  const bytes = readFileUnder(runDirectory, REGENERATION_FILE, RECORD_MAX_BYTES);
  if (!bytes.ok)
    return bytes.error === "not_found" ? { state: "absent" } : { state: "unreadable", reason: bytes.message };
  const text = decodeUtf8Strict(bytes.value, REGENERATION_FILE);
  const parsed = text.ok ? parseBoundedJson(text.value, REGENERATION_FILE) : null;
  const record = parsed !== null && parsed.ok ? parsed.value : null;
  if (!isRecord(record) || record.schema !== REGENERATION_SCHEMA)
    return { state: "unreadable", reason: "not a lab verify --regenerate record" };
  const regeneratedAt = typeof record.regenerated_at === "string" ? record.regenerated_at : "time not recorded";
  const audit = readFileUnder(runDirectory, "audit.jsonl", 64 * 1024 * 1024);
  if (!audit.ok || sha256Hex(audit.value) !== record.audit_sha256) return { state: "stale", regeneratedAt };
  const identical = record.identical;
  const compared = record.compared;
  const model = record.model_directory;
  if (typeof identical !== "number" || typeof compared !== "number" || !isRecord(model))
    return { state: "unreadable", reason: "its counts or model directory are missing" };
  const label = typeof model.synthetic_label === "string" ? model.synthetic_label : null;
  return {
    state: "recorded",
    regeneratedAt,
    summary: regenerationSummary({
      identical,
      compared,
      model_directory: { ...(model as unknown as RegenerationRecord["model_directory"]), synthetic_label: label },
    }),
    reproduced: identical === compared,
  };
}

/** The report's line for the record: what it says, with its time, and that the report did not re-ask the model. */
export function recordedRegenerationLine(recorded: RecordedRegeneration, directory: string): string {
  const recompute = `tca lab verify ${directory} --regenerate --model-directory DIR re-asks the model`;
  switch (recorded.state) {
    case "absent":
      return `no recorded regeneration (${recompute})`;
    case "unreadable":
      return `recorded regeneration: ${REGENERATION_FILE} unreadable (${recorded.reason}); a record, not a finding (${recompute})`;
    case "stale":
      return `recorded regeneration (${recorded.regeneratedAt}): of another audit.jsonl than this one, so it says nothing about it (${recompute})`;
    case "recorded":
      return (
        `recorded regeneration (${recorded.regeneratedAt}): ${recorded.summary}${recorded.reproduced ? "" : " (not reproduced)"}; ` +
        `a record, not re-asked by this report (${recompute})`
      );
  }
}
