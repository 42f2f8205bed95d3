// The bench verdict's recount of a task's "along the way" statements (src/bench/results/
// claimStatements.ts): recomputed from the task's trace events with the function that wrote the
// record, and compared with it. A record that claims other statements than its trace shows is a
// problem, never a count.
import { canonicalJson } from "../core/canonicalJson.ts";
import type { ClaimEvent } from "../bench/results/claimAnalysis.ts";
import { statementsOf } from "../bench/results/claimStatements.ts";
import type { TaskResult } from "../bench/results/taskOutcome.ts";
import { benchProblem, type BenchProblem } from "./benchProblems.ts";

/** The problem with `task`'s recorded statements, or null when they agree (or an older record has none). */
export function statementProblem(
  task: TaskResult,
  tracePath: string,
  key: string,
  records: readonly ClaimEvent[],
): BenchProblem | null {
  if (task.statements === undefined) return null;
  const recounted = statementsOf(records);
  return canonicalJson(recounted) === canonicalJson(task.statements)
    ? null
    : benchProblem(
        "statements_recount",
        tracePath,
        `the statements recomputed from its events differ from the record of ${key} (${canonicalJson(recounted)}, recorded ${canonicalJson(task.statements)})`,
      );
}
