// Step callbacks inside the edit transaction, for crash injection in tests (a hook may block,
// throw, or SIGKILL its own process). Production passes none. Each hook runs after the step it
// names has completed and before the next one starts.
export interface WorkspaceHooks {
  /** The backup of the old bytes exists and is fsynced; no intent recorded yet. */
  afterBackup?(): void | Promise<void>;
  /** The write-ahead intent has been appended to the journal. */
  afterIntent?(): void | Promise<void>;
  /** The temporary file is written and fsynced in workspace/. */
  afterTempWrite?(): void | Promise<void>;
  /** The target-digest recheck passed; the commit guard is next, then (with nothing awaited in between) the rename. */
  beforeRename?(): void | Promise<void>;
  /** The rename and the directory fsync are done; verification and the receipt are next. */
  afterRenameBeforeReceipt?(): void | Promise<void>;
}

export const EDIT_STEPS = [
  "afterBackup",
  "afterIntent",
  "afterTempWrite",
  "beforeRename",
  "afterRenameBeforeReceipt",
] as const;
export type EditStep = (typeof EDIT_STEPS)[number];
