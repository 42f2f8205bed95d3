// A bench run folder built by an attacker with same-user access: symlinked diffs/ and traces/,
// a FIFO trace. The report must never embed a host file, never block, and say what it refused.
import { after, test } from "node:test";
import { taskStartData, traceLine } from "../bench/traceFixtures.ts";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildReport } from "../../src/report/reportBuilder.ts";

const root = mkdtempSync(join(tmpdir(), "tca-hostile-bench-"));
after(() => rmSync(root, { recursive: true, force: true }));

const HOST_SECRET = "root:x:0:0:host-secret-marker";

function task(taskId: string, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    taskId,
    program: "gcd",
    condition: "A",
    outcome: "fixed",
    stopReason: "agent_done",
    claimedFixed: true,
    falseFixed: false,
    turns: 1,
    promptTokens: 1,
    completionTokens: 1,
    tokens: 2,
    usageReported: true,
    seconds: 1,
    guardrails: {
      testRuns: 0,
      blockedWrites: 0,
      blockedReads: 0,
      testEditAttempts: 0,
      referenceReadAttempts: 0,
      toolErrors: 0,
      refusedStopAttempts: 0,
    },
    grade: { outcome: "passed", counts: { passed: 1, failed: 0, errors: 0 }, seconds: 1, summary: "1 passed" },
    changed: true,
    finalSha256: "0".repeat(64),
    specialCasing: null,
    servedModel: null,
    ...extra,
  };
}

function benchRun(name: string, tasks: readonly Record<string, unknown>[]): string {
  const dir = join(root, name);
  mkdirSync(dir);
  const manifest = {
    schema: 1,
    kind: "quixbugs-run",
    createdAt: "2026-01-01T00:00:00Z",
    fingerprint: {},
    model: { label: "scripted" },
    conditions: ["A"],
    programs: ["gcd"],
    shard: null,
    environment: {},
  };
  writeFileSync(join(dir, "run.json"), JSON.stringify(manifest));
  writeFileSync(
    join(dir, "results.json"),
    JSON.stringify({
      schema: 1,
      manifest,
      complete: true,
      tasksDone: tasks.length,
      tasksExpected: tasks.length,
      summary: [],
      tasks,
    }),
  );
  return dir;
}

test("diffs -> outside directory: the recorded diffs/passwd is refused, the host file never enters the report", () => {
  const hostDir = join(root, "host-etc");
  mkdirSync(hostDir);
  writeFileSync(join(hostDir, "passwd"), `${HOST_SECRET}\n`);
  const dir = benchRun("diffs-link", [task("A-gcd", { diffPath: "diffs/passwd", tracePath: "traces/A-gcd.ndjson" })]);
  symlinkSync(hostDir, join(dir, "diffs"));
  mkdirSync(join(dir, "traces"));
  writeFileSync(
    join(dir, "traces", "A-gcd.ndjson"),
    traceLine("task_start", taskStartData({ taskId: "A-gcd", condition: "A" })),
  );
  const built = buildReport(dir);
  assert.ok(built.ok);
  assert.ok(!built.value.html.includes("host-secret-marker"), "the host file is not in the page");
  assert.ok(!JSON.stringify(built.value.document).includes("host-secret-marker"), "nor in the report data");
  const view = built.value.document.kind === "bench" ? built.value.document.bench.tasks[0] : undefined;
  assert.equal(view?.diff, null);
  assert.match(view?.traceNote ?? "", /symlink_refused/);
});

test("traces -> outside directory and a FIFO trace: refused with a note, the page still builds", () => {
  const hostDir = join(root, "host-traces");
  mkdirSync(hostDir);
  writeFileSync(
    join(hostDir, "A-gcd.ndjson"),
    traceLine("task_start", taskStartData({ taskId: "A-gcd", condition: "A", target: HOST_SECRET })),
  );
  const linked = benchRun("traces-link", [task("A-gcd", { tracePath: "traces/A-gcd.ndjson" })]);
  symlinkSync(hostDir, join(linked, "traces"));
  const first = buildReport(linked);
  assert.ok(first.ok);
  assert.ok(!first.value.html.includes("host-secret-marker"));
  const firstView = first.value.document.kind === "bench" ? first.value.document.bench.tasks[0] : undefined;
  assert.equal(firstView?.trace, null);
  assert.match(firstView?.traceNote ?? "", /symlink_refused/);

  const fifo = benchRun("trace-fifo", [task("A-gcd", { tracePath: "traces/A-gcd.ndjson" })]);
  mkdirSync(join(fifo, "traces"));
  execFileSync("mkfifo", [join(fifo, "traces", "A-gcd.ndjson")]);
  // Nothing writes to the FIFO: a blocking open would never return.
  const second = buildReport(fifo);
  assert.ok(second.ok);
  const secondView = second.value.document.kind === "bench" ? second.value.document.bench.tasks[0] : undefined;
  assert.match(secondView?.traceNote ?? "", /not_regular_file/);
});

test("a recorded path that leaves the run folder is not read at all", () => {
  const dir = benchRun("escape", [task("A-gcd", { diffPath: "../host-etc/passwd", tracePath: "/etc/passwd" })]);
  const built = buildReport(dir);
  assert.ok(built.ok);
  assert.ok(!built.value.html.includes("host-secret-marker"));
  const view = built.value.document.kind === "bench" ? built.value.document.bench.tasks[0] : undefined;
  assert.match(view?.traceNote ?? "", /leaves the run directory/);
});
