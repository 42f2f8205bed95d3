// The synthetic checkpoint writer: pinned layout, exact pinned shapes for `full` (checked
// from the tensor table, without writing 988 MB), determinism per seed, the tokenizer's
// special ids, and refusal of an existing destination.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  PINNED_PARAMETER_COUNT,
  parameterCount,
  qwen2TensorSpecs,
  type Qwen2Architecture,
} from "../../src/model/qwen2/architecture.ts";
import { checkQwen2Config } from "../../src/model/qwen2/configCheck.ts";
import { safetensorsHeader } from "../../src/model/safetensors/safetensorsWriter.ts";
import { makeTestCheckpoint, syntheticConfigJson } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { bf16BitsToNumber, toBf16Bits } from "../../src/model/synthetic/randomWeights.ts";
import { PINNED_CONFIG_JSON as PINS_CONFIG_TEXT } from "../../src/model/pins.ts";

function arch(size: "tiny" | "full"): Qwen2Architecture {
  const checked = checkQwen2Config(Buffer.from(syntheticConfigJson(size)));
  assert.ok(checked.ok);
  return checked.value;
}

test("the full synthetic configuration equals the pinned one and has exactly 494,032,768 parameters", () => {
  assert.deepEqual(JSON.parse(syntheticConfigJson("full")), JSON.parse(PINS_CONFIG_TEXT));
  assert.equal(parameterCount(arch("full")), PINNED_PARAMETER_COUNT);
  assert.equal(PINNED_PARAMETER_COUNT, 494_032_768);
  // Same tensor set as the real checkpoint: 24 layers x 12 tensors + embedding + final norm, no lm_head.
  const specs = qwen2TensorSpecs(arch("full"));
  assert.equal(specs.length, 24 * 12 + 2);
  assert.ok(!specs.some((s) => s.hfName.startsWith("lm_head")));
  const header = safetensorsHeader(specs);
  assert.equal(header.length % 8, 0);
  assert.equal(header.length + PINNED_PARAMETER_COUNT * 2, 988_065_536 + header.length);
});

test("BF16 rounding is round-to-nearest-even and exact for representable values", () => {
  assert.equal(bf16BitsToNumber(toBf16Bits(1)), 1);
  assert.equal(bf16BitsToNumber(toBf16Bits(-0.5)), -0.5);
  assert.equal(toBf16Bits(1 + 2 ** -8), 0x3f80, "a tie rounds to even");
  assert.equal(toBf16Bits(1 + 3 * 2 ** -8), 0x3f82);
});

test("a tiny checkpoint has the pinned layout, a synthetic manifest, and is deterministic per seed", async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), "tca-synthetic-"));
  try {
    const a = await makeTestCheckpoint({ directory: path.join(root, "a"), size: "tiny", seed: 9 });
    const b = await makeTestCheckpoint({ directory: path.join(root, "b"), size: "tiny", seed: 9 });
    const c = await makeTestCheckpoint({ directory: path.join(root, "c"), size: "tiny", seed: 10 });
    assert.ok(a.ok && b.ok && c.ok);
    assert.deepEqual((await readdir(path.join(root, "a"))).sort(), [
      "config.json",
      "generation_config.json",
      "model.safetensors",
      "synthetic-manifest.json",
      "tokenizer.json",
      "tokenizer_config.json",
    ]);
    assert.equal(a.value.synthetic, true);
    assert.equal(a.value.seed, 9);
    assert.equal(a.value.label, "synthetic-pipeline-check");
    assert.deepEqual(a.value.files, b.value.files, "same seed, same bytes");
    assert.notEqual(a.value.files["model.safetensors"]?.sha256, c.value.files["model.safetensors"]?.sha256);
    assert.equal(
      a.value.files["tokenizer.json"]?.sha256,
      c.value.files["tokenizer.json"]?.sha256,
      "the tokenizer does not depend on the seed",
    );
    assert.ok((a.value.files["model.safetensors"]?.bytes ?? 0) < 12 * 1024 * 1024, "tiny is a few MB");
    const generation = JSON.parse(await readFile(path.join(root, "a", "generation_config.json"), "utf8")) as Record<
      string,
      unknown
    >;
    assert.equal(generation.do_sample, true, "the checkpoint's own defaults sample (the engine overrides them)");
    const tokenizer = JSON.parse(await readFile(path.join(root, "a", "tokenizer.json"), "utf8")) as {
      added_tokens: { id: number; content: string; special: boolean }[];
    };
    assert.deepEqual(
      tokenizer.added_tokens.map((t) => [t.id, t.content, t.special]),
      [
        [151643, "<|endoftext|>", true],
        [151644, "<|im_start|>", true],
        [151645, "<|im_end|>", true],
      ],
    );
    const again = await makeTestCheckpoint({ directory: path.join(root, "a"), size: "tiny", seed: 9 });
    assert.equal(!again.ok && again.error, "destination_exists");
    const badSeed = await makeTestCheckpoint({ directory: path.join(root, "d"), size: "tiny", seed: -1 });
    assert.equal(!badSeed.ok && badSeed.error, "input_invalid");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
