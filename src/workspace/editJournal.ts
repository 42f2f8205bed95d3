// The write-ahead journal of edit transactions. The workspace does not know where records go;
// the controller injects an EditJournal (normally backed by the AuditRecorder, which fsyncs each
// line before append() returns, so an intent is durable before the rename). Recovery replays the
// same records: the recorded state is the initial state plus every committed or reconciled edit,
// and an intent with no later outcome is an edit whose outcome is uncertain.
import type { FunctionName } from "../constants/labConstants.ts";
import { FUNCTION_NAMES, FUNCTIONS } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { Expressions } from "./observation.ts";
import { INITIAL_SOURCE_SHA256, INITIAL_TASK_SHA256 } from "./runDirectory.ts";
import { isRecord } from "../core/isRecord.ts";
import type { DataOf, EvidenceLog } from "../recording/evidenceEnvelope.ts";
import type { LabAuditCatalog } from "../recording/labAuditEvents.ts";

export const EDIT_JOURNAL_EVENTS = [
  "edit_intent",
  "edit_committed",
  "edit_aborted",
  "edit_interrupted",
  "edit_reconciled",
] as const;
export type EditJournalEvent = (typeof EDIT_JOURNAL_EVENTS)[number];

export interface EditIntent {
  readonly intent_id: string;
  readonly function: FunctionName;
  readonly old_version: number;
  readonly new_version: number;
  readonly before_sha256: string;
  readonly after_sha256: string;
  readonly expressions_before: Expressions;
  readonly expressions_after: Expressions;
  /** Logical names relative to the run directory (never host paths). */
  readonly backup_file: string;
  readonly temp_file: string;
}

export interface EditJournal {
  /**
   * Must be durable when it returns (or its promise resolves): the intent precedes the rename. Typed
   * by the Lab audit's catalog, where these records end up.
   */
  append<K extends EditJournalEvent>(type: K, data: DataOf<LabAuditCatalog, K>): void | Promise<void>;
}

/** The part of an audit recorder the adapter needs: the typed appender of the Lab audit. */
export type AuditAppender = EvidenceLog<LabAuditCatalog>;

/** Journal backed by the audit recorder; `proposalNumber` is read at each append. */
export function auditEditJournal(recorder: AuditAppender, proposalNumber: () => number | null): EditJournal {
  return {
    append(type, payload) {
      recorder.append(type, payload, proposalNumber());
    },
  };
}

/** A journal record as it comes back from the audit (type plus payload). */
export interface JournalRecord {
  readonly type: string;
  readonly data: unknown;
}

export interface ManagedState {
  readonly version: number;
  readonly sourceSha256: string;
  readonly taskSha256: string;
  readonly expressions: Expressions;
}

export const INITIAL_STATE: ManagedState = {
  version: 0,
  sourceSha256: INITIAL_SOURCE_SHA256,
  taskSha256: INITIAL_TASK_SHA256,
  expressions: { clamp: FUNCTIONS.clamp.initialExpression, total: FUNCTIONS.total.initialExpression },
};

export interface ReplayedJournal {
  readonly state: ManagedState;
  /** The last intent with no recorded outcome: the commit outcome is uncertain. */
  readonly pending: EditIntent | null;
  /** Intents reconciled as not committed: repeating them is refused (never retried blindly). */
  readonly refused: readonly EditIntent[];
  /** A reconcile recorded unexpected bytes. */
  readonly conflicted: boolean;
}

function isSha(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}

function isVersion(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function asExpressions(value: unknown): Expressions | null {
  if (!isRecord(value) || typeof value.clamp !== "string" || typeof value.total !== "string") return null;
  return { clamp: value.clamp, total: value.total };
}

export function asEditIntent(value: unknown): EditIntent | null {
  if (!isRecord(value)) return null;
  const before = asExpressions(value.expressions_before);
  const after = asExpressions(value.expressions_after);
  const fn = FUNCTION_NAMES.find((name) => name === value.function);
  if (
    typeof value.intent_id !== "string" ||
    fn === undefined ||
    !isVersion(value.old_version) ||
    value.new_version !== (value.old_version as number) + 1 ||
    !isSha(value.before_sha256) ||
    !isSha(value.after_sha256) ||
    before === null ||
    after === null ||
    typeof value.backup_file !== "string" ||
    typeof value.temp_file !== "string"
  ) {
    return null;
  }
  return {
    intent_id: value.intent_id,
    function: fn,
    old_version: value.old_version,
    new_version: value.new_version,
    before_sha256: value.before_sha256,
    after_sha256: value.after_sha256,
    expressions_before: before,
    expressions_after: after,
    backup_file: value.backup_file,
    temp_file: value.temp_file,
  };
}

export function stateAfter(intent: EditIntent, taskSha256: string): ManagedState {
  return {
    version: intent.new_version,
    sourceSha256: intent.after_sha256,
    taskSha256,
    expressions: intent.expressions_after,
  };
}

/**
 * Rebuilds the recorded state from journal records (other audit record types are ignored).
 * Refuses a journal that contradicts itself rather than guessing.
 */
export function replayEditJournal(records: readonly JournalRecord[]): Result<ReplayedJournal, "run_recovery_failed"> {
  let state = INITIAL_STATE;
  let pending: EditIntent | null = null;
  let conflicted = false;
  const refused: EditIntent[] = [];
  const bad = (why: string) => err("run_recovery_failed" as const, `edit journal cannot be replayed: ${why}`);
  for (const record of records) {
    const data = record.data;
    const id = isRecord(data) ? data.intent_id : undefined;
    switch (record.type) {
      case "edit_intent": {
        const intent = asEditIntent(data);
        if (intent === null) return bad("malformed intent");
        if (pending !== null) return bad("an intent follows an unresolved intent");
        if (intent.old_version !== state.version || intent.before_sha256 !== state.sourceSha256) {
          return bad("intent does not start from the recorded state");
        }
        pending = intent;
        break;
      }
      case "edit_committed":
      case "edit_reconciled": {
        if (pending === null || id !== pending.intent_id) return bad(`${record.type} without its intent`);
        const outcome = record.type === "edit_committed" ? "committed" : isRecord(data) ? data.outcome : undefined;
        if (outcome === "committed") state = stateAfter(pending, state.taskSha256);
        else if (outcome === "not_committed") refused.push(pending);
        else if (outcome === "conflict") conflicted = true;
        else return bad("unknown reconcile outcome");
        // A conflict leaves the intent pending: nothing about the file is known.
        if (outcome !== "conflict") pending = null;
        break;
      }
      case "edit_aborted": {
        if (pending === null || id !== pending.intent_id) return bad("abort without its intent");
        pending = null;
        break;
      }
      case "edit_interrupted":
        if (pending === null || id !== pending.intent_id) return bad("interruption without its intent");
        break;
      default:
        break;
    }
  }
  return ok({ state, pending, refused, conflicted });
}
