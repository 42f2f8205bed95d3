// The README's main job, through the real CLI in a child process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { freshRoot, readAudit, readJson } from "./labRunTestSupport.ts";

const BIN = new URL("../../bin/tca.js", import.meta.url).pathname;
const tca = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });

test("tca lab baseline prints the honest summary and exits 0 on verified success", () => {
  const root = freshRoot("cli-baseline");
  const run = join(root, "run");
  const result = tca("lab", "baseline", "--run", run);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /scripted baseline \(harness check; no model was invoked\)/);
  assert.match(result.stdout, /stop reason: +finish_accepted/);
  assert.match(result.stdout, /held-out cases: +8\/8/);
  assert.match(result.stdout, /verified_success: +true/);
  assert.equal(readJson(join(run, "final.json"))["verified_success"], true);
});

test("tca lab baseline refuses an existing destination and leaves it alone", () => {
  const root = freshRoot("cli-existing");
  const run = join(root, "run");
  mkdirSync(run);
  const result = tca("lab", "baseline", "--run", run);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /run_destination_exists/);
  assert.deepEqual(readdirSync(run), []);
});

test("tca lab checks runs every check, writes checks.json and exits 0", () => {
  const root = join(freshRoot("cli-checks"), "checks");
  const result = tca("lab", "checks", "--root", root);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /case +expected code +observed code +source\/version unchanged/);
  assert.match(result.stdout, /^\d+ passed, 0 failed$/m);
  const report = readJson(join(root, "checks.json"));
  assert.equal(report["failed"], 0);
  assert.ok((report["total"] as number) >= 40);
  assert.ok(existsSync(join(root, "stale_version", "audit.jsonl")));
  // Each row names its run's stop reason; no check run stops as model_error; no process was started.
  assert.match(result.stdout, /run stop reason/);
  const rows = report["checks"] as Record<string, unknown>[];
  assert.ok(rows.every((row) => row["stopReason"] !== "model_error"));
  assert.ok(rows.filter((row) => row["runDirectory"] !== null).every((row) => typeof row["stopReason"] === "string"));
  assert.deepEqual((report["process_watch"] as Record<string, unknown>)["processes_started"], 0);
  assert.match(result.stdout, /^processes, threads or native addons started during the checks: 0$/m);
});

test("tca lab baseline records in its own audit that no process was started", () => {
  const root = freshRoot("cli-watch");
  const run = join(root, "run");
  assert.equal(tca("lab", "baseline", "--run", run).status, 0);
  const audit = readAudit(run);
  const watch = audit.filter((r) => r.type === "process_watch");
  assert.equal(watch.length, 1);
  assert.equal(watch[0]?.data["processes_started"], 0);
  assert.equal(watch[0]?.data["threads_started"], 0);
  assert.equal(watch[0]?.data["native_addons_loaded"], 0);
});
