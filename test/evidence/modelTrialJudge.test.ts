// judgeModelClaim on its own (issue 33): the pinned branch cannot be reached end to end without
// the real 1 GB checkpoint, so the decision is tested here on what openCheckpointDirectory would
// report (checkModelDirectory's result), and the claim read from a manifest by modelClaimOf.
import { test } from "node:test";
import assert from "node:assert/strict";
import { judgeModelClaim, modelClaimOf, type ModelCheck, type ModelClaim } from "../../src/verdicts/modelTrialCheck.ts";
import { PINNED_MODEL } from "../../src/model/pins.ts";

const digests = { "model.safetensors": "a".repeat(64), "config.json": "b".repeat(64) };
const claim: ModelClaim = {
  kind: "model_trial",
  directory: "/models/qwen",
  recordedSha256: digests,
  recordedModelName: PINNED_MODEL.repository,
  rehearsal: false,
};
const pinned: ModelCheck = {
  directory: "/models/qwen",
  checkedAt: "2026-12-03T07:00:00.000Z",
  checkpoint: "pinned",
  modelName: PINNED_MODEL.repository,
  sha256: { "config.json": "b".repeat(64), "model.safetensors": "a".repeat(64) },
  refusal: null,
};

test("a model trial whose directory verifies as the pinned model with the recorded digests is verified", () => {
  const judged = judgeModelClaim(claim, pinned);
  assert.equal(judged.status, "verified");
  assert.equal(judged.code, null);
  assert.match(judged.message, new RegExp(`against the pins of ${PINNED_MODEL.repository}@${PINNED_MODEL.revision}`));
  assert.equal(judgeModelClaim({ ...claim, kind: "extension" }, pinned).status, "verified");
});

test("every other directory is a coded problem, never a model trial", () => {
  const cases: [ModelClaim, ModelCheck, string][] = [
    [
      { ...claim, directory: null },
      { ...pinned, directory: null, checkpoint: null, sha256: null, modelName: null },
      "model_directory_missing",
    ],
    [
      claim,
      { ...pinned, checkpoint: null, sha256: null, modelName: null, refusal: "model_not_verified: x" },
      "model_directory_unverified",
    ],
    [claim, { ...pinned, checkpoint: "rehearsal", modelName: "rehearsal-qwen2-seed1" }, "not_the_pinned_model"],
    [claim, { ...pinned, checkpoint: "synthetic" }, "not_the_pinned_model"],
    [claim, { ...pinned, sha256: { ...digests, "model.safetensors": "c".repeat(64) } }, "model_digests_differ"],
    [{ ...claim, recordedSha256: null }, pinned, "model_digests_differ"],
    [{ ...claim, recordedModelName: "Qwen/Qwen3-8B" }, pinned, "model_digests_differ"],
  ];
  for (const [claimed, check, code] of cases) {
    const judged = judgeModelClaim(claimed, check);
    assert.equal(judged.status, "not_verified", code);
    assert.equal(judged.code, code);
    assert.match(
      judged.message,
      new RegExp(`^${code}: the run is labelled model_trial, but .*: it is not a model trial$`),
    );
  }
});

test("a pipeline check must verify as the checkpoint its labels name; unchecked is said, not assumed", () => {
  const pipeline: ModelClaim = {
    ...claim,
    kind: "synthetic_pipeline_check",
    recordedModelName: "rehearsal-qwen2-seed1",
    rehearsal: true,
  };
  const rehearsal: ModelCheck = { ...pinned, checkpoint: "rehearsal", modelName: "rehearsal-qwen2-seed1" };
  assert.equal(judgeModelClaim(pipeline, rehearsal).status, "verified");
  assert.equal(
    judgeModelClaim(pipeline, { ...rehearsal, checkpoint: "synthetic" }).code,
    "not_the_labelled_checkpoint",
  );
  assert.equal(judgeModelClaim(pipeline, pinned).code, "not_the_labelled_checkpoint");
  const unchecked = judgeModelClaim(claim, null);
  assert.equal(unchecked.status, "not_checked");
  assert.match(unchecked.message, /was not verified in this reading/);
});

test("modelClaimOf: a run claims a model by its run_kind or its labels; a baseline claims none", () => {
  const started = (kind: string) => [{ type: "run_started", data: { run_kind: kind } }];
  assert.equal(modelClaimOf({ labels: { kind: "scripted_baseline" } }, started("scripted_baseline")), null);
  // Either label is enough: relabelling only the manifest or only the audit still claims a model.
  assert.equal(modelClaimOf({ labels: { kind: "model_trial" } }, started("scripted_baseline"))?.kind, "model_trial");
  assert.equal(modelClaimOf({ labels: { kind: "scripted_baseline" } }, started("extension"))?.kind, "extension");
  const read = modelClaimOf(
    {
      labels: { kind: "model_trial" },
      model_trial: { model_directory: "/m", verified_file_sha256: digests, model_name: "n" },
    },
    [],
  );
  assert.deepEqual(read, {
    kind: "model_trial",
    directory: "/m",
    recordedSha256: digests,
    recordedModelName: "n",
    rehearsal: false,
  });
});
