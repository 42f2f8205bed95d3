// Reconciliation of an edit whose outcome is uncertain (a crash or an exception anywhere after the
// write-ahead intent). It never writes: it reads the actual bytes under the managed-file policy and
// compares them with the intent's before/after digests. Equal to before: not committed. Equal to
// after: committed (the caller adopts the new version exactly once). Anything else, or a policy
// violation: workspace_conflict. Temp files and backups are left in place as evidence.
import { err, ok, type Result } from "../core/result.ts";
import type { EditIntent } from "./editJournal.ts";
import { readManagedFiles, type IntegrityTarget } from "./integrity.ts";

export type ReconcileOutcome = "committed" | "not_committed";

export async function reconcileEdit(
  target: IntegrityTarget,
  taskSha256: string,
  intent: EditIntent,
): Promise<Result<{ readonly outcome: ReconcileOutcome; readonly sha256: string }, "workspace_conflict">> {
  const files = await readManagedFiles(target);
  if (!files.ok) return files;
  if (files.value.task.sha256 !== taskSha256)
    return err("workspace_conflict", "TASK.txt changed outside the controller");
  const actual = files.value.source.sha256;
  if (actual === intent.before_sha256) return ok({ outcome: "not_committed", sha256: actual });
  if (actual === intent.after_sha256) return ok({ outcome: "committed", sha256: actual });
  return err("workspace_conflict", "toy_math.py matches neither the state before nor after the uncertain edit");
}
