// The workspace manager: the only code that touches the managed files of a run. A RunWorkspace
// owns the recorded state (version, digests, expressions) and executes read/replace decisions the
// controller has already authorized; it knows nothing about policy beyond the file rules.
import { MANAGED_FILES, type ManagedFileName } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import { parseToyMathSource, type ToyMathSource } from "../expr/index.ts";
import type { WorkspaceErrorCode } from "./errorCodes.ts";
import {
  INITIAL_STATE,
  replayEditJournal,
  stateAfter,
  type EditIntent,
  type EditJournal,
  type JournalRecord,
  type ManagedState,
} from "./editJournal.ts";
import { replaceTransaction, type CommitGuard, type ReplaceRequest, type WorkspaceCore } from "./editTransaction.ts";
import type { WorkspaceHooks } from "./hooks.ts";
import { checkIntegrity } from "./integrity.ts";
import { capObservation, rejection, type Observation, type ReadObservation } from "./observation.ts";
import { reconcileEdit, type ReconcileOutcome } from "./reconcile.ts";
import { checkRunPath, createRunDirectory, managedPaths, INITIAL_TASK_SHA256, type RunPaths } from "./runDirectory.ts";
import { directoryIdentity } from "./secureFs.ts";

/** A journal, or a factory called once the run directory exists (e.g. to open audit.jsonl in it). */
export type JournalSource = EditJournal | ((paths: RunPaths) => EditJournal | Promise<EditJournal>);

export interface Snapshot {
  readonly version: number;
  readonly sha256: string;
  readonly bytes: Buffer;
  readonly source: ToyMathSource;
}

export interface ReconcileResult {
  readonly outcome: ReconcileOutcome | "none_pending";
  readonly state: ManagedState;
}

export class RunWorkspace {
  readonly paths: RunPaths;
  readonly #core: WorkspaceCore;
  /** Operations run one at a time, in call order: the controller is the single writer, and this
   *  keeps even an accidental concurrent call from interleaving with an edit transaction. */
  #queue: Promise<unknown> = Promise.resolve();

  /** Use createRun or recoverRun. */
  constructor(core: WorkspaceCore) {
    this.#core = core;
    this.paths = { run: core.paths.run, workspace: core.paths.workspace, backups: core.paths.backups };
  }

  #exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(operation, operation);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  state(): ManagedState {
    const s = this.#core.state;
    return {
      version: s.version,
      sourceSha256: s.sourceSha256,
      taskSha256: s.taskSha256,
      expressions: { ...s.expressions },
    };
  }

  /** True while an edit's outcome is uncertain; reconcile() before anything else. */
  hasUncertainEdit(): boolean {
    return this.#core.pending !== null;
  }

  /** The managed-file policy and both recorded digests; the controller calls this before every tool call. */
  integrityCheck(): Promise<Result<void, "workspace_conflict">> {
    return this.#exclusive(() => this.#integrityCheck());
  }

  async #integrityCheck(): Promise<Result<void, "workspace_conflict">> {
    if (this.#core.pending !== null)
      return err("workspace_conflict", "an edit's outcome is uncertain and has not been reconciled");
    const checked = await checkIntegrity(this.#core, this.#core.state);
    return checked.ok ? ok(undefined) : checked;
  }

  read(file: ManagedFileName): Promise<Observation> {
    return this.#exclusive(() => this.#read(file));
  }

  async #read(file: ManagedFileName): Promise<Observation> {
    const version = this.#core.state.version;
    if (!MANAGED_FILES.includes(file))
      return rejection("read", "unknown_file", "only TASK.txt and toy_math.py can be read", version);
    if (this.#core.pending !== null)
      return rejection("read", "uncertain_edit", "an earlier edit has an uncertain outcome", version);
    const state = this.#core.state;
    const checked = await checkIntegrity(this.#core, state);
    if (!checked.ok) return rejection("read", "workspace_conflict", checked.message, version);
    // The bytes equal the recorded digest, so nothing is adopted: the version stays as recorded.
    const managed = file === "TASK.txt" ? checked.value.task : checked.value.source;
    const base = {
      ok: true as const,
      action: "read" as const,
      file,
      version,
      sha256: managed.sha256,
      content: managed.bytes.toString("utf8"),
    };
    const observation: ReadObservation =
      file === "toy_math.py" ? { ...base, expressions: { ...state.expressions } } : base;
    return capObservation(observation, "read", version);
  }

  replace(request: ReplaceRequest, guard: CommitGuard): Promise<Observation> {
    return this.#exclusive(() => replaceTransaction(this.#core, request, guard));
  }

  /** The integrity-checked source for evaluation (test action, final snapshot). */
  snapshot(): Promise<Result<Snapshot, WorkspaceErrorCode>> {
    return this.#exclusive(() => this.#snapshot());
  }

  async #snapshot(): Promise<Result<Snapshot, WorkspaceErrorCode>> {
    if (this.#core.pending !== null)
      return err("uncertain_edit", "an edit's outcome is uncertain and has not been reconciled");
    const state = this.#core.state;
    const checked = await checkIntegrity(this.#core, state);
    if (!checked.ok) return checked;
    const source = parseToyMathSource(checked.value.source.bytes);
    if (!source.ok) return err("workspace_conflict", "toy_math.py does not parse as the recorded source");
    return ok({
      version: state.version,
      sha256: state.sourceSha256,
      bytes: checked.value.source.bytes,
      source: source.value,
    });
  }

  /**
   * Resolves a pending uncertain edit by reading (never writing) the actual bytes. Committed: the
   * new version is adopted once. Not committed: the state stays, and repeating that exact edit is
   * refused. Unexpected bytes: workspace_conflict, and the edit stays unresolved.
   */
  reconcile(): Promise<Result<ReconcileResult, "workspace_conflict">> {
    return this.#exclusive(() => this.#reconcile());
  }

  async #reconcile(): Promise<Result<ReconcileResult, "workspace_conflict">> {
    const core = this.#core;
    const intent: EditIntent | null = core.pending;
    if (intent === null) return ok({ outcome: "none_pending", state: this.state() });
    const result = await reconcileEdit(core, core.state.taskSha256, intent);
    if (!result.ok) {
      await core.journal.append("edit_reconciled", {
        intent_id: intent.intent_id,
        outcome: "conflict",
        version: core.state.version,
      });
      return result;
    }
    if (result.value.outcome === "committed") core.state = stateAfter(intent, core.state.taskSha256);
    else core.refused.push(intent);
    core.pending = null;
    await core.journal.append("edit_reconciled", {
      intent_id: intent.intent_id,
      outcome: result.value.outcome,
      version: core.state.version,
      sha256: core.state.sourceSha256,
      expressions: { ...core.state.expressions },
    });
    return ok({ outcome: result.value.outcome, state: this.state() });
  }
}

export interface CreateRunOptions {
  readonly runDirectory: string;
  readonly journal: JournalSource;
  readonly hooks?: WorkspaceHooks;
}

/** Creates a fresh run directory exclusively and returns its workspace at version 0. */
export async function createRun(options: CreateRunOptions): Promise<Result<RunWorkspace, WorkspaceErrorCode>> {
  const created = await createRunDirectory(options.runDirectory);
  if (!created.ok) return created;
  const backupsIdentity = await directoryIdentity(created.value.paths.backups);
  if (backupsIdentity === null)
    return err("run_create_failed", "the backups directory was replaced while it was being created");
  let journal: EditJournal;
  try {
    journal = typeof options.journal === "function" ? await options.journal(created.value.paths) : options.journal;
  } catch {
    return err("run_create_failed", "the edit journal could not be opened");
  }
  return ok(
    new RunWorkspace({
      paths: created.value.paths,
      workspaceIdentity: created.value.workspaceIdentity,
      backupsIdentity,
      journal,
      hooks: options.hooks ?? {},
      pending: null,
      refused: [],
      state: {
        version: 0,
        sourceSha256: created.value.sourceSha256,
        taskSha256: created.value.taskSha256,
        expressions: { ...INITIAL_STATE.expressions },
      },
    }),
  );
}

export interface RecoverRunOptions {
  readonly runDirectory: string;
  /** The run's journal records so far (e.g. readAuditRecords of its audit.jsonl). */
  readonly records: readonly JournalRecord[];
  /** Where new journal records go from now on. */
  readonly journal: EditJournal;
  readonly hooks?: WorkspaceHooks;
}

/**
 * Reopens an existing run after a crash: the recorded state is replayed from the journal; an
 * intent without an outcome is pending, so the first thing to do is reconcile(). The workspace
 * directory's identity is taken from disk now (what it was before the crash is not recorded).
 */
export async function recoverRun(options: RecoverRunOptions): Promise<Result<RunWorkspace, WorkspaceErrorCode>> {
  const checked = checkRunPath(options.runDirectory);
  if (!checked.ok) return checked;
  const paths = managedPaths(options.runDirectory);
  const runIdentity = await directoryIdentity(paths.run).catch(() => null);
  const workspaceIdentity = await directoryIdentity(paths.workspace).catch(() => null);
  const backupsIdentity = await directoryIdentity(paths.backups).catch(() => null);
  if (runIdentity === null || workspaceIdentity === null || backupsIdentity === null) {
    return err("run_recovery_failed", "the run directory does not have the run layout");
  }
  const replayed = replayEditJournal(options.records);
  if (!replayed.ok) return replayed;
  return ok(
    new RunWorkspace({
      paths,
      workspaceIdentity,
      backupsIdentity,
      journal: options.journal,
      hooks: options.hooks ?? {},
      state: { ...replayed.value.state, taskSha256: INITIAL_TASK_SHA256 },
      pending: replayed.value.pending,
      refused: [...replayed.value.refused],
    }),
  );
}
