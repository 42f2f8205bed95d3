// The model trial end to end on a tiny synthetic checkpoint: real generation through the
// supervised worker, the same controller and evidence as the baseline, labelled a pipeline check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BASELINE_PROPOSALS, PREDICTION_QUESTIONS } from "../../src/constants/labConstants.ts";
import { runModelTrial } from "../../src/lab/modelTrial.ts";
import { predictionsPath, recordPredictions, readPredictions } from "../../src/recording/predictions.ts";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { buildSubmission } from "../../src/verdicts/submission/writeSubmission.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { freshRoot, readAudit, readJson, schemaProblems } from "./labRunTestSupport.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";

const root = freshRoot("model-trial");
const modelDirectory = join(root, "tiny");

test("a tiny synthetic checkpoint goes through the whole trial as a labelled pipeline check", async () => {
  const made = await makeTestCheckpoint({ directory: modelDirectory, size: "tiny", seed: 7 });
  assert.ok(made.ok, made.ok ? "" : made.message);
  // Predictions beside the checkpoint (the default place) must not make the loader refuse it.
  const predictionsFile = predictionsPath(modelDirectory);
  assert.ok(
    recordPredictions(
      predictionsFile,
      PREDICTION_QUESTIONS.map((_, i) => ({ answer: `answer ${i + 1}`, answeredAt: new Date() })),
      "answers_file",
    ).ok,
  );
  const predictions = readPredictions(predictionsFile);
  assert.ok(predictions.ok);

  // A verified baseline of this harness exists before loading; no checks run was supplied.
  const verifiedBaseline = await runScriptedBaseline(join(root, "baseline-before"));
  assert.ok(verifiedBaseline.ok);
  const trial = await runModelTrial({
    runDirectory: join(root, "run"),
    modelDirectory,
    runConsent: "yes_flag",
    predictions: { record: predictions.value, path: predictionsFile },
    baselineDirectory: verifiedBaseline.value.runDirectory,
    checksDirectory: null,
    ...workerFromBuild(),
  });
  assert.ok(trial.ok, trial.ok ? "" : trial.message);
  assert.equal(trial.value.synthetic, true);
  const dir = trial.value.run.runDirectory;
  const manifest = readJson(join(dir, "manifest.json"));
  const final = readJson(join(dir, "final.json"));
  assert.equal((manifest["labels"] as Record<string, unknown>)["kind"], "synthetic_pipeline_check");
  assert.equal((final["labels"] as Record<string, unknown>)["synthetic_pipeline_check"], true);
  const trialInfo = manifest["model_trial"] as Record<string, unknown>;
  assert.equal(trialInfo["synthetic"], true);
  assert.equal(trialInfo["run_consent"], "yes_flag");
  assert.deepEqual((trialInfo["predictions"] as { predictions: unknown[] }).predictions.length, 5);
  const harness = trialInfo["harness_verification"] as Record<string, Record<string, unknown>>;
  assert.equal(harness["baseline"]?.["status"], "verified");
  assert.equal(harness["checks"]?.["status"], "not_supplied");
  assert.equal(trialInfo["trial_role"], null, "a pipeline check is never the trial");
  assert.equal((harness as Record<string, unknown>)["verified_before_loading"], false);

  assert.deepEqual(schemaProblems(dir), []);
  const lock = readJson(join(dir, "runtime-lock.json"));
  assert.deepEqual(lock["mismatches"], []);

  const audit = readAudit(dir);
  assert.ok(audit.every((r) => r.source === "synthetic-pipeline-check"));
  const generations = audit.filter((r) => r.type === "generation");
  assert.ok(generations.length >= 1);
  const requests = audit.filter((r) => r.type === "request");
  for (const [i, generation] of generations.entries()) {
    const metadata = generation.data["metadata"] as Record<string, unknown>;
    assert.equal(generation.data["outcome"], "text");
    const raw = generation.data["raw_text"];
    assert.equal(typeof raw, "string");
    assert.ok(!BASELINE_PROPOSALS.includes(String(raw)), "no scripted text in a model proposal");
    const ids = metadata["rawOutputIds"] as number[];
    assert.ok(Array.isArray(ids) && ids.length === metadata["outputTokens"] && ids.length > 0 && ids.length <= 128);
    // The controller counted the same input the worker tokenized.
    assert.equal(requests[i]?.data["input_tokens"], metadata["inputTokens"]);
    assert.equal((metadata["inputIds"] as number[]).length, metadata["inputTokens"]);
  }
  // Every generation was validated, and failures are kept with their codes.
  const validations = audit.filter((r) => r.type === "validation");
  assert.equal(validations.length, generations.length);
  const invalid = validations.filter((r) => r.data["ok"] !== true);
  assert.equal(
    final["invalid_proposals"],
    audit.filter((r) => r.type === "observation" && (r.data["observation"] as Record<string, unknown>)["ok"] === false)
      .length,
  );
  for (const v of invalid) assert.match(String(v.data["error"]), /^[a-z_]+$/);
  if (invalid.length === generations.length && generations.length === 2)
    assert.equal(final["stop_reason"], "invalid_proposal_limit");
  assert.equal(final["verified_success"], false);

  // submission.md from this run says what it is.
  const baseline = await runLab({
    runDirectory: join(root, "baseline"),
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "scripted_baseline",
  });
  assert.ok(baseline.ok);
  const submission = buildSubmission({
    baselineDirectory: baseline.value.runDirectory,
    modelDirectory: dir,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.ok(submission.ok);
  assert.match(submission.value, /only a PIPELINE CHECK on a synthetic random-weight checkpoint/);
  assert.match(submission.value, /answer 3 \(recorded /);
  assert.match(
    submission.value,
    /\| verified model manifest \| synthetic checkpoint manifest \(a random-weight checkpoint generated here, NOT a verified download of the pinned model\): /,
  );
  for (const match of submission.value.matchAll(/\[model audit ((?:#\d+(?:, )?)+)\]/g)) {
    for (const id of (match[1] ?? "").matchAll(/#(\d+)/g)) assert.ok(audit.some((r) => r.event_id === Number(id[1])));
  }
});

test("the trial refuses to start without predictions, without opt-in, or on an unverified directory", async () => {
  const base = { modelDirectory, runConsent: "yes_flag" as const, predictions: "without_predictions" as const };
  const noPredictions = await runModelTrial({ ...base, runDirectory: join(root, "r1"), predictions: null });
  assert.equal(noPredictions.ok ? null : noPredictions.error, "predictions_missing");
  const noConsent = await runModelTrial({ ...base, runDirectory: join(root, "r2"), runConsent: null });
  assert.equal(noConsent.ok ? null : noConsent.error, "run_not_authorized");
  const notAModel = await runModelTrial({
    ...base,
    runDirectory: join(root, "r3"),
    modelDirectory: join(root, "baseline"),
  });
  assert.equal(notAModel.ok ? null : notAModel.error, "model_directory_rejected");
  const extension = await runModelTrial({ ...base, runDirectory: join(root, "r4"), extension: "a declared change" });
  assert.equal(extension.ok ? null : extension.error, "extension_not_applicable");
  for (const name of ["r1", "r2", "r3", "r4"]) assert.ok(!existsSync(join(root, name)), `${name} was not created`);
  assert.ok(readFileSync(join(modelDirectory, "synthetic-manifest.json")).length > 0);
});
