// The replace transaction (Part 5). Order matters and is the point of this file:
//   preconditions (uncertain edit pending, integrity, version, exact old expression, new
//   expression, regenerated whole source) -> identical replacement = no_change (nothing written)
//   -> refuse a repeat of an edit once reconciled as not committed -> exclusive backup of the old
//   bytes -> durable write-ahead intent -> temp file written + fsynced -> integrity + target digest
//   recheck -> controller guard (cancellation, deadline) -> atomic rename -> directory fsync ->
//   re-read and verify -> adopt the new state -> committed receipt.
// The guard is consulted after the (asynchronous) recheck and the rename is started in the same
// synchronous step, so a cancellation or deadline that arrives during the recheck is not missed.
// Any exception after the intent and before the new state is adopted leaves the outcome
// uncertain: the intent stays pending, further edits are refused with uncertain_edit, and only
// reconcile() (which reads, never writes) resolves it. An exception after adoption (the journal
// failing to record the committed receipt) is not an uncertain edit: it propagates, and the
// controller turns it into harness_error.
import { randomUUID } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { FUNCTION_NAMES, type FunctionName } from "../constants/labConstants.ts";
import { compileExpression, parseToyMathSource, renderToyMathSource } from "../expr/index.ts";
import type { CommitAbortCode } from "./errorCodes.ts";
import { stateAfter, type EditIntent, type EditJournal, type ManagedState } from "./editJournal.ts";
import type { WorkspaceHooks } from "./hooks.ts";
import { checkIntegrity, type IntegrityTarget } from "./integrity.ts";
import {
  capObservation,
  rejection,
  type Expressions,
  type Observation,
  type ReplaceObservation,
} from "./observation.ts";
import {
  directoryIdentity,
  isErrnoCode,
  lstatOrNull,
  readManagedFile,
  sameIdentity,
  syncDirectory,
  writeNewFileExclusive,
  type FileIdentity,
} from "./secureFs.ts";
import { sha256Hex } from "../core/digest.ts";
import type { DataOf } from "../recording/evidenceEnvelope.ts";
import type { LabAuditCatalog } from "../recording/labAuditEvents.ts";

export interface ReplaceRequest {
  readonly function: FunctionName;
  readonly old: string;
  readonly new: string;
  readonly version: number;
}

/** Supplied by the controller; consulted immediately before the rename. */
export interface CommitGuard {
  /** A code to abort with (cancellation, overall deadline), or null to proceed. */
  beforeCommit(): CommitAbortCode | null;
}

/** The mutable core a RunWorkspace owns; only this module and reconcile change it. */
export interface WorkspaceCore extends IntegrityTarget {
  readonly backupsIdentity: FileIdentity;
  readonly journal: EditJournal;
  readonly hooks: WorkspaceHooks;
  state: ManagedState;
  pending: EditIntent | null;
  readonly refused: EditIntent[];
}

const MAX_TEMP_ATTEMPTS = 64;

export function backupName(version: number): string {
  return `toy_math.v${version}.py`;
}

function tempName(newVersion: number, attempt: number): string {
  return `.toy_math.py.v${newVersion}.${attempt}.tmp`;
}

function receipt(
  status: ReplaceObservation["status"],
  fn: FunctionName,
  oldVersion: number,
  state: ManagedState,
): ReplaceObservation {
  return {
    ok: true,
    action: "replace",
    status,
    function: fn,
    old_version: oldVersion,
    version: state.version,
    sha256: state.sourceSha256,
    expressions: { ...state.expressions },
  };
}

export async function replaceTransaction(
  core: WorkspaceCore,
  request: ReplaceRequest,
  guard: CommitGuard,
): Promise<Observation> {
  const result = await replaceUncapped(core, request, guard);
  return capObservation(result, "replace", core.state.version);
}

async function replaceUncapped(core: WorkspaceCore, request: ReplaceRequest, guard: CommitGuard): Promise<Observation> {
  const deny = (code: Parameters<typeof rejection>[1], message: string) =>
    rejection("replace", code, message, core.state.version);
  const fn = FUNCTION_NAMES.find((name) => name === request.function);
  if (fn === undefined) return deny("unlisted_function", "only clamp and total can be edited");
  if (core.pending !== null)
    return deny("uncertain_edit", "an earlier edit has an uncertain outcome and must be reconciled first");
  const state = core.state;
  const onDisk = await checkIntegrity(core, state);
  if (!onDisk.ok) return deny("workspace_conflict", onDisk.message);
  if (request.version !== state.version) return deny("stale_version", `the current version is ${state.version}`);
  if (request.old !== state.expressions[fn])
    return deny("old_expression_mismatch", `old is not the current ${fn} expression`);
  const compiled = compileExpression(fn, request.new);
  if (!compiled.ok) return deny(compiled.error, compiled.message);
  const expressionsAfter: Expressions = { ...state.expressions, [fn]: request.new };
  const rendered = renderToyMathSource(expressionsAfter);
  const reparsed = parseToyMathSource(rendered);
  if (
    !reparsed.ok ||
    reparsed.value.expressions.clamp !== expressionsAfter.clamp ||
    reparsed.value.expressions.total !== expressionsAfter.total
  ) {
    return deny("regenerated_source_invalid", "the regenerated toy_math.py did not validate");
  }
  const newBytes = Buffer.from(rendered, "utf8");
  const afterSha = sha256Hex(newBytes);
  // Identical replacement: a successful no-op, detected before any backup or temp file exists.
  if (afterSha === state.sourceSha256) return receipt("no_change", fn, state.version, state);
  if (core.refused.some((i) => i.before_sha256 === state.sourceSha256 && i.after_sha256 === afterSha)) {
    return deny("uncertain_edit", "this edit's earlier outcome was uncertain; it is not retried");
  }

  const oldBytes = onDisk.value.source.bytes;
  const backup = await ensureBackup(core, state.version, oldBytes, state.sourceSha256);
  if (backup !== null) return deny(backup.code, backup.message);
  await core.hooks.afterBackup?.();

  const temp = await freeTempName(core.paths.workspace, state.version + 1).catch(() => null);
  if (temp === null) return deny("workspace_io_error", "no temporary file name is free; nothing was changed");
  const intent = await recordIntent(core, fn, state, expressionsAfter, afterSha, temp);
  if (intent === null) return deny("workspace_io_error", "the edit intent could not be recorded; nothing was changed");
  core.pending = intent;
  let outcome: CommitOutcome;
  try {
    outcome = await commitAfterIntent(core, intent, temp, newBytes, guard);
  } catch (error) {
    // Outcome unknown: keep the intent pending; only reconcile() may resolve it.
    await appendBestEffort(core, "edit_interrupted", {
      intent_id: intent.intent_id,
      diagnostic: boundedDiagnostic(error),
    });
    return deny("edit_interrupted", "the edit was interrupted; its outcome is uncertain until reconciled");
  }
  if (outcome.kind === "denied") return outcome.observation;
  // Deliberately outside the try: the edit is committed and adopted (state advanced, nothing
  // pending), so a journal failure here must not be reported to the model as ok:false /
  // edit_interrupted. It propagates; the controller reports harness_error, and a later replay of
  // the journal resolves the receipt-less intent by reconciliation.
  await core.journal.append("edit_committed", { intent_id: intent.intent_id, ...outcome.receipt });
  return outcome.receipt;
}

/** How the steps after the intent ended: refused before any rename, or committed and adopted. */
type CommitOutcome =
  | { readonly kind: "denied"; readonly observation: Observation }
  | { readonly kind: "committed"; readonly receipt: ReplaceObservation };

/** null when the backup of `version` holds exactly the old bytes (new, or left by an earlier attempt). */
async function ensureBackup(
  core: WorkspaceCore,
  version: number,
  oldBytes: Buffer,
  oldSha: string,
): Promise<{ code: "workspace_conflict" | "workspace_io_error"; message: string } | null> {
  const identity = await directoryIdentity(core.paths.backups).catch(() => null);
  if (identity === null || !sameIdentity(identity, core.backupsIdentity)) {
    return { code: "workspace_conflict", message: "the backups directory was replaced or is not a directory" };
  }
  const backupPath = path.join(core.paths.backups, backupName(version));
  try {
    await writeNewFileExclusive(backupPath, oldBytes);
    await syncDirectory(core.paths.backups);
    return null;
  } catch (error) {
    if (!isErrnoCode(error, "EEXIST"))
      return { code: "workspace_io_error", message: "the backup could not be written; nothing was changed" };
  }
  // Exists already (an earlier aborted or crashed attempt from the same version): reuse it only if
  // it is exactly the old bytes, never overwrite it.
  const existing = await readManagedFile(backupPath, identity.dev).catch(() => null);
  if (existing === null || !existing.ok || existing.sha256 !== oldSha) {
    return { code: "workspace_conflict", message: `backups/${backupName(version)} exists with other content` };
  }
  return null;
}

async function recordIntent(
  core: WorkspaceCore,
  fn: FunctionName,
  state: ManagedState,
  expressionsAfter: Expressions,
  afterSha: string,
  temp: string,
): Promise<EditIntent | null> {
  const newVersion = state.version + 1;
  const intent: EditIntent = {
    intent_id: randomUUID(),
    function: fn,
    old_version: state.version,
    new_version: newVersion,
    before_sha256: state.sourceSha256,
    after_sha256: afterSha,
    expressions_before: { ...state.expressions },
    expressions_after: expressionsAfter,
    backup_file: `backups/${backupName(state.version)}`,
    temp_file: `workspace/${temp}`,
  };
  try {
    await core.journal.append("edit_intent", { ...intent });
    return intent;
  } catch {
    return null;
  }
}

async function commitAfterIntent(
  core: WorkspaceCore,
  intent: EditIntent,
  tempFile: string,
  newBytes: Buffer,
  guard: CommitGuard,
): Promise<CommitOutcome> {
  const deny = (code: Parameters<typeof rejection>[1], message: string): CommitOutcome => ({
    kind: "denied",
    observation: rejection("replace", code, message, core.state.version),
  });
  await core.hooks.afterIntent?.();
  const tempPath = path.join(core.paths.workspace, tempFile);
  await writeNewFileExclusive(tempPath, newBytes);
  await core.hooks.afterTempWrite?.();

  // The asynchronous digest recheck first, then the guard, then the rename: nothing is awaited
  // between the guard's answer and the start of the rename, so a cancellation or deadline that
  // arrives while the recheck (or the test hook) is running is seen by the guard.
  const recheck = await checkIntegrity(core, core.state);
  if (!recheck.ok) {
    await abort(core, intent, "workspace_conflict");
    return deny("workspace_conflict", recheck.message);
  }
  await core.hooks.beforeRename?.();
  const abortCode = guard.beforeCommit();
  if (abortCode !== null) {
    await abort(core, intent, abortCode);
    return deny(
      abortCode,
      abortCode === "cancelled"
        ? "the run was cancelled before the edit committed"
        : "the deadline expired before the edit committed",
    );
  }
  await fsp.rename(tempPath, core.paths.source);
  await syncDirectory(core.paths.workspace);
  await core.hooks.afterRenameBeforeReceipt?.();

  const verified = await checkIntegrity(core, { taskSha256: core.state.taskSha256, sourceSha256: intent.after_sha256 });
  if (!verified.ok) {
    // The rename happened but the bytes are not ours: keep the intent pending (uncertain).
    await appendBestEffort(core, "edit_interrupted", {
      intent_id: intent.intent_id,
      diagnostic: "verification after rename failed",
    });
    return deny("workspace_conflict", verified.message);
  }
  const oldVersion = core.state.version;
  core.state = stateAfter(intent, core.state.taskSha256);
  core.pending = null;
  // The committed receipt is journaled by the caller, outside the uncertain-outcome catch.
  return { kind: "committed", receipt: receipt("edit_committed", intent.function, oldVersion, core.state) };
}

/** The first temp name not in use; created later with O_EXCL, so a name taken meanwhile fails closed. */
async function freeTempName(workspace: string, newVersion: number): Promise<string | null> {
  for (let attempt = 1; attempt <= MAX_TEMP_ATTEMPTS; attempt++) {
    const name = tempName(newVersion, attempt);
    if ((await lstatOrNull(path.join(workspace, name))) === null) return name;
  }
  return null;
}

async function abort(core: WorkspaceCore, intent: EditIntent, reason: string): Promise<void> {
  // Certainly not committed (no rename happened): the intent is resolved; the temp file stays as evidence.
  core.pending = null;
  await core.journal.append("edit_aborted", { intent_id: intent.intent_id, reason, version: core.state.version });
}

async function appendBestEffort(
  core: WorkspaceCore,
  type: "edit_interrupted",
  payload: DataOf<LabAuditCatalog, "edit_interrupted">,
): Promise<void> {
  try {
    await core.journal.append(type, payload);
  } catch {
    // The journal itself failing must not mask the uncertain outcome we are reporting.
  }
}

/** A short, path-free diagnostic for the audit (trusted evidence, never an observation). */
function boundedDiagnostic(error: unknown): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  const name = error instanceof Error ? error.name : typeof error;
  return `${name}${typeof code === "string" ? ` ${code}` : ""}`.slice(0, 120);
}
