// Generation semantics of the in-process engine on a tiny synthetic checkpoint: prefix reuse
// gives identical greedy output, aborts are honoured between prefill chunks, and the input
// guards refuse what would otherwise overflow or shift the context.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { LlamaEngine } from "../../src/model/engine/llamaEngine.ts";
import { ENGINE_SETTINGS } from "../../src/model/engine/generationSettings.ts";
import { ensureDerivedGguf } from "../../src/model/gguf/derivedCache.ts";
import { openCheckpointDirectory } from "../../src/model/loader/checkpointDirectory.ts";
import { createChatTokenizer, type ChatTokenizer } from "../../src/model/tokenizer/chatTokenizer.ts";
import { SYSTEM_INSTRUCTION, TASK_TXT } from "../../src/constants/labConstants.ts";
import { makeTinyCheckpoint, type TinyCheckpoint } from "./tinyCheckpoint.ts";

let checkpoint: TinyCheckpoint;
let engine: LlamaEngine;
let tokenizer: ChatTokenizer;

before(async () => {
  checkpoint = await makeTinyCheckpoint(5);
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
  const t = createChatTokenizer(opened.value.tokenizerJson, opened.value.tokenizerConfigJson);
  assert.ok(t.ok);
  tokenizer = t.value;
});

after(async () => {
  await engine?.dispose();
  await checkpoint?.cleanup();
});

function prompt(user: string): number[] {
  const rendered = tokenizer.render([
    { role: "system", content: SYSTEM_INSTRUCTION },
    { role: "user", content: user },
  ]);
  assert.ok(rendered.ok);
  return tokenizer.encode(rendered.value);
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

test("greedy output is identical with and without prefix reuse, and reuse skips the shared prefix", async () => {
  const first = prompt(`${TASK_TXT}\nState: version 0, source not read.`);
  const second = prompt(`${TASK_TXT}\nState: version 1, source read, last test failing.`);
  const shared = commonPrefix(first, second);
  assert.ok(shared > 2 * ENGINE_SETTINGS.prefillChunkTokens, "the shared prefix spans several prefill chunks");

  await engine.clearCache();
  const a = await engine.generate(first, { maxNewTokens: 16 });
  assert.ok(a.ok);
  assert.equal(a.value.prefixTokensReused, 0);
  const reused = await engine.generate(second, { maxNewTokens: 16 });
  assert.ok(reused.ok);
  assert.equal(reused.value.prefixTokensReused, shared);
  assert.equal(reused.value.prefillTokensEvaluated, second.length - shared);

  const fresh = await engine.generate(second, { maxNewTokens: 16, reusePrefix: false });
  assert.ok(fresh.ok);
  assert.equal(fresh.value.prefixTokensReused, 0);
  assert.deepEqual(reused.value.rawOutputIds, fresh.value.rawOutputIds);

  // The same input again: everything but the last input token comes from the cache.
  const again = await engine.generate(second, { maxNewTokens: 16 });
  assert.ok(again.ok);
  assert.equal(again.value.prefixTokensReused, second.length - 1);
  assert.deepEqual(again.value.rawOutputIds, fresh.value.rawOutputIds);
});

test("an abort between prefill chunks returns cancelled before any token is generated", async () => {
  const ids = prompt(TASK_TXT.repeat(3));
  assert.ok(ids.length > 3 * ENGINE_SETTINGS.prefillChunkTokens);
  let chunks = 0;
  const result = await engine.generate(ids, {
    reusePrefix: false,
    onStep: (phase) => {
      if (phase === "prefill") chunks++;
    },
    shouldAbort: () => chunks >= 1,
  });
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.error, "cancelled");
  assert.equal(chunks, 1, "stopped right after the first chunk");
  // The engine stays usable and consistent after an abort.
  const after = await engine.generate(ids, { maxNewTokens: 4 });
  const clean = await engine.generate(ids, { maxNewTokens: 4, reusePrefix: false });
  assert.ok(after.ok && clean.ok);
  assert.deepEqual(after.value.rawOutputIds, clean.value.rawOutputIds);
});

test("generation stops at 128 new tokens unless a stop id comes first, and keeps raw ids", async () => {
  const result = await engine.generate(prompt("hello"));
  assert.ok(result.ok);
  const ids = result.value.rawOutputIds;
  const stops: readonly number[] = ENGINE_SETTINGS.stopTokenIds;
  if (result.value.stopCause === "stop_token") {
    assert.ok(stops.includes(ids[ids.length - 1] as number));
    assert.ok(ids.slice(0, -1).every((id) => !stops.includes(id)));
  } else {
    assert.equal(ids.length, 128);
    assert.ok(ids.every((id) => !stops.includes(id)));
  }
});

test("input guards: over 2,048 tokens is context_limit, empty or out-of-range ids are input_invalid", async () => {
  const tooLong = await engine.generate(new Array<number>(2049).fill(100));
  assert.equal(!tooLong.ok && tooLong.error, "context_limit");
  const empty = await engine.generate([]);
  assert.equal(!empty.ok && empty.error, "input_invalid");
  const outOfRange = await engine.generate([1, 2, 151936]);
  assert.equal(!outOfRange.ok && outOfRange.error, "input_invalid");
  const negative = await engine.generate([1, -2]);
  assert.equal(!negative.ok && negative.error, "input_invalid");
  const exact = await engine.generate(new Array<number>(2048).fill(100), { maxNewTokens: 1 });
  assert.ok(exact.ok, "exactly 2,048 input tokens is allowed");
});
