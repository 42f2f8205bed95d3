// The bench verdict's check of run.json's data set identity (src/bench/dataset/datasetIdentity.ts):
// well formed, and bound to what every task's trace recorded at task_start (the digest of its
// program's files). run.json's identity pointed at another data set, without traces that agree,
// is a problem; so is a run that lists a program the identity has no digest for.
import type { BenchSnapshot } from "./benchSnapshot.ts";
import { parseDatasetIdentity } from "../bench/dataset/datasetIdentity.ts";
import { RUN_FILES, type RunManifest } from "../bench/runs/runDirectory.ts";
import type { TaskResult } from "../bench/results/taskOutcome.ts";

/** The problems with run.json's `dataset`, none when it agrees (or an older run records none). */
export function datasetIdentityProblems(
  snapshot: BenchSnapshot,
  manifest: RunManifest,
  tasks: readonly TaskResult[],
): string[] {
  const parsed = parseDatasetIdentity(manifest.dataset);
  if ("problem" in parsed) return [`${RUN_FILES.manifest}: ${parsed.problem}`];
  const identity = parsed.identity;
  if (identity === null) return [];
  const problems: string[] = [];
  const unlisted = manifest.programs.filter((name) => identity.programs[name] === undefined);
  if (unlisted.length > 0)
    problems.push(`${RUN_FILES.manifest}: its dataset has no digest for program(s) ${unlisted.join(", ")}`);
  for (const task of tasks) {
    const start = task.tracePath === undefined ? undefined : snapshot.traces.get(task.tracePath)?.records[0];
    if (start === undefined) continue; // a missing trace is listed already
    const expected = identity.programs[task.program];
    if (expected !== undefined && start.programSha256 !== expected)
      problems.push(
        `${task.tracePath}: task_start's programSha256 is not the digest run.json's dataset records for ${task.program}`,
      );
  }
  return problems;
}
