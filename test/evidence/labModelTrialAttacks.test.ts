// Issue 33's relabel attacks on the Lab, kept as tests: a scripted baseline and a pipeline-check
// trial (a real run on the tiny synthetic checkpoint) relabelled a model trial of the pinned
// Qwen2.5-Coder (labels, run_kind, every record's source, the manifest's model section), with
// the model directory pointed at the checkpoint or at a copy of it holding a hand-written
// acquisition manifest and ledger. What a relabel cannot fake without the real model is the
// directory: the verdict opens it now through the loader's gate. Asserted for every consumer:
// the verdict, the report (library and `tca report --json`) and submission.md (library and
// `tca lab submission`); the honest runs stay what they are.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PINNED_FILES, PINNED_MODEL } from "../../src/model/pins.ts";
import { runModelTrial } from "../../src/lab/modelTrial.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { readLabReport } from "../../src/report/labReport.ts";
import { deriveRunVerdict, deriveRunVerdictCheckingModel, modelCheckOfRun } from "../../src/verdicts/runVerdict.ts";
import { buildSubmission, buildSubmissionCheckingModels } from "../../src/verdicts/submission/writeSubmission.ts";
import { freshRoot } from "../lab/labRunTestSupport.ts";
import { tca } from "../support/tcaCli.ts";
import { copyRun, editJson, relabelAsModelTrial } from "./forgery.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";
import type { ModelCheckCode } from "../../src/verdicts/modelTrialCheck.ts";
import { assertProblem } from "./labProblemAssert.ts";

const root = freshRoot("model-trial-attacks");
const checkpoint = join(root, "tiny");
const madeCheckpoint = await makeTestCheckpoint({ directory: checkpoint, size: "tiny", seed: 7 });
assert.ok(madeCheckpoint.ok);
const madeBaseline = await runScriptedBaseline(join(root, "baseline"));
assert.ok(madeBaseline.ok);
const baseline = madeBaseline.value.runDirectory;
const madeTrial = await runModelTrial({
  runDirectory: join(root, "pipeline-check"),
  modelDirectory: checkpoint,
  runConsent: "yes_flag",
  predictions: "without_predictions",
  ...workerFromBuild(),
});
assert.ok(madeTrial.ok, madeTrial.ok ? "" : madeTrial.message);
const pipelineCheck = madeTrial.value.run.runDirectory;
let copies = 0;
const forge = (run: string): string => copyRun(run, join(root, `forged-${++copies}`));
const request = (model: string) => ({
  baselineDirectory: baseline,
  modelDirectory: model,
  checksDirectory: null,
  predictionsPath: null,
  blockedReason: null,
});

/** A copy of the checkpoint as a faker dresses it: no synthetic manifest, a hand-written download manifest and ledger. */
function dressedAsPinned(): string {
  const directory = join(root, `dressed-${++copies}`);
  cpSync(checkpoint, directory, { recursive: true });
  rmSync(join(directory, "synthetic-manifest.json"));
  const now = new Date().toISOString();
  const files = PINNED_FILES.files.map((file) => ({
    name: file.name,
    repository: PINNED_MODEL.repository,
    revision: PINNED_MODEL.revision,
    url: `https://huggingface.co/${PINNED_MODEL.repository}/resolve/${PINNED_MODEL.revision}/${file.name}`,
    expected_bytes: file.bytes,
    observed_bytes: file.bytes,
    expected_identity: file.sha256
      ? { kind: "sha256", value: file.sha256 }
      : { kind: "git_blob_sha1", value: file.gitBlobSha1 },
    expected_sha256: file.sha256 ?? null,
    observed_sha256: file.sha256 ?? "0".repeat(64),
    observed_git_blob_sha1: file.gitBlobSha1 ?? null,
    status: "verified",
    retries: 0,
    payload_bytes_received: file.bytes,
  }));
  writeFileSync(
    join(directory, "manifest.json"),
    JSON.stringify({
      schema: "tca.model-download-manifest",
      schema_version: 1,
      status: "verified",
      error: null,
      repository: PINNED_MODEL.repository,
      revision: PINNED_MODEL.revision,
      endpoint: "https://huggingface.co",
      consent: { form: "yes_flag", prompt: "download?", given_at: now },
      limits: {
        aggregate_ceiling_bytes: 1_200_000_000,
        acquisition_deadline_ms: 1_200_000,
        max_retries_per_file: 3,
        max_redirects: 5,
      },
      started_at: now,
      finished_at: now,
      elapsed_ms: 1000,
      files,
    }),
  );
  writeFileSync(
    join(directory, "acquisition-ledger.json"),
    JSON.stringify({
      windows: [{ window_id: "w1", opened_at: now, consent: { form: "yes_flag", prompt: "download?" } }],
    }),
  );
  return directory;
}

/** What every consumer shows for a forged model trial. */
/** The headline of a relabelled run whose model directory does not verify: the claim, marked unverified. */
const UNVERIFIED_TRIAL = `MODEL TRIAL (MODEL NOT VERIFIED) · ${PINNED_MODEL.repository}`;

async function assertNotAModelTrial(
  run: string,
  code: ModelCheckCode,
  label: string,
  mentions?: RegExp,
): Promise<void> {
  const checked = await deriveRunVerdictCheckingModel(run);
  assert.equal(checked.kind, "evidence_invalid", JSON.stringify(checked.problems));
  assert.equal(checked.modelTrial?.status, "not_verified");
  assertProblem(checked.problems, code, /it is not a model trial/);
  if (mentions !== undefined) assertProblem(checked.problems, code, mentions);
  const modelCheck = await modelCheckOfRun(run);
  assert.ok(modelCheck !== undefined);
  const report = readLabReport(run, { includeRequests: false, modelCheck });
  // The source the verdict re-derived comes first on the verdict's line, never the plain MODEL TRIAL.
  assert.equal(report.verdict.headline, `${label} · EVIDENCE INVALID`);
  assert.equal(report.label.title, label);
  const submission = await buildSubmissionCheckingModels(request(run));
  assert.equal(submission.ok ? "written" : submission.error, "run_evidence_invalid");
  // Read without opening the directory (a library caller), it is never called a model trial either.
  // The relabel is otherwise consistent: nothing but the model directory gives it away.
  const unchecked = deriveRunVerdict(run);
  assert.deepEqual(unchecked.problems, []);
  assert.equal(unchecked.modelTrial?.status, "not_checked");
  assert.equal(readLabReport(run, { includeRequests: false }).label.title, UNVERIFIED_TRIAL);
  const plain = buildSubmission(request(run));
  if (plain.ok) {
    assert.doesNotMatch(plain.value, /a real model was called/);
    assert.match(plain.value, /Model stage: \*\*model stage NOT VERIFIED/);
  }
}

test("honest: the baseline claims no model; the pipeline check verifies against its own checkpoint manifest", async () => {
  const checkedBaseline = await deriveRunVerdictCheckingModel(baseline);
  assert.equal(checkedBaseline.kind, "verified_success");
  assert.equal(checkedBaseline.modelTrial, null);
  const checked = await deriveRunVerdictCheckingModel(pipelineCheck);
  assert.deepEqual(checked.problems, []);
  assert.equal(checked.modelTrial?.status, "verified");
  assert.equal(checked.modelTrial?.check?.checkpoint, "synthetic");
  assert.match(checked.modelTrial?.message ?? "", /verified now against its own synthetic checkpoint manifest/);
  const submission = await buildSubmissionCheckingModels(request(pipelineCheck));
  assert.ok(submission.ok, submission.ok ? "" : submission.message);
  assert.doesNotMatch(submission.value, /a real model was called/);
  assert.match(submission.value, /PIPELINE CHECK/);
});

test("the pipeline check's checkpoint changed after the run (one weight byte) does not verify", async () => {
  const run = forge(pipelineCheck);
  const moved = join(root, `changed-${++copies}`);
  cpSync(checkpoint, moved, { recursive: true });
  const weights = join(moved, "model.safetensors");
  const bytes = readFileSync(weights);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
  writeFileSync(weights, bytes);
  editJson(run, "manifest.json", (manifest) => {
    (manifest.model_trial as Record<string, unknown>).model_directory = moved;
  });
  const checked = await deriveRunVerdictCheckingModel(run);
  assert.equal(checked.kind, "evidence_invalid");
  assertProblem(checked.problems, "model_directory_unverified", /it is not a pipeline check/);
});

test("(c) the scripted baseline relabelled a model trial, pointed at a dressed-up checkpoint: not a model trial", async () => {
  const run = forge(baseline);
  relabelAsModelTrial(run, dressedAsPinned(), pipelineCheck);
  // What the attack of issue 33 got before the directory was opened: a verified success.
  assert.equal(deriveRunVerdict(run).kind, "verified_success", JSON.stringify(deriveRunVerdict(run).problems));
  await assertNotAModelTrial(run, "model_directory_unverified", UNVERIFIED_TRIAL);
});

test("(c) the pipeline check relabelled a model trial of the pinned model, pointed at its own checkpoint: not a model trial", async () => {
  const run = forge(pipelineCheck);
  relabelAsModelTrial(run, checkpoint, pipelineCheck);
  // The directory verifies as the synthetic checkpoint: that, not the labels, names the run.
  await assertNotAModelTrial(run, "not_the_pinned_model", "PIPELINE CHECK", /verifies as a synthetic checkpoint/);
});

test("(c) the pipeline check relabelled, with the model directory gone: not a model trial", async () => {
  const run = forge(pipelineCheck);
  const gone = join(root, "no-such-model");
  assert.equal(existsSync(gone), false);
  relabelAsModelTrial(run, gone, pipelineCheck);
  await assertNotAModelTrial(run, "model_directory_unverified", UNVERIFIED_TRIAL);
});

test("(c) CLI: `tca report --json`, `tca lab submission --model` and `tca lab verify` refuse the relabelled pipeline check", async () => {
  const run = forge(pipelineCheck);
  relabelAsModelTrial(run, dressedAsPinned(), pipelineCheck);
  const report = await tca(["report", run, "--json"]);
  assert.notEqual(report.code, 0);
  const document = JSON.parse(report.out) as {
    lab: { verdict: { headline: string; details: string[] }; label: { title: string } };
  };
  assert.equal(document.lab.verdict.headline, `${UNVERIFIED_TRIAL} · EVIDENCE INVALID`);
  assert.ok(document.lab.verdict.details.some((line) => /model_directory_unverified/.test(line)));
  const out = join(root, "forged-submission.md");
  const submission = await tca(["lab", "submission", "--baseline", baseline, "--model", run, "--out", out]);
  assert.notEqual(submission.code, 0);
  assert.match(submission.err, /run_evidence_invalid/);
  assert.equal(existsSync(out), false);
  const verified = await tca(["lab", "verify", run, "--json"]);
  assert.equal(verified.code, 1);
  const verdict = JSON.parse(verified.out) as { verdict: string; model: { status: string; code: string } };
  assert.deepEqual(
    [verdict.verdict, verdict.model.status, verdict.model.code],
    ["evidence_invalid", "not_verified", "model_directory_unverified"],
  );
});
