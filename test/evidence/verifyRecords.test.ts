// Verification records, not beliefs (issue 33), attacked as a person who wants a better result
// than the run earned would: a hand-written verification.json, an honest one re-bound to a run
// edited after it, and the data set verify-run re-grades against. Each attack is made on a copy of
// a REAL run (the bench's runBenchmark on test/fixtures/quixbugs-mini, scripted server, real
// sandbox), and each test asserts what verify-run, the report, compare and merge show: a record
// is shown with its time and decides nothing; only a new verify-run re-grades.
import { after, before, describe } from "node:test";
import { sandboxPackages, sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../../src/core/canonicalJson.ts";
import { sha256Hex } from "../../src/core/digest.ts";
import { runBenchmark } from "../../src/bench/benchmarkRun.ts";
import { loadDataset } from "../../src/bench/dataset/dataset.ts";
import { readManifest, readTaskResults } from "../../src/bench/runs/runDirectory.ts";
import { mergeInputs } from "../../src/bench/runs/runMerge.ts";
import type { ChatBackend } from "../../src/sources/openaiCompatibleChat.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { buildReportDocument } from "../../src/report/reportBuilder.ts";
import { benchSetup, MINI_DATASET_DIR } from "../bench/benchFixtures.ts";
import { realBenchRun } from "./regradeRunFixture.ts";
import { forgeFixed } from "./benchForgeries.ts";
import { dataOf, readTraceRecords } from "../bench/traceFixtures.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "tca-verify-records-"));
let honest = "";
before(async () => {
  if (sandboxPackages().skip !== false) return;
  // The issue's run: made with --dataset test/fixtures/quixbugs-mini (not the default ../shared/quixbugs).
  honest = await realBenchRun(root, "honest");
});
after(() => rmSync(root, { recursive: true, force: true }));

interface Ran {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

function tca(args: readonly string[]): Promise<Ran> {
  return new Promise((done) => {
    execFile(process.execPath, [TCA, ...args], { timeout: 300_000 }, (error, out, err) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, out, err });
    });
  });
}

/** verify-run as a user types it after the run: no --dataset unless one is given. */
const verifyRun = (dir: string, ...more: string[]): Promise<Ran> =>
  tca(["bench", "quixbugs", "verify-run", dir, "--jobs", "2", ...more]);

function copyOf(name: string): string {
  const target = join(root, name);
  cpSync(honest, target, { recursive: true });
  rmSync(join(target, "verification.json"), { force: true });
  return target;
}

/**
 * verify-run as a user types it right after the run, on a fresh copy of the honest run: made once
 * per file (a sandboxed re-grade of every task) and shared. The test of that first verify-run
 * reads it in place; the tests that need a verified run to attack copy the folder, its
 * verification.json included, exactly as if each had run this same verify-run on its own copy.
 */
let verifiedOnce: Promise<{ readonly dir: string; readonly run: Ran }> | undefined;
function verifiedRun(): Promise<{ readonly dir: string; readonly run: Ran }> {
  verifiedOnce ??= (async () => {
    const dir = copyOf("default-dataset");
    return { dir, run: await verifyRun(dir) };
  })();
  return verifiedOnce;
}

/** A copy of the verified run for a test that changes it. */
function copyOfVerified(verified: string, name: string): string {
  const target = join(root, name);
  cpSync(verified, target, { recursive: true });
  return target;
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

function editManifest(dir: string, edit: (manifest: Record<string, unknown>) => void): void {
  const manifest = readJson(join(dir, "run.json"));
  edit(manifest);
  writeFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2) + "\n");
}

function historyOf(dir: string): Record<string, unknown>[] {
  const path = join(dir, "verifications.ndjson");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What the report shows: its headline and detail lines. */
function page(dir: string): { headline: string; tone: string; details: readonly string[] } {
  const built = buildReportDocument(dir);
  assert.ok(built.ok && built.value.kind === "bench");
  return built.value.bench.verdict;
}

const RECORDED_LINE = /^(no )?recorded verification/;
/** compare's legend carries the record on indented lines under each run; every other line is compare's own. */
const withoutRecordLines = (text: string): string =>
  text
    .split("\n")
    .filter((line) => !line.startsWith("  "))
    .join("\n");

/** Everything the consumers decide about a run, less the lines that show its recorded verification. */
async function decisions(dir: string, tag: string): Promise<Record<string, unknown>> {
  const verdict = deriveBenchVerdict(dir);
  const shown = page(dir);
  const compare = await tca(["bench", "quixbugs", "compare", dir]);
  const mergedDir = join(root, `merged-${tag}`);
  const merge = await tca(["bench", "quixbugs", "merge", "--out", mergedDir, dir]);
  const merged = merge.code === 0 ? deriveBenchVerdict(mergedDir) : null;
  return {
    verdict: { kind: verdict.kind, problems: verdict.problems, tasks: verdict.tasks },
    report: {
      headline: shown.headline,
      tone: shown.tone,
      details: shown.details.filter((l) => !RECORDED_LINE.test(l)),
    },
    compare: { code: compare.code, table: withoutRecordLines(compare.out) },
    merge: { code: merge.code, merged: merged === null ? null : { kind: merged.kind, tasks: merged.tasks.length } },
  };
}

/** A verification.json a user writes by hand: every task "identical", bound to the log as it is now. */
function handWrittenVerification(dir: string, verifiedAt: string): void {
  const tasks = readTaskResults(dir);
  assert.ok(tasks.ok);
  const record = {
    schema: 1,
    kind: "quixbugs-verification",
    verifiedAt,
    tasksSha256: sha256Hex(readFileSync(join(dir, "tasks.ndjson"))),
    grader: "trusted-grader",
    identical: tasks.value.length,
    total: tasks.value.length,
    tasks: tasks.value.map((task) => ({ key: task.taskId, identical: true, differences: [] })),
  };
  writeFileSync(join(dir, "verification.json"), JSON.stringify(record, null, 2) + "\n");
}

// The tests are independent (each attacks its own copy; the honest run and the verified run are
// only read): two at a time, so one test's CLI start-ups overlap another's sandboxed re-grades.
describe("verification records", { concurrency: 2 }, () => {
  test("run.json records the data set the run was made on: its folder, the folder from the run, and every program's digest as each trace recorded it", () => {
    const manifest = readManifest(honest);
    assert.ok(manifest.ok);
    const identity = manifest.value.dataset;
    assert.ok(identity !== undefined);
    assert.equal(identity.root, resolve(MINI_DATASET_DIR));
    assert.equal(resolve(honest, identity.relativeToRun), resolve(MINI_DATASET_DIR));
    const dataset = loadDataset(MINI_DATASET_DIR);
    assert.ok(dataset.ok);
    // The whole data set, not only the programs run: the identity is of the content.
    assert.deepEqual(Object.keys(identity.programs).sort(), dataset.value.programs.map((p) => p.name).sort());
    assert.equal(identity.sha256, sha256Hex(canonicalJson(identity.programs)));
    const tasks = readTaskResults(honest);
    assert.ok(tasks.ok && tasks.value.length === 3);
    for (const task of tasks.value) {
      const [start] = dataOf(readTraceRecords(join(honest, task.tracePath!)), "task_start");
      assert.equal(identity.programs[task.program], start?.programSha256, task.taskId);
    }
  });

  test("attack: verify-run RUN without --dataset on a run made on another data set than the default re-grades against the run's own, and says so", async () => {
    const { dir, run } = await verifiedRun();
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /^verify-run: PIPELINE CHECK · re-graded 3\/3 tasks: identical/m);
    assert.match(run.err, new RegExp(`^data set: ${resolve(MINI_DATASET_DIR)} \\(recorded\\)$`, "m"));
    const record = readJson(join(dir, "verification.json"));
    assert.equal(record.dataset, resolve(MINI_DATASET_DIR));
    assert.equal(record.datasetChoice, "recorded");
    // The record is shown by the report as verify-run's, with its time.
    assert.ok(
      page(dir).details.some((line) =>
        line.startsWith(
          `recorded verification (${String(record.verifiedAt)}): verify-run re-graded 3/3 tasks identical`,
        ),
      ),
    );
  });

  test("attack: the recorded folder moved: found again from the run (relativeToRun); both gone: dataset_required names the data set, nothing written", async () => {
    const dir = copyOf("moved-dataset");
    editManifest(dir, (manifest) => {
      (manifest.dataset as Record<string, unknown>).root = join(root, "no-such-folder", "quixbugs-mini");
    });
    const found = await verifyRun(dir);
    assert.equal(found.code, 0, found.err);
    assert.match(found.err, /\(recorded\)$/m);
    rmSync(join(dir, "verification.json"));
    rmSync(join(dir, "verifications.ndjson"), { force: true });
    editManifest(dir, (manifest) => {
      (manifest.dataset as Record<string, unknown>).relativeToRun = "../no-such-folder/quixbugs-mini";
    });
    assert.equal(deriveBenchVerdict(dir).kind, "complete");
    const lost = await verifyRun(dir);
    assert.equal(lost.code, 1);
    assert.match(
      lost.err,
      /^tca bench quixbugs verify-run: dataset_required: this run was made on .*no-such-folder\/quixbugs-mini \(content sha256 [0-9a-f]{12}, \d+ programs\); .*pass --dataset/m,
    );
    assert.equal(lost.out, "");
    assert.equal(existsSync(join(dir, "verification.json")), false);
    assert.equal(existsSync(join(dir, "verifications.ndjson")), false);
    // A copy with the same content, named by --dataset, is the run's data set.
    const copy = join(root, "mini-copy");
    cpSync(MINI_DATASET_DIR, copy, { recursive: true });
    const given = await verifyRun(dir, "--dataset", copy);
    assert.equal(given.code, 0, given.err);
    assert.match(given.err, /\(given, same as recorded\)$/m);
  });

  test("attack: --dataset with other content (one test file edited) is refused before anything is re-graded or written", async () => {
    const verified = await verifiedRun();
    const first = verified.run;
    assert.equal(first.code, 0, first.err);
    const dir = copyOfVerified(verified.dir, "other-dataset");
    const before = readFileSync(join(dir, "verification.json"));
    const edited = join(root, "edited-mini");
    cpSync(MINI_DATASET_DIR, edited, { recursive: true });
    const testFile = join(edited, "python_testcases", "test_pascal.py");
    writeFileSync(testFile, readFileSync(testFile, "utf8") + "\n# edited\n");
    const run = await verifyRun(dir, "--dataset", edited);
    assert.equal(run.code, 1);
    assert.match(
      run.err,
      /^tca bench quixbugs verify-run: dataset_mismatch: --dataset .*edited-mini is not the data set this run was made on, .*: 1 program\(s\) differ \(pascal\); nothing was re-graded$/m,
    );
    // No task was re-graded (no progress line), the last record is untouched and no history was added.
    assert.doesNotMatch(run.err, /^\d+\/3 /m);
    assert.equal(run.out, "");
    assert.deepEqual(readFileSync(join(dir, "verification.json")), before);
    assert.equal(historyOf(dir).length, 0);
  });

  test("an older run (run.json without dataset) stays readable; verify-run then needs --dataset and says so", async () => {
    const dir = copyOf("older-run");
    editManifest(dir, (manifest) => {
      delete manifest.dataset;
    });
    assert.equal(deriveBenchVerdict(dir).kind, "complete");
    assert.match(page(dir).headline, /1 OF 3 TASKS FIXED/);
    const refused = await verifyRun(dir);
    assert.equal(refused.code, 1);
    assert.match(
      refused.err,
      /^tca bench quixbugs verify-run: dataset_required: run\.json records no data set identity/m,
    );
    assert.equal(existsSync(join(dir, "verification.json")), false);
    const given = await verifyRun(dir, "--dataset", MINI_DATASET_DIR);
    assert.equal(given.code, 0, given.err);
    assert.match(given.err, /\(given, none recorded\)$/m);
  });

  test("attack: run.json's data set identity pointed elsewhere without the traces is EVIDENCE INVALID", () => {
    const dir = copyOf("identity-edited");
    editManifest(dir, (manifest) => {
      const identity = manifest.dataset as { programs: Record<string, string>; sha256: string };
      identity.programs.gcd = "0".repeat(64);
      identity.sha256 = sha256Hex(canonicalJson(identity.programs));
    });
    const verdict = deriveBenchVerdict(dir);
    assert.equal(verdict.kind, "evidence_invalid");
    assert.ok(
      verdict.problems.some(
        (p) =>
          p.code === "dataset_digest_mismatch" &&
          /A-gcd\.ndjson: task_start's programSha256 is not the digest/.test(formatProblem(p)),
      ),
    );
    editManifest(dir, (manifest) => {
      (manifest.dataset as { sha256: string }).sha256 = "f".repeat(64);
    });
    assert.ok(
      deriveBenchVerdict(dir).problems.some(
        (p) =>
          p.code === "dataset_identity_invalid" &&
          /run\.json: its dataset's sha256 is not the digest/.test(formatProblem(p)),
      ),
    );
  });

  test("attack: a hand-written verification.json on a forged run changes nothing the report, compare and merge decide; verify-run re-grades and replaces it", async () => {
    const dir = copyOf("hand-written");
    forgeFixed(dir, "A-pascal");
    const without = await decisions(dir, "hand-written-without");
    handWrittenVerification(dir, "2026-01-01T00:00:00.000Z");
    const withRecord = await decisions(dir, "hand-written-with");
    assert.deepEqual(withRecord, without);
    // Shown as what it is: a record with its time, that no consumer re-graded.
    const details = page(dir).details;
    assert.ok(
      details.includes(
        "recorded verification (2026-01-01T00:00:00.000Z): verify-run re-graded 3/3 tasks identical (a record, not re-graded by this report; tca bench quixbugs verify-run hand-written re-grades)",
      ),
      JSON.stringify(details),
    );
    assert.ok(!details.some((line) => line.startsWith("re-graded")));
    const compare = await tca(["bench", "quixbugs", "compare", dir]);
    assert.match(
      compare.out.replace(/\n {2}/g, " "),
      /recorded verification \(2026-01-01T00:00:00\.000Z\): .*not re-graded by compare/,
    );
    const mergedDir = join(root, "merged-hand-written");
    const merge = await tca(["bench", "quixbugs", "merge", "--out", mergedDir, dir]);
    assert.equal(merge.code, 0, merge.err);
    assert.match(merge.out, /^recorded verification \(2026-01-01T00:00:00\.000Z\): .*not re-graded by merge/m);
    // merge copies no record: the merged run is not verified until verify-run is run on it.
    assert.equal(existsSync(join(mergedDir, "verification.json")), false);
    assert.ok(page(mergedDir).details.some((line) => line.startsWith("no recorded verification: not re-graded")));
    const run = await verifyRun(dir);
    assert.equal(run.code, 1);
    assert.match(run.err, /evidence_invalid: .*A-pascal/);
    const record = readJson(join(dir, "verification.json"));
    assert.notEqual(record.verifiedAt, "2026-01-01T00:00:00.000Z");
    assert.equal(record.identical, 2);
    // The forged record is kept as history, as it was, never as the last verification.
    const history = historyOf(dir);
    assert.equal(history.length, 1);
    assert.equal((history[0]!.record as { verifiedAt: string }).verifiedAt, "2026-01-01T00:00:00.000Z");
  });

  test("attack: an honest verification.json re-bound (tasksSha256) after the run was edited changes nothing they decide; verify-run finds the edit", async () => {
    const verified = await verifiedRun();
    const honestRun = verified.run;
    assert.equal(honestRun.code, 0, honestRun.err);
    const dir = copyOfVerified(verified.dir, "re-bound");
    const honestRecord = readJson(join(dir, "verification.json"));
    forgeFixed(dir, "A-pascal");
    const stale = page(dir).details.find((line) => RECORDED_LINE.test(line));
    assert.match(stale ?? "", /^recorded verification \(.*\): of another tasks\.ndjson than this run's/);
    rmSync(join(dir, "verification.json"));
    const without = await decisions(dir, "re-bound-without");
    writeFileSync(
      join(dir, "verification.json"),
      JSON.stringify({ ...honestRecord, tasksSha256: sha256Hex(readFileSync(join(dir, "tasks.ndjson"))) }, null, 2),
    );
    const rebound = await decisions(dir, "re-bound-with");
    assert.deepEqual(rebound, without);
    assert.ok(
      page(dir).details.some((line) =>
        line.startsWith(
          `recorded verification (${String(honestRecord.verifiedAt)}): verify-run re-graded 3/3 tasks identical (a record`,
        ),
      ),
    );
    const run = await verifyRun(dir);
    assert.equal(run.code, 1);
    assert.match(run.out, /A-pascal: grade\.outcome: recorded "passed", re-graded "failed"/);
  });

  test("attack: a failing earlier verification.json (the wrong data set's) blocks nothing: the verdict, compare and merge ignore it, and a new verify-run replaces it", async () => {
    const dir = copyOf("failing-record");
    const without = await decisions(dir, "failing-without");
    const tasks = readTaskResults(dir);
    assert.ok(tasks.ok);
    // What the old verify-run wrote after re-grading against ../shared/quixbugs: every task "differs".
    writeFileSync(
      join(dir, "verification.json"),
      JSON.stringify({
        schema: 1,
        kind: "quixbugs-verification",
        verifiedAt: "2026-02-02T00:00:00.000Z",
        tasksSha256: sha256Hex(readFileSync(join(dir, "tasks.ndjson"))),
        identical: 0,
        total: 3,
        tasks: tasks.value.map((task) => ({
          key: task.taskId,
          identical: false,
          differences: ["the pristine program differs from the one the trace recorded (originalSha256)"],
        })),
      }),
    );
    assert.deepEqual(await decisions(dir, "failing-with"), without);
    assert.equal(deriveBenchVerdict(dir).kind, "complete");
    assert.ok(
      page(dir).details.some((line) =>
        line.startsWith(
          "recorded verification (2026-02-02T00:00:00.000Z): the re-grade disagreed with 3 task record(s)",
        ),
      ),
    );
    const run = await verifyRun(dir);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /^verify-run: PIPELINE CHECK · re-graded 3\/3 tasks: identical/m);
    assert.equal(readJson(join(dir, "verification.json")).identical, 3);
    const again = await verifyRun(dir);
    assert.equal(again.code, 0, again.err);
    // Oldest first: the failing record, then the first new one.
    const history = historyOf(dir);
    assert.deepEqual(
      history.map((entry) => (entry.record as { identical: number }).identical),
      [0, 3],
    );
    // A record that is not JSON is kept as "unreadable" and replaced, never followed nor a blocker.
    writeFileSync(join(dir, "verification.json"), "{ not json");
    assert.equal(deriveBenchVerdict(dir).kind, "complete");
    const third = await verifyRun(dir);
    assert.equal(third.code, 0, third.err);
    assert.equal(historyOf(dir).at(-1)!.unreadable, "not a JSON object");
  });

  test("merge keeps the data set identity of shards that agree and refuses shards made on different data sets", () => {
    const manifest = readManifest(honest);
    const tasks = readTaskResults(honest);
    assert.ok(manifest.ok && tasks.ok);
    const identity = manifest.value.dataset!;
    const input = (dir: string, sha256: string) => ({
      dir,
      manifest: { ...manifest.value, dataset: { ...identity, sha256 } },
      tasks: tasks.value,
      file: () => undefined,
    });
    const refused = mergeInputs(
      [input("shard-a", identity.sha256), input("shard-b", "e".repeat(64))],
      join(root, "m1"),
    );
    assert.ok(!refused.ok);
    assert.equal(refused.error, "run_dir_invalid");
    assert.match(refused.message, /shard-b was made on another data set .* than shard-a/);
    assert.equal(existsSync(join(root, "m1", "run.json")), false);
    const kept = mergeInputs([input("shard-a", identity.sha256)], join(root, "m2"));
    assert.ok(kept.ok);
    assert.equal(kept.value.manifest.dataset?.sha256, identity.sha256);
    assert.equal(resolve(join(root, "m2"), kept.value.manifest.dataset!.relativeToRun), identity.root);
  });

  test("a resume on a data set with other content is refused before any task runs", async () => {
    const dir = copyOf("resume-other");
    const edited = join(root, "edited-for-resume");
    cpSync(MINI_DATASET_DIR, edited, { recursive: true });
    writeFileSync(
      join(edited, "python_programs", "gcd.py"),
      readFileSync(join(edited, "python_programs", "gcd.py"), "utf8") + "\n",
    );
    const dataset = loadDataset(edited);
    assert.ok(dataset.ok);
    let calls = 0;
    const backend: ChatBackend = {
      describe: () => Promise.resolve({}),
      complete: () => {
        calls += 1;
        return Promise.reject(new Error("no model in this test"));
      },
      close: () => Promise.resolve(),
    };
    const result = await runBenchmark({
      dataset: dataset.value,
      sandbox: benchSetup().sandbox,
      backend,
      modelDescription: { label: "scripted", synthetic: true },
      modelName: "scripted",
      conditions: ["A"],
      programs: ["gcd"],
      outDir: dir,
      jobs: 1,
      resume: true,
      testTimeoutMs: 60_000,
      includeSlow: false,
      environment: { note: "verify-run test: scripted server, no model" },
    });
    assert.ok(!result.ok);
    assert.equal(result.error, "run_dir_invalid");
    assert.match(result.message, /made on another data set .*quixbugs-mini.*resume it with that --dataset/);
    assert.equal(calls, 0);
  });
});
