// The converter and its cache, checked with an independent GGUF reader (node-llama-cpp's
// readGgufFileInfo), plus the loading gate: what is refused before anything is converted.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFile, cp, lstat, open, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { convertToGguf } from "../../src/model/gguf/convertToGguf.ts";
import {
  cacheDirectoryFor,
  chatTemplateOf,
  ensureDerivedGguf,
  GGUF_MANIFEST_NAME,
} from "../../src/model/gguf/derivedCache.ts";
import { openCheckpointDirectory } from "../../src/model/loader/checkpointDirectory.ts";
import { checkQwen2Config } from "../../src/model/qwen2/configCheck.ts";
import { PINNED_CONFIG_JSON } from "../../src/model/qwen2/architecture.ts";
import { SPECIAL_TOKENS } from "../../src/model/synthetic/syntheticTokenizer.ts";
import { SYNTHETIC_MANIFEST_NAME } from "../../src/model/synthetic/syntheticManifest.ts";
import { makeTinyCheckpoint, type TinyCheckpoint } from "./tinyCheckpoint.ts";

let checkpoint: TinyCheckpoint;

before(async () => {
  checkpoint = await makeTinyCheckpoint(3);
});
after(async () => {
  await checkpoint?.cleanup();
});

async function copyCheckpoint(name: string): Promise<string> {
  const target = path.join(checkpoint.root, name);
  await cp(checkpoint.directory, target, { recursive: true });
  return target;
}

test("the GGUF carries the metadata llama.cpp's qwen2 loader needs and no output.weight", async () => {
  const opened = await openCheckpointDirectory(checkpoint.directory);
  assert.ok(opened.ok);
  const derived = await ensureDerivedGguf(opened.value);
  assert.ok(derived.ok);
  assert.equal(path.dirname(derived.value.ggufPath), cacheDirectoryFor(checkpoint.directory));
  assert.ok(
    !derived.value.ggufPath.startsWith(checkpoint.directory + path.sep),
    "the cache is not inside the model directory",
  );
  const info = await readGgufFileInfo(derived.value.ggufPath, { readTensorInfo: true, logWarnings: false });
  const m = info.metadata as unknown as Record<string, Record<string, unknown>>;
  const qwen2 = m.qwen2 as Record<string, unknown>;
  assert.equal(m.general?.architecture, "qwen2");
  assert.equal(qwen2.context_length, 32768);
  assert.equal(qwen2.embedding_length, 32);
  assert.equal(qwen2.block_count, 2);
  assert.equal(qwen2.feed_forward_length, 64);
  const attention = qwen2.attention as Record<string, number>;
  assert.equal(attention.head_count, 4);
  assert.equal(attention.head_count_kv, 2);
  assert.ok(Math.abs((attention.layer_norm_rms_epsilon as number) - 1e-6) < 1e-12);
  assert.equal((qwen2.rope as Record<string, number>).freq_base, 1_000_000);
  const tok = (m.tokenizer as Record<string, Record<string, unknown>>).ggml as Record<string, unknown>;
  assert.equal(tok.model, "gpt2");
  assert.equal(tok.pre, "qwen2");
  const tokens = tok.tokens as string[];
  const types = tok.token_type as number[];
  assert.equal(tokens.length, 151936, "vocabulary padded to the embedding rows");
  assert.equal(new Set(tokens).size, tokens.length, "token strings are unique");
  for (const special of SPECIAL_TOKENS) {
    assert.equal(tokens[special.id], special.content);
    assert.equal(types[special.id], 3, "special tokens are CONTROL");
  }
  assert.equal(tokens[151646], "[PAD151646]");
  assert.equal(types[151646], 5, "padding tokens are UNUSED");
  assert.ok((tok.merges as string[]).length > 100);
  // llama-server --jinja reads the template from here: the checkpoint's own, byte for byte.
  const config = JSON.parse(await readFile(path.join(checkpoint.directory, "tokenizer_config.json"), "utf8")) as {
    chat_template: string;
  };
  assert.equal((m.tokenizer as Record<string, unknown>).chat_template, config.chat_template);
  const tensors = info.fullTensorInfo ?? info.tensorInfo ?? [];
  const names = tensors.map((t) => t.name);
  assert.ok(!names.includes("output.weight"), "tied embeddings: no separate output head");
  assert.equal(names.length, 1 + 2 * 12 + 1);
  const embedding = tensors.find((t) => t.name === "token_embd.weight");
  assert.deepEqual(embedding?.dimensions.map(Number), [32, 151936], "dimensions reversed relative to safetensors");
  assert.ok(
    tensors.every((t) => t.ggmlType === 0),
    "all tensors F32",
  );
});

test("BF16 -> F32 is exact: every converted value equals its BF16 source bits shifted left by 16", async () => {
  const opened = await openCheckpointDirectory(checkpoint.directory);
  assert.ok(opened.ok);
  const derived = await ensureDerivedGguf(opened.value);
  assert.ok(derived.ok);
  const info = await readGgufFileInfo(derived.value.ggufPath, { readTensorInfo: true, logWarnings: false });
  const source = await readFile(path.join(checkpoint.directory, "model.safetensors"));
  const headerLength = Number(source.readBigUInt64LE(0));
  const header = JSON.parse(source.subarray(8, 8 + headerLength).toString("utf8")) as Record<
    string,
    { data_offsets: [number, number] }
  >;
  const gguf = await open(derived.value.ggufPath, "r");
  try {
    for (const [hfName, ggufName] of [
      ["model.layers.1.self_attn.k_proj.bias", "blk.1.attn_k.bias"],
      ["model.layers.0.mlp.down_proj.weight", "blk.0.ffn_down.weight"],
      ["model.norm.weight", "output_norm.weight"],
    ] as const) {
      const entry = header[hfName];
      const tensor = (info.fullTensorInfo ?? []).find((t) => t.name === ggufName);
      assert.ok(entry !== undefined && tensor !== undefined);
      const [b, e] = entry.data_offsets;
      const count = (e - b) / 2;
      const out = Buffer.alloc(count * 4);
      await gguf.read(out, 0, out.length, Number(tensor.fileOffset));
      for (let i = 0; i < count; i++) {
        assert.equal(out.readUInt32LE(4 * i), source.readUInt16LE(8 + headerLength + b + 2 * i) * 65536);
      }
    }
  } finally {
    await gguf.close();
  }
});

test("the cache is reused when its manifest matches and rebuilt when anything differs", async () => {
  const directory = await copyCheckpoint("cache-check");
  const opened = await openCheckpointDirectory(directory);
  assert.ok(opened.ok);
  const first = await ensureDerivedGguf(opened.value);
  assert.ok(first.ok && first.value.rebuilt);
  const second = await ensureDerivedGguf(opened.value);
  assert.ok(second.ok && !second.value.rebuilt);
  // A corrupted output no longer matches its recorded SHA256: rebuilt.
  await appendFile(first.value.ggufPath, Buffer.from([0]));
  const afterCorruption = await ensureDerivedGguf(opened.value);
  assert.ok(afterCorruption.ok && afterCorruption.value.rebuilt);
  assert.equal(
    afterCorruption.value.manifest.output.sha256,
    first.value.manifest.output.sha256,
    "conversion is deterministic",
  );
  // A manifest from another converter version: rebuilt.
  const manifestFile = path.join(cacheDirectoryFor(directory), GGUF_MANIFEST_NAME);
  const manifest = JSON.parse(await readFile(manifestFile, "utf8")) as Record<string, unknown>;
  await writeFile(manifestFile, JSON.stringify({ ...manifest, converter_version: "older" }));
  const afterVersion = await ensureDerivedGguf(opened.value);
  assert.ok(afterVersion.ok && afterVersion.value.rebuilt);
});

test("unverified or altered files are never converted", async () => {
  const directory = await copyCheckpoint("tampered");
  const weights = await open(path.join(directory, "model.safetensors"), "r+");
  await weights.write(Buffer.from([0x42]), 0, 1, 4096);
  await weights.close();
  const opened = await openCheckpointDirectory(directory);
  assert.equal(!opened.ok && opened.error, "model_not_verified");

  const noManifest = await copyCheckpoint("no-manifest");
  await rm(path.join(noManifest, SYNTHETIC_MANIFEST_NAME));
  const unverified = await openCheckpointDirectory(noManifest);
  assert.equal(
    !unverified.ok && unverified.error,
    "model_not_verified",
    "without a synthetic manifest the directory must pass pinned verification",
  );
});

test("unexpected files, remote code and other architectures are refused", async () => {
  const extra = await copyCheckpoint("extra-file");
  await writeFile(path.join(extra, "modeling_qwen2.py"), "print('hi')\n");
  const withExtra = await openCheckpointDirectory(extra);
  assert.equal(!withExtra.ok && withExtra.error, "unexpected_file");

  const base = JSON.parse(JSON.stringify(PINNED_CONFIG_JSON)) as Record<string, unknown>;
  const variants: Record<string, unknown>[] = [
    { ...base, auto_map: { AutoModelForCausalLM: "modeling_qwen2.Qwen2ForCausalLM" } },
    { ...base, architectures: ["LlamaForCausalLM"] },
    { ...base, architectures: ["Qwen2ForCausalLM", "Other"] },
    { ...base, model_type: "llama" },
    { ...base, tie_word_embeddings: false },
    { ...base, trust_remote_code: true },
    { ...base, num_attention_heads: 5 },
    { ...base, hidden_size: -1 },
  ];
  for (const variant of variants) {
    const checked = checkQwen2Config(Buffer.from(JSON.stringify(variant)));
    assert.equal(!checked.ok && checked.error, "config_rejected", JSON.stringify(variant).slice(0, 80));
  }
  assert.ok(checkQwen2Config(Buffer.from(JSON.stringify(base))).ok);
  assert.equal(checkQwen2Config(Buffer.from("not json")).ok, false);
});

test("config.json bytes reach the engine untouched", async () => {
  const opened = await openCheckpointDirectory(checkpoint.directory);
  assert.ok(opened.ok);
  assert.deepEqual(opened.value.configBytes, await readFile(path.join(checkpoint.directory, "config.json")));
});

test("weights that differ from the verified hash while converting leave no output", async () => {
  const opened = await openCheckpointDirectory(checkpoint.directory);
  assert.ok(opened.ok);
  const output = path.join(checkpoint.root, "mismatch.gguf");
  const converted = await convertToGguf({
    arch: opened.value.arch,
    modelName: "x",
    tokenizerJson: opened.value.tokenizerJson,
    chatTemplate: "t",
    safetensorsPath: opened.value.safetensorsPath,
    expectedSafetensorsSha256: "0".repeat(64),
    outputPath: output,
  });
  assert.equal(!converted.ok && converted.error, "conversion_failed");
  assert.equal(await lstat(output).catch(() => null), null);
  assert.equal(await lstat(`${output}.partial`).catch(() => null), null);
});

test("tokenizer.chat_template is written exactly as given: multi-byte text, newlines and Jinja survive the round trip", async () => {
  const opened = await openCheckpointDirectory(checkpoint.directory);
  assert.ok(opened.ok);
  const output = path.join(checkpoint.root, "template.gguf");
  // Characters whose UTF-8 length differs from their UTF-16 length: a length written in
  // characters instead of bytes would cut the string or shift every key after it.
  const template =
    "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{# é → 🙂 #}\r\n\t{{- '<|im_start|>assistant\\n' }}";
  const sha256 = createHash("sha256")
    .update(await readFile(opened.value.safetensorsPath))
    .digest("hex");
  const converted = await convertToGguf({
    arch: opened.value.arch,
    modelName: "x",
    tokenizerJson: opened.value.tokenizerJson,
    chatTemplate: template,
    safetensorsPath: opened.value.safetensorsPath,
    expectedSafetensorsSha256: sha256,
    outputPath: output,
  });
  assert.ok(converted.ok, converted.ok ? "" : converted.message);
  const info = await readGgufFileInfo(output, { logWarnings: false });
  const tokenizer = (info.metadata as unknown as Record<string, Record<string, unknown>>).tokenizer as Record<
    string,
    unknown
  >;
  assert.equal(tokenizer.chat_template, template);
  // The keys after it are still read correctly.
  assert.equal(info.metadata.general?.architecture, "qwen2");
  assert.equal((tokenizer.ggml as Record<string, unknown>).add_bos_token, false);
});

test("chatTemplateOf: the template string, or null when tokenizer_config.json has none or is not JSON", () => {
  assert.equal(chatTemplateOf(Buffer.from(JSON.stringify({ chat_template: "{{ x }}" }))), "{{ x }}");
  assert.equal(
    chatTemplateOf(Buffer.from(JSON.stringify({ chat_template: [{ name: "default", template: "x" }] }))),
    null,
  );
  assert.equal(chatTemplateOf(Buffer.from("{}")), null);
  assert.equal(chatTemplateOf(Buffer.from("null")), null);
  assert.equal(chatTemplateOf(Buffer.from("not json")), null);
});
