// The one reader of a Lab audit (audit.jsonl): every consumer (the run verdict, the checks, the
// report, the submission, the CLI's progress line, crash recovery) reads it through readAuditLog or
// parseAuditLog, so all of them see the same typed records or refuse with the same coded problem.
// Strict: never through a symlink, never blocking on a FIFO, strict UTF-8, depth-checked JSON, every
// record of format 2 and of the catalog (src/recording/labAuditEvents.ts: an unknown event or field, a
// wrong type or a missing field is refused), event ids 1..n in order, non-decreasing time.
//
// The old format ("schema": "tca.audit/1", before the v2 envelope) is refused, not read: its records
// were untyped, so reading them would need a second, looser reader whose answers no verdict could
// trust as it trusts this one. A run of format 1 is rerun with this tca (docs/evidence-format.md).
import { basename, dirname, join } from "node:path";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { isRecord } from "../core/isRecord.ts";
import { decodeUtf8Strict, readFileUnder } from "../core/safeRead.ts";
import { eventReader, type RecordProblemCode } from "./evidenceEnvelope.ts";
import type { EvidenceProblem } from "./evidenceProblem.ts";
import { LAB_AUDIT_EVENTS, LAB_AUDIT_FORMAT, LAB_AUDIT_OLDER_VERSIONS, type LabAuditRecord } from "./labAuditEvents.ts";

/** The audit's file name in a run directory. */
export const AUDIT_FILE_NAME = "audit.jsonl";

/**
 * The one audit cap: an audit file larger than this is not read into memory by anything (this
 * reader, the run verdict, the report). A real run writes well under 10 MiB.
 */
export const AUDIT_MAX_BYTES = 64 * 1024 * 1024;

/** The format 1 envelope's tag; a record carrying it is refused with old_format_version. */
const FORMAT_1_SCHEMA = "tca.audit/1";

/** What the detail of a format 1 refusal says: who made it and what to do. */
export const OLD_AUDIT_FORMAT_DETAIL =
  "a record of audit format 1 (tca.audit/1), made by an older tca: this tca reads format 2 only; rerun the run with this tca";

/** Why an audit cannot be read: the envelope reader's codes and the file's own. */
export type AuditLogProblemCode =
  | RecordProblemCode
  /** The file cannot be read (missing, a symlink, a FIFO, too large, …; the detail names which). */
  | "audit_unreadable"
  | "not_utf8"
  | "not_json"
  | "json_too_deep"
  /** An event id out of sequence or a time earlier than the record before. */
  | "out_of_order";

export type AuditProblem = EvidenceProblem<AuditLogProblemCode>;

export interface AuditLog {
  readonly records: readonly LabAuditRecord[];
  /** A last line without its newline (a crash during an append) is reported, not parsed. */
  readonly tornTail: boolean;
}

export type AuditLogRead =
  | { readonly ok: true; readonly log: AuditLog }
  | {
      readonly ok: false;
      readonly problem: AuditProblem;
      /**
       * The records read, strictly, before the refused line: for a person's view of a damaged run
       * (the report's timeline) only. No verdict reads them: a refused audit has no records.
       */
      readonly before: readonly LabAuditRecord[];
    };

const reader = eventReader(LAB_AUDIT_FORMAT, LAB_AUDIT_EVENTS, LAB_AUDIT_OLDER_VERSIONS);

function refused(
  code: AuditLogProblemCode,
  detail: string,
  line?: number,
  before: readonly LabAuditRecord[] = [],
): AuditLogRead {
  const problem = { code, file: AUDIT_FILE_NAME, ...(line === undefined ? {} : { line }), detail };
  return { ok: false, problem, before };
}

/** Reads `audit.jsonl` of a run directory (at most AUDIT_MAX_BYTES) into typed records, or the first coded problem. */
export function readAuditLog(runDirectory: string): AuditLogRead {
  return readAuditFile(join(runDirectory, AUDIT_FILE_NAME));
}

/** The same reader for an audit file at any path (a check's copy, a test's planted file). */
export function readAuditFile(path: string): AuditLogRead {
  const bytes = readFileUnder(dirname(path), basename(path), AUDIT_MAX_BYTES);
  if (!bytes.ok) return refused("audit_unreadable", `${bytes.error}: ${bytes.message}`);
  return parseAuditLog(bytes.value);
}

/**
 * One line of an audit (without its newline), strictly: a record of format 2 and of the catalog, or
 * the coded problem. The order of records is the file reader's to check; the CLI's progress line
 * reads a growing audit a line at a time through this.
 */
export function readAuditLine(
  line: string,
  number: number,
): { readonly ok: true; readonly record: LabAuditRecord } | { readonly ok: false; readonly problem: AuditProblem } {
  // Depth-checked before parsing (src/core/boundedJson): a 2,000-deep record is refused, not a crash.
  const parsed = parseBoundedJson(line, `audit line ${number}`);
  if (!parsed.ok)
    return parsed.error === "json_too_deep"
      ? problemAt("json_too_deep", parsed.message, number)
      : problemAt("not_json", "the line is not JSON", number);
  if (isRecord(parsed.value) && parsed.value.schema === FORMAT_1_SCHEMA)
    return problemAt("old_format_version", OLD_AUDIT_FORMAT_DETAIL, number);
  return reader.read(parsed.value, AUDIT_FILE_NAME, number);
}

function problemAt(
  code: AuditLogProblemCode,
  detail: string,
  line: number,
): { readonly ok: false; readonly problem: AuditProblem } {
  return { ok: false, problem: { code, file: AUDIT_FILE_NAME, line, detail } };
}

/** The strict reader over bytes already read (the verdict reads them once, for its own byte checks too). */
export function parseAuditLog(bytes: Uint8Array): AuditLogRead {
  const text = decodeUtf8Strict(bytes, AUDIT_FILE_NAME);
  if (!text.ok) return refused("not_utf8", "the audit file is not valid UTF-8");
  const lines = text.value.split("\n");
  const last = lines.pop();
  const tornTail = last !== undefined && last !== "";
  const records: LabAuditRecord[] = [];
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    const read = readAuditLine(line, number);
    if (!read.ok) return { ...read, before: records };
    const record = read.record;
    const previous = records[records.length - 1];
    if (record.event_id !== number || (previous !== undefined && record.t_ms < previous.t_ms))
      return refused("out_of_order", `event ${record.event_id} is out of order`, number, records);
    records.push(record);
  }
  return { ok: true, log: { records, tornTail } };
}
