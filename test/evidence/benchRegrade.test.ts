// verify-run and the consumers of a bench run, attacked as a user who wants to fake a result
// would: each forgery is made on a copy of a REAL run (the bench's own runBenchmark on the mini
// data set, scripted server, real sandbox), and the test asserts the verdict and that no consumer
// (report, compare, merge) shows a success.
import { after, before } from "node:test";
// Every test here reads the honest run that the hook makes in the sandbox.
import { sandboxPackages, sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { applyUnifiedDiff, unifiedDiff } from "../../src/bench/results/unifiedDiff.ts";
import { writeVerification } from "../../src/bench/runRegrade.ts";
import { readTaskResults } from "../../src/bench/runs/runDirectory.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { buildReportDocument } from "../../src/report/reportBuilder.ts";
import { MINI_DATASET_DIR } from "../bench/benchFixtures.ts";
import { realBenchRun } from "./regradeRunFixture.ts";
import { forgeFixed, rewriteTrace } from "./benchForgeries.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "tca-bench-regrade-"));
let honest = "";
before(async () => {
  if (sandboxPackages().skip !== false) return;
  honest = await realBenchRun(root, "honest");
});
after(() => rmSync(root, { recursive: true, force: true }));

function tca(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TCA, ...args], { timeout: 300_000 }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, out, err });
    });
  });
}

const verifyRun = (dir: string, dataset = MINI_DATASET_DIR): ReturnType<typeof tca> =>
  tca(["bench", "quixbugs", "verify-run", dir, "--dataset", dataset, "--jobs", "2"]);

function copyOf(name: string): string {
  const target = join(root, name);
  cpSync(honest, target, { recursive: true });
  rmSync(join(target, "verification.json"), { force: true });
  return target;
}

function headline(dir: string): { headline: string; details: readonly string[] } {
  const built = buildReportDocument(dir);
  assert.ok(built.ok && built.value.kind === "bench");
  return built.value.bench.verdict;
}

test("an honest run: verify-run re-grades every task identical, the report and the terminal show it as a record", async () => {
  assert.match(
    headline(honest).details.join("\n"),
    /^no recorded verification: not re-graded by this report; tca bench quixbugs verify-run/m,
  );
  const run = await verifyRun(honest);
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^verify-run: PIPELINE CHECK · re-graded 3\/3 tasks: identical/m);
  const record = JSON.parse(readFileSync(join(honest, "verification.json"), "utf8")) as {
    verifiedAt: string;
    tasks: { identical: boolean }[];
  };
  assert.deepEqual(
    record.tasks.map((task) => task.identical),
    [true, true, true],
  );
  const verdict = headline(honest);
  assert.match(verdict.headline, /1 OF 3 TASKS FIXED/);
  // The page never says it re-graded: the line is verify-run's record, with its time.
  assert.ok(
    verdict.details.includes(
      `recorded verification (${record.verifiedAt}): verify-run re-graded 3/3 tasks identical (a record, not re-graded by this report; tca bench quixbugs verify-run honest re-grades)`,
    ),
    JSON.stringify(verdict.details),
  );
  assert.ok(!verdict.details.some((line) => line.startsWith("re-graded")));
  const report = await tca(["report", honest, "--out", join(root, "honest-report.html")]);
  assert.equal(report.code, 0, report.err);
  assert.match(
    report.out,
    new RegExp(
      `^recorded verification \\(${record.verifiedAt.replace(/\./g, "\\.")}\\): verify-run re-graded 3/3`,
      "m",
    ),
  );
});

test("a wrong fix forged into 'fixed' everywhere but the diff: the cross-checks agree, verify-run says EVIDENCE INVALID naming it; its record is shown, never believed", async () => {
  const dir = copyOf("forged-fixed");
  forgeFixed(dir, "A-pascal");
  // Claims that agree with each other are still claims: only the re-grade sees the forgery.
  assert.equal(deriveBenchVerdict(dir).kind, "complete");
  const run = await verifyRun(dir);
  assert.equal(run.code, 1);
  assert.match(run.err, /^tca bench quixbugs verify-run: evidence_invalid: .*A-pascal/m);
  assert.match(run.out, /A-pascal: grade\.outcome: recorded "passed", re-graded "failed"/);
  assert.doesNotMatch(run.out, /A-gcd:/);
  // verification.json is a record anyone could write: it changes no verdict, and the page shows it as recorded.
  const verdict = deriveBenchVerdict(dir);
  assert.equal(verdict.kind, "complete");
  assert.deepEqual(verdict.recordedVerification.state, "disagrees");
  assert.match(
    headline(dir).details.join("\n"),
    /^recorded verification \(.*\): the re-grade disagreed with 1 task record\(s\): A-pascal \(a record, not re-graded by this report/m,
  );
});

test("a recorded diff swapped for the real fix (finalSha256 left): the replay finds the diff is not the replayed file's, verify-run refuses", async () => {
  const dir = copyOf("swapped-diff");
  const tasks = readTaskResults(dir);
  assert.ok(tasks.ok);
  const pascal = tasks.value.find((task) => task.taskId === "A-pascal")!;
  const gcd = tasks.value.find((task) => task.taskId === "A-gcd")!;
  // gcd's diff under pascal's name, in the file and in the trace (consistent with each other).
  const gcdDiff = readFileSync(join(dir, gcd.diffPath!), "utf8");
  writeFileSync(join(dir, pascal.diffPath!), gcdDiff);
  rewriteTrace(dir, pascal, (event) =>
    event.type === "diff"
      ? { ...event, data: { diff: gcdDiff } }
      : event.type === "task_end"
        ? { ...event, data: { ...event.data, diff: gcdDiff } }
        : event,
  );
  // The replay (benchReplay.ts) finds it before any re-grade: the diff is not the replayed file's.
  const verdict = deriveBenchVerdict(dir);
  assert.equal(verdict.kind, "evidence_invalid");
  assert.ok(
    verdict.problems.some(
      (problem) => problem.code === "replay_diff_differs" && problem.file === "traces/A-pascal.ndjson",
    ),
  );
  const run = await verifyRun(dir);
  assert.equal(run.code, 1);
  assert.match(run.err, /evidence_invalid: .*replay_diff_differs: traces\/A-pascal\.ndjson/);
});

test("a run that records no data set identity (an older run), re-graded against another data set (one test file changed): refused per task, never a silent pass", async () => {
  const dir = copyOf("other-dataset");
  const manifest = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as Record<string, unknown>;
  delete manifest.dataset;
  writeFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2) + "\n");
  const dataset = join(root, "edited-dataset");
  cpSync(MINI_DATASET_DIR, dataset, { recursive: true });
  writeFileSync(
    join(dataset, "python_testcases", "test_pascal.py"),
    readFileSync(join(dataset, "python_testcases", "test_pascal.py"), "utf8") + "\n# edited\n",
  );
  const run = await verifyRun(dir, dataset);
  assert.equal(run.code, 1);
  assert.match(run.out, /A-pascal: the data set's files for this program differ/);
  assert.doesNotMatch(run.out, /A-gcd:/);
});

test("a verification of another tasks.ndjson is shown as a record of another log, never as a re-grade", async () => {
  const dir = copyOf("stale-verification");
  cpSync(join(honest, "verification.json"), join(dir, "verification.json"));
  const log = readFileSync(join(dir, "tasks.ndjson"), "utf8");
  writeFileSync(
    join(dir, "tasks.ndjson"),
    log
      .split("\n")
      .filter((line) => line !== "")
      .reverse()
      .join("\n") + "\n",
  );
  const verdict = headline(dir);
  assert.ok(!verdict.headline.endsWith("EVIDENCE INVALID"), verdict.headline);
  assert.match(verdict.details.join("\n"), /^recorded verification \(.*\): of another tasks\.ndjson than this run's/m);
});

test("compare and merge refuse a run with one edited tasks.ndjson line and write nothing", async () => {
  const dir = copyOf("edited-line");
  const path = join(dir, "tasks.ndjson");
  writeFileSync(path, readFileSync(path, "utf8").replace('"outcome":"wrong_fix"', '"outcome":"fixed"'));
  const compare = await tca(["bench", "quixbugs", "compare", dir]);
  assert.equal(compare.code, 1);
  assert.match(compare.err, /^tca bench quixbugs compare: evidence_invalid: .*EVIDENCE INVALID/m);
  assert.equal(compare.out, "");
  const out = join(root, "merged-from-edited");
  const merge = await tca(["bench", "quixbugs", "merge", "--out", out, honest, dir]);
  assert.equal(merge.code, 1);
  assert.match(merge.err, /^tca bench quixbugs merge: evidence_invalid: /m);
  assert.equal(existsSync(out), false);
  // The honest run alone merges, from the verdict's one read, into a run that is itself valid.
  const clean = join(root, "merged-clean");
  const merged = await tca(["bench", "quixbugs", "merge", "--out", clean, honest]);
  assert.equal(merged.code, 0, merged.err);
  assert.deepEqual(deriveBenchVerdict(clean).problems, []);
});

test("applyUnifiedDiff rebuilds any file exactly from unifiedDiff's output (its final newline included), and refuses a diff of another file", () => {
  const lines = fc.array(fc.constantFrom("a", "b", "-- x", "+y", " z", ""), { maxLength: 25 });
  fc.assert(
    fc.property(lines, lines, fc.boolean(), fc.boolean(), (a, b, endA, endB) => {
      const before = a.join("\n") + (endA ? "\n" : "");
      const after = b.join("\n") + (endB ? "\n" : "");
      const rebuilt = applyUnifiedDiff(before, unifiedDiff("p.py", before, after));
      assert.equal(rebuilt, after);
    }),
    { numRuns: 500 },
  );
  assert.equal(applyUnifiedDiff("x\ny\n", unifiedDiff("p.py", "a\nb\n", "a\nc\n")), null);
  assert.equal(applyUnifiedDiff("a\n", "not a diff\n"), null);
});

test("a verification record that cannot be written is an error result naming the file, never an exception", () => {
  const report = { entries: [], identical: 0, seconds: 0, recordedGradingSeconds: 0 };
  const written = writeVerification(join(root, "no-such-folder"), "0".repeat(64), report, {});
  assert.ok(!written.ok);
  assert.equal(written.error, "run_dir_invalid");
  assert.match(written.message, /verification\.json could not be written .*ENOENT/);
});

test("verify-run refuses a run whose verdict is EVIDENCE INVALID before re-grading anything, and a bad --jobs", async () => {
  const dir = copyOf("invalid-before-regrade");
  rmSync(join(dir, "run.json"));
  const run = await verifyRun(dir);
  assert.equal(run.code, 1);
  assert.match(run.err, /^tca bench quixbugs verify-run: evidence_invalid: .*run\.json: not_found/m);
  assert.equal(existsSync(join(dir, "verification.json")), false);
  const jobs = await tca(["bench", "quixbugs", "verify-run", honest, "--jobs", "0"]);
  assert.equal(jobs.code, 1);
  assert.match(jobs.err, /^tca bench quixbugs verify-run: invalid_option: --jobs/m);
});
