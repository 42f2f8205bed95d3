// The slice of the workspace layer the controller drives. The controller never touches files
// itself; it asks the workspace, which is the only code that does.
import type { ManagedFileName, FunctionName } from "../constants/labConstants.ts";
import type { Result } from "../core/result.ts";
import type { ToyMathSource } from "../expr/index.ts";
import type { RecordedObservation } from "../recording/labAuditEvents.ts";

/**
 * A JSON observation exactly as the agent will see it and the audit records it: the workspace's
 * read, replace and rejection observations (src/workspace/observation.ts), the controller's test and
 * finish observations and its own rejections, as the Lab audit's catalog declares them.
 */
export type Observation = RecordedObservation;
export type RejectedObservation = Extract<Observation, { readonly ok: false }>;

export interface ManagedStateView {
  readonly version: number;
  readonly sourceSha256: string;
  readonly taskSha256: string;
  readonly expressions: { readonly clamp: string; readonly total: string };
}

export interface SourceSnapshot {
  readonly version: number;
  readonly sha256: string;
  readonly bytes: Buffer;
  readonly source: ToyMathSource;
}

export interface CommitGuard {
  /** Called immediately before the atomic rename; a non-null code aborts the commit. */
  beforeCommit(): "cancelled" | "time_limit" | null;
}

export interface ControllerWorkspace {
  state(): ManagedStateView;
  integrityCheck(): Promise<Result<unknown, string>>;
  read(file: ManagedFileName): Promise<Observation>;
  replace(
    request: { readonly function: FunctionName; readonly old: string; readonly new: string; readonly version: number },
    guard: CommitGuard,
  ): Promise<Observation>;
  snapshot(): Promise<Result<SourceSnapshot, string>>;
  /** Resolves an edit whose outcome is uncertain by reading (never writing) the actual bytes. */
  reconcile(): Promise<
    Result<
      { readonly outcome: "committed" | "not_committed" | "none_pending"; readonly state: ManagedStateView },
      string
    >
  >;
}
