// The workspace manager's public surface (the controller and the lab checks import from here).
export {
  COMMIT_ABORT_CODES,
  WORKSPACE_ERROR_CODES,
  type CommitAbortCode,
  type WorkspaceErrorCode,
} from "./errorCodes.ts";
export {
  auditEditJournal,
  EDIT_JOURNAL_EVENTS,
  INITIAL_STATE,
  replayEditJournal,
  type AuditAppender,
  type EditIntent,
  type EditJournal,
  type EditJournalEvent,
  type JournalRecord,
  type ManagedState,
  type ReplayedJournal,
} from "./editJournal.ts";
export { backupName, type CommitGuard, type ReplaceRequest } from "./editTransaction.ts";
export { EDIT_STEPS, type EditStep, type WorkspaceHooks } from "./hooks.ts";
export {
  boundObservation,
  capObservation,
  rejection,
  type BoundedObservation,
  type Expressions,
  type Observation,
  type ReadObservation,
  type RejectionCode,
  type RejectionObservation,
  type ReplaceObservation,
} from "./observation.ts";
export { checkRunDestination, INITIAL_SOURCE_SHA256, INITIAL_TASK_SHA256, type RunPaths } from "./runDirectory.ts";
export {
  createRun,
  recoverRun,
  RunWorkspace,
  type CreateRunOptions,
  type JournalSource,
  type ReconcileResult,
  type RecoverRunOptions,
  type Snapshot,
} from "./runWorkspace.ts";
