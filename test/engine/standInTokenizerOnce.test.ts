// buildStandInTokenizer derives the stand-in's files once per process (#36): each derivation
// unpacks node-llama-cpp's llama.cpp git bundle (about 1 CPU-s), and a test file that makes a
// checkpoint and plays transcripts asked for it three times. Every caller, concurrent or later,
// gets the same files, frozen so that no caller can change what the next one reads.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildStandInTokenizer } from "../../src/model/tokenizer/standInTokenizer.ts";

test("the stand-in tokenizer is derived once per process: concurrent and later calls share the same frozen files", async () => {
  const [first, concurrent] = await Promise.all([buildStandInTokenizer(), buildStandInTokenizer()]);
  assert.ok(first.ok, first.ok ? "" : first.message);
  assert.ok(concurrent.ok);
  const later = await buildStandInTokenizer();
  assert.ok(later.ok);
  assert.equal(concurrent.value, first.value, "a concurrent call waits for the one derivation");
  assert.equal(later.value, first.value, "a later call does not derive again");
  assert.ok(Object.isFrozen(first.value) && Object.isFrozen(first.value.provenance));
  assert.throws(() => {
    (first.value as { tokenizerJson: string }).tokenizerJson = "{}";
  }, TypeError);
  assert.match(first.value.provenance.llama_cpp_bundle_commit, /^[0-9a-f]{40}$/);
  assert.equal(first.value.definedTokenCount, 151_665);
});
