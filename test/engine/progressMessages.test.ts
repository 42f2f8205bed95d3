// The progress message's pure parts: strict parsing of the message and of the request field
// that asks for it, the worker's throttle (at most one per interval, final count before the
// result, nothing after; also through a session with a stepping fake engine), and the
// supervisor's order and rate rule.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MAX_INPUT_IDS,
  MAX_OUTPUT_IDS,
  parseWorkerRequest,
  parseWorkerResponse,
  type GenerationProgress,
} from "../../src/model/worker/protocol.ts";
import { ProgressThrottle } from "../../src/model/worker/progressThrottle.ts";
import { PROGRESS_BURST, ProgressOrder } from "../../src/model/worker/progressOrder.ts";
import { ModelSession, type GenerationEngine } from "../../src/model/worker/modelSession.ts";
import type { GenerateOptions } from "../../src/model/engine/llamaEngine.ts";
import { fakeEngineGeneration } from "../support/fakeEngineGeneration.ts";
import type { EnginePhase } from "../../src/model/engine/threadGovernor.ts";
import { createChatTokenizer } from "../../src/model/tokenizer/chatTokenizer.ts";
import { buildSyntheticTokenizer } from "../../src/model/synthetic/syntheticTokenizer.ts";
import { err, ok } from "../../src/core/result.ts";

const line = (value: unknown): string => JSON.stringify(value);

test("a progress message parses only with exactly its own keys and counts in bounds", () => {
  assert.deepEqual(
    parseWorkerResponse(line({ type: "progress", id: 3, phase: "prefill", tokens: 1024, total: 1500 })),
    { type: "progress", id: 3, phase: "prefill", tokens: 1024, total: 1500 },
  );
  assert.deepEqual(parseWorkerResponse(line({ type: "progress", id: 3, phase: "decode", tokens: 45 })), {
    type: "progress",
    id: 3,
    phase: "decode",
    tokens: 45,
  });
  assert.deepEqual(parseWorkerResponse(line({ type: "progress", id: 0, phase: "decode", tokens: MAX_OUTPUT_IDS })), {
    type: "progress",
    id: 0,
    phase: "decode",
    tokens: MAX_OUTPUT_IDS,
  });
  const refused: unknown[] = [
    { type: "progress", id: 3, phase: "prefill", tokens: 10 }, // no total
    { type: "progress", id: 3, phase: "prefill", tokens: 11, total: 10 }, // beyond its total
    { type: "progress", id: 3, phase: "prefill", tokens: 1, total: MAX_INPUT_IDS + 1 },
    { type: "progress", id: 3, phase: "decode", tokens: 5, total: 10 }, // decode has no total
    { type: "progress", id: 3, phase: "decode", tokens: 0 },
    { type: "progress", id: 3, phase: "decode", tokens: -1 },
    { type: "progress", id: 3, phase: "decode", tokens: 1.5 },
    { type: "progress", id: 3, phase: "decode", tokens: "5" },
    { type: "progress", id: 3, phase: "decode", tokens: MAX_OUTPUT_IDS + 1 },
    { type: "progress", id: 3, phase: "decode", tokens: 2 ** 53 },
    { type: "progress", id: 3, phase: "sampling", tokens: 5 },
    { type: "progress", id: null, phase: "decode", tokens: 5 },
    { type: "progress", id: -1, phase: "decode", tokens: 5 },
    { type: "progress", phase: "decode", tokens: 5 },
    { type: "progress", id: 3, phase: "decode", tokens: 5, text: "anything" }, // nothing rides along
    { type: "progress", id: 3, phase: "decode", tokens: 5, elapsedMs: 10 },
  ];
  for (const message of refused) assert.equal(parseWorkerResponse(line(message)), null, line(message));
  assert.equal(parseWorkerResponse('{"type":"progress","id":3,"phase":"decode","tokens":5'), null, "truncated line");
});

test("progressIntervalMs: absent stays absent; present must be an integer within 10..60,000 ms", () => {
  const generate = { type: "generate", id: 1, input: { kind: "ids", ids: [1, 2] }, reusePrefix: true };
  const plain = parseWorkerRequest(line(generate));
  assert.ok(plain !== null && !("progressIntervalMs" in plain), "a Lab request parses exactly as before");
  assert.deepEqual(parseWorkerRequest(line({ ...generate, progressIntervalMs: 250 })), {
    ...generate,
    progressIntervalMs: 250,
  });
  assert.deepEqual(parseWorkerRequest(line({ ...generate, progressIntervalMs: 10 })), {
    ...generate,
    progressIntervalMs: 10,
  });
  for (const bad of [0, 9, 60_001, 2.5, -250, "250", null, true])
    assert.equal(parseWorkerRequest(line({ ...generate, progressIntervalMs: bad })), null, String(bad));
  // Only a generate request may carry it.
  assert.equal(parseWorkerRequest(line({ type: "load", modelDirectory: "/m", progressIntervalMs: 250 }))?.type, "load");
  const load = parseWorkerRequest(line({ type: "load", modelDirectory: "/m", progressIntervalMs: 250 }));
  assert.ok(load !== null && !("progressIntervalMs" in load));
});

function throttleAt(intervalMs: number) {
  let now = 1_000;
  const sent: GenerationProgress[] = [];
  const throttle = new ProgressThrottle(
    intervalMs,
    () => now,
    (p) => sent.push(p),
  );
  return { throttle, sent, advance: (ms: number) => (now += ms) };
}

test("the throttle sends at most one count per interval, the first one interval after the start", () => {
  const { throttle, sent, advance } = throttleAt(250);
  throttle.step("prefill", 512, 1500);
  assert.deepEqual(sent, [], "nothing before the first interval");
  advance(250);
  throttle.step("prefill", 1024, 1500);
  advance(100);
  throttle.step("prefill", 1500, 1500); // the last chunk: prefill done, first new token sampled
  assert.deepEqual(sent, [{ phase: "prefill", tokens: 1024, total: 1500 }]);
  advance(150);
  throttle.step("decode", 2, 128);
  advance(249);
  throttle.step("decode", 3, 128);
  advance(1);
  throttle.step("decode", 4, 128);
  assert.deepEqual(sent, [
    { phase: "prefill", tokens: 1024, total: 1500 },
    { phase: "decode", tokens: 2 },
    { phase: "decode", tokens: 4 },
  ]);
});

test("the step that completes prefill counts as the first new token", () => {
  const { throttle, sent, advance } = throttleAt(10);
  advance(10);
  throttle.step("prefill", 40, 40);
  assert.deepEqual(sent, [{ phase: "decode", tokens: 1 }]);
});

test("finish after a finished generation sends the held-back final count once; after a failure nothing; later steps never", () => {
  const ok = throttleAt(250);
  ok.throttle.step("prefill", 8, 8);
  ok.throttle.step("decode", 2, 128);
  ok.throttle.step("decode", 3, 128);
  ok.throttle.finish(true);
  ok.throttle.finish(true);
  ok.advance(10_000);
  ok.throttle.step("decode", 4, 128);
  assert.deepEqual(ok.sent, [{ phase: "decode", tokens: 3 }], "a short generation sends only its final count");

  const alreadySent = throttleAt(10);
  alreadySent.advance(10);
  alreadySent.throttle.step("decode", 5, 128);
  alreadySent.throttle.finish(true);
  assert.deepEqual(alreadySent.sent, [{ phase: "decode", tokens: 5 }], "the final count is not repeated");

  const failed = throttleAt(250);
  failed.throttle.step("decode", 7, 128);
  failed.throttle.finish(false);
  failed.advance(1_000);
  failed.throttle.step("decode", 8, 128);
  assert.deepEqual(failed.sent, []);

  const empty = throttleAt(250);
  empty.throttle.finish(true);
  assert.deepEqual(empty.sent, [], "no step, no count");
});

test("the order rule: counts rise, prefill then decode, a fixed total, the call's bound", () => {
  const order = new ProgressOrder(250, 128);
  assert.equal(order.check({ phase: "prefill", tokens: 512, total: 1500 }, 300), null);
  assert.equal(order.check({ phase: "prefill", tokens: 1024, total: 1500 }, 600), null);
  assert.equal(order.check({ phase: "decode", tokens: 1 }, 900), null);
  assert.equal(order.check({ phase: "decode", tokens: 128 }, 1200), null);
  assert.equal(order.check({ phase: "decode", tokens: 128 }, 1500), "progress count did not increase");
  assert.equal(
    new ProgressOrder(250, 128).check({ phase: "decode", tokens: 129 }, 0),
    "progress beyond the call's bound on new tokens",
  );
  assert.equal(
    new ProgressOrder(250, 512).check({ phase: "decode", tokens: 129 }, 0),
    null,
    "a bench call's bound is its own",
  );
  const backwards = new ProgressOrder(250, 128);
  backwards.check({ phase: "decode", tokens: 5 }, 0);
  assert.equal(
    backwards.check({ phase: "prefill", tokens: 6, total: 10 }, 0),
    "prefill progress after decode progress",
  );
  const moved = new ProgressOrder(250, 128);
  moved.check({ phase: "prefill", tokens: 5, total: 10 }, 0);
  assert.equal(moved.check({ phase: "prefill", tokens: 6, total: 11 }, 0), "prefill total changed");
  // A refused message leaves the last accepted one in place.
  const kept = new ProgressOrder(250, 128);
  kept.check({ phase: "decode", tokens: 5 }, 0);
  kept.check({ phase: "decode", tokens: 4 }, 0);
  assert.equal(kept.check({ phase: "decode", tokens: 5 }, 0), "progress count did not increase");
});

test("the rate rule: a burst, then twice the requested rate counted from the call's start", () => {
  const order = new ProgressOrder(250, 100_000);
  for (let i = 1; i <= PROGRESS_BURST; i++)
    assert.equal(order.check({ phase: "decode", tokens: i }, 0), null, `burst ${i}`);
  assert.equal(
    order.check({ phase: "decode", tokens: PROGRESS_BURST + 1 }, 0),
    "progress messages faster than the requested interval",
  );
  // A backlog after a busy moment still fits: 10 s allow 8 + 80 messages.
  const late = new ProgressOrder(250, 100_000);
  for (let i = 1; i <= 88; i++) assert.equal(late.check({ phase: "decode", tokens: i }, 10_000), null, `backlog ${i}`);
  assert.equal(
    late.check({ phase: "decode", tokens: 89 }, 10_000),
    "progress messages faster than the requested interval",
  );
});

// --- the session: the engine's steps become progress, the final count precedes the result ----

function steppingEngine(
  steps: [EnginePhase, number, number][],
  outcome: "ok" | "cancelled",
  advance: (ms: number) => void,
): GenerationEngine {
  return {
    async generate(inputIds, options?: GenerateOptions) {
      for (const [phase, n, total] of steps) {
        advance(100);
        options?.onStep?.(phase, n, total);
      }
      if (outcome === "cancelled") return err("cancelled", "aborted during decode");
      const output = Array.from({ length: steps.filter(([p]) => p === "decode").length + 1 }, (_, i) => 10 + i);
      return ok(fakeEngineGeneration(inputIds, output, "max_new_tokens"));
    },
    identity: () => ({ engine: "fake" }),
    dispose: async () => undefined,
  };
}

function sessionWith(engine: GenerationEngine, now: () => number): ModelSession {
  const files = buildSyntheticTokenizer();
  const built = createChatTokenizer(Buffer.from(files.tokenizerJson), Buffer.from(files.tokenizerConfigJson));
  assert.ok(built.ok);
  return new ModelSession({
    tokenizer: built.value,
    engine,
    label: "synthetic-pipeline-check",
    synthetic: true,
    record: {},
    now,
  });
}

const steps: [EnginePhase, number, number][] = [
  ["prefill", 64, 100],
  ["prefill", 100, 100],
  ["decode", 2, 5],
  ["decode", 3, 5],
  ["decode", 4, 5],
];

test("a session asked for progress emits throttled counts, then the final count, all before it returns", async () => {
  let clock = 0;
  const emitted: GenerationProgress[] = [];
  const s = sessionWith(
    steppingEngine(steps, "ok", (ms) => (clock += ms)),
    () => clock,
  );
  const response = await s.generate(1, { kind: "ids", ids: [1, 2, 3] }, true, {
    progressIntervalMs: 150,
    onProgress: (p) => emitted.push(p),
  });
  assert.equal(response.type, "result");
  // Steps at 100..500 ms: sent at 200 (decode 1) and 400 (decode 3); decode 4 is held back, then sent as the final count.
  assert.deepEqual(emitted, [
    { phase: "decode", tokens: 1 },
    { phase: "decode", tokens: 3 },
    { phase: "decode", tokens: 4 },
  ]);
  assert.equal(response.type === "result" && response.report.outputTokens, 4);
});

test("a session not asked for progress emits nothing; a cancelled one emits no final count", async () => {
  let clock = 0;
  const emitted: GenerationProgress[] = [];
  const plain = sessionWith(
    steppingEngine(steps, "ok", (ms) => (clock += ms)),
    () => clock,
  );
  assert.equal(
    (await plain.generate(1, { kind: "ids", ids: [1, 2, 3] }, true, { onProgress: (p) => emitted.push(p) })).type,
    "result",
  );
  assert.deepEqual(emitted, [], "no interval, no progress");
  const cancelled = sessionWith(
    steppingEngine(steps, "cancelled", (ms) => (clock += ms)),
    () => clock,
  );
  const fromCancelled: GenerationProgress[] = [];
  const response = await cancelled.generate(2, { kind: "ids", ids: [1, 2, 3] }, true, {
    progressIntervalMs: 1_000,
    onProgress: (p) => fromCancelled.push(p),
  });
  assert.deepEqual(response, { type: "cancelled", id: 2 });
  assert.deepEqual(fromCancelled, [], "held-back counts of a cancelled call are dropped");
});
