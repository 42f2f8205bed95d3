// What verification.json says, as a record and never as a finding. verify-run writes it
// (src/bench/runRegrade.ts), but anyone can write one: a hand-written "identical", or an honest
// one re-bound (its tasksSha256 set) after the run was edited, reads exactly like the real thing.
// So the verdict, the report, compare and merge decide nothing from it: they show it as
// "recorded verification (time): …", say that they did not re-grade, and name the command that
// recomputes it. A failing record does not block a new verify-run either; each new one replaces it.
import { isRecord } from "../core/isRecord.ts";
import { resultKey } from "../bench/runs/runDirectory.ts";
import type { TaskResult } from "../bench/results/taskOutcome.ts";
import { VERIFICATION_FILE, type BenchSnapshot } from "./benchSnapshot.ts";

/** verification.json as read, summarized for display; no state changes a verdict. */
export type RecordedVerification =
  | { readonly state: "absent" }
  | { readonly state: "unreadable"; readonly reason: string }
  /** Of another tasks.ndjson than the one read now (the log changed since, or it was never this run's). */
  | { readonly state: "stale"; readonly verifiedAt: string }
  | { readonly state: "identical"; readonly verifiedAt: string; readonly tasks: number }
  | { readonly state: "disagrees"; readonly verifiedAt: string; readonly tasks: readonly string[] };

/** The summary of the snapshot's verification.json against the tasks read now. */
export function recordedVerificationOf(snapshot: BenchSnapshot, tasks: readonly TaskResult[]): RecordedVerification {
  if (snapshot.verificationReadError !== null) return { state: "unreadable", reason: snapshot.verificationReadError };
  const record = snapshot.verification;
  if (record === null) return { state: "absent" };
  if (record.kind !== "quixbugs-verification" || !Array.isArray(record.tasks))
    return { state: "unreadable", reason: "not a verify-run record" };
  const verifiedAt = typeof record.verifiedAt === "string" ? record.verifiedAt : "time not recorded";
  if (record.tasksSha256 !== snapshot.tasksSha256) return { state: "stale", verifiedAt };
  const entries = record.tasks.filter(isRecord);
  const disagreeing = entries.filter((entry) => entry.identical !== true).map((entry) => String(entry.key));
  const keys = new Set(entries.map((entry) => String(entry.key)));
  const unlisted = tasks.map(resultKey).filter((key) => !keys.has(key));
  if (disagreeing.length > 0 || unlisted.length > 0 || entries.length !== tasks.length)
    return { state: "disagrees", verifiedAt, tasks: [...disagreeing, ...unlisted] };
  return { state: "identical", verifiedAt, tasks: tasks.length };
}

/** The line that begins every consumer's mention of verify-run (the terminal picks it by this prefix). */
export const RECORDED_VERIFICATION_PREFIXES = ["recorded verification", "no recorded verification"] as const;

/**
 * The line a consumer (`by`: "this report", "compare", "merge") shows for the record: what it
 * says, with its time, that `by` did not re-grade, and the command that does.
 */
export function recordedVerificationLine(recorded: RecordedVerification, directory: string, by: string): string {
  const recompute = `tca bench quixbugs verify-run ${directory} re-grades`;
  const notOurs = `a record, not re-graded by ${by}; ${recompute}`;
  switch (recorded.state) {
    case "absent":
      return `no recorded verification: not re-graded by ${by}; ${recompute}`;
    case "unreadable":
      return `recorded verification: ${VERIFICATION_FILE} ignored (${recorded.reason}); not re-graded by ${by}; ${recompute}`;
    case "stale":
      return (
        `recorded verification (${recorded.verifiedAt}): of another tasks.ndjson than this ` +
        `run's, it says nothing about these records; not re-graded by ${by}; ${recompute}`
      );
    case "identical":
      return `recorded verification (${recorded.verifiedAt}): verify-run re-graded ${recorded.tasks}/${recorded.tasks} tasks identical (${notOurs})`;
    case "disagrees":
      return (
        `recorded verification (${recorded.verifiedAt}): the re-grade disagreed with ` +
        `${recorded.tasks.length} task record(s): ${recorded.tasks.join(", ")} (${notOurs})`
      );
  }
}
