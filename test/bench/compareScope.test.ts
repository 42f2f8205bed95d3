// Issue #28 item 12: compare puts runs over different tasks side by side only with a warning, and
// by default over the tasks they share; its Markdown fits 100 columns. The runs are written by the
// bench's own writers (test/evidence/benchRunFixture.ts) and compared through the CLI.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { restrictToCommonTasks } from "../../src/bench/runs/runComparison.ts";
import { overlongLines } from "../../src/core/textWidth.ts";
import { writeBenchRun } from "../evidence/benchRunFixture.ts";
import { tca } from "../support/tcaCli.ts";

const root = mkdtempSync(join(tmpdir(), "tca-compare-"));
after(() => rmSync(root, { recursive: true, force: true }));

// 5 programs x 4 conditions = 20 tasks beside 3 x 4 = 12: the 12 of programs 00-02 are common.
const five = join(root, "five");
const three = join(root, "three");
const fiveTasks = writeBenchRun(five, { programs: 5, turns: 1 });
const threeTasks = writeBenchRun(three, { programs: 3, turns: 1 });

test("restrictToCommonTasks: the shared tasks only, with a warning naming the counts; same tasks: no warning", () => {
  const runs = [
    { dir: five, tasks: fiveTasks },
    { dir: three, tasks: threeTasks },
  ];
  const scoped = restrictToCommonTasks(runs, false);
  assert.deepEqual(
    scoped.runs.map((r) => r.tasks.length),
    [12, 12],
  );
  assert.deepEqual(scoped.runs[0]?.tasks.map((t) => t.taskId).sort(), threeTasks.map((t) => t.taskId).sort());
  assert.match(
    scoped.warning ?? "",
    /R1 20, R2 12\); comparing only the 12 task\(s\) all of them ran; pass --all-tasks/,
  );
  const all = restrictToCommonTasks(runs, true);
  assert.deepEqual(
    all.runs.map((r) => r.tasks.length),
    [20, 12],
  );
  assert.match(all.warning ?? "", /--all-tasks: each row is over its own run's tasks/);
  assert.deepEqual(
    restrictToCommonTasks(
      [
        { dir: three, tasks: threeTasks },
        { dir: three, tasks: threeTasks },
      ],
      false,
    ),
    {
      runs: [
        { dir: three, tasks: threeTasks },
        { dir: three, tasks: threeTasks },
      ],
      warning: null,
    },
  );
  // QuixBugs beside a generated task set: same task names, different programs; nothing is cut.
  const manifest = (source: string) =>
    ({
      schema: 1,
      kind: "quixbugs-run",
      createdAt: "",
      fingerprint: {},
      model: {},
      conditions: [],
      programs: [],
      shard: null,
      environment: { datasetSource: source },
    }) as never;
  const acrossSets = restrictToCommonTasks(
    [
      { dir: five, tasks: fiveTasks, manifest: manifest("jkoppel/QuixBugs@4257f44") },
      { dir: three, tasks: threeTasks, manifest: manifest("generated task set seed 1") },
    ],
    false,
  );
  assert.deepEqual(
    acrossSets.runs.map((r) => r.tasks.length),
    [20, 12],
  );
  assert.match(
    acrossSets.warning ?? "",
    /^the runs are on different data sets \(jkoppel\/QuixBugs@4257f44; generated task set seed 1\); each row is over its own run's tasks$/,
  );
});

test("compare over runs of different size: warned on stderr and in the Markdown, n over the common tasks, lines within 100 columns", async () => {
  const r = await tca(["bench", "quixbugs", "compare", five, three]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^warning: the runs cover different tasks \(R1 20, R2 12\); comparing only the 12 task\(s\)/m);
  assert.match(r.out, /^> \*\*Warning:\*\* the runs cover different tasks/m);
  // Each condition of each run has 3 graded tasks (the common programs), not 5.
  const rows = r.out.split("\n").filter((line) => /^\| R[12] \| [ABCD] \| [\d.]+% \|/.test(line));
  assert.equal(rows.length, 8);
  for (const row of rows) assert.match(row, /^\| R[12] \| [ABCD] \| [\d.]+% \| [\d.]+%–[\d.]+% \| 3 \| 0 \| \d+ \|$/);
  assert.match(r.out, new RegExp(`^- R1: PIPELINE CHECK: scripted on QuixBugs \\(${five}\\), 12 tasks$`, "m"));
  assert.deepEqual(overlongLines(r.out), []);

  const all = await tca(["bench", "quixbugs", "compare", "--all-tasks", five, three]);
  assert.equal(all.code, 0, all.err);
  assert.match(all.err, /--all-tasks: each row is over its own run's tasks/);
  assert.match(all.out, /^\| R1 \| A \| [\d.]+% \| [\d.]+%–[\d.]+% \| 5 \|/m);
  assert.match(all.out, /^\| R2 \| A \| [\d.]+% \| [\d.]+%–[\d.]+% \| 3 \|/m);

  const same = await tca(["bench", "quixbugs", "compare", three, three]);
  assert.equal(same.code, 0, same.err);
  assert.equal(same.err, "");
  assert.doesNotMatch(same.out, /Warning/);
});
