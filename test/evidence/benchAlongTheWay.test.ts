// Issue #34, seed 004's last rows, on a REAL run (the bench's own runBenchmark on the mini data
// set, scripted server, real sandbox): each task's statements along the way are recorded and
// recomputed from its trace by the bench verdict (a forged record is EVIDENCE INVALID); each
// changed task's fix size is recorded and re-measured by verify-run from the diff (a forged one
// is named); results.md's header carries the date and the hardware line and the budget in words;
// compare prints the document's model × condition table and gives it in --json.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readManifest, readTaskResults, writeResults } from "../../src/bench/runs/runDirectory.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { MINI_DATASET_DIR, referenceFix } from "../bench/benchFixtures.ts";
import { sandboxPackages } from "../support/systemPackages.ts";
import { tca } from "../support/tcaCli.ts";
import { assertVerdictInvalid, copyRun } from "./benchEvidenceAttack.ts";
import { realBenchRun } from "./regradeRunFixture.ts";

const skip = sandboxPackages().skip;
const root = mkdtempSync(join(tmpdir(), "tca-along-"));
let honest = "";
after(() => rmSync(root, { recursive: true, force: true }));

before(async () => {
  if (skip !== false) return;
  honest = await realBenchRun(root, "honest", {
    answers: (dataset) => {
      // pascal: the reference fix and a second, needless edit elsewhere in the function.
      const pascal = referenceFix(dataset, "pascal").replace("rows = [[1]]", "rows = [[1]]  # start");
      assert.notEqual(pascal, referenceFix(dataset, "pascal"), "fixture: pascal's first row line");
      const fixedGcd = referenceFix(dataset, "gcd");
      return {
        byProgram: {
          gcd: "The original code was already correct. Was already correct!\n```python\n" + fixedGcd + "```",
          pascal: "```python\n" + pascal + "```",
        },
        otherwise: "I think the tests themselves are wrong. I will fix them later.",
      };
    },
    environment: { note: "along-the-way test: scripted server, no model", hardwareLabel: "test box" },
  });
});

/** A copy of the honest run with one task's record replaced in tasks.ndjson, its task_end and results.json. */
function forged(name: string, taskId: string, edit: (task: TaskResult) => TaskResult): string {
  const dir = copyRun(honest, root, name);
  rmSync(join(dir, "verification.json"), { force: true });
  const tasks = readTaskResults(dir);
  const manifest = readManifest(dir);
  assert.ok(tasks.ok && manifest.ok);
  const edited = tasks.value.map((task) => (task.taskId === taskId ? edit(task) : task));
  writeFileSync(join(dir, "tasks.ndjson"), edited.map((task) => JSON.stringify(task) + "\n").join(""));
  const task = edited.find((t) => t.taskId === taskId)!;
  const tracePath = join(dir, task.tracePath!);
  const lines = readFileSync(tracePath, "utf8").trimEnd().split("\n");
  const end = JSON.parse(lines.at(-1) ?? "{}") as { type: string; data: { result: unknown; diff: string } };
  assert.equal(end.type, "task_end");
  const { tracePath: _trace, diffPath: _diff, ...result } = task;
  lines[lines.length - 1] = JSON.stringify({ ...end, data: { ...end.data, result } });
  writeFileSync(tracePath, lines.join("\n") + "\n");
  writeResults(dir, manifest.value, edited, edited.length);
  return dir;
}

test("the run records each task's statements and fix size; the verdict agrees with its traces", { skip }, () => {
  const verdict = deriveBenchVerdict(honest);
  assert.deepEqual(verdict.problems, []);
  const by = Object.fromEntries(verdict.tasks.map((t) => [t.taskId, t]));
  assert.deepEqual(by["A-gcd"]?.statements, {
    original_correct: true,
    tests_at_fault: false,
    fix_announced_not_made: false,
  });
  assert.deepEqual(by["A-gcd"]?.fixSize, { linesChanged: 1, kind: "buggy_line" });
  assert.equal(by["A-pascal"]?.outcome, "fixed");
  assert.deepEqual(by["A-pascal"]?.fixSize, { linesChanged: 2, kind: "beyond_buggy_line" });
  assert.deepEqual(by["A-is_palindrome"]?.statements, {
    original_correct: false,
    tests_at_fault: true,
    fix_announced_not_made: true,
  });
  assert.equal(by["A-is_palindrome"]?.fixSize, null);
});

test(
  "results.md: the date and hardware lines, the budget in words, the statements and fix sizes per condition",
  { skip },
  () => {
    const md = readFileSync(join(honest, "results.md"), "utf8");
    assert.match(md, /^- date: \d{4}-\d{2}-\d{2} \(started \d{4}-\d{2}-\d{2}T/m);
    assert.match(md, /^- hardware: test box \(--hardware\)/m);
    assert.match(md, /^- budget: 8 model turns, 2,048 tokens per turn, 300 s per task; test timeout 60 s$/m);
    assert.doesNotMatch(md, /maxTurns/);
    assert.match(md, /\| A · one-shot, no tools \| 3 \| 1 \| 1 \| 1 \| 0 \|/);
    assert.match(md, /\| A · one-shot, no tools \| 2 \| 1 \| 1 \| 0 \| 0 \| 1\.5 \| 2 \| 0 \|/);
  },
);

test("a record that hides a statement its trace shows is EVIDENCE INVALID", { skip }, () => {
  const dir = forged("statements-hidden", "A-gcd", (task) => ({
    ...task,
    statements: { original_correct: false, tests_at_fault: false, fix_announced_not_made: false },
  }));
  assertVerdictInvalid(dir, /the statements recomputed from its events differ from the record of A-gcd/);
});

test(
  "a fix beyond the buggy line recorded as the buggy line only: verify-run re-measures it from the diff and names it",
  { skip },
  async () => {
    const dir = forged("fix-size", "A-pascal", (task) => ({
      ...task,
      fixSize: { linesChanged: 1, kind: "buggy_line" },
    }));
    assert.deepEqual(deriveBenchVerdict(dir).problems, [], "the cross-checks alone agree");
    const r = await tca(["bench", "quixbugs", "verify-run", dir, "--dataset", MINI_DATASET_DIR, "--jobs", "2"]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out + r.err, /A-pascal: fixSize: recorded .*"buggy_line".*re-graded .*"beyond_buggy_line"/);
    const again = await tca(["bench", "quixbugs", "verify-run", honest, "--dataset", MINI_DATASET_DIR, "--jobs", "2"]);
    assert.equal(again.code, 0, again.out + again.err);
  },
);

test("compare prints the model × condition table beside the long form, and --json carries it", { skip }, async () => {
  const md = await tca(["bench", "quixbugs", "compare", honest]);
  assert.equal(md.code, 0, md.err);
  assert.match(md.out, /^\| \| A · one-shot \| B · no tests \| C · with tests \| D · verified \|$/m);
  assert.match(md.out, /^\| PIPELINE CHECK: scripted \| 66\.7% \| – \| – \| – \|$/m);
  assert.match(md.out, /^\| R1 \| A \| 66\.7% \|/m);
  const json = await tca(["bench", "quixbugs", "compare", honest, "--json"]);
  const parsed = JSON.parse(json.out) as { table: { rows: { model: string; cells: Record<string, unknown> }[] } };
  assert.deepEqual(
    parsed.table.rows.map((r) => [r.model, r.cells.A, r.cells.D]),
    [["PIPELINE CHECK: scripted", "66.7%", null]],
  );
});
