// Pure parts of the worker plumbing: message validation and size caps, and the thread
// governor's choices under changing (simulated) load.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LineSplitter, parseWorkerRequest, parseWorkerResponse } from "../../src/model/worker/protocol.ts";
import { ThreadGovernor } from "../../src/model/engine/threadGovernor.ts";

test("requests are validated field by field", () => {
  assert.deepEqual(parseWorkerRequest('{"type":"cancel","id":3}'), { type: "cancel", id: 3 });
  assert.equal(
    parseWorkerRequest('{"type":"generate","id":1,"reusePrefix":true,"input":{"kind":"ids","ids":[1,-2]}}'),
    null,
  );
  assert.equal(
    parseWorkerRequest('{"type":"generate","id":1,"reusePrefix":true,"input":{"kind":"ids","ids":[1.5]}}'),
    null,
  );
  assert.equal(
    parseWorkerRequest(
      '{"type":"generate","id":1,"reusePrefix":true,"input":{"kind":"messages","messages":[{"role":"tool","content":"x"}]}}',
    ),
    null,
  );
  assert.equal(parseWorkerRequest('{"type":"shell","command":"rm"}'), null);
  assert.equal(parseWorkerRequest("[]"), null);
  assert.equal(parseWorkerRequest("{"), null);
  const ok = parseWorkerRequest(
    '{"type":"generate","id":1,"reusePrefix":false,"input":{"kind":"messages","messages":[{"role":"system","content":"a"},{"role":"user","content":"b"}]}}',
  );
  assert.equal(ok?.type, "generate");
});

test("responses are validated field by field", () => {
  const report = {
    inputIds: [1],
    inputTokens: 1,
    rawOutputIds: [2],
    outputTokens: 1,
    text: "t",
    stopCause: "stop_token",
    prefixTokensReused: 0,
    timingsMs: { a: 1 },
    threads: {},
    peakRssBytes: 1,
  };
  assert.equal(parseWorkerResponse(JSON.stringify({ type: "result", id: 1, report }))?.type, "result");
  assert.equal(
    parseWorkerResponse(JSON.stringify({ type: "result", id: 1, report: { ...report, timingsMs: { a: "slow" } } })),
    null,
  );
  assert.equal(parseWorkerResponse(JSON.stringify({ type: "result", id: -1, report })), null);
  assert.equal(
    parseWorkerResponse(JSON.stringify({ type: "loaded", label: "x".repeat(100), synthetic: true, identity: {} })),
    null,
  );
  assert.equal(
    parseWorkerResponse(JSON.stringify({ type: "error", id: null, error: "model_error", message: "m" }))?.type,
    "error",
  );
  assert.equal(parseWorkerResponse(JSON.stringify({ type: "surprise", id: 1 })), null);
  assert.equal(
    parseWorkerResponse(JSON.stringify({ type: "result", id: 1, report: { ...report, text: "y".repeat(300 * 1024) } })),
    null,
  );
});

test("the line splitter joins partial lines and refuses an endless one before it completes", () => {
  const splitter = new LineSplitter(10);
  assert.deepEqual(splitter.push(Buffer.from("ab")), []);
  assert.deepEqual(splitter.push(Buffer.from("c\nde\nf")), ["abc", "de"]);
  assert.deepEqual(splitter.push(Buffer.from("g\n")), ["fg"]);
  assert.equal(splitter.push(Buffer.from("0123456789A")), "oversized");
  assert.equal(new LineSplitter(4).push(Buffer.from("12345\n")), "oversized");
});

test("the governor measures the preferred count; a drop in its rate makes it measure the other, then it uses the faster one", () => {
  const g = new ThreadGovernor({ candidates: [2, 1], exploreEvery: 8, smoothing: 0.5, degradedFraction: 0.7 });
  assert.equal(g.choose("decode"), 2);
  g.record("decode", 2, 1, 400); // warm-up: the first step is slow whatever the count, and not measured
  assert.equal(g.choose("decode"), 2, "still unmeasured after its warm-up step");
  g.record("decode", 2, 1, 65); // ~15 tok/s
  assert.equal(g.choose("decode"), 2, "a steady preferred count is kept without exploring");
  g.record("decode", 2, 1, 400); // ~2.5 tok/s: smoothed rate falls below 70% of its peak
  assert.equal(g.choose("decode"), 1);
  g.record("decode", 1, 1, 400); // warm-up after the switch
  assert.equal(g.choose("decode"), 1);
  g.record("decode", 1, 1, 130); // ~7.7 tok/s: slower than the degraded 2-thread estimate (~8.9)
  assert.equal(g.choose("decode"), 2);
  assert.equal(g.best("prefill"), 2, "phases are measured separately");
});

test("on a steady machine the preferred count is never left: exploration costs nothing there", () => {
  const g = new ThreadGovernor({ candidates: [2, 1], exploreEvery: 8, smoothing: 0.5, degradedFraction: 0.7 });
  const choices: number[] = [];
  for (let step = 0; step < 200; step++) {
    const threads = g.choose("prefill");
    choices.push(threads);
    // Within +-20% noise around 64 tokens per 700 ms: never below 70% of the peak.
    g.record("prefill", threads, 64, step === 0 ? 2000 : 700 * (step % 3 === 0 ? 1.2 : step % 3 === 1 ? 0.9 : 1.0));
  }
  assert.deepEqual([...new Set(choices)], [2]);
  assert.deepEqual(g.tokensByThreads().prefill, { "2": 200 * 64 });
});

test("a slow drift below the line also triggers a measurement of the other count", () => {
  const g = new ThreadGovernor({ candidates: [2, 1], exploreEvery: 8, smoothing: 0.5, degradedFraction: 0.7 });
  g.record("prefill", 2, 64, 2000);
  g.record("prefill", 2, 64, 700);
  let explored = false;
  for (let step = 0; step < 20 && !explored; step++) {
    const threads = g.choose("prefill");
    if (threads === 1) explored = true;
    else g.record("prefill", 2, 64, 700 * (1 + step * 0.1));
  }
  assert.ok(explored, "1 thread is tried once 2 threads fall below 70% of their peak rate");
});

test("when a busy neighbour collapses 2-thread decode, the governor falls back to 1 thread and later re-checks", () => {
  const g = new ThreadGovernor({ candidates: [2, 1], exploreEvery: 8, smoothing: 0.5, degradedFraction: 0.7 });
  for (const [threads, ms] of [
    [2, 400],
    [2, 65],
    [1, 400],
    [1, 110],
  ] as const)
    g.record("decode", threads, 1, ms);
  // Load arrives: the 2-thread step now takes over a second.
  const choices: number[] = [];
  for (let step = 0; step < 32; step++) {
    const threads = g.choose("decode");
    choices.push(threads);
    g.record("decode", threads, 1, threads === 2 ? 1200 : 115);
  }
  const twoThreadSteps = choices.filter((t) => t === 2).length;
  // At most: the step that reveals the load, its smoothing step, then one two-step re-check per 8 steps.
  assert.ok(
    twoThreadSteps <= 10,
    `only periodic re-checks (two steps each) use 2 threads under load (${twoThreadSteps})`,
  );
  assert.equal(g.best("decode"), 1);
  // Load goes away: a re-check notices and 2 threads win again.
  for (let step = 0; step < 16; step++) {
    const threads = g.choose("decode");
    g.record("decode", threads, 1, threads === 2 ? 65 : 110);
  }
  assert.equal(g.best("decode"), 2);
  const usage = g.tokensByThreads().decode;
  assert.equal((usage["1"] ?? 0) + (usage["2"] ?? 0), 52);
});
