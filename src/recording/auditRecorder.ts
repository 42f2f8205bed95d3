// The single appender of audit.jsonl (Part 10). Every line is one JSON object produced by
// JSON.stringify — untrusted text (raw proposals, messages) is escaped by the encoder, never
// concatenated into the format. Each append is written and fsynced before append() returns, so a
// write-ahead intent is durable before the workspace renames anything. Synchronous on purpose:
// appends are small, and synchronous writes keep event order equal to call order.
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, writeSync } from "node:fs";
import { encodeRecord, EVIDENCE_FORMAT_VERSION, type DataOf, type EvidenceLog } from "./evidenceEnvelope.ts";
import { LAB_AUDIT_FORMAT, type LabAuditCatalog } from "./labAuditEvents.ts";

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

const { O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW } = constants;
const FILE_MODE = 0o600;

/** The audit file's identity, kept from the descriptor the recorder writes through. */
export interface AuditFileIdentity {
  readonly dev: number;
  readonly ino: number;
}

export class AuditRecorder implements EvidenceLog<LabAuditCatalog> {
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

  /**
   * Appends one record (format 2, src/recording/labAuditEvents.ts) and fsyncs it; returns its event id.
   * The data's type is the catalog's, so a payload that drifts from what readers accept fails tsc.
   * Throws if closed or the write fails.
   */
  append<K extends keyof LabAuditCatalog & string>(
    type: K,
    data: DataOf<LabAuditCatalog, K>,
    proposal: number | null = null,
  ): number {
    if (this.#closed) throw new Error("audit recorder is closed");
    // Monotonic even if an injected clock misbehaves: a later record never has an earlier time.
    const now = this.#options.clock.now();
    this.#lastTime = Math.max(this.#lastTime, now);
    const line = encodeRecord<LabAuditCatalog, K>({
      format: LAB_AUDIT_FORMAT,
      v: EVIDENCE_FORMAT_VERSION,
      run_id: this.#options.runId,
      event_id: this.#nextEventId,
      t_ms: this.#lastTime,
      type,
      source: this.#options.sourceLabel,
      proposal,
      data,
    });
    const bytes = Buffer.from(line, "utf8");
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.#fd, bytes, offset, bytes.length - offset);
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
