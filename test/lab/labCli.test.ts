// The README's main job, through the real CLI in a child process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freshRoot, readAudit, readJson } from "./labRunTestSupport.ts";

const BIN = new URL("../../bin/tca.js", import.meta.url).pathname;
const tca = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
// From a given working directory, to see where a default output lands.
const tcaIn = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", cwd });

test("tca lab baseline prints the honest summary and exits 0 on verified success", () => {
  const root = freshRoot("cli-baseline");
  const run = join(root, "run");
  const result = tca("lab", "baseline", "--run", run);
  assert.equal(result.status, 0, result.stderr);
  // The first line is the verdict, its source named before it.
  assert.equal(result.stdout.split("\n")[0], "verdict:           SCRIPTED BASELINE · VERIFIED SUCCESS");
  assert.match(result.stdout, /scripted baseline \(harness check; no model was invoked\)/);
  assert.match(result.stdout, /stop reason: +finish_accepted/);
  assert.match(result.stdout, /held-out cases: +8\/8/);
  assert.match(result.stdout, /verified_success: +true/);
  assert.equal(readJson(join(run, "final.json"))["verified_success"], true);
  // The summary ends with the next steps, written for how tca was started here (node and the
  // absolute bin path: no `tca` on PATH is assumed, no npm run was used): the report, then the checks.
  const lines = result.stdout.trimEnd().split("\n");
  const bin = realpathSync(BIN);
  assert.deepEqual(lines.slice(-4), [
    "next step:         the run as an HTML page",
    `  node ${bin} report ${run}`,
    "then:              every negative check",
    `  node ${bin} lab checks --root ${join(root, "checks")}`,
  ]);
});

test("tca lab baseline refuses an existing destination and leaves it alone", () => {
  const root = freshRoot("cli-existing");
  const run = join(root, "run");
  mkdirSync(run);
  const result = tca("lab", "baseline", "--run", run);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /run_destination_exists/);
  assert.ok(result.stderr.includes(run), result.stderr);
  assert.match(result.stderr, /--run DIR/);
  assert.deepEqual(readdirSync(run), []);
});

test("tca lab baseline with a missing parent names the parent and says how to create it; nothing is created", () => {
  const root = freshRoot("cli-parent");
  const run = join(root, "missing", "run");
  const result = tca("lab", "baseline", "--run", run);
  assert.equal(result.status, 2);
  assert.equal(
    result.stderr,
    `tca lab baseline: run_parent_invalid: the parent of the run directory does not exist: ${join(root, "missing")} (create it first, e.g. mkdir -p -m 700 ${join(root, "missing")}; --run makes only the last folder)\n`,
  );
  assert.equal(result.stdout, "");
  assert.deepEqual(readdirSync(root), []);
});

test("tca lab model names a missing model directory before anything about predictions", () => {
  const root = freshRoot("cli-model-missing");
  const missing = join(root, "nonexistent");
  const result = tca("lab", "model", "--run", join(root, "run"), "--model-directory", missing, "--yes");
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^tca lab model: model_directory_rejected: /);
  assert.ok(result.stderr.includes(`--model-directory ${missing} does not exist`), result.stderr);
  assert.ok(
    result.stderr.includes(
      `download one: node ${realpathSync(BIN)} model acquire --directory ${missing}; or make a synthetic checkpoint: node ${realpathSync(BIN)} model make-test-checkpoint --directory ${missing} --size tiny`,
    ),
    result.stderr,
  );
  assert.doesNotMatch(result.stderr, /predictions/);
  assert.deepEqual(readdirSync(root), []);
  // A plain file is not a model directory either.
  writeFileSync(missing, "x");
  const file = tca("lab", "model", "--run", join(root, "run"), "--model-directory", missing, "--yes");
  assert.equal(file.status, 2);
  assert.match(file.stderr, /model_directory_rejected: --model-directory .* is a file, not a folder/);
  // An existing directory passes this check and meets the next cause (no predictions recorded).
  const empty = join(root, "empty");
  mkdirSync(empty);
  const next = tca("lab", "model", "--run", join(root, "run2"), "--model-directory", empty, "--yes");
  assert.equal(next.status, 2);
  assert.match(next.stderr, /^tca lab model: predictions_missing: /);
  // The way on is a command that runs from here (node and this checkout's bin: no tca on PATH assumed).
  assert.ok(
    next.stderr.includes(
      `record your predictions first: node ${realpathSync(BIN)} lab predict --model-directory ${empty}, or pass --without-predictions`,
    ),
    next.stderr,
  );
  // Off a terminal no question can be asked: the refusal says so and names --yes.
  const unasked = tca("lab", "model", "--run", join(root, "run3"), "--model-directory", empty, "--without-predictions");
  assert.equal(unasked.status, 2);
  assert.equal(
    unasked.stderr,
    "tca lab model: run_not_authorized: not on a terminal, so the opt-in question cannot be asked: add --yes to authorize this one trial (edits to the two expressions of the new toy workspace only)\n",
  );
  assert.equal(existsSync(join(root, "run3")), false);
  // stderr is a pipe here: no progress line, only the one error line.
  assert.equal(next.stderr.split("\n").length, 2, next.stderr);
});

test("tca lab submission writes beside the baseline run by default, never into the current directory, and refuses to overwrite", () => {
  const root = freshRoot("cli-submission");
  const runs = join(root, "runs");
  mkdirSync(runs);
  const run = join(runs, "baseline");
  assert.equal(tca("lab", "baseline", "--run", run).status, 0);
  const cwd = join(root, "checkout");
  mkdirSync(cwd);
  const first = tcaIn(cwd, "lab", "submission", "--baseline", run, "--blocked", "no model in this test");
  assert.equal(first.status, 0, first.stderr);
  const expected = join(runs, "submission.md");
  assert.equal(first.stdout, `submission written: ${expected}\n`);
  assert.match(readFileSync(expected, "utf8"), /no model in this test/);
  assert.deepEqual(readdirSync(cwd), []);
  // A second run names the existing file and --out, and leaves the file as it was.
  const before = readFileSync(expected, "utf8");
  const second = tcaIn(cwd, "lab", "submission", "--baseline", run, "--blocked", "other");
  assert.equal(second.status, 2);
  assert.equal(
    second.stderr,
    `tca lab submission: output_exists: --out ${expected} exists; it is never overwritten (choose another path with --out FILE)\n`,
  );
  assert.equal(readFileSync(expected, "utf8"), before);
  // --out chooses the path; relative to the current directory only when asked.
  const chosen = tcaIn(cwd, "lab", "submission", "--baseline", run, "--blocked", "other", "--out", "mine.md");
  assert.equal(chosen.status, 0, chosen.stderr);
  assert.deepEqual(readdirSync(cwd), ["mine.md"]);
});

test("tca lab submission refuses --model with --blocked, and names a run folder given as --checks (writing nothing)", () => {
  const root = freshRoot("cli-submission-edges");
  const run = join(root, "baseline");
  assert.equal(tca("lab", "baseline", "--run", run).status, 0);
  const before = readdirSync(root).sort();
  // Both a trial and "no trial could run": one of them is wrong, and neither is silently dropped.
  const both = tca("lab", "submission", "--baseline", run, "--model", run, "--blocked", "x");
  assert.equal(both.status, 2);
  assert.equal(
    both.stderr,
    `tca lab submission: usage_error: --blocked says the model stage could not run, but --model ${run} gives a trial: give --model (and --extension) for a trial that ran, or --blocked REASON alone\n`,
  );
  const withExtension = tca("lab", "submission", "--baseline", run, "--extension", run, "--blocked", "x");
  assert.equal(withExtension.status, 2);
  assert.match(
    withExtension.stderr,
    /^tca lab submission: usage_error: --blocked says .* but --extension gives a trial/,
  );
  // The baseline folder given as --checks: what the folder is, not EVIDENCE INVALID.
  const wrongChecks = tca("lab", "submission", "--baseline", run, "--checks", run, "--blocked", "x");
  assert.equal(wrongChecks.status, 2);
  assert.match(
    wrongChecks.stderr,
    /^tca lab submission: checks_invalid: --checks .* is the baseline run folder \(it holds audit\.jsonl\), not a checks folder: give the root that tca lab checks --root DIR wrote \(it holds checks\.json\)\n$/,
  );
  assert.doesNotMatch(wrongChecks.stderr, /EVIDENCE INVALID/);
  const other = join(root, "other-baseline");
  assert.equal(tca("lab", "baseline", "--run", other).status, 0);
  const otherChecks = tca("lab", "submission", "--baseline", run, "--checks", other, "--blocked", "x");
  assert.match(
    otherChecks.stderr,
    /^tca lab submission: checks_invalid: --checks .* is a Lab run folder \(it holds audit\.jsonl\)/,
  );
  assert.deepEqual(readdirSync(root).sort(), [...before, "other-baseline"].sort(), "no submission.md was written");
});

test("tca lab checks runs every check, writes checks.json and exits 0", () => {
  const root = join(freshRoot("cli-checks"), "checks");
  const result = tca("lab", "checks", "--root", root);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^result +case +observed code +unchanged +run stop reason$/m);
  // The table fits a 100-column terminal: every line of it (the next-step commands after it are
  // never wrapped, so a long path may make them longer).
  const tableLines = result.stdout.split("\n").slice(
    0,
    result.stdout.split("\n").findIndex((line) => line.startsWith("next step:")),
  );
  assert.ok(tableLines.length > 40);
  for (const line of tableLines) assert.ok(line.length <= 100, `${line.length}: ${line}`);
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
  assert.match(result.stdout, /^re-derived from the run directories: NEGATIVE CHECKS · ALL \d+ CHECKS PASSED$/m);
  // The next steps close the output, runnable as printed from any folder.
  const bin = realpathSync(BIN);
  assert.deepEqual(result.stdout.trimEnd().split("\n").slice(-2), [
    `next step: node ${bin} report ${root}`,
    `then:      node ${bin} model plan`,
  ]);
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

test("a run folder given as --model-directory is refused by lab predict and lab model as a run folder; nothing is written into its evidence", () => {
  const root = freshRoot("cli-run-as-model");
  const run = join(root, "baseline");
  assert.equal(tca("lab", "baseline", "--run", run).status, 0);
  const before = readdirSync(run).sort();
  const answers = join(root, "answers.json");
  writeFileSync(answers, JSON.stringify(["a", "b", "c", "d", "e"]));
  const predict = tca("lab", "predict", "--model-directory", run, "--answers", answers);
  assert.equal(predict.status, 2);
  assert.equal(
    predict.stderr.split("\n")[0],
    `tca lab predict: model_directory_rejected: --model-directory ${run} is a run folder (it holds audit.jsonl), not a model directory (a model directory comes from tca model acquire or tca model make-test-checkpoint)`,
  );
  const model = tca("lab", "model", "--run", join(root, "trial"), "--model-directory", run, "--yes");
  assert.equal(model.status, 2);
  assert.match(
    model.stderr,
    /^tca lab model: model_directory_rejected: --model-directory .* is a run folder \(it holds audit\.jsonl\)/,
  );
  assert.doesNotMatch(model.stderr, /predictions_missing/);
  assert.deepEqual(readdirSync(run).sort(), before);
  assert.equal(existsSync(join(root, "trial")), false);
});

test("a file in the way of --run is named, with no mkdir advice that cannot work", () => {
  const root = freshRoot("cli-file-parent");
  const file = join(root, "submission.md");
  writeFileSync(file, "x");
  const result = tca("lab", "baseline", "--run", join(file, "run"));
  assert.equal(result.status, 2);
  assert.equal(
    result.stderr,
    `tca lab baseline: run_parent_invalid: the run directory cannot be made under ${file}: it is a file, not a folder (choose --run DIR under a folder)\n`,
  );
  assert.doesNotMatch(result.stderr, /mkdir/);
});
