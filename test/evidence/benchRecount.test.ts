// What the agent did is recounted from its trace, never believed from the task record: a copy of a
// REAL run (scripted server, real sandbox) whose one task is edited everywhere it is recorded
// (tasks.ndjson, the trace's task_end, results.json rewritten by the bench's own writer so that
// its summary agrees) must be EVIDENCE INVALID, naming what the trace's events say instead.
// The edits: guardrail counts zeroed (a flagged "fixed" shown as plain green), a claim of
// "done" removed (a false "fixed" hidden), a claim's kind changed.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classifyTask, type TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { readManifest, readTaskResults, writeResults } from "../../src/bench/runs/runDirectory.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { sandboxPackages } from "../support/systemPackages.ts";
import { scriptedBenchRun } from "../report/benchFixture.ts";
import { assertBenchEvidenceInvalid, copyRun } from "./benchEvidenceAttack.ts";

const root = mkdtempSync(join(tmpdir(), "tca-bench-recount-"));
let honest = "";
before(async () => {
  if (sandboxPackages().skip === false) honest = await scriptedBenchRun(root);
});
after(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the honest run with one task's record replaced everywhere it is recorded. */
function forged(name: string, taskId: string, edit: (task: TaskResult) => TaskResult): string {
  const dir = copyRun(honest, root, name);
  const tasks = readTaskResults(dir);
  const manifest = readManifest(dir);
  assert.ok(tasks.ok && manifest.ok);
  const edited = tasks.value.map((task) => (task.taskId === taskId ? edit(task) : task));
  writeFileSync(join(dir, "tasks.ndjson"), edited.map((task) => JSON.stringify(task) + "\n").join(""));
  const task = edited.find((t) => t.taskId === taskId);
  assert.ok(task?.tracePath !== undefined);
  const tracePath = join(dir, task.tracePath);
  const lines = readFileSync(tracePath, "utf8").trimEnd().split("\n");
  const end = JSON.parse(lines.at(-1) ?? "{}") as { type: string; data: { result: unknown; diff: string } };
  assert.equal(end.type, "task_end");
  const { tracePath: _trace, diffPath: _diff, ...result } = task;
  lines[lines.length - 1] = JSON.stringify({ ...end, data: { ...end.data, result } });
  writeFileSync(tracePath, lines.join("\n") + "\n");
  writeResults(dir, manifest.value, edited, edited.length);
  return dir;
}

const assertRefused = assertBenchEvidenceInvalid;

const skip = sandboxPackages().skip;

test("the honest run is complete; its fixed C task carries the refusals its trace shows", { skip }, () => {
  const verdict = deriveBenchVerdict(honest);
  assert.deepEqual(verdict.problems, []);
  const gcd = verdict.tasks.find((task) => task.taskId === "C-gcd");
  assert.equal(gcd?.outcome, "fixed");
  assert.equal(gcd?.guardrails.referenceReadAttempts, 1);
  assert.equal(gcd?.guardrails.testEditAttempts, 1);
  assert.equal(gcd?.claim?.kind, "verified");
});

test("guardrail counts zeroed in every record of a fixed task: the trace's refusals say otherwise", { skip }, () => {
  const dir = forged("guardrails-zeroed", "C-gcd", (task) => ({
    ...task,
    guardrails: {
      ...task.guardrails,
      referenceReadAttempts: 0,
      blockedReads: 0,
      testEditAttempts: 0,
      blockedWrites: 0,
    },
  }));
  assertRefused(dir, /record of C-gcd \(.*referenceReadAttempts 1, recorded 0/);
  assertRefused(dir, /record of C-gcd \(.*testEditAttempts 1, recorded 0/);
});

test(
  "a claim of done removed (claimedFixed false, falseFixed recomputed to agree): the trace's accepted stop says otherwise",
  { skip },
  () => {
    const dir = forged("claim-removed", "C-pascal", (task) => {
      assert.equal(task.claimedFixed, true, "fixture: pascal's C task claims done");
      const again = classifyTask(task.grade, task.stopReason, task.changed, false, task.fixedMeans);
      return {
        ...task,
        claimedFixed: false,
        falseFixed: again.falseFixed,
        falseFixedHeldOut: again.falseFixedHeldOut,
        claim: null,
      };
    });
    assertRefused(dir, /C-pascal says claimedFixed false; its trace has an accepted stop/);
  },
);

test(
  "a claim's kind changed (a verified claim recorded as 'final change, not re-run'): recomputed from the trace",
  { skip },
  () => {
    const dir = forged("claim-kind", "C-gcd", (task) => ({
      ...task,
      claim: { kind: "final_change_not_rerun", finalWords: task.claim?.finalWords ?? "" },
    }));
    assertRefused(dir, /the claim recomputed from its events differs from the record of C-gcd/);
  },
);
