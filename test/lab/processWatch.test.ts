// The process watch counts what it must (so "0 processes started" can fail), names no host
// path, and restores node:child_process and node:worker_threads when stopped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as childProcess from "node:child_process";
import { Worker } from "node:worker_threads";
import { join } from "node:path";
import { watchProcesses } from "../../src/lab/processWatch.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { freshRoot, readAudit, schemaProblems } from "./labRunTestSupport.ts";

test("a process started while the watch is on is counted, with the command's base name only", () => {
  const original = childProcess.spawnSync;
  const watch = watchProcesses();
  let report;
  try {
    // A named ESM import follows the wrapped function.
    spawnSync(process.execPath, ["-e", ""]);
    report = watch.report();
  } finally {
    watch.stop();
  }
  assert.equal(report.processes_started, 1);
  assert.equal(report.calls.length, 1);
  assert.match(report.calls[0] ?? "", /^spawnSync node/);
  assert.ok(!(report.calls[0] ?? "").includes("/"), "no host path in the evidence");
  assert.equal(childProcess.spawnSync, original, "restored after stop");
  // After stop, nothing is counted any more.
  spawnSync(process.execPath, ["-e", ""]);
  assert.equal(watch.report().processes_started, 1);
});

test("a worker thread started while the watch is on is counted", async () => {
  const watch = watchProcesses();
  try {
    const { Worker: Watched } = await import("node:worker_threads");
    const worker = new Watched("", { eval: true });
    await worker.terminate();
    assert.equal(watch.report().threads_started, 1);
  } finally {
    watch.stop();
  }
  assert.equal((await import("node:worker_threads")).Worker, Worker);
});

test("a native addon load while the watch is on is counted (even one that fails)", () => {
  const original = process.dlopen;
  const watch = watchProcesses();
  try {
    assert.throws(() => process.dlopen({ exports: {} } as NodeJS.Module, "/nonexistent/engine.node"));
    const report = watch.report();
    assert.equal(report.native_addons_loaded, 1);
    assert.deepEqual(report.calls, ["dlopen engine.node"]);
  } finally {
    watch.stop();
  }
  assert.equal(process.dlopen, original, "restored after stop");
});

test("only one watch at a time", () => {
  const watch = watchProcesses();
  try {
    assert.throws(() => watchProcesses(), /already on/);
  } finally {
    watch.stop();
  }
});

test("the baseline's own audit records 0 processes and 0 threads started", async () => {
  const root = freshRoot("watch-baseline");
  const result = await runScriptedBaseline(join(root, "run"));
  assert.ok(result.ok);
  assert.equal(result.value.final.verified_success, true);
  const events = readAudit(result.value.runDirectory).filter((r) => r.type === "process_watch");
  assert.equal(events.length, 1);
  assert.equal(events[0]?.data["processes_started"], 0);
  assert.equal(events[0]?.data["threads_started"], 0);
  assert.equal(events[0]?.data["native_addons_loaded"], 0);
  assert.deepEqual(schemaProblems(result.value.runDirectory), []);
});

test("a run during which a process is started says so in its audit (the fact can fail)", async () => {
  const root = freshRoot("watch-fails");
  const watch = watchProcesses();
  try {
    const result = await runLab({
      runDirectory: join(root, "run"),
      source: new ScriptedSource(BASELINE_PROPOSALS),
      kind: "scripted_baseline",
      processWatch: watch,
      controllerHooks: {
        afterObservation: (n) => void (n === 1 ? spawnSync(process.execPath, ["-e", ""]) : undefined),
      },
    });
    assert.ok(result.ok);
    const event = readAudit(result.value.runDirectory).find((r) => r.type === "process_watch");
    assert.equal(event?.data["processes_started"], 1);
  } finally {
    watch.stop();
  }
});
