// The rehearsal model (issue 17): committed weights with their SHA256, transcripts that our own
// controller still produces, a checkpoint labelled "rehearsal" with the stand-in tokenizer, and
// `tca lab model` on it reaching verified_success through the unchanged loader, converter,
// worker and controller. It proves the model path; it says nothing about any real model.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runModelTrial } from "../../src/lab/modelTrial.ts";
import { formatRunSummary } from "../../src/lab/runSummary.ts";
import type { FinalReport } from "../../src/lab/labRun.ts";
import { openCheckpointDirectory } from "../../src/model/loader/checkpointDirectory.ts";
import { makeRehearsalCheckpoint } from "../../src/model/rehearsal/makeRehearsalCheckpoint.ts";
import { REHEARSAL_TRAINING_DIRECTORY, readRehearsalWeights } from "../../src/model/rehearsal/rehearsalWeights.ts";
import { PINNED_MODEL } from "../../src/model/pins.ts";
import { SYNTHETIC_MANIFEST_NAME, parseSyntheticManifest } from "../../src/model/synthetic/syntheticManifest.ts";
import { labKindLabel } from "../../src/report/labVerdict.ts";
import { generateTranscripts, serializableTranscripts } from "../../training/rehearsal/transcripts.ts";
import { readAudit, readJson, schemaProblems } from "../lab/labRunTestSupport.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { deriveRunVerdict, deriveRunVerdictCheckingModel, modelCheckOfRun } from "../../src/verdicts/runVerdict.ts";
import { readLabReport } from "../../src/report/labReport.ts";
import { buildSubmissionCheckingModels } from "../../src/verdicts/submission/writeSubmission.ts";
import { copyRun, relabelAsModelTrial } from "../evidence/forgery.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";
import { assertProblem } from "../evidence/labProblemAssert.ts";

let root: string;
let directory: string;
let rehearsalRun: string | undefined;

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "tca-rehearsal-test-"));
  directory = path.join(root, "rehearsal");
  const made = await makeRehearsalCheckpoint({ directory });
  assert.ok(made.ok, made.ok ? "" : made.message);
});

after(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  if (directory !== undefined) await rm(`${directory}.tca-engine-cache`, { recursive: true, force: true });
});

test("the committed weights are small and match the SHA256 their record states", async () => {
  const record = JSON.parse(await readFile(path.join(REHEARSAL_TRAINING_DIRECTORY, "weights.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const blob = await readFile(path.join(REHEARSAL_TRAINING_DIRECTORY, "weights.bin"));
  assert.equal(createHash("sha256").update(blob).digest("hex"), record.weights_sha256);
  assert.ok((await stat(path.join(REHEARSAL_TRAINING_DIRECTORY, "weights.bin"))).size <= 12_000_000);
  const training = record.training as Record<string, unknown>;
  assert.equal(typeof training.seed, "number");
  assert.equal(training.threads, 1);
  const weights = await readRehearsalWeights();
  assert.ok(weights.ok, weights.ok ? "" : weights.message);
});

test("the committed transcripts are exactly what our controller and the stand-in tokenizer produce today", async () => {
  const committedBytes = await readFile(path.join(REHEARSAL_TRAINING_DIRECTORY, "transcripts.json"));
  const committed = JSON.parse(committedBytes.toString("utf8")) as Record<string, unknown>;
  const fresh = serializableTranscripts(await generateTranscripts());
  // If this fails, the controller's requests changed: regenerate, retrain and commit (docs/rehearsal-model.md).
  assert.deepEqual(committed.examples, JSON.parse(JSON.stringify(fresh.examples)));
  assert.deepEqual(committed.outcomes, JSON.parse(JSON.stringify(fresh.outcomes)));
  const record = JSON.parse(await readFile(path.join(REHEARSAL_TRAINING_DIRECTORY, "weights.json"), "utf8")) as Record<
    string,
    unknown
  >;
  assert.equal(
    createHash("sha256").update(committedBytes).digest("hex"),
    record.transcripts_sha256,
    "the weights were trained on these transcripts",
  );
  const baseline = fresh.outcomes.find((o) => o.scenario === "baseline");
  assert.equal(baseline?.verified_success, true);
  assert.ok(
    fresh.examples.some((e) => !e.target),
    "injected faults exist and are never trained targets",
  );
});

test("tampered or malformed rehearsal weights are refused before anything is written", async () => {
  const copy = path.join(root, "weights-copy");
  await cp(REHEARSAL_TRAINING_DIRECTORY, copy, { recursive: true });
  const blob = await readFile(path.join(copy, "weights.bin"));
  blob[blob.length >> 1] = (blob[blob.length >> 1] as number) ^ 1;
  await writeFile(path.join(copy, "weights.bin"), blob);
  const tampered = await makeRehearsalCheckpoint({ directory: path.join(root, "never-1"), weightsDirectory: copy });
  assert.equal(tampered.ok ? null : tampered.error, "checkpoint_invalid");
  await assert.rejects(stat(path.join(root, "never-1")), "nothing was created");

  await cp(path.join(REHEARSAL_TRAINING_DIRECTORY, "weights.bin"), path.join(copy, "weights.bin"));
  const record = JSON.parse(await readFile(path.join(copy, "weights.json"), "utf8")) as Record<string, unknown>;
  for (const broken of [
    { ...record, token_ids: [...(record.token_ids as number[])].reverse() },
    { ...record, token_ids: [...(record.token_ids as number[]).slice(0, -1), 151_667] },
    { ...record, architecture: { ...(record.architecture as object), hidden_size: 65 } },
    { ...record, schema: "something-else" },
  ]) {
    await writeFile(path.join(copy, "weights.json"), JSON.stringify(broken));
    const refused = await readRehearsalWeights(copy);
    assert.equal(refused.ok ? null : refused.error, "checkpoint_invalid");
  }
});

test("the rehearsal checkpoint is labelled rehearsal with the stand-in tokenizer and is never named the pinned model", async () => {
  const manifest = parseSyntheticManifest(await readFile(path.join(directory, SYNTHETIC_MANIFEST_NAME)));
  assert.ok(manifest.ok);
  assert.equal(manifest.value.label, "rehearsal");
  assert.equal(manifest.value.size, "rehearsal");
  assert.equal(manifest.value.tokenizer, "qwen2.5-stand-in");
  assert.match(
    manifest.value.note,
    /trained in-project on scripted transcripts; it proves the model path and says nothing about any real model's ability/,
  );
  const opened = await openCheckpointDirectory(directory);
  assert.ok(opened.ok, opened.ok ? "" : opened.message);
  assert.equal(opened.value.arch.vocabSize, 151_936, "the pinned vocabulary layout");
  assert.match(opened.value.modelName, /^rehearsal-/);
  assert.notEqual(opened.value.modelName, PINNED_MODEL.repository);
  const again = await makeRehearsalCheckpoint({ directory });
  assert.equal(again.ok ? null : again.error, "destination_exists");
});

test("a manifest cannot pair the rehearsal label with a random-weight size or with another tokenizer", async () => {
  const bytes = await readFile(path.join(directory, SYNTHETIC_MANIFEST_NAME));
  const manifest = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
  for (const broken of [
    { ...manifest, size: "tiny" },
    { ...manifest, tokenizer: "synthetic-bpe" },
    { ...manifest, label: "model" },
    { ...manifest, tokenizer: "qwen3" },
  ]) {
    const parsed = parseSyntheticManifest(Buffer.from(JSON.stringify(broken)));
    assert.equal(parsed.ok ? null : parsed.error, "checkpoint_invalid");
  }
  const random = parseSyntheticManifest(
    Buffer.from(JSON.stringify({ ...manifest, label: "synthetic-pipeline-check", size: "rehearsal" })),
  );
  assert.equal(random.ok ? null : random.error, "checkpoint_invalid");
});

test("a rehearsal directory can never pass as the pinned model: without its manifest or with a download manifest it is refused", async () => {
  const copy = path.join(root, "disguised");
  await cp(directory, copy, { recursive: true });
  await rm(path.join(copy, SYNTHETIC_MANIFEST_NAME));
  const bare = await openCheckpointDirectory(copy);
  assert.equal(bare.ok, false, "without its manifest it is an unverified directory");
  await writeFile(
    path.join(copy, "download-manifest.json"),
    JSON.stringify({ schema: "tca.model-download-manifest", schema_version: 1, status: "verified" }),
  );
  const disguised = await openCheckpointDirectory(copy);
  assert.equal(disguised.ok, false, "a forged download manifest does not make it the pinned model");
  await cp(path.join(directory, SYNTHETIC_MANIFEST_NAME), path.join(copy, SYNTHETIC_MANIFEST_NAME));
  const both = await openCheckpointDirectory(copy);
  assert.equal(
    both.ok ? null : both.error,
    "unexpected_file",
    "a rehearsal directory holds nothing beyond its own files",
  );
});

test("tca lab model with the rehearsal checkpoint reaches verified_success through the real model path", async () => {
  const trial = await runModelTrial({
    runDirectory: path.join(root, "run"),
    modelDirectory: directory,
    runConsent: "yes_flag",
    predictions: "without_predictions",
    ...workerFromBuild(),
  });
  assert.ok(trial.ok, trial.ok ? "" : trial.message);
  const dir = trial.value.run.runDirectory;
  const final = readJson(path.join(dir, "final.json"));
  const manifest = readJson(path.join(dir, "manifest.json"));
  assert.equal(final["stop_reason"], "finish_accepted");
  assert.equal(final["verified_success"], true);
  assert.equal(final["invalid_proposals"], 0);
  const evaluation = final["final_evaluation"] as Record<string, unknown>;
  assert.equal(evaluation["held_out_passed"], 8);
  assert.equal(evaluation["held_out_total"], 8);

  assert.deepEqual(schemaProblems(dir), [], "manifest, final and audit validate against the published schemas");
  const audit = readAudit(dir);
  assert.ok(
    audit.every((r) => r.source === "rehearsal"),
    "every audit record carries the rehearsal label",
  );
  const generations = audit.filter((r) => r.type === "generation");
  assert.equal(generations.length, 6);
  for (const generation of generations) {
    const metadata = generation.data["metadata"] as Record<string, unknown>;
    assert.equal(metadata["stopCause"], "stop_token", "each generation ended on the end-of-turn token");
    assert.equal((metadata["rawOutputIds"] as number[]).at(-1), 151645);
  }
  assert.equal(
    audit.filter((r) => r.type === "edit_committed").length,
    2,
    "both edits were committed by the workspace",
  );

  for (const labels of [
    manifest["labels"],
    final["labels"],
    audit.find((r) => r.type === "run_started")?.data["labels"],
  ] as Record<string, unknown>[]) {
    assert.equal(labels["rehearsal"], true);
    assert.equal(labels["checkpoint_label"], "rehearsal");
    assert.equal(labels["stand_in_tokenizer"], true);
    assert.equal(labels["kind"], "rehearsal_trial", "its own word: never a model trial, never a pipeline check");
    assert.equal(labels["synthetic_pipeline_check"], false);
  }
  const trialInfo = manifest["model_trial"] as Record<string, unknown>;
  assert.match(String(trialInfo["synthetic_note"]), /rehearsal model/);
  assert.match(String(trialInfo["model_name"]), /^rehearsal-/);
  assert.match(formatRunSummary(final as unknown as FinalReport, dir), /REHEARSAL/);
  assert.equal(
    formatRunSummary(final as unknown as FinalReport, dir).split("\n")[0],
    "verdict:           REHEARSAL · VERIFIED SUCCESS",
  );
  const banner = labKindLabel(deriveRunVerdict(dir));
  assert.equal(banner.title, "REHEARSAL");
  assert.equal(banner.pipelineCheck, true);
  assert.match(banner.explanation, /stand-in/);
  rehearsalRun = dir;

  // Issue 33: the verdict opens the rehearsal checkpoint now and finds the one the run recorded.
  const checked = await deriveRunVerdictCheckingModel(dir);
  assert.equal(checked.kind, "verified_success", JSON.stringify(checked.problems));
  assert.equal(checked.modelTrial?.status, "verified");
  assert.equal(checked.modelTrial?.check?.checkpoint, "rehearsal");
});

test("(issue 33) the rehearsal trial relabelled a model trial of the pinned model is not a model trial anywhere", async () => {
  assert.ok(rehearsalRun !== undefined, "the rehearsal trial ran");
  const run = copyRun(rehearsalRun, path.join(root, "relabelled"));
  relabelAsModelTrial(run, directory, rehearsalRun);
  // Consistent but for the model: read without opening the directory it still verifies.
  assert.equal(deriveRunVerdict(run).kind, "verified_success");
  assert.equal(deriveRunVerdict(run).modelTrial?.status, "not_checked");
  const checked = await deriveRunVerdictCheckingModel(run);
  assert.equal(checked.kind, "evidence_invalid");
  assertProblem(checked.problems, "not_the_pinned_model", /verifies as a rehearsal checkpoint/);
  // Labels first: the claim says a model trial, its directory says rehearsal; the headline names the evidence.
  const modelCheck = await modelCheckOfRun(run);
  assert.ok(modelCheck !== undefined);
  const page = readLabReport(run, { includeRequests: false, modelCheck });
  assert.equal(page.verdict.headline, "REHEARSAL · EVIDENCE INVALID");
  assert.equal(page.label.title, "REHEARSAL");
  const baseline = await runScriptedBaseline(path.join(root, "baseline"));
  assert.ok(baseline.ok);
  const submission = await buildSubmissionCheckingModels({
    baselineDirectory: baseline.value.runDirectory,
    modelDirectory: run,
    checksDirectory: null,
    predictionsPath: null,
    blockedReason: null,
  });
  assert.equal(submission.ok ? "written" : submission.error, "run_evidence_invalid");
});
