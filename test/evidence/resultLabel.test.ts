// Labels first (#35 item 5): the one wording of a result's source (src/core/resultLabel.ts) and
// the two decisions behind it, the Lab verdict's re-derived source (labResultSource) and the
// bench's (benchResultSource). The pinned-model branch needs the real checkpoint end to end, so
// it is decided here on what checkModelDirectory would report, as modelTrialJudge.test.ts does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { labelledVerdict, NEGATIVE_CHECKS_SOURCE, resultLabel } from "../../src/core/resultLabel.ts";
import {
  judgeModelClaim,
  labResultSource,
  modelClaimOf,
  olderRehearsalKindNote,
  type ModelCheck,
} from "../../src/verdicts/modelTrialCheck.ts";
import { benchResultSource, tasksFixedPhrase } from "../../src/bench/results/resultsSummary.ts";
import { PINNED_MODEL } from "../../src/model/pins.ts";

type Labels = Readonly<Record<string, unknown>>;
const digests = { "model.safetensors": "a".repeat(64) };

/** A run's manifest and audit start with these labels, every record from `source`. */
function run(labels: Labels, source: string, trial: Labels = {}) {
  const manifest = { labels, model_trial: { model_directory: "/m", verified_file_sha256: digests, ...trial } };
  const records = [
    { type: "run_started", source, data: { run_kind: labels.kind, labels } },
    { type: "request", source, data: {} },
  ];
  return { manifest, records };
}

function sourceOf(labels: Labels, source: string, check: ModelCheck | null, trial: Labels = {}) {
  const { manifest, records } = run(labels, source, trial);
  const claim = modelClaimOf(manifest, records);
  const modelTrial = claim === null ? null : judgeModelClaim(claim, check);
  return labResultSource(manifest, records, modelTrial);
}

const check = (checkpoint: ModelCheck["checkpoint"], modelName: string | null): ModelCheck => ({
  directory: "/m",
  checkedAt: "2026-12-03T14:00:00.000Z",
  checkpoint,
  modelName,
  sha256: checkpoint === null ? null : digests,
  refusal: checkpoint === null ? "model_not_verified: x" : null,
});

const TRIAL = { kind: "model_trial", scripted: false, synthetic_pipeline_check: false, model_invoked_expected: true };
const REHEARSAL = { kind: "rehearsal_trial", scripted: false, synthetic_pipeline_check: false, rehearsal: true };

test("each source's line: the label first, then the verdict, on one line", () => {
  const cases: [Parameters<typeof labelledVerdict>[0], string][] = [
    [{ kind: "scripted_baseline", model: null, modelVerified: true }, "SCRIPTED BASELINE · VERIFIED SUCCESS"],
    [{ kind: "rehearsal", model: null, modelVerified: true }, "REHEARSAL · VERIFIED SUCCESS"],
    [{ kind: "pipeline_check", model: null, modelVerified: true }, "PIPELINE CHECK · VERIFIED SUCCESS"],
    [
      { kind: "model_trial", model: PINNED_MODEL.repository, modelVerified: true },
      "MODEL TRIAL · Qwen/Qwen2.5-Coder-0.5B-Instruct · VERIFIED SUCCESS",
    ],
    [
      { kind: "model_trial", model: PINNED_MODEL.repository, modelVerified: false },
      "MODEL TRIAL (MODEL NOT VERIFIED) · Qwen/Qwen2.5-Coder-0.5B-Instruct · VERIFIED SUCCESS",
    ],
    [
      { kind: "extension", model: null, modelVerified: false },
      "EXTENSION TRIAL (MODEL NOT VERIFIED) · VERIFIED SUCCESS",
    ],
    [
      { kind: "benchmark_run", model: "qwen2.5-coder:7b", modelVerified: true },
      "BENCHMARK RUN · qwen2.5-coder:7b · VERIFIED SUCCESS",
    ],
    [NEGATIVE_CHECKS_SOURCE, "NEGATIVE CHECKS · VERIFIED SUCCESS"],
  ];
  for (const [source, line] of cases) assert.equal(labelledVerdict(source, "VERIFIED SUCCESS"), line);
  // A model name never rides on a source that is not a model's result.
  assert.equal(resultLabel({ kind: "rehearsal", model: "rehearsal-qwen2-seed1", modelVerified: true }), "REHEARSAL");
});

test("the Lab source: the model directory opened now decides, whatever the labels say", () => {
  const pinned = check("pinned", PINNED_MODEL.repository);
  assert.deepEqual(sourceOf(TRIAL, "model", pinned, { model_name: PINNED_MODEL.repository }), {
    kind: "model_trial",
    model: PINNED_MODEL.repository,
    modelVerified: true,
  });
  // Relabelled: the claim says a model trial, the directory verifies as the rehearsal (or a synthetic) checkpoint.
  assert.equal(sourceOf(TRIAL, "model", check("rehearsal", "rehearsal-qwen2-seed1")).kind, "rehearsal");
  assert.equal(sourceOf(TRIAL, "model", check("synthetic", "synthetic-qwen2-tiny-seed1")).kind, "pipeline_check");
  // The pinned model under other recorded digests: named, never verified.
  const moved = sourceOf(
    TRIAL,
    "model",
    { ...pinned, sha256: { "model.safetensors": "c".repeat(64) } },
    {
      model_name: PINNED_MODEL.repository,
    },
  );
  assert.equal(resultLabel(moved), `MODEL TRIAL (MODEL NOT VERIFIED) · ${PINNED_MODEL.repository}`);
  // Not opened, or not verifying: the claim is marked unverified, never the plain MODEL TRIAL.
  for (const unchecked of [null, check(null, null)])
    assert.equal(
      resultLabel(sourceOf(TRIAL, "model", unchecked, { model_name: "Qwen/x" })),
      "MODEL TRIAL (MODEL NOT VERIFIED) · Qwen/x",
    );
});

test("the Lab source without the directory: a rehearsal or synthetic mark wins over a model label; scripted only when every record is", () => {
  assert.equal(sourceOf(REHEARSAL, "rehearsal", null).kind, "rehearsal");
  assert.equal(sourceOf({ ...TRIAL, rehearsal: true }, "model", null).kind, "rehearsal");
  assert.equal(sourceOf({ ...TRIAL, synthetic_pipeline_check: true }, "model", null).kind, "pipeline_check");
  assert.equal(sourceOf({ ...TRIAL, kind: "extension" }, "model", null).kind, "extension");
  const baseline = { kind: "scripted_baseline", scripted: true, synthetic_pipeline_check: false };
  assert.equal(sourceOf(baseline, "scripted", null).kind, "scripted_baseline");
  assert.equal(sourceOf({ ...baseline, kind: "negative_check" }, "scripted", null).kind, "negative_check");
  // Labelled scripted, its records from a model: not a scripted baseline.
  assert.equal(sourceOf(baseline, "model", null).kind, "unlabelled");
});

test("a rehearsal recorded before rehearsal_trial (synthetic_pipeline_check + labels.rehearsal) is read as a rehearsal, with a note", () => {
  const older = { kind: "synthetic_pipeline_check", scripted: false, synthetic_pipeline_check: true, rehearsal: true };
  assert.equal(sourceOf(older, "rehearsal", check("rehearsal", "rehearsal-qwen2-seed1")).kind, "rehearsal");
  assert.equal(sourceOf(older, "rehearsal", null).kind, "rehearsal");
  const { manifest, records } = run(older, "rehearsal");
  assert.match(
    olderRehearsalKindNote(manifest, records) ?? "",
    /recorded as synthetic_pipeline_check .*read as a rehearsal/,
  );
  // The new word and the random-weight pipeline check get no note.
  for (const labels of [REHEARSAL, { ...older, rehearsal: false }]) {
    const current = run(labels, "rehearsal");
    assert.equal(olderRehearsalKindNote(current.manifest, current.records), null);
  }
});

test("the bench source: rehearsal, pipeline check (synthetic, scripted, or a label saying so), or the model it names", () => {
  assert.equal(benchResultSource({ synthetic: true, rehearsal: true, label: "local" }).kind, "rehearsal");
  assert.equal(benchResultSource({ synthetic: true, label: "served" }).kind, "pipeline_check");
  assert.equal(benchResultSource({ scripted: true, label: "m" }).kind, "pipeline_check");
  assert.equal(benchResultSource({ label: "scripted-model-v1" }).kind, "pipeline_check");
  assert.deepEqual(benchResultSource({ label: "qwen2.5-coder:7b" }), {
    kind: "benchmark_run",
    model: "qwen2.5-coder:7b",
    modelVerified: true,
  });
  // A rehearsal flag without synthetic is no label of its own (runLabel's rule).
  assert.equal(benchResultSource({ rehearsal: true, label: "m" }).kind, "benchmark_run");
  const results = [{ outcome: "fixed" }, { outcome: "wrong_fix" }, { outcome: "fixed" }];
  assert.equal(tasksFixedPhrase(results), "2 OF 3 TASKS FIXED");
  assert.equal(tasksFixedPhrase(results, { expected: 5 }), "INCOMPLETE BENCHMARK RUN: 3 of 5 tasks");
  assert.equal(tasksFixedPhrase([], { expected: null }), "INCOMPLETE BENCHMARK RUN: 0 of ? tasks");
});
