// "Verify the harness before loading a model": what the trial records about the baseline and
// the checks it was given, for this harness version (never assumed from their presence).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  checkBaselineEvidence,
  checkChecksEvidence,
  requireVerifiedHarness,
  verifyHarnessEvidence,
} from "../../src/lab/harnessVerification.ts";
import { runModelTrial } from "../../src/lab/modelTrial.ts";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { LEDGER_FILE_NAME } from "../../src/model/artifacts/ledger.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { runAllChecks } from "../../src/lab/checkRunner.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { harnessHashes } from "../../src/recording/runtimeIdentity.ts";
import { sha256Hex } from "../../src/core/digest.ts";
import { freshRoot } from "./labRunTestSupport.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";

const root = freshRoot("harness-verification");
const current = harnessHashes().aggregate_sha256;

// One real checks root (every check's run directory): the checks verdict re-derives each row
// from it, so a checks.json without its runs is never passing.
const realChecks = join(root, "checks-runs");
mkdirSync(realChecks);
const realRows = await runAllChecks(realChecks);
const WATCH_ZERO = { processes_started: 0, threads_started: 0, native_addons_loaded: 0 };
const PASSING = {
  harness_sha256: current,
  total: realRows.length,
  passed: realRows.length,
  failed: 0,
  process_watch: WATCH_ZERO,
  checks: realRows,
};

/** A copy of the real checks root whose checks.json is `report` (a forged or altered summary). */
function checksDir(name: string, report: Record<string, unknown>): string {
  const directory = join(root, name);
  cpSync(realChecks, directory, { recursive: true });
  writeFileSync(join(directory, "checks.json"), JSON.stringify({ schema: "tca.checks/1", ...report }));
  return directory;
}

test("a verified baseline and passing checks of this harness version: verified before loading", async () => {
  const baseline = await runScriptedBaseline(join(root, "baseline"));
  assert.ok(baseline.ok);
  const checks = checksDir("checks-ok", PASSING);
  const verification = verifyHarnessEvidence(baseline.value.runDirectory, checks);
  assert.equal(verification.current_harness_sha256, current);
  assert.equal(verification.baseline.status, "verified");
  assert.equal(verification.checks.status, "verified");
  assert.equal(verification.verified_before_loading, true);
});

test("missing, failing, other-version, wrong-kind or process-starting evidence is never verified", async () => {
  assert.equal(checkBaselineEvidence(null, current).status, "not_supplied");
  assert.equal(checkBaselineEvidence(join(root, "nowhere"), current).status, "missing");
  assert.equal(checkChecksEvidence(join(root, "nowhere"), current).status, "missing");
  const failing = await runLab({
    runDirectory: join(root, "failing"),
    source: new ScriptedSource(["nope", "nope"]),
    kind: "scripted_baseline",
  });
  assert.ok(failing.ok);
  assert.equal(checkBaselineEvidence(failing.value.runDirectory, current).status, "not_passing");
  const check = await runLab({
    runDirectory: join(root, "a-check"),
    source: new ScriptedSource(["nope"]),
    kind: "negative_check",
  });
  assert.ok(check.ok);
  assert.equal(checkBaselineEvidence(check.value.runDirectory, current).status, "wrong_kind");
  const good = await runScriptedBaseline(join(root, "good"));
  assert.ok(good.ok);
  assert.equal(checkBaselineEvidence(good.value.runDirectory, "f".repeat(64)).status, "other_harness_version");
  // The one-line forgery (a wrong program, its digest rewritten everywhere) is never a verified baseline.
  const forged = join(root, "forged-baseline");
  cpSync(good.value.runDirectory, forged, { recursive: true });
  const sourcePath = join(forged, "workspace", "toy_math.py");
  const before = sha256Hex(readFileSync(sourcePath));
  writeFileSync(sourcePath, readFileSync(sourcePath, "utf8").replace("unit * qty + fee", "unit * qty"));
  const after = sha256Hex(readFileSync(sourcePath));
  for (const name of ["audit.jsonl", "final.json"])
    writeFileSync(join(forged, name), readFileSync(join(forged, name), "utf8").split(before).join(after));
  assert.equal(checkBaselineEvidence(forged, current).status, "evidence_invalid");

  const base = PASSING;
  assert.equal(checkChecksEvidence(null, current).status, "not_supplied");
  // Summaries that disagree with the re-derived rows, or a root without its runs: never passing.
  assert.equal(
    checkChecksEvidence(checksDir("c-failed", { ...base, passed: 39, failed: 1 }), current).status,
    "evidence_invalid",
  );
  assert.equal(
    checkChecksEvidence(checksDir("c-empty", { ...base, total: 0, passed: 0, checks: [] }), current).status,
    "evidence_invalid",
  );
  const summaryOnly = join(root, "c-summary-only");
  mkdirSync(summaryOnly);
  writeFileSync(join(summaryOnly, "checks.json"), readFileSync(join(checksDir("c-source", base), "checks.json")));
  assert.equal(checkChecksEvidence(summaryOnly, current).status, "evidence_invalid");
  const runDeleted = checksDir("c-run-deleted", base);
  rmSync(join(runDeleted, "import"), { recursive: true });
  assert.equal(checkChecksEvidence(runDeleted, current).status, "evidence_invalid");
  assert.equal(
    checkChecksEvidence(
      checksDir("c-process", {
        ...base,
        process_watch: { processes_started: 1, threads_started: 0, native_addons_loaded: 0 },
      }),
      current,
    ).status,
    "not_passing",
  );
  assert.equal(
    checkChecksEvidence(
      checksDir("c-addon", {
        ...base,
        process_watch: { processes_started: 0, threads_started: 0, native_addons_loaded: 1 },
      }),
      current,
    ).status,
    "not_passing",
  );
  assert.equal(
    checkChecksEvidence(checksDir("c-unwatched", { ...base, process_watch: undefined }), current).status,
    "not_passing",
  );
  assert.equal(
    checkChecksEvidence(checksDir("c-old", { ...base, harness_sha256: "0".repeat(64) }), current).status,
    "other_harness_version",
  );
  assert.equal(
    checkChecksEvidence(checksDir("c-unversioned", { ...base, harness_sha256: undefined }), current).status,
    "other_harness_version",
  );
  const partial = verifyHarnessEvidence(good.value.runDirectory, null);
  assert.equal(partial.verified_before_loading, false);
});

test("a checks.json that is a FIFO or a link to a passing report is refused at once, never read", () => {
  const passing = checksDir("checks-real", PASSING);
  assert.equal(checkChecksEvidence(passing, current).status, "verified", "control: the real report is verified");
  const linked = join(root, "checks-linked");
  mkdirSync(linked);
  symlinkSync(join(passing, "checks.json"), join(linked, "checks.json"));
  assert.equal(checkChecksEvidence(linked, current).status, "unreadable");
  const fifo = join(root, "checks-fifo");
  mkdirSync(fifo);
  execFileSync("mkfifo", [join(fifo, "checks.json")]);
  // A blocking open would hang this test (and the trial) forever; the refusal is immediate.
  assert.equal(checkChecksEvidence(fifo, current).status, "unreadable");
});

test("a final.json that claims success over a failing audit is not a verified baseline (the verdict is derived)", async () => {
  const failing = await runLab({
    runDirectory: join(root, "claims-success"),
    source: new ScriptedSource(["nope", "nope"]),
    kind: "scripted_baseline",
  });
  assert.ok(failing.ok);
  const finalPath = join(failing.value.runDirectory, "final.json");
  const final = JSON.parse(readFileSync(finalPath, "utf8")) as Record<string, unknown>;
  writeFileSync(finalPath, JSON.stringify({ ...final, verified_success: true }));
  // The re-derived verdict disagrees with the file's claim: the evidence itself is invalid.
  assert.equal(checkBaselineEvidence(failing.value.runDirectory, current).status, "evidence_invalid");
});

test("supplied evidence that does not verify is refused (harness_evidence_invalid) naming the path; not supplied is recorded; the override is recorded", async () => {
  const baseline = await runScriptedBaseline(join(root, "gate-baseline"));
  assert.ok(baseline.ok);
  const checks = checksDir("gate-checks", PASSING);
  assert.equal(requireVerifiedHarness(verifyHarnessEvidence(baseline.value.runDirectory, checks)).ok, true);
  const notSupplied = requireVerifiedHarness(verifyHarnessEvidence(null, null));
  assert.ok(notSupplied.ok);
  assert.equal(notSupplied.value.verified_before_loading, false);

  const typo = join(root, "baselin");
  const typoRefused = requireVerifiedHarness(verifyHarnessEvidence(typo, checks));
  assert.equal(typoRefused.ok ? null : typoRefused.error, "harness_evidence_invalid");
  assert.ok(
    !typoRefused.ok && typoRefused.message.includes(`--baseline ${typo} does not exist`),
    typoRefused.ok ? "" : typoRefused.message,
  );
  // --checks pointing at a baseline run, and --baseline pointing at a checks root: the wrong kind.
  const swapped = requireVerifiedHarness(verifyHarnessEvidence(checks, baseline.value.runDirectory));
  assert.equal(swapped.ok ? null : swapped.error, "harness_evidence_invalid");
  assert.ok(
    !swapped.ok &&
      swapped.message.includes(`--baseline ${checks}`) &&
      swapped.message.includes(`--checks ${baseline.value.runDirectory}`),
    swapped.ok ? "" : swapped.message,
  );
  const failed = requireVerifiedHarness(
    verifyHarnessEvidence(baseline.value.runDirectory, checksDir("gate-failed", { ...PASSING, passed: 39, failed: 1 })),
  );
  assert.equal(failed.ok ? null : failed.error, "harness_evidence_invalid");

  const overridden = requireVerifiedHarness(verifyHarnessEvidence(typo, checks, new Date(), true));
  assert.ok(overridden.ok);
  assert.equal(overridden.value.unverified_harness, true);
  assert.equal(overridden.value.baseline.status, "missing");
  assert.equal(overridden.value.verified_before_loading, false);
});

test("the trial refuses a typo'd --baseline before it opens the model directory, claims a window or creates the run", async () => {
  // Not a checkpoint at all, with a ledger: reaching the model or the window would answer otherwise.
  const modelDirectory = join(root, "gate-model");
  mkdirSync(modelDirectory);
  const ledger = JSON.stringify({ schema: "tca.acquisition-ledger", schema_version: 1, windows: [] });
  writeFileSync(join(modelDirectory, LEDGER_FILE_NAME), ledger);
  const runDirectory = join(root, "gate-run");
  const refused = await runModelTrial({
    runDirectory,
    modelDirectory,
    runConsent: "yes_flag",
    predictions: "without_predictions",
    baselineDirectory: join(root, "baselin"),
    checksDirectory: null,
  });
  assert.equal(refused.ok ? null : refused.error, "harness_evidence_invalid");
  assert.equal(existsSync(runDirectory), false);
  assert.equal(readFileSync(join(modelDirectory, LEDGER_FILE_NAME), "utf8"), ledger);
});

test("with --unverified-harness the trial runs and its manifest records the override and the missing evidence", async () => {
  const modelDirectory = join(root, "override-model");
  const made = await makeTestCheckpoint({ directory: modelDirectory, size: "tiny", seed: 3 });
  assert.ok(made.ok);
  const runDirectory = join(root, "override-run");
  const trial = await runModelTrial({
    runDirectory,
    modelDirectory,
    runConsent: "yes_flag",
    predictions: "without_predictions",
    baselineDirectory: join(root, "baselin"),
    checksDirectory: null,
    unverifiedHarness: true,
    ...workerFromBuild(),
  });
  assert.ok(trial.ok, trial.ok ? "" : trial.message);
  const manifest = JSON.parse(readFileSync(join(runDirectory, "manifest.json"), "utf8")) as {
    model_trial: {
      harness_verification: {
        unverified_harness: boolean;
        verified_before_loading: boolean;
        baseline: { status: string };
      };
    };
  };
  assert.equal(manifest.model_trial.harness_verification.unverified_harness, true);
  assert.equal(manifest.model_trial.harness_verification.verified_before_loading, false);
  assert.equal(manifest.model_trial.harness_verification.baseline.status, "missing");
});
