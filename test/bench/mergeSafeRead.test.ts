// bench merge and compare read shards through src/core/safeRead (issue 14): a shard whose diffs/
// is a link to a host directory contributes its results but never a host file, and a FIFO in
// place of tasks.ndjson is refused at once instead of blocking the merge.
import { after, test } from "node:test";
import { taskStartData, traceLine } from "./traceFixtures.ts";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mergeRuns } from "../../src/bench/runs/runMerge.ts";
import { loadComparison } from "../../src/bench/runs/runComparison.ts";

const root = mkdtempSync(join(tmpdir(), "tca-merge-safe-"));
after(() => rmSync(root, { recursive: true, force: true }));

const SECRET = "host-secret-marker";

function shard(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "traces"), { recursive: true });
  const manifest = {
    schema: 1,
    kind: "quixbugs-run",
    createdAt: "2026-01-01T00:00:00Z",
    fingerprint: { model: "scripted" },
    model: { label: "scripted" },
    conditions: ["A"],
    programs: ["gcd"],
    shard: null,
    environment: {},
  };
  writeFileSync(join(dir, "run.json"), JSON.stringify(manifest));
  const result = {
    taskId: "A-gcd",
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
    tracePath: "traces/A-gcd.ndjson",
    diffPath: "diffs/A-gcd.diff",
  };
  writeFileSync(join(dir, "tasks.ndjson"), `${JSON.stringify(result)}\n`);
  writeFileSync(
    join(dir, "traces", "A-gcd.ndjson"),
    traceLine("task_start", taskStartData({ taskId: "A-gcd", condition: "A" })),
  );
  return dir;
}

test("a shard with diffs -> host directory: results merged, the host file never copied", () => {
  const host = join(root, "host");
  mkdirSync(host);
  writeFileSync(join(host, "A-gcd.diff"), `${SECRET}\n`);
  const dir = shard("linked");
  symlinkSync(host, join(dir, "diffs"));
  const out = join(root, "merged");
  const merged = mergeRuns([dir], out);
  assert.ok(merged.ok, merged.ok ? "" : merged.message);
  assert.equal(merged.value.results.length, 1);
  assert.equal(existsSync(join(out, "diffs", "A-gcd.diff")), false, "the linked file is not copied");
  assert.ok(
    readFileSync(join(out, "traces", "A-gcd.ndjson"), "utf8").includes("task_start"),
    "regular files are still copied",
  );
});

test("a FIFO tasks.ndjson or run.json is refused at once by merge and compare", () => {
  const dir = shard("fifo");
  rmSync(join(dir, "tasks.ndjson"));
  execFileSync("mkfifo", [join(dir, "tasks.ndjson")]);
  const merged = mergeRuns([dir], join(root, "merged-fifo"));
  assert.equal(merged.ok ? "merged" : merged.error, "results_invalid");
  const compared = loadComparison([dir]);
  assert.equal(compared.ok ? "compared" : compared.error, "results_invalid");
  const manifestFifo = shard("fifo-manifest");
  rmSync(join(manifestFifo, "run.json"));
  execFileSync("mkfifo", [join(manifestFifo, "run.json")]);
  const refused = loadComparison([manifestFifo]);
  assert.equal(refused.ok ? "compared" : refused.error, "run_dir_invalid");
  assert.match(refused.ok ? "" : refused.message, /not_regular_file/);
});
