// The single appender of audit.jsonl (Part 10). Every line is one JSON object produced by
// JSON.stringify — untrusted text (raw proposals, messages) is escaped by the encoder, never
// concatenated into the format. Each append is written and fsynced before append() returns, so a
// write-ahead intent is durable before the workspace renames anything. Synchronous on purpose:
// appends are small, and synchronous writes keep event order equal to call order.
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, writeSync } from "node:fs";
import { basename, dirname } from "node:path";
import { err, ok, type Result } from "../core/result.ts";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { decodeUtf8Strict, readFileUnder } from "../core/safeRead.ts";

export const AUDIT_SCHEMA = "tca.audit/1";

export interface AuditClock {
  /** Monotonic milliseconds (never wall-clock time). */
  now(): number;
}

export interface AuditRecorderOptions {
  readonly runId: string;
  /** Proposal-source label recorded on every line ("scripted", "model", ...). */
  readonly sourceLabel: string;
  readonly clock: AuditClock;
}

export interface AuditRecord {
  readonly schema: typeof AUDIT_SCHEMA;
  readonly run_id: string;
  /** 1, 2, 3, ... in append order. */
  readonly event_id: number;
  /** Monotonic ms from the injected clock; never decreases within a file. */
  readonly t_ms: number;
  readonly source: string;
  readonly proposal: number | null;
  readonly type: string;
  /** The record's payload, kept apart from the envelope so no payload key can shadow it. */
  readonly data: Readonly<Record<string, unknown>>;
}

const { O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW } = constants;
const FILE_MODE = 0o600;

/** The audit file's identity, kept from the descriptor the recorder writes through. */
export interface AuditFileIdentity {
  readonly dev: number;
  readonly ino: number;
}

export class AuditRecorder {
  readonly #fd: number;
  readonly #path: string;
  readonly #identity: AuditFileIdentity;
  readonly #options: AuditRecorderOptions;
  #nextEventId = 1;
  #lastTime = Number.NEGATIVE_INFINITY;
  #closed = false;

  private constructor(fd: number, path: string, options: AuditRecorderOptions) {
    this.#fd = fd;
    this.#path = path;
    const stats = fstatSync(fd);
    this.#identity = { dev: stats.dev, ino: stats.ino };
    this.#options = options;
  }

  /** Creates the file exclusively (fails if anything exists there, symlinks included), mode 0600. */
  static create(path: string, options: AuditRecorderOptions): AuditRecorder {
    const fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW, FILE_MODE);
    try {
      fchmodSync(fd, FILE_MODE);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new AuditRecorder(fd, path, options);
  }

  get identity(): AuditFileIdentity {
    return this.#identity;
  }

  /**
   * Null when audit.jsonl at its path is still the file this recorder writes (same device and
   * inode, a regular file with one link, owner-only mode); otherwise what is wrong. A file
   * renamed away and replaced would otherwise receive nothing while the replacement is read.
   */
  identityProblem(): string | null {
    let stats;
    try {
      stats = lstatSync(this.#path);
    } catch {
      return "audit.jsonl is missing";
    }
    if (!stats.isFile()) return "audit.jsonl is not a regular file";
    if (stats.dev !== this.#identity.dev || stats.ino !== this.#identity.ino)
      return "audit.jsonl was replaced by another file";
    if (stats.nlink !== 1) return "audit.jsonl has more than one hard link";
    if ((stats.mode & 0o777) !== FILE_MODE)
      return `audit.jsonl mode is ${(stats.mode & 0o777).toString(8)}, not owner-only ${FILE_MODE.toString(8)}`;
    return null;
  }

  /** Appends one record and fsyncs it; returns its event id. Throws if closed or the write fails. */
  append(type: string, payload: Readonly<Record<string, unknown>>, proposalNumber: number | null = null): number {
    if (this.#closed) throw new Error("audit recorder is closed");
    // Monotonic even if an injected clock misbehaves: a later record never has an earlier time.
    const now = this.#options.clock.now();
    this.#lastTime = Math.max(this.#lastTime, now);
    const record: AuditRecord = {
      schema: AUDIT_SCHEMA,
      run_id: this.#options.runId,
      event_id: this.#nextEventId,
      t_ms: this.#lastTime,
      source: this.#options.sourceLabel,
      proposal: proposalNumber,
      type,
      data: payload,
    };
    const line = Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
    let offset = 0;
    while (offset < line.length) offset += writeSync(this.#fd, line, offset, line.length - offset);
    fsyncSync(this.#fd);
    return this.#nextEventId++;
  }

  /** Safe to call twice. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}

export type AuditReadErrorCode = "audit_unreadable" | "audit_malformed";

export interface AuditFile {
  readonly records: readonly AuditRecord[];
  /** A last line without its newline (a crash during an append) is reported, not parsed. */
  readonly tornTail: boolean;
}

function isAuditRecord(value: unknown): value is AuditRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  return (
    r.schema === AUDIT_SCHEMA &&
    typeof r.run_id === "string" &&
    Number.isSafeInteger(r.event_id) &&
    typeof r.t_ms === "number" &&
    typeof r.source === "string" &&
    (r.proposal === null || Number.isSafeInteger(r.proposal)) &&
    typeof r.type === "string" &&
    typeof r.data === "object" &&
    r.data !== null &&
    !Array.isArray(r.data)
  );
}

/**
 * The one audit cap: an audit file larger than this is not read into memory by anything (this
 * reader, the run verdict, the report). A real run writes well under 10 MiB.
 */
export const AUDIT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Reads and validates an audit file: never through a symlink, never blocking on a FIFO, strict
 * UTF-8, envelope shape, event ids 1..n in order, non-decreasing time.
 */
export function readAuditRecords(path: string): Result<AuditFile, AuditReadErrorCode> {
  const bytes = readFileUnder(dirname(path), basename(path), AUDIT_MAX_BYTES);
  if (!bytes.ok) return err("audit_unreadable", `the audit file cannot be read (${bytes.error})`);
  return parseAuditBytes(bytes.value);
}

/** The strict reader over bytes already read (the verdict reads them once, for the digest too). */
export function parseAuditBytes(bytes: Uint8Array): Result<AuditFile, AuditReadErrorCode> {
  const text = decodeUtf8Strict(bytes, "audit.jsonl");
  if (!text.ok) return err("audit_malformed", "the audit file is not valid UTF-8");
  const lines = text.value.split("\n");
  const last = lines.pop();
  const tornTail = last !== undefined && last !== "";
  const records: AuditRecord[] = [];
  for (const [index, line] of lines.entries()) {
    // Depth-checked before parsing (src/core/boundedJson): a 2,000-deep record is refused, not a crash.
    const read = parseBoundedJson(line, `audit line ${index + 1}`);
    if (!read.ok)
      return err(
        "audit_malformed",
        read.error === "json_too_deep" ? `${read.error}: ${read.message}` : `audit line ${index + 1} is not JSON`,
      );
    const parsed = read.value;
    if (!isAuditRecord(parsed)) return err("audit_malformed", `audit line ${index + 1} is not an audit record`);
    const previous = records[records.length - 1];
    if (parsed.event_id !== index + 1 || (previous !== undefined && parsed.t_ms < previous.t_ms)) {
      return err("audit_malformed", `audit line ${index + 1} is out of order`);
    }
    records.push(parsed);
  }
  return ok({ records, tornTail });
}
