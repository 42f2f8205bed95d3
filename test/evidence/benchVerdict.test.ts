// The bench verdict: an honest run folder (written by the bench's own writers) is complete; each
// summary that disagrees with the task log or the traces is EVIDENCE INVALID, named.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { buildReportDocument } from "../../src/report/reportBuilder.ts";
import { writeBenchRun } from "./benchRunFixture.ts";
import { assertVerdictInvalid, copyRun } from "./benchEvidenceAttack.ts";

const root = mkdtempSync(join(tmpdir(), "tca-bench-verdict-"));
after(() => rmSync(root, { recursive: true, force: true }));
const honest = join(root, "honest");
const tasks = writeBenchRun(honest, { programs: 3, turns: 2 });

const copyOf = (name: string): string => copyRun(honest, root, name);
const assertInvalid = assertVerdictInvalid;

test("an honest run is complete, with every task from the log", () => {
  const verdict = deriveBenchVerdict(honest);
  assert.deepEqual(verdict.problems, []);
  assert.equal(verdict.kind, "complete");
  assert.equal(verdict.tasks.length, 12);
  const built = buildReportDocument(honest);
  assert.ok(built.ok && built.value.kind === "bench");
  assert.ok(!built.value.bench.verdict.headline.endsWith("EVIDENCE INVALID"), built.value.bench.verdict.headline);
});

test("results.json promoting a failed task to fixed is EVIDENCE INVALID, in the report too", () => {
  const dir = copyOf("forged-results");
  const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as {
    tasks: Array<Record<string, unknown>>;
    summary: Array<Record<string, unknown>>;
  };
  const failed = results.tasks.find((task) => task.outcome !== "fixed");
  assert.ok(failed !== undefined);
  failed.outcome = "fixed";
  writeFileSync(join(dir, "results.json"), JSON.stringify(results));
  assertInvalid(dir, /results\.json: its tasks differ from tasks\.ndjson/);
  const built = buildReportDocument(dir);
  assert.ok(built.ok && built.value.kind === "bench");
  assert.match(built.value.bench.verdict.headline, /^[A-Z ]+ · EVIDENCE INVALID$/);
});

test("a summary with inflated counts, a task record whose outcome its grade contradicts, a torn log", () => {
  const summary = copyOf("forged-summary");
  const results = JSON.parse(readFileSync(join(summary, "results.json"), "utf8")) as {
    summary: Array<Record<string, unknown>>;
  };
  results.summary[0]!.fixed = 99;
  writeFileSync(join(summary, "results.json"), JSON.stringify(results));
  assertInvalid(summary, /results\.json: its summary differs/);

  const record = copyOf("forged-record");
  const failedTask = tasks.find((task) => task.grade.outcome !== "passed")!;
  appendFileSync(
    join(record, "tasks.ndjson"),
    `${JSON.stringify({ ...failedTask, outcome: "fixed", falseFixed: false })}\n`,
  );
  assertInvalid(record, new RegExp(`${failedTask.taskId} says fixed; its grade, stop reason and change say`));
  assertInvalid(record, /falseFixed disagrees/);

  const torn = copyOf("torn-log");
  appendFileSync(join(torn, "tasks.ndjson"), '{"taskId":"A-');
  assertInvalid(torn, /tasks\.ndjson:\d+: the last line is incomplete/, "truncated_log");
});

test("a trace whose task_end disagrees, a diff that is not the trace's, a symlinked traces/ folder", () => {
  const trace = copyOf("forged-trace");
  const path = join(trace, tasks[0]!.tracePath!);
  writeFileSync(path, readFileSync(path, "utf8").replace('"turns":2', '"turns":1'));
  assertInvalid(trace, /task_end's result differs/);

  const diff = copyOf("forged-diff");
  const withDiff = tasks.find((task) => task.diffPath !== undefined)!;
  appendFileSync(join(diff, withDiff.diffPath!), "+extra line\n");
  assertInvalid(diff, /differs from the trace's diff/);

  const linked = copyOf("linked-traces");
  renameSync(join(linked, "traces"), join(root, "outside-traces"));
  symlinkSync(join(root, "outside-traces"), join(linked, "traces"));
  assertInvalid(linked, /traces\/.*: symlink_refused/);

  const missing = copyOf("missing-log");
  rmSync(join(missing, "tasks.ndjson"));
  mkdirSync(join(missing, "tasks.ndjson"));
  assertInvalid(missing, /tasks\.ndjson: not_regular_file/);
});
