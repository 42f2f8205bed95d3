// Issue #28 item 12: the data set check's cache. A pass is reused only for the very data set,
// grading code and sandbox it was made with; a changed program, a changed runner, another Python
// and any damaged or forged entry make the check run again. The reports here are written by
// hand (the cache's logic does not depend on how a pass was obtained); one CLI test runs the
// real check on one program and then reuses it.
import { after } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadDataset, type QuixDataset } from "../../src/bench/dataset/dataset.ts";
import {
  checkCodeDigest,
  datasetCheckKey,
  keyDigest,
  lookupDatasetCheck,
  storeDatasetCheck,
  type DatasetCheckKey,
} from "../../src/bench/grading/datasetCheckCache.ts";
import { GRADER_ID } from "../../src/bench/grading/trustedGrader.ts";
import type { VerifyReport } from "../../src/bench/grading/verifyDataset.ts";
import { sandboxTest } from "../support/systemPackages.ts";
import { tca } from "../support/tcaCli.ts";
import { CHECKOUT_ROOT } from "../../src/cli/invocation.ts";
import { execFileSync } from "node:child_process";
import { benchSetup, MINI_DATASET_DIR, referenceFix } from "./benchFixtures.ts";
import { startRoutedServer } from "./scriptedChatServer.ts";

const root = mkdtempSync(join(tmpdir(), "tca-check-cache-"));
after(() => rmSync(root, { recursive: true, force: true }));

const selection = { includeSlow: false, timeoutMs: 60_000 };

function passingReport(dataset: QuixDataset): VerifyReport {
  const side = (outcome: "passed" | "failed") => ({
    outcome,
    counts: { passed: 1, failed: outcome === "passed" ? 0 : 1, errors: 0, skipped: 0 },
    seconds: 0.1,
    summary: outcome,
    fixedPublic: outcome === "passed",
    heldOut: null,
    reason: null,
  });
  const records = dataset.programs
    .map((p) => ({
      program: p.name,
      publicCases: 1,
      excluded: [],
      heldOutCases: 0,
      heldOutDisagreements: 0,
      heldOutDisagreeing: [],
      buggy: side("failed"),
      fixed: side("passed"),
      buggyCaseCpuSeconds: 1,
      ok: true,
    }))
    .sort((a, b) => a.program.localeCompare(b.program));
  return {
    dataset: dataset.root,
    grader: GRADER_ID,
    includeSlow: false,
    heldOutSeed: 7,
    heldOutPrograms: 0,
    heldOutDisagreements: 0,
    excluded: [],
    programs: records.length,
    buggyFailing: records.length,
    fixesPassing: records.length,
    ok: true,
    records,
  };
}

function copyDataset(name: string): QuixDataset {
  const dir = join(root, name);
  cpSync(MINI_DATASET_DIR, dir, { recursive: true });
  const loaded = loadDataset(dir);
  if (!loaded.ok) throw new Error(loaded.message);
  return loaded.value;
}

/** Writes a hand-made entry file under the key's name. */
function forge(cacheDir: string, key: DatasetCheckKey, entry: unknown): string {
  mkdirSync(cacheDir, { recursive: true });
  const file = join(cacheDir, `${keyDigest(key)}.json`);
  writeFileSync(file, typeof entry === "string" ? entry : JSON.stringify(entry), { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

sandboxTest(
  "a stored pass is found for the same data set and sandbox, and missed when a program, the runner or Python changes",
  () => {
    const { sandbox } = benchSetup();
    const dataset = copyDataset("same");
    const cacheDir = join(root, "cache-a");
    const key = datasetCheckKey(sandbox, dataset, selection);
    assert.equal(lookupDatasetCheck(cacheDir, key, dataset.root).hit, false);
    const file = storeDatasetCheck(cacheDir, key, passingReport(dataset), new Date("2026-12-01T10:00:00Z"));
    assert.ok(file !== null);
    const hit = lookupDatasetCheck(cacheDir, datasetCheckKey(sandbox, dataset, selection), dataset.root);
    assert.ok(hit.hit, hit.hit ? "" : hit.reason);
    assert.equal(hit.value.checkedAt, "2026-12-01T10:00:00.000Z");
    assert.equal(hit.value.report.programs, dataset.programs.length);

    // One byte more in one buggy program: another key, no hit.
    const gcd = join(dataset.root, "python_programs", "gcd.py");
    writeFileSync(gcd, readFileSync(gcd, "utf8") + "# edited\n");
    const edited = loadDataset(dataset.root);
    assert.ok(edited.ok);
    assert.deepEqual(lookupDatasetCheck(cacheDir, datasetCheckKey(sandbox, edited.value, selection), dataset.root), {
      hit: false,
      code: "no_cached_check",
      reason: "no cached check for this data set and sandbox",
    });

    // The trusted runner's text changed (a copy of the grading folder with one edit): another code digest.
    const grading = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "bench", "grading");
    const copy = join(root, "grading-copy");
    cpSync(grading, copy, { recursive: true });
    assert.equal(checkCodeDigest([copy]), checkCodeDigest([grading]));
    writeFileSync(
      join(copy, "trusted_runner.py"),
      readFileSync(join(copy, "trusted_runner.py"), "utf8") + "\n# changed\n",
    );
    const changedRunner = datasetCheckKey(
      sandbox,
      dataset,
      selection,
      checkCodeDigest([copy, join(grading, "..", "sandbox")]),
    );
    const sameDataset = loadDataset(dataset.root);
    assert.ok(sameDataset.ok);
    assert.equal(lookupDatasetCheck(cacheDir, changedRunner, dataset.root).hit, false);

    // Another Python version, other limits, another program selection: other keys.
    const otherPython = { ...sandbox, python: { ...sandbox.python, version: "3.99.0" } };
    for (const k of [
      datasetCheckKey(otherPython, dataset, selection),
      datasetCheckKey({ ...sandbox, limits: { ...sandbox.limits, memoryBytes: 1 } }, dataset, selection),
      datasetCheckKey(sandbox, dataset, { ...selection, programs: ["gcd"] }),
      datasetCheckKey(sandbox, dataset, { ...selection, includeSlow: true }),
    ]) {
      assert.notEqual(keyDigest(k), keyDigest(key));
    }
    // A failing check is never stored.
    assert.equal(storeDatasetCheck(join(root, "cache-fail"), key, { ...passingReport(dataset), ok: false }), null);
    assert.throws(() => readdirSync(join(root, "cache-fail")));
  },
);

sandboxTest("damaged and forged entries are ignored with their reason, never believed", () => {
  const { sandbox } = benchSetup();
  const dataset = copyDataset("forged");
  const key = datasetCheckKey(sandbox, dataset, selection);
  const good = {
    schema: 1,
    keySha256: keyDigest(key),
    key,
    checkedAt: "2026-12-01T10:00:00.000Z",
    report: passingReport(dataset),
  };
  const cases: [string, unknown, RegExp][] = [
    ["garbage", "{not json", /is not JSON; ignored/],
    ["another version", { ...good, schema: 2 }, /not a cache entry of this version/],
    // The right file name with the key of another data set inside (a copied or renamed entry).
    [
      "another key inside",
      { ...good, key: { ...key, programs: { ...key.programs, gcd: "0".repeat(64) } } },
      /records another data set or sandbox/,
    ],
    ["recorded failure", { ...good, report: { ...good.report, ok: false } }, /did not pass/],
    [
      "a record that failed",
      {
        ...good,
        report: {
          ...good.report,
          records: good.report.records.map((r, i) =>
            i === 0 ? { ...r, fixed: { ...r.fixed, outcome: "failed" } } : r,
          ),
        },
      },
      /is not a pass/,
    ],
    [
      "a buggy program that passed",
      {
        ...good,
        report: {
          ...good.report,
          records: good.report.records.map((r, i) =>
            i === 0 ? { ...r, buggy: { ...r.buggy, outcome: "passed" } } : r,
          ),
        },
      },
      /is not a pass/,
    ],
    [
      "a program missing",
      { ...good, report: { ...good.report, records: good.report.records.slice(1) } },
      /not the selected ones/,
    ],
    ["counts that lie", { ...good, report: { ...good.report, programs: 99 } }, /counts disagree/],
    ["no time", { ...good, checkedAt: "yesterday" }, /no check time/],
    // A key nested 200,000 deep: comparing it must not crash the run.
    [
      "deep key",
      `{"schema":1,"keySha256":"${keyDigest(key)}","key":${"[".repeat(200_000)}${"]".repeat(200_000)}}`,
      /could not be compared with the key/,
    ],
  ];
  for (const [name, entry, reason] of cases) {
    const cacheDir = join(root, `cache-${name.replace(/ /g, "-")}`);
    forge(cacheDir, key, entry);
    const found = lookupDatasetCheck(cacheDir, key, dataset.root);
    assert.equal(found.hit, false, name);
    // A forged or damaged entry is unusable (the run says so), never taken for an absent one.
    assert.equal(found.hit ? "" : found.code, "cache_unusable", name);
    assert.match(found.hit ? "" : found.reason, reason, name);
  }
  // The honest entry written the same way is a hit: the cases above fail for their one defect.
  const honest = join(root, "cache-honest");
  forge(honest, key, good);
  assert.equal(lookupDatasetCheck(honest, key, dataset.root).hit, true);
  // Writable by others, or a link to an honest entry elsewhere: not read at all.
  const shared = join(root, "cache-shared");
  chmodSync(forge(shared, key, good), 0o666);
  assert.match(((r) => (r.hit ? "" : r.reason))(lookupDatasetCheck(shared, key, dataset.root)), /writable by others/);
  const linked = join(root, "cache-linked");
  mkdirSync(linked);
  symlinkSync(join(honest, `${keyDigest(key)}.json`), join(linked, `${keyDigest(key)}.json`));
  assert.match(((r) => (r.hit ? "" : r.reason))(lookupDatasetCheck(linked, key, dataset.root)), /not a plain file/);
  // Too large to be a report: not parsed.
  const big = join(root, "cache-big");
  forge(big, key, JSON.stringify({ ...good, padding: "x".repeat(5 * 1024 * 1024) }));
  assert.equal(lookupDatasetCheck(big, key, dataset.root).hit, false);
});

sandboxTest(
  "bench run: the first run checks with progress and caches the pass, the next reuses it, an edited data set is checked again; the next step works where the user is",
  async () => {
    const dataset = copyDataset("cli");
    const fixed = referenceFix(dataset, "gcd");
    const server = await startRoutedServer(() => ({ content: "```python\n" + fixed + "```" }));
    const env = { ...process.env, XDG_CACHE_HOME: join(root, "xdg") };
    const run = (out: string, cwd?: string) =>
      tca(
        [
          "bench",
          "quixbugs",
          "run",
          "--endpoint",
          server.endpoint,
          "--model",
          "scripted",
          "--conditions",
          "A",
          "--programs",
          "gcd",
          "--out",
          join(root, out),
          "--jobs",
          "2",
          "--dataset",
          dataset.root,
        ],
        env,
        cwd,
      );
    try {
      // From a folder outside the checkout (item 13): the next step names node and the checkout's bin/tca.js, and works there.
      const first = await run("run1", root);
      assert.equal(first.code, 0, first.err);
      const hint = /^next step: (.+)$/m.exec(first.out)?.[1] ?? "";
      assert.equal(hint, `node ${join(CHECKOUT_ROOT, "bin", "tca.js")} report ${join(root, "run1")}`);
      // The terminal summary counts fixed tasks with guardrail hits, as results.md does (none here).
      assert.match(
        first.out,
        /^guardrail hits: 0 of 1 fixed task\(s\) tried a refused action \(flagged in results\.md\)$/m,
      );
      execFileSync("sh", ["-c", hint], { cwd: root, env, stdio: "ignore" });
      assert.ok(existsSync(join(root, "run1.report.html")), "the hinted command wrote the report");
      assert.match(first.err, /^checking the data set \S+ in the sandbox: 1 program,/m);
      assert.match(first.err, /^data set check: 1\/1 programs \(.+\), last gcd: ok$/m);
      assert.equal(
        readdirSync(join(root, "xdg", "tiny-coding-agent", "dataset-checks")).filter((f) => f.endsWith(".json")).length,
        1,
      );

      const second = await run("run2", CHECKOUT_ROOT);
      assert.equal(second.code, 0, second.err);
      // Typed as node bin/tca.js inside the checkout: still the node form, which works from any folder.
      assert.equal(
        /^next step: (.+)$/m.exec(second.out)?.[1],
        `node ${join(CHECKOUT_ROOT, "bin", "tca.js")} report ${join(root, "run2")}`,
      );
      assert.match(
        second.err,
        /^data set check: passed at \S+ for this exact data set and sandbox \(cached in .+\); not run again/m,
      );
      assert.doesNotMatch(second.err, /checking the data set \S+ in the sandbox/);
      const manifest = JSON.parse(readFileSync(join(root, "run2", "run.json"), "utf8")) as {
        environment: { datasetCheck: string };
      };
      assert.match(manifest.environment.datasetCheck, /^1\/1 buggy fail, 1\/1 fixes pass \(cached pass of \S+\)$/);

      const gcd = join(dataset.root, "python_programs", "gcd.py");
      writeFileSync(gcd, readFileSync(gcd, "utf8") + "# edited\n");
      const third = await run("run3");
      assert.equal(third.code, 0, third.err);
      assert.match(third.err, /^checking the data set \S+ in the sandbox: 1 program,/m);

      // --resume never believes the run folder's own dataset-check.json: a data set edited in place since is checked again.
      writeFileSync(gcd, readFileSync(gcd, "utf8") + "# edited again\n");
      const resumed = await tca(
        [
          "bench",
          "quixbugs",
          "run",
          "--endpoint",
          server.endpoint,
          "--model",
          "scripted",
          "--conditions",
          "A",
          "--programs",
          "gcd",
          "--out",
          join(root, "run3"),
          "--resume",
          "--jobs",
          "2",
          "--dataset",
          dataset.root,
        ],
        env,
      );
      assert.match(resumed.err, /^checking the data set \S+ in the sandbox: 1 program,/m);
      // …and a run is never continued on a data set whose content changed (run.json records its identity).
      assert.equal(resumed.code, 1, resumed.err);
      assert.match(resumed.err, /run_dir_invalid: the existing run was made on another data set/);
    } finally {
      await server.close();
    }
  },
);
