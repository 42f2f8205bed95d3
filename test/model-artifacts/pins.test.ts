import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { checkLoaderConfig, jsonEqual } from "../../src/model/artifacts/configCheck.ts";
import { consentPrompt, decisionFromAnswer, isExplicitYes } from "../../src/model/artifacts/consent.ts";
import { fileUrl, resolveEndpoint } from "../../src/model/artifacts/endpoint.ts";
import { gitBlobSha1, StreamingIdentity } from "../../src/model/artifacts/fileIdentity.ts";
import { buildPlan, formatPlan } from "../../src/model/artifacts/plan.ts";
import { checkResources, DEFAULT_RESOURCE_THRESHOLDS } from "../../src/model/artifacts/resources.ts";
import {
  PINNED_CONFIG_FILE_TEXT,
  PINNED_CONFIG_JSON,
  PINNED_FILES,
  PINNED_MODEL,
  PINNED_TOTAL_BYTES,
  RESOURCE_ESTIMATES,
} from "../../src/model/pins.ts";
import { deterministicBytes, PLENTY } from "./fixtureHub.ts";

test("the pinned table: eight files, 999,597,691 bytes, ceiling 1,200,000,000, identities well-formed", () => {
  assert.equal(PINNED_FILES.files.length, 8);
  assert.equal(
    PINNED_FILES.files.reduce((sum, file) => sum + file.bytes, 0),
    PINNED_TOTAL_BYTES,
  );
  assert.equal(PINNED_TOTAL_BYTES, 999_597_691);
  assert.equal(PINNED_FILES.aggregateCeilingBytes, 1_200_000_000);
  assert.equal(PINNED_FILES.repository, PINNED_MODEL.repository);
  assert.equal(PINNED_FILES.revision, PINNED_MODEL.revision);
  assert.match(PINNED_MODEL.revision, /^[0-9a-f]{40}$/);
  const small = PINNED_FILES.files.filter((file) => file.gitBlobSha1 !== undefined);
  assert.equal(small.length, 7);
  for (const file of small) assert.match(file.gitBlobSha1 ?? "", /^[0-9a-f]{40}$/);
  const weights = PINNED_FILES.files.find((file) => file.name === "model.safetensors");
  assert.equal(weights?.sha256, "f9523886352217ded3aeeef552b381af79d568c6d49a4b9e423288cea56b0a44");
  assert.equal(weights?.gitBlobSha1, undefined); // a pointer's blob id is not the weight digest
  assert.equal(RESOURCE_ESTIMATES.float32ParameterBytes, 1_976_131_072);
});

test("the pinned architecture config is the spec's object", () => {
  const config = JSON.parse(PINNED_CONFIG_JSON) as Record<string, unknown>;
  assert.equal(Object.keys(config).length, 23);
  assert.deepEqual(config.architectures, ["Qwen2ForCausalLM"]);
  assert.equal(config.hidden_size, 896);
  assert.equal(config.num_key_value_heads, 2);
  assert.equal(config.rms_norm_eps, 1e-6);
  assert.equal(config.rope_theta, 1e6);
  assert.equal(config.tie_word_embeddings, true);
  assert.equal(config.vocab_size, 151936);
  assert.equal(config.auto_map, undefined);
});

test("the exact config.json bytes have the pinned size and Git blob id, and equal the printed object", () => {
  const bytes = Buffer.from(PINNED_CONFIG_FILE_TEXT, "utf8");
  const pinned = PINNED_FILES.files.find((file) => file.name === "config.json");
  assert.equal(bytes.length, pinned?.bytes);
  assert.equal(gitBlobSha1(bytes), pinned?.gitBlobSha1);
  assert.equal(jsonEqual(JSON.parse(PINNED_CONFIG_FILE_TEXT), JSON.parse(PINNED_CONFIG_JSON)), true);
  assert.ok(checkLoaderConfig("config.json", bytes, PINNED_FILES).ok);
});

test("URLs use the exact spec prefix, the pinned revision and nothing else", () => {
  const endpoint = resolveEndpoint(undefined, {});
  assert.ok(endpoint.ok);
  assert.equal(endpoint.value.isRealHub, true);
  for (const file of PINNED_FILES.files) {
    assert.equal(
      fileUrl(endpoint.value, PINNED_FILES, file.name),
      `https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct/resolve/ea3f2471cf1b1f0db85067f1ef93848e38e88c25/${file.name}`,
    );
  }
});

test("Git blob ids: known values, git itself as oracle, streaming equals whole-buffer", () => {
  assert.equal(gitBlobSha1(Buffer.alloc(0)), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  assert.equal(gitBlobSha1(Buffer.from("hello\n")), "ce013625030ba8dba906f756967f9e9ca394464a");
  const data = deterministicBytes(70_001, 3);
  let gitAnswer: string | null;
  try {
    gitAnswer = execFileSync("git", ["hash-object", "--stdin"], { input: data }).toString().trim();
  } catch {
    gitAnswer = null; // git not installed: the two known values above still stand
  }
  if (gitAnswer !== null) assert.equal(gitBlobSha1(data), gitAnswer);
  const streaming = new StreamingIdentity(data.length);
  for (let offset = 0; offset < data.length; offset += 4096) streaming.update(data.subarray(offset, offset + 4096));
  const digest = streaming.digest();
  assert.equal(digest.gitBlobSha1, gitBlobSha1(data));
  assert.equal(digest.sha256, createHash("sha256").update(data).digest("hex"));
  assert.notEqual(digest.gitBlobSha1, createHash("sha1").update(data).digest("hex"));
  const short = new StreamingIdentity(10);
  short.update(Buffer.from("abc"));
  assert.equal(short.digest().gitBlobSha1, null);
});

test("endpoint resolution: flag over HF_ENDPOINT over default; credentials, queries and other schemes refused", () => {
  const viaFlag = resolveEndpoint("http://127.0.0.1:8080/mirror/", { HF_ENDPOINT: "https://example.org" });
  assert.ok(viaFlag.ok);
  assert.equal(viaFlag.value.base, "http://127.0.0.1:8080/mirror");
  assert.equal(viaFlag.value.source, "flag");
  const viaVariable = resolveEndpoint(undefined, { HF_ENDPOINT: "https://hf-mirror.example" });
  assert.ok(viaVariable.ok);
  assert.equal(viaVariable.value.source, "HF_ENDPOINT");
  const emptyVariable = resolveEndpoint(undefined, { HF_ENDPOINT: "" });
  assert.ok(emptyVariable.ok);
  assert.equal(emptyVariable.value.source, "default");
  for (const bad of [
    "https://user:secret@huggingface.co",
    "ftp://mirror",
    "not a url",
    "https://mirror/?token=x",
    "https://mirror/#x",
  ]) {
    const result = resolveEndpoint(bad, {});
    assert.equal(result.ok ? "" : result.error, "endpoint_invalid", bad);
  }
  const emptyCi = resolveEndpoint(undefined, { CI: "" });
  assert.ok(emptyCi.ok);
});

test("consent: the spec's prompt; only an explicit yes counts", () => {
  assert.equal(
    consentPrompt(PINNED_FILES),
    "Download the eight listed model files, totaling 999,597,691 bytes, from Qwen’s public Hugging Face repository into this new model directory?",
  );
  for (const answer of ["yes", "YES", " Yes \n"]) assert.equal(isExplicitYes(answer), true, answer);
  for (const answer of ["", "y", "ye", "no", "yes please", "sure"]) assert.equal(isExplicitYes(answer), false, answer);
  assert.deepEqual(decisionFromAnswer("yes"), { given: true, form: "interactive_prompt" });
  assert.equal(decisionFromAnswer(null).given, false);
});

test("the plan names identity, files, totals, limits and estimates, and touches nothing", () => {
  const endpoint = resolveEndpoint(undefined, {});
  assert.ok(endpoint.ok);
  const plan = buildPlan(PINNED_FILES, endpoint.value, "/models/qwen");
  assert.equal(plan.totalBytes, 999_597_691);
  const text = formatPlan(plan).join("\n");
  for (const needle of [
    "Qwen/Qwen2.5-Coder-0.5B-Instruct",
    "ea3f2471cf1b1f0db85067f1ef93848e38e88c25",
    "Apache-2.0",
    "494,032,768",
    "safetensors",
    "988,097,824",
    "999,597,691",
    "1,200,000,000",
    "/models/qwen",
    "20 minutes",
    "30 minutes",
    "10 minutes",
    "1,976,131,072 bytes (1.84 GiB)",
    "3,000,000,000 bytes (2.79 GiB)",
    "estimates",
  ]) {
    assert.ok(text.includes(needle), needle);
  }
});

test("config policy: code requests anywhere are rejected; structural equality ignores key order", () => {
  const pins = { ...PINNED_FILES, expectedConfigJson: undefined };
  const nested = Buffer.from('{"a": [{"b": {"trust_remote_code": true}}]}');
  assert.equal(checkLoaderConfig("tokenizer_config.json", nested, pins).ok, false);
  assert.equal(checkLoaderConfig("generation_config.json", Buffer.from('{"custom_generate": "x"}'), pins).ok, false);
  assert.equal(checkLoaderConfig("config.json", Buffer.from("[1]"), pins).ok, false);
  assert.equal(checkLoaderConfig("config.json", Buffer.from("{"), pins).ok, false);
  assert.equal(checkLoaderConfig("config.json", Buffer.from('{"x": 1}'), pins).ok, true);
  const reordered = JSON.stringify(
    Object.fromEntries(Object.entries(JSON.parse(PINNED_CONFIG_JSON) as object).reverse()),
  );
  assert.equal(checkLoaderConfig("config.json", Buffer.from(reordered), PINNED_FILES).ok, true);
  assert.equal(jsonEqual({ a: [1, 2] }, { a: [2, 1] }), false);
  assert.equal(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(jsonEqual(1e-6, 0.000001), true);
});

test("resource thresholds: exactly at the minimum passes, one byte below fails", () => {
  const exact = {
    freeDiskBytes: DEFAULT_RESOURCE_THRESHOLDS.minimumFreeDiskBytes,
    totalMemoryBytes: DEFAULT_RESOURCE_THRESHOLDS.minimumTotalMemoryBytes,
    availableMemoryBytes: DEFAULT_RESOURCE_THRESHOLDS.minimumAvailableMemoryBytes,
  };
  assert.ok(checkResources(exact, DEFAULT_RESOURCE_THRESHOLDS).ok);
  assert.ok(checkResources(PLENTY, DEFAULT_RESOURCE_THRESHOLDS).ok);
  const lowDisk = checkResources({ ...exact, freeDiskBytes: exact.freeDiskBytes - 1 }, DEFAULT_RESOURCE_THRESHOLDS);
  assert.equal(lowDisk.ok ? "" : lowDisk.error, "insufficient_disk");
});
