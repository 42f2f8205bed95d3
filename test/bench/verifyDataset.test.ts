// verify-dataset through the CLI, in the real sandbox. On the real data set (../shared/quixbugs
// in CI, skipped with the reason where it is absent): all 40 buggy programs fail (three by never
// terminating) and all 40 reference fixes pass. On the project's own small data set (always
// present): the same check, and the refusals.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MINI_DATASET_DIR, realQuixBugs } from "../support/optionalResources.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));

/** Runs the real CLI as a child process (the test runner owns this process's stdout). */
function tca(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [TCA, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? Number(error.code) : 0, out: stdout });
    });
  });
}

interface Report {
  ok: boolean;
  programs: number;
  buggyFailing: number;
  fixesPassing: number;
  excluded: string[];
  records: { program: string; buggy: { outcome: string }; fixed: { outcome: string; counts: { passed: number; skipped: number } } }[];
}

const REAL = realQuixBugs();

test("verify-dataset --json: 40 buggy programs fail, 40 reference fixes pass, the slow case is excluded and said so", { skip: REAL.skip }, async () => {
  const { code, out } = await tca(["bench", "quixbugs", "verify-dataset", "--json", "--jobs", "8", "--dataset", REAL.path]);
  const report = JSON.parse(out) as Report;
  const notOk = report.records.filter((r) => r.buggy.outcome === "passed" || r.fixed.outcome !== "passed").map((r) => `${r.program}: buggy ${r.buggy.outcome}, fixed ${r.fixed.outcome}`);
  assert.deepEqual(notOk, []);
  assert.equal(code, 0);
  assert.equal(report.ok, true);
  assert.equal(report.programs, 40);
  assert.equal(report.buggyFailing, 40);
  assert.equal(report.fixesPassing, 40);
  const timeouts = report.records.filter((r) => r.buggy.outcome === "timeout").map((r) => r.program).sort();
  for (const p of ["bitcount", "find_first_in_sorted", "sqrt"]) assert.ok(timeouts.includes(p), `${p} should time out`);
  assert.match(report.excluded[0] ?? "", /^knapsack: the --runslow case/);
  assert.equal(report.records.find((r) => r.program === "knapsack")?.fixed.counts.skipped, 1);
});

test("verify-dataset --json on the project's own data set: 5 buggy programs fail (bitcount by timeout), 5 fixes pass", async () => {
  const { code, out } = await tca(["bench", "quixbugs", "verify-dataset", "--json", "--jobs", "4", "--test-timeout", "5", "--dataset", MINI_DATASET_DIR]);
  const report = JSON.parse(out) as Report;
  assert.equal(code, 0);
  assert.equal(report.ok, true);
  assert.deepEqual(report.records.map((r) => [r.program, r.buggy.outcome, r.fixed.outcome]), [
    ["bitcount", "timeout", "passed"],
    ["gcd", "failed", "passed"],
    ["is_palindrome", "failed", "passed"],
    ["linked_list_sum", "failed", "passed"],
    ["pascal", "failed", "passed"],
  ]);
  // Without --include-slow the slow case is skipped by the test itself, and no knapsack note is made up.
  assert.equal(report.records.find((r) => r.program === "is_palindrome")?.fixed.counts.skipped, 1);
  assert.deepEqual(report.excluded, []);
});

test("verify-dataset refuses an unknown program and a missing data set with stable codes", async () => {
  const unknown = await tca(["bench", "quixbugs", "verify-dataset", "--json", "--programs", "nope", "--dataset", MINI_DATASET_DIR]);
  assert.equal(unknown.code, 1);
  assert.equal((JSON.parse(unknown.out) as { error: string }).error, "unknown_program");
  const missing = await tca(["bench", "quixbugs", "verify-dataset", "--json", "--dataset", "/nonexistent/quixbugs"]);
  assert.equal(missing.code, 1);
  assert.equal((JSON.parse(missing.out) as { error: string }).error, "dataset_missing");
});
