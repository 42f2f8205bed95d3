// The engine path end to end (conversion, RoPE, grouped-query attention, biases, tied
// embeddings) against an independent float64 forward pass on a tiny synthetic checkpoint.
//
// Tolerance: the engine computes in float32 (unit roundoff 2^-24 ≈ 6e-8). Each logit comes
// out of a few dozen dot products of length ≤ 64 through two layers, RMS normalisation and
// ggml's own exp/SiLU kernels, so the expected deviation is around 1e-6 relative to the logit
// scale. We allow 1e-4 x max|logit|: ~100x that estimate, yet far below what a real mistake
// produces (the test shows that dropping the biases or using RoPE theta 10,000 moves the
// logits by more than 100x the tolerance). The engine's softmax over ~152k entries is summed
// in float32, which adds about 1e-5 to the log-probabilities (measured: 1.7e-5), still 50x
// inside the tolerance.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { LlamaEngine } from "../../src/model/engine/llamaEngine.ts";
import { ENGINE_SETTINGS } from "../../src/model/engine/generationSettings.ts";
import { ensureDerivedGguf } from "../../src/model/gguf/derivedCache.ts";
import { openCheckpointDirectory } from "../../src/model/loader/checkpointDirectory.ts";
import { createChatTokenizer } from "../../src/model/tokenizer/chatTokenizer.ts";
import { Qwen2Reference } from "./qwen2Reference.ts";
import { makeTinyCheckpoint, type TinyCheckpoint } from "./tinyCheckpoint.ts";

let checkpoint: TinyCheckpoint;
let engine: LlamaEngine;
let reference: Qwen2Reference;
let promptIds: number[];

before(async () => {
  checkpoint = await makeTinyCheckpoint(11);
  const opened = await openCheckpointDirectory(checkpoint.directory);
  assert.ok(opened.ok);
  const derived = await ensureDerivedGguf(opened.value);
  assert.ok(derived.ok);
  const loaded = await LlamaEngine.load({
    ggufPath: derived.value.ggufPath,
    vocabularySize: opened.value.arch.vocabSize,
  });
  assert.ok(loaded.ok);
  engine = loaded.value;
  reference = new Qwen2Reference(checkpoint.directory);
  const tokenizer = createChatTokenizer(opened.value.tokenizerJson, opened.value.tokenizerConfigJson);
  assert.ok(tokenizer.ok);
  const rendered = tokenizer.value.render([
    { role: "system", content: "Return one JSON object." },
    { role: "user", content: '{"action":"read","file":"toy_math.py"}' },
  ]);
  assert.ok(rendered.ok);
  promptIds = tokenizer.value.encode(rendered.value);
});

after(async () => {
  await engine?.dispose();
  await checkpoint?.cleanup();
});

function maxAbsDifference(a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
  return worst;
}

/** log-softmax, computed stably in float64: what the engine's distribution gives after a log. */
function logSoftmax(logits: Float64Array): Float64Array {
  let top = -Infinity;
  for (const v of logits) top = Math.max(top, v);
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - top);
  const logSum = top + Math.log(sum);
  return logits.map((v) => v - logSum);
}

function maxAbs(a: Float64Array): number {
  let m = 0;
  for (const v of a) m = Math.max(m, Math.abs(v));
  return m;
}

// node-llama-cpp 3.21 exposes the next-token distribution rather than raw logits, so the check
// compares log-probabilities (logits minus their log-sum-exp) on both sides: any error in the
// logits other than a common shift shows up unchanged.
test("final-position log-probabilities match the float64 reference within 1e-4 of the logit scale", async () => {
  assert.ok(promptIds.length > 20, "the prompt exercises several positions");
  const logits = reference.finalLogits(promptIds);
  const expected = logSoftmax(logits);
  const actual = await engine.finalLogProbabilities(promptIds);
  assert.equal(actual.length, expected.length);
  const tolerance = 1e-4 * Math.max(1, maxAbs(logits));
  const difference = maxAbsDifference(actual, expected);
  assert.ok(difference <= tolerance, `max |engine - reference| = ${difference}, tolerance ${tolerance}`);
  if (process.env.TCA_ENGINE_TEST_VERBOSE === "1")
    process.stderr.write(`logit difference ${difference} (tolerance ${tolerance}, scale ${maxAbs(expected)})\n`);
});

test("the tolerance is tight enough to catch a missing bias or a wrong RoPE base", async () => {
  const actual = await engine.finalLogProbabilities(promptIds);
  const tolerance = 1e-4 * Math.max(1, maxAbs(reference.finalLogits(promptIds)));
  for (const variant of [{ noBias: true }, { theta: 10_000 }]) {
    const wrong = logSoftmax(reference.finalLogits(promptIds, variant));
    assert.ok(
      maxAbsDifference(actual, wrong) > 100 * tolerance,
      `variant ${JSON.stringify(variant)} must be detectable`,
    );
  }
});

test("greedy continuation agrees with the reference token for token", async () => {
  const steps = 6;
  const expected = reference.greedy(promptIds, steps, ENGINE_SETTINGS.stopTokenIds);
  const generated = await engine.generate(promptIds, { maxNewTokens: steps, reusePrefix: false });
  assert.ok(generated.ok);
  assert.deepEqual(generated.value.rawOutputIds, expected.tokens);
  if (process.env.TCA_ENGINE_TEST_VERBOSE === "1") process.stderr.write(`greedy ${JSON.stringify(expected)}\n`);
  // Agreement is meaningful only where the reference's top choice is not a near-tie.
  assert.ok(Math.min(...expected.margins) > 1e-3, `smallest top-2 margin ${Math.min(...expected.margins)}`);
});
