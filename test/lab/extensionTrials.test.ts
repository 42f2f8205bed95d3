// Part 10: the first trial of a model directory's ledger is the trial; every later one is an
// extension with a declared change, and submission.md lists every trial of the ledger in order.
// The runs here are scripted stand-ins carrying the manifest fields a real `tca lab model` writes
// (a real trial needs the 1 GB pinned checkpoint); the ledger, manifests and labels are real files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decideTrialRole } from "../../src/lab/trialSequence.ts";
import { ledgerTrialWindows, newWindow, ledgerPath, type AcquisitionLedger } from "../../src/model/artifacts/ledger.ts";
import { MANIFEST_FILE_NAME } from "../../src/model/artifacts/manifest.ts";
import { runLab, type FinalReport, type RunKind } from "../../src/lab/labRun.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { buildSubmission } from "../../src/verdicts/submission/writeSubmission.ts";
import { freshRoot, readJson, schemaProblems } from "./labRunTestSupport.ts";
import { labKindLabel } from "../../src/report/labVerdict.ts";
import { formatRunSummary } from "../../src/lab/runSummary.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";

const root = freshRoot("extensions");

function ledgerWith(trials: readonly boolean[]): AcquisitionLedger {
  const windows = trials.map((started, i) => {
    const window = newWindow(
      1_700_000_000_000 + i * 3_600_000,
      i === 0 ? { form: "flag_yes", prompt: "Download?" } : null,
      i === 0 ? "verified" : "skipped_already_verified",
    );
    window.trial = started
      ? {
          started_at: new Date(1_700_000_000_000 + i * 3_600_000 + 1000).toISOString(),
          started_at_epoch_ms: 0,
          deadline_epoch_ms: 0,
        }
      : null;
    return window;
  });
  return {
    schema: "tca.acquisition-ledger",
    schema_version: 1,
    repository: "Qwen/Qwen2.5-Coder-0.5B-Instruct",
    revision: "ea3f2471cf1b1f0db85067f1ef93848e38e88c25",
    windows,
  };
}

test("no earlier trial: this one is the trial, and --extension is refused", () => {
  const first = decideTrialRole(ledgerWith([false]), null);
  assert.ok(first.ok);
  assert.deepEqual(first.value, { role: "trial", ordinal: 1, declaredChange: null, earlierTrialWindows: [] });
  const refused = decideTrialRole(ledgerWith([false]), "larger prompt");
  assert.equal(refused.ok ? null : refused.error, "extension_not_applicable");
});

test("an earlier trial in the ledger: a new run must be an extension with a declared change", () => {
  const ledger = ledgerWith([true, false]);
  const missing = decideTrialRole(ledger, null);
  assert.equal(missing.ok ? null : missing.error, "extension_required");
  for (const bad of ["", "   ", "two\nlines", "x".repeat(301)]) {
    const verdict = decideTrialRole(ledger, bad);
    assert.equal(verdict.ok ? null : verdict.error, "extension_invalid", JSON.stringify(bad));
  }
  const extension = decideTrialRole(ledger, "  system prompt unchanged, user message lists the old expression first ");
  assert.ok(extension.ok);
  assert.equal(extension.value.role, "extension");
  assert.equal(extension.value.ordinal, 2);
  assert.equal(extension.value.declaredChange, "system prompt unchanged, user message lists the old expression first");
  assert.deepEqual(extension.value.earlierTrialWindows, [ledger.windows[0]?.window_id]);
  // Two earlier trials: the third is extension number 3 (ordinal counts every trial).
  const third = decideTrialRole(ledgerWith([true, false, true, false]), "another change");
  assert.ok(third.ok);
  assert.equal(third.value.ordinal, 3);
});

test("ledger trial windows are the started ones, in ledger order", () => {
  const ledger = ledgerWith([true, false, true]);
  assert.deepEqual(ledgerTrialWindows(ledger), [ledger.windows[0]?.window_id, ledger.windows[2]?.window_id]);
});

/** A model directory with a ledger of two started trials and a download manifest with consent. */
function modelDirectoryWithTwoTrials(name: string): { directory: string; ledger: AcquisitionLedger } {
  const directory = join(root, name);
  mkdirSync(directory);
  const ledger = ledgerWith([true, true]);
  writeFileSync(ledgerPath(directory), JSON.stringify(ledger));
  writeFileSync(
    join(directory, MANIFEST_FILE_NAME),
    JSON.stringify({
      consent: {
        form: "interactive_prompt",
        prompt: "Download the eight listed model files?",
        given_at: "2026-11-30T20:00:00.000Z",
      },
    }),
  );
  writeFileSync(join(directory, "model.safetensors"), Buffer.alloc(5000));
  mkdirSync(`${directory}.tca-engine-cache`);
  writeFileSync(join(`${directory}.tca-engine-cache`, "model-f32.gguf"), Buffer.alloc(7000));
  return { directory, ledger };
}

async function standInRun(
  name: string,
  kind: RunKind,
  modelDirectory: string,
  windowId: string,
  declaredChange: string | null,
): Promise<string> {
  const run = await runLab({
    runDirectory: join(root, name),
    kind,
    source: new ScriptedSource(['{"action":"read","file":"toy_math.py"}', "not json", "still not json"]),
    manifestExtras: {
      model_trial: {
        model_directory: modelDirectory,
        model_manifest: join(modelDirectory, MANIFEST_FILE_NAME),
        synthetic: false,
        run_consent: "yes_flag",
        predictions_choice: "without_predictions",
        runtime_lock_file: "runtime-lock.json",
        trial_window_id: windowId,
        trial_role: kind === "extension" ? "extension" : "trial",
        declared_change: declaredChange,
        harness_verification: {
          current_harness_sha256: "a".repeat(64),
          baseline: { status: "verified", directory: "/b" },
          checks: { status: "not_supplied", directory: null },
          verified_before_loading: false,
        },
      },
    },
  });
  assert.ok(run.ok);
  return run.value.runDirectory;
}

test("submission.md lists the trial and every extension of the ledger, in order, with the declared change", async () => {
  const { directory, ledger } = modelDirectoryWithTwoTrials("model-a");
  const [w1, w2] = ledger.windows.map((w) => w.window_id);
  const trial = await standInRun("trial-a", "model_trial", directory, w1 ?? "", null);
  const extension = await standInRun("ext-a", "extension", directory, w2 ?? "", "the contract lists replace first");
  assert.deepEqual(schemaProblems(extension), []);
  assert.equal((readJson(join(extension, "final.json"))["labels"] as Record<string, unknown>)["kind"], "extension");
  // The report and the printed summary say what it is.
  const final = readJson(join(extension, "final.json"));
  // Its model directory not opened in this reading: named as an extension, never as a verified one.
  assert.equal(labKindLabel(deriveRunVerdict(extension)).title, "EXTENSION TRIAL (MODEL NOT VERIFIED)");
  assert.match(formatRunSummary(final as unknown as FinalReport, extension), /EXTENSION trial/);
  assert.match(
    formatRunSummary(readJson(join(trial, "final.json")) as unknown as FinalReport, trial),
    /model trial \(the first trial of this model directory\)/,
  );
  const baseline = await runScriptedBaseline(join(root, "baseline-a"));
  assert.ok(baseline.ok);

  const built = buildSubmission({
    baselineDirectory: baseline.value.runDirectory,
    modelDirectory: trial,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
    extensionDirectories: [extension],
  });
  assert.ok(built.ok, built.ok ? "" : built.message);
  const md = built.value;
  assert.match(
    md,
    /The acquisition ledger records 2 trial\(s\): the first is the Lab's trial; the other 1 are separately labelled extensions/,
  );
  const trialRow = md.indexOf(`| 1 | trial | (the trial: no change) |`);
  const extensionRow = md.indexOf(`| 2 | extension | the contract lists replace first |`);
  assert.ok(trialRow > 0 && extensionRow > trialRow, "trial first, then the extension");
  assert.ok(md.includes(extension) && md.includes(trial));
  // Consent from the download manifest, the kind of manifest, the harness verification, disk use.
  assert.match(
    md,
    /\| acquisition consent \| interactive_prompt at 2026-11-30T20:00:00\.000Z \[download-manifest\.json\] \|/,
  );
  assert.match(md, /\| verified model manifest \| verified download manifest of the pinned model files: /);
  assert.match(
    md,
    /\| harness verified before loading \| NO: baseline verified \(\/b\), checks not_supplied; harness aaaaaaaaaaaa… \[model manifest\.json\] \|/,
  );
  const folder = ["model.safetensors", MANIFEST_FILE_NAME, "acquisition-ledger.json"].reduce(
    (sum, name) => sum + statSync(join(directory, name)).size,
    0,
  );
  // Sizes in binary units (src/core/numberFormat.ts), written out here: 7,000 bytes are 6.84 KiB.
  assert.ok(folder >= 1024 && folder < 2 ** 20, `the fixture's folder is KiB-sized: ${folder}`);
  assert.ok(
    md.includes(`model folder ${(folder / 1024).toFixed(2)} KiB + derived GGUF cache 6.84 KiB`),
    `disk use is measured: ${folder}`,
  );
});

test("a trial of the ledger left out, an extension given as the trial, or a run from another ledger is refused", async () => {
  const { directory, ledger } = modelDirectoryWithTwoTrials("model-b");
  const [w1, w2] = ledger.windows.map((w) => w.window_id);
  const trial = await standInRun("trial-b", "model_trial", directory, w1 ?? "", null);
  const extension = await standInRun("ext-b", "extension", directory, w2 ?? "", "one change");
  const stray = await standInRun("stray-b", "extension", directory, "not-a-window", "other change");
  const baseline = await runScriptedBaseline(join(root, "baseline-b"));
  assert.ok(baseline.ok);
  const base = {
    baselineDirectory: baseline.value.runDirectory,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  };
  const incomplete = buildSubmission({ ...base, modelDirectory: trial });
  assert.equal(incomplete.ok ? null : incomplete.error, "trial_runs_incomplete");
  assert.match(incomplete.ok ? "" : incomplete.message, new RegExp(w2 ?? "x"));
  const swapped = buildSubmission({ ...base, modelDirectory: extension, extensionDirectories: [trial] });
  assert.equal(swapped.ok ? null : swapped.error, "wrong_run_kind");
  const foreign = buildSubmission({ ...base, modelDirectory: trial, extensionDirectories: [extension, stray] });
  assert.equal(foreign.ok ? null : foreign.error, "trial_not_in_ledger");
  const notAnExtension = buildSubmission({
    ...base,
    modelDirectory: trial,
    extensionDirectories: [baseline.value.runDirectory],
  });
  assert.equal(notAnExtension.ok ? null : notAnExtension.error, "wrong_run_kind");
  // The same extension twice, or a second run claiming the same window, is never silently dropped.
  const twice = buildSubmission({ ...base, modelDirectory: trial, extensionDirectories: [extension, extension] });
  assert.equal(twice.ok ? null : twice.error, "wrong_run_kind");
  const copy = await standInRun("copy-b", "extension", directory, w2 ?? "", "one change");
  const claimed = buildSubmission({ ...base, modelDirectory: trial, extensionDirectories: [extension, copy] });
  assert.equal(claimed.ok ? null : claimed.error, "wrong_run_kind");
  assert.match(claimed.ok ? "" : claimed.message, /more than one supplied run claims/);
  // A declared change cannot break the table or inject markup.
  const odd = await standInRun("odd-b", "extension", directory, w2 ?? "", "swap | columns <script>x</script>");
  const escaped = buildSubmission({ ...base, modelDirectory: trial, extensionDirectories: [odd] });
  assert.ok(escaped.ok, escaped.ok ? "" : escaped.message);
  assert.ok(escaped.value.includes("| 2 | extension | swap \\| columns &lt;script&gt;x&lt;/script&gt; |"));
  assert.ok(!escaped.value.includes("<script>"));
});
