// verify-dataset through the CLI, in the real sandbox. On the real data set (../shared/quixbugs
// in CI, skipped with the reason where it is absent): all 40 buggy programs fail (three by never
// terminating) and all 40 reference fixes pass. On the project's own small data set (always
// present): the same check, and the refusals.
import { sandboxTest } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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

interface Side {
  outcome: string;
  counts: { passed: number; failed: number; errors: number; skipped: number };
  fixedPublic: boolean;
  heldOut: { passed: number; total: number } | null;
}

interface Report {
  ok: boolean;
  grader: string;
  heldOutSeed: number;
  heldOutPrograms: number;
  heldOutDisagreements: number;
  programs: number;
  buggyFailing: number;
  fixesPassing: number;
  excluded: string[];
  records: {
    program: string;
    publicCases: number;
    excluded: string[];
    heldOutCases: number;
    heldOutDisagreements: number;
    buggy: Side;
    fixed: Side;
  }[];
}

/**
 * How many cases a program's tests define, counted from the data set's files (not by the code
 * under test): lines of its JSON data, or test functions in a hand-written test file.
 */
function casesInDataset(root: string, program: string): number {
  const data = join(root, "json_testcases", `${program}.json`);
  if (existsSync(data))
    return readFileSync(data, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "").length;
  return [...readFileSync(join(root, "python_testcases", `test_${program}.py`), "utf8").matchAll(/^def test/gm)].length;
}

const REAL = realQuixBugs();

sandboxTest(
  "verify-dataset --json: 40 buggy programs fail, 40 reference fixes pass, the slow case is excluded and said so",
  { skip: REAL.skip },
  async () => {
    const { code, out } = await tca([
      "bench",
      "quixbugs",
      "verify-dataset",
      "--json",
      "--jobs",
      "2",
      "--dataset",
      REAL.path,
    ]);
    const report = JSON.parse(out) as Report;
    const notOk = report.records
      .filter((r) => r.buggy.outcome === "passed" || r.fixed.outcome !== "passed")
      .map((r) => `${r.program}: buggy ${r.buggy.outcome}, fixed ${r.fixed.outcome}`);
    assert.deepEqual(notOk, []);
    assert.equal(code, 0);
    assert.equal(report.ok, true);
    assert.equal(report.programs, 40);
    assert.equal(report.buggyFailing, 40);
    assert.equal(report.fixesPassing, 40);
    const timeouts = report.records
      .filter((r) => r.buggy.outcome === "timeout")
      .map((r) => r.program)
      .sort();
    for (const p of ["bitcount", "find_first_in_sorted", "sqrt"])
      assert.ok(timeouts.includes(p), `${p} should time out`);
    assert.match(report.excluded[0] ?? "", /^knapsack: the --runslow case/);
    assert.equal(report.records.find((r) => r.program === "knapsack")?.fixed.counts.skipped, 1);
    assert.deepEqual(report.excluded.slice(1), ["levenshtein: case 4: skipped upstream (takes too long)"]);
    // The trusted grader asks every case the data set defines (minus the listed exclusions), and
    // the reference fix passes all of them.
    assert.equal(report.grader, "trusted-runner-v4");
    const countMismatch = report.records.filter(
      (r) =>
        r.publicCases + r.excluded.length !== casesInDataset(REAL.path, r.program) ||
        r.fixed.counts.passed !== r.publicCases,
    );
    assert.deepEqual(
      countMismatch.map((r) => r.program),
      [],
    );
    // Held-out cases: every program has its full 50 (inputs where the reference and the
    // independent implementation disagree are replaced by further draws), and the reference
    // passes its own; the disagreement count is reported per program.
    assert.equal(report.heldOutPrograms, 40);
    assert.deepEqual(
      report.records.filter((r) => r.heldOutCases !== 50).map((r) => r.program),
      [],
    );
    for (const r of report.records) {
      assert.deepEqual(r.fixed.heldOut, { passed: r.heldOutCases, total: r.heldOutCases }, r.program);
      assert.ok(Number.isInteger(r.heldOutDisagreements) && r.heldOutDisagreements >= 0, r.program);
    }
    assert.equal(
      report.heldOutDisagreements,
      report.records.reduce((sum, r) => sum + r.heldOutDisagreements, 0),
    );
  },
);

sandboxTest(
  "verify-dataset --json on the project's own data set: 5 buggy programs fail (bitcount by timeout), 5 fixes pass",
  async () => {
    const { code, out } = await tca([
      "bench",
      "quixbugs",
      "verify-dataset",
      "--json",
      "--jobs",
      "4",
      "--test-timeout",
      "5",
      "--dataset",
      MINI_DATASET_DIR,
    ]);
    const report = JSON.parse(out) as Report;
    assert.equal(code, 0);
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.records.map((r) => [r.program, r.buggy.outcome, r.fixed.outcome]),
      [
        ["bitcount", "timeout", "passed"],
        ["gcd", "failed", "passed"],
        ["is_palindrome", "failed", "passed"],
        ["linked_list_sum", "failed", "passed"],
        ["pascal", "failed", "passed"],
      ],
    );
    // Without --include-slow the slow case is excluded and said so, and no knapsack note is made up.
    assert.equal(report.records.find((r) => r.program === "is_palindrome")?.fixed.counts.skipped, 1);
    assert.deepEqual(report.excluded, ["is_palindrome: test_long_palindrome: slow case (run with --include-slow)"]);
  },
);

sandboxTest("verify-dataset refuses an unknown program and a missing data set with stable codes", async () => {
  const unknown = await tca([
    "bench",
    "quixbugs",
    "verify-dataset",
    "--json",
    "--programs",
    "nope",
    "--dataset",
    MINI_DATASET_DIR,
  ]);
  assert.equal(unknown.code, 1);
  assert.equal((JSON.parse(unknown.out) as { error: string }).error, "unknown_program");
  const missing = await tca(["bench", "quixbugs", "verify-dataset", "--json", "--dataset", "/nonexistent/quixbugs"]);
  assert.equal(missing.code, 1);
  assert.equal((JSON.parse(missing.out) as { error: string }).error, "dataset_missing");
});
