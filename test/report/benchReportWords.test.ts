// The bench report's task view and tables in words (issue #35 item 8, #34's rows), decided in Node
// where a test reaches them without a browser: the grading run as labeled rows (a grade "error" is
// the program's, never beside "0 errors"), guardrail counts with their names (no camelCase key), a
// false "fixed" as a note in the value, each task's statements along the way and the size of its
// change, both per condition as results.md has them; and an EVIDENCE INVALID or a recorded
// verification caused by a data set names its code and the next command.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildReport } from "../../src/report/reportBuilder.ts";
import { gradeRows, guardrailRows } from "../../src/report/benchReport.ts";
import type { BenchReportData } from "../../src/report/reportDocument.ts";
import { alongTheWay } from "../../src/bench/results/alongTheWay.ts";
import { STATEMENT_LABELS } from "../../src/bench/results/claimStatements.ts";
import { FIX_SIZE_LABELS } from "../../src/bench/results/fixSize.ts";
import { canonicalJson } from "../../src/core/canonicalJson.ts";
import { sha256Hex } from "../../src/core/digest.ts";
import { ALONG_THE_WAY_PROSE, writeBenchRun } from "../evidence/benchRunFixture.ts";

const root = mkdtempSync(join(tmpdir(), "tca-bench-words-"));
after(() => rmSync(root, { recursive: true, force: true }));

function benchOf(dir: string): BenchReportData {
  const built = buildReport(dir);
  assert.ok(built.ok);
  if (built.value.document.kind !== "bench") throw new Error("not a bench report");
  return built.value.document.bench;
}

const CAMEL_CASE = /\b[a-z]+[A-Z][A-Za-z]*\b/;

test("the grading run in words: each outcome worded, 'error' is the program's and never stands beside '0 errors'", () => {
  const counts = (passed: number, failed: number, errors = 0) => ({ passed, failed, errors, skipped: 0 });
  const error = gradeRows({ outcome: "error", counts: counts(0, 0), seconds: 0.4, summary: "" });
  assert.deepEqual(error.slice(0, 2), [
    { label: "grade", value: "error: the program could not be imported or run" },
    { label: "public cases", value: "no case ran" },
  ]);
  assert.ok(!error.some((row) => /\b0 errors?\b/.test(row.value)));
  const failed = gradeRows({
    outcome: "failed",
    counts: counts(4, 3, 2),
    seconds: 1.5,
    summary: "graded",
    heldOut: { seed: 7, passed: 48, total: 50, dropped: 0 },
  });
  assert.deepEqual(
    failed.map((row) => row.label),
    ["grade", "public cases", "held-out cases", "time", "summary"],
  );
  assert.equal(failed[1]?.value, "4 passed, 3 failed, 2 cases raised an error");
  assert.match(failed[2]?.value ?? "", /^48 of 50 passed \(seed 7\); reported beside the grade/);
  assert.equal(
    gradeRows({ outcome: "passed", counts: counts(6, 0), seconds: 1, summary: "", heldOut: null })[2]?.value,
    "none for this program",
  );
  assert.deepEqual(gradeRows(null), [{ label: "grading run", value: "not recorded" }]);
  for (const row of [...error, ...failed]) assert.doesNotMatch(`${row.label} ${row.value}`, /[{}"]/, "no JSON");
});

test("guardrail rows: every count named in words; A has no tools, B no test runs, only D refused stops", () => {
  const counts = {
    testRuns: 2,
    blockedWrites: 1,
    testEditAttempts: 1,
    blockedReads: 0,
    referenceReadAttempts: 0,
    toolErrors: 0,
    refusedStopAttempts: 3,
  };
  const d = guardrailRows("D", counts);
  assert.equal(d.length, 7);
  for (const row of d) assert.doesNotMatch(row.label, CAMEL_CASE);
  assert.deepEqual(
    d.find((row) => row.label === "attempts to edit tests"),
    { label: "attempts to edit tests", value: "1" },
  );
  assert.equal(d.find((row) => row.label === "refused stop attempts")?.value, "3");
  const c = guardrailRows("C", counts);
  assert.equal(c.find((row) => row.label === "refused stop attempts")?.value, "none: only condition D refuses a stop");
  const b = guardrailRows("B", counts);
  assert.equal(b.find((row) => row.label === "test runs")?.value, "none: this condition cannot run the tests");
  assert.deepEqual(guardrailRows("A", counts), [
    { label: "no tools", value: "condition A has no tools: nothing to count" },
  ]);
  assert.deepEqual(guardrailRows("A", null), []);
});

test("each task's statements along the way and the size of its change, and both per condition from the verified records", () => {
  const dir = join(root, "along");
  const tasks = writeBenchRun(dir, { programs: 3, turns: 1, alongTheWay: true });
  const bench = benchOf(dir);
  assert.equal(bench.verdict.tone, "neutral", bench.verdict.details.join("\n"));
  const byId = new Map(bench.tasks.map((t) => [t.taskId, t]));
  tasks.forEach((task, i) => {
    const view = byId.get(task.taskId);
    assert.ok(view !== undefined);
    // Task k (1-based) said ALONG_THE_WAY_PROSE[k % 4] in its first reply.
    const expected = [
      ["none of the three"],
      [STATEMENT_LABELS.original_correct],
      [STATEMENT_LABELS.tests_at_fault],
      [STATEMENT_LABELS.fix_announced_not_made],
    ][(i + 1) % 4];
    assert.deepEqual(view.statements, expected, `${task.taskId}: ${ALONG_THE_WAY_PROSE[(i + 1) % 4]}`);
    assert.equal(
      view.fixSize,
      task.fixSize === null || task.fixSize === undefined
        ? "no change"
        : `${task.fixSize.linesChanged} line${task.fixSize.linesChanged === 1 ? "" : "s"} changed: ${FIX_SIZE_LABELS[task.fixSize.kind]}`,
    );
    if (task.falseFixed) assert.equal(view.claimNote, 'claimed fixed, and the grading run failed: a false "fixed"');
    else assert.equal(view.claimNote, null);
  });
  assert.ok(bench.tasks.some((t) => t.fixSize === "1 line changed: the buggy line only"));
  assert.ok(bench.tasks.some((t) => /^\d+ lines changed: a rewrite of the function$/.test(t.fixSize)));
  // Per condition: the bench's own alongTheWay over the records, as results.md counts them.
  assert.deepEqual(bench.alongTheWay, JSON.parse(JSON.stringify(alongTheWay(tasks))));
  const total = (kind: "original_correct" | "tests_at_fault" | "fix_announced_not_made"): number =>
    bench.alongTheWay.reduce((sum, row) => sum + row.statements.counts[kind], 0);
  assert.equal(total("original_correct"), tasks.filter((_, i) => (i + 1) % 4 === 1).length);
  assert.equal(total("fix_announced_not_made"), tasks.filter((_, i) => (i + 1) % 4 === 3).length);
  const rewrites = bench.alongTheWay.reduce((sum, row) => sum + row.fixSizes.kinds.rewrite, 0);
  assert.equal(rewrites, tasks.filter((t) => t.outcome === "fixed" && t.fixSize?.kind === "rewrite").length);
  assert.ok(rewrites > 0);
});

test("an older record without statements or fix size says so, never 'none'", () => {
  const dir = join(root, "older");
  writeBenchRun(dir, { programs: 1, turns: 1 });
  const task = benchOf(dir).tasks[0];
  assert.deepEqual(task?.statements, ["not analysed (a record older than the analysis)"]);
  assert.equal(task?.fixSize, "not measured (a record older than the measure)");
});

function withDataset(dir: string, programs: Record<string, string>): { root: string; sha256: string } {
  const manifest = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as Record<string, unknown>;
  const identity = {
    root: join(root, "quixbugs-of-the-run"),
    relativeToRun: "../quixbugs-of-the-run",
    sha256: sha256Hex(canonicalJson(programs)),
    programs,
  };
  writeFileSync(join(dir, "run.json"), JSON.stringify({ ...manifest, dataset: identity }, null, 2) + "\n");
  return identity;
}

test("EVIDENCE INVALID from a data set: the page names the code and the next command first, not 'the files disagree'", () => {
  const dir = join(root, "digest-mismatch");
  const tasks = writeBenchRun(dir, { programs: 2, turns: 1 });
  // run.json names a data set whose digests are not the ones the traces recorded at task_start.
  const identity = withDataset(
    dir,
    Object.fromEntries([...new Set(tasks.map((t) => t.program))].map((p) => [p, "1".repeat(64)])),
  );
  const bench = benchOf(dir);
  assert.equal(bench.verdict.headline, "PIPELINE CHECK · EVIDENCE INVALID");
  const [first, second, third] = bench.verdict.details;
  assert.match(first ?? "", new RegExp(`^cause: dataset_digest_mismatch \\(${tasks.length} problems\\): `));
  assert.match(
    second ?? "",
    new RegExp(
      `another data set than run\\.json names \\(${identity.root}, content sha256 ${identity.sha256.slice(0, 12)}\\)`,
    ),
  );
  assert.equal(
    third,
    `next step: run the tasks again into a new folder on the data set you mean: tca bench quixbugs run --dataset ${identity.root} --out ${dir}-rerun with this run's model options`,
  );
  assert.ok(!bench.verdict.details.some((line) => /files disagree with its task log/.test(line)));
});

test("EVIDENCE INVALID from anything else names its own code, and no data set step", () => {
  const dir = join(root, "edited-results");
  writeBenchRun(dir, { programs: 1, turns: 1 });
  const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "results.json"), JSON.stringify({ ...results, tasksDone: 99 }));
  const bench = benchOf(dir);
  assert.equal(bench.verdict.headline, "PIPELINE CHECK · EVIDENCE INVALID");
  assert.match(bench.verdict.details[0] ?? "", /^cause: results_count_mismatch: /);
  assert.ok(!bench.verdict.details.some((line) => line.startsWith("next step:")));
});

function recordVerification(dir: string, facts: Record<string, unknown>): void {
  const tasksSha256 = sha256Hex(readFileSync(join(dir, "tasks.ndjson")));
  const keys = readFileSync(join(dir, "tasks.ndjson"), "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const task = JSON.parse(line) as { taskId: string };
      return task.taskId;
    });
  writeFileSync(
    join(dir, "verification.json"),
    JSON.stringify({
      schema: 1,
      kind: "quixbugs-verification",
      verifiedAt: "2026-12-01T00:00:00.000Z",
      tasksSha256,
      ...facts,
      identical: false,
      total: keys.length,
      tasks: keys.map((key, i) => ({ key, identical: i !== 0, differences: i === 0 ? ["programSha256"] : [] })),
    }),
  );
}

test("a recorded verification made on another data set: dataset_mismatch and the command that re-grades on the run's own", () => {
  const dir = join(root, "verified-elsewhere");
  const tasks = writeBenchRun(dir, { programs: 2, turns: 1 });
  const identity = withDataset(
    dir,
    Object.fromEntries([...new Set(tasks.map((t) => t.program))].map((p) => [p, "0".repeat(64)])),
  );
  recordVerification(dir, {
    dataset: "/data/other-set",
    datasetSha256: "2".repeat(64),
    datasetChoice: "given, none recorded",
  });
  const bench = benchOf(dir);
  assert.equal(bench.verdict.tone, "neutral", "a record decides nothing");
  const at = bench.verdict.details.findIndex((line) => line.startsWith("recorded verification"));
  assert.ok(at >= 0);
  assert.match(bench.verdict.details[at] ?? "", /the re-grade disagreed with 1 task record/);
  assert.equal(
    bench.verdict.details[at + 1],
    `cause: dataset_mismatch: the recorded re-grade used /data/other-set (content sha256 222222222222), not the data set this run was made on, ${identity.root} (content sha256 ${identity.sha256.slice(0, 12)}): its disagreement is the data set's, not the run's`,
  );
  assert.match(
    bench.verdict.details[at + 2] ?? "",
    new RegExp(`^next step: tca bench quixbugs verify-run ${dir} \\(it re-grades against the run's own data set`),
  );
  // The same record against the run's own data set content is a disagreement of the run: no data set cause.
  recordVerification(dir, { dataset: identity.root, datasetSha256: identity.sha256, datasetChoice: "recorded" });
  assert.ok(!benchOf(dir).verdict.details.some((line) => line.startsWith("cause:")));
});

test("a recorded verification of a run that records no data set: dataset_required and the command with --dataset", () => {
  const dir = join(root, "no-identity");
  writeBenchRun(dir, { programs: 1, turns: 1 });
  recordVerification(dir, {
    dataset: "/data/guess",
    datasetSha256: "3".repeat(64),
    datasetChoice: "given, none recorded",
  });
  const details = benchOf(dir).verdict.details;
  assert.ok(details.some((line) => line.startsWith("cause: dataset_required: run.json records no data set identity")));
  assert.ok(
    details.includes(
      `next step: tca bench quixbugs verify-run ${dir} --dataset FOLDER, FOLDER the data set this run was made on`,
    ),
  );
});
