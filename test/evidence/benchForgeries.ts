// A user who wants a better result than the run earned: the forgeries shared with verifyRecords.test.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import { readManifest, readTaskResults, writeResults } from "../../src/bench/runs/runDirectory.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";

/** Rewrites every event of a task's trace through `edit`, as a text editor would. */
export function rewriteTrace(
  dir: string,
  task: TaskResult,
  edit: (event: Record<string, unknown>) => Record<string, unknown>,
): void {
  const path = join(dir, task.tracePath!);
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "");
  writeFileSync(
    path,
    lines.map((line) => JSON.stringify(edit(JSON.parse(line) as Record<string, unknown>))).join("\n") + "\n",
  );
}

/** The forgery of issue 23: a wrong fix turned into "fixed" in tasks.ndjson, its trace and results.json, consistently. */
export function forgeFixed(dir: string, taskId: string): void {
  const tasks = readTaskResults(dir);
  const manifest = readManifest(dir);
  assert.ok(tasks.ok && manifest.ok);
  const victim = tasks.value.find((task) => task.taskId === taskId)!;
  const total = victim.grade.counts.passed + victim.grade.counts.failed + victim.grade.counts.errors;
  const heldOut = victim.grade.heldOut
    ? { ...victim.grade.heldOut, passed: victim.grade.heldOut.total }
    : victim.grade.heldOut;
  const grade = {
    ...victim.grade,
    outcome: "passed" as const,
    counts: { ...victim.grade.counts, passed: total, failed: 0, errors: 0 },
    reason: null,
    fixedPublic: true,
    fixedWithHeldOut: heldOut ? true : victim.grade.fixedWithHeldOut,
    heldOut,
    summary: victim.grade.summary.replace(/public \d+\/(\d+)/, "public $1/$1"),
  };
  // Consistent under the record's own rule (fixedMeans): the held-out finding forged along with it.
  const forged: TaskResult = {
    ...victim,
    outcome: "fixed",
    falseFixed: false,
    ...(victim.falseFixedHeldOut !== undefined ? { falseFixedHeldOut: false } : {}),
    grade,
  };
  const { tracePath: _t, diffPath: _d, ...forgedInTrace } = forged;
  writeFileSync(
    join(dir, "tasks.ndjson"),
    tasks.value.map((task) => JSON.stringify(task.taskId === taskId ? forged : task) + "\n").join(""),
  );
  rewriteTrace(dir, victim, (event) =>
    event.event === "grade"
      ? { v: 1, event: "grade", t: event.t, ...grade, output: event.output }
      : event.event === "task_end"
        ? { ...event, result: forgedInTrace }
        : event,
  );
  const all = tasks.value.map((task) => (task.taskId === taskId ? forged : task));
  writeResults(dir, manifest.value, all, all.length);
}
