// The worker's request logic with a fake engine: the input budget is checked before the
// engine is called, and only new tokens are decoded, minus at most one terminal end token.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ModelSession, type GenerationEngine } from "../../src/model/worker/modelSession.ts";
import { createChatTokenizer } from "../../src/model/tokenizer/chatTokenizer.ts";
import { buildSyntheticTokenizer } from "../../src/model/synthetic/syntheticTokenizer.ts";
import { idsForDecoding } from "../../src/model/engine/generationSettings.ts";
import { ok } from "../../src/core/result.ts";
import { fakeEngineGeneration } from "../support/fakeEngineGeneration.ts";

const files = buildSyntheticTokenizer();
const built = createChatTokenizer(Buffer.from(files.tokenizerJson), Buffer.from(files.tokenizerConfigJson));
assert.ok(built.ok);
const tokenizer = built.value;

function fakeEngine(output: number[]): GenerationEngine & { calls: number[][] } {
  const calls: number[][] = [];
  return {
    calls,
    async generate(inputIds) {
      calls.push([...inputIds]);
      return ok(fakeEngineGeneration(inputIds, output, "stop_token"));
    },
    identity: () => ({ engine: "fake" }),
    dispose: async () => undefined,
  };
}

function session(engine: GenerationEngine): ModelSession {
  return new ModelSession({ tokenizer, engine, label: "synthetic-pipeline-check", synthetic: true, record: {} });
}

test("more than 2,048 input tokens gives context_limit without calling the engine", async () => {
  const engine = fakeEngine([]);
  const s = session(engine);
  const overIds = await s.generate(1, { kind: "ids", ids: new Array<number>(2049).fill(5) }, true);
  assert.deepEqual(overIds, { type: "context_limit", id: 1, inputTokens: 2049 });
  const longText = "word ".repeat(3000);
  const overMessages = await s.generate(
    2,
    {
      kind: "messages",
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: longText },
      ],
    },
    true,
  );
  assert.equal(overMessages.type, "context_limit");
  assert.equal(engine.calls.length, 0);
});

test("the chat template output is tokenized once, without extra special tokens", async () => {
  const engine = fakeEngine([151645]);
  const s = session(engine);
  const response = await s.generate(
    3,
    {
      kind: "messages",
      messages: [
        { role: "system", content: "S" },
        { role: "user", content: "U" },
      ],
    },
    true,
  );
  assert.equal(response.type, "result");
  const ids = engine.calls[0] as number[];
  assert.equal(ids.filter((id) => id === 151644).length, 3, "three <|im_start|>: system, user, assistant prompt");
  assert.equal(ids.filter((id) => id === 151645).length, 2);
  assert.equal(
    tokenizer.decode(ids),
    "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n",
  );
});

test("decoding removes at most one terminal end token and never strips fences", async () => {
  const fenced = tokenizer.encode('```json\n{"action":"test"}\n```');
  const cases: [number[], string][] = [
    [[...fenced, 151645], '```json\n{"action":"test"}\n```'],
    [[...fenced, 151643], '```json\n{"action":"test"}\n```'],
    [[...fenced, 151645, 151645], '```json\n{"action":"test"}\n```<|im_end|>'],
    [[151644, ...fenced], '<|im_start|>```json\n{"action":"test"}\n```'],
    [fenced, '```json\n{"action":"test"}\n```'],
  ];
  for (const [raw, text] of cases) {
    const s = session(fakeEngine(raw));
    const response = await s.generate(4, { kind: "ids", ids: [1, 2] }, true);
    assert.equal(response.type, "result");
    if (response.type === "result") {
      assert.equal(response.report.text, text);
      assert.deepEqual(response.report.rawOutputIds, raw, "raw ids are kept in full");
      assert.equal(response.report.outputTokens, raw.length);
    }
  }
  assert.deepEqual(idsForDecoding([]), []);
});

test("engine failures map to stable outcomes", async () => {
  const failing = (error: string): GenerationEngine => ({
    generate: async () => ({ ok: false, error, message: "m" }),
    identity: () => ({}),
    dispose: async () => undefined,
  });
  assert.equal((await session(failing("model_error")).generate(1, { kind: "ids", ids: [1] }, true)).type, "error");
  assert.equal((await session(failing("cancelled")).generate(1, { kind: "ids", ids: [1] }, true)).type, "cancelled");
  assert.equal(
    (await session(failing("context_limit")).generate(1, { kind: "ids", ids: [1] }, true)).type,
    "context_limit",
  );
  assert.equal((await session(fakeEngine([])).generate(1, { kind: "ids", ids: [] }, true)).type, "error");
});
