// The local engine as the benchmark's second backend: the text tool-call protocol (parsing and
// rendering), the worker's bench generation profile, and a real run of conditions A and C on
// gcd with a tiny synthetic (random-weight) checkpoint — a pipeline check whose outcome is
// whatever the random model earns.
import { after, before, test } from "node:test";
import { dataOf, readTraceRecords } from "./traceFixtures.ts";
import { sandboxPackages } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runBenchmark } from "../../src/bench/benchmarkRun.ts";
import { toolSchemasFor } from "../../src/bench/agent/toolSchemas.ts";
import { CONDITIONS } from "../../src/bench/agent/conditions.ts";
import { RUN_FILES } from "../../src/bench/runs/runDirectory.ts";
import { classifyOutcome, OUTCOME_CLASSES, type TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { GENERATION_PROFILES } from "../../src/model/engine/generationSettings.ts";
import type { GenerateOptions } from "../../src/model/engine/llamaEngine.ts";
import { fakeEngineGeneration } from "../support/fakeEngineGeneration.ts";
import { buildSyntheticTokenizer } from "../../src/model/synthetic/syntheticTokenizer.ts";
import { createChatTokenizer } from "../../src/model/tokenizer/chatTokenizer.ts";
import { ModelSession, type GenerationEngine } from "../../src/model/worker/modelSession.ts";
import { parseWorkerRequest, parseWorkerResponse } from "../../src/model/worker/protocol.ts";
import { ok } from "../../src/core/result.ts";
import { createConversationRenderer } from "../../src/sources/localChatRendering.ts";
import { LocalEngineChat } from "../../src/sources/localEngineChat.ts";
import type { ChatTurnMessage } from "../../src/sources/openaiCompatibleChat.ts";
import { parseToolCallText, renderToolCallBlock, textProtocolMessages } from "../../src/sources/textToolCalls.ts";
import { makeTinyCheckpoint, type TinyCheckpoint } from "../engine/tinyCheckpoint.ts";
import { benchSetup, MINI_DATASET_DIR } from "./benchFixtures.ts";
import { toolTemplateConfig } from "./toolTemplateFixture.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";

// --- the text tool-call parser -------------------------------------------------------------

test("a well-formed block becomes a call; the text around it is the content", () => {
  const r = parseToolCallText(
    'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "python_programs/gcd.py"}}\n</tool_call>',
    "call_t1",
  );
  assert.equal(r.content, "Let me look.");
  assert.deepEqual(r.toolCalls, [
    { id: "call_t1_0", name: "read_file", argumentsText: '{"path":"python_programs/gcd.py"}' },
  ]);
  assert.deepEqual(r.malformed, []);
});

test("several calls, with text before, between and after them, keep their order", () => {
  const text =
    'first\n<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "x = 1\\n"}}</tool_call>\nbetween\n<tool_call>{"name": "run_tests", "arguments": {}}</tool_call> after';
  const r = parseToolCallText(text);
  assert.deepEqual(
    r.toolCalls.map((c) => [c.id, c.name, c.argumentsText]),
    [
      ["call_0", "write_file", '{"path":"a","content":"x = 1\\n"}'],
      ["call_1", "run_tests", "{}"],
    ],
  );
  assert.equal(r.content, "first\n\nbetween\n after");
  assert.deepEqual(r.malformed, []);
});

test("arguments given as a JSON string are kept as that text; absent arguments are {}", () => {
  const r = parseToolCallText(
    '<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"p\\"}"}</tool_call><tool_call>{"name": "run_tests"}</tool_call>',
  );
  assert.deepEqual(
    r.toolCalls.map((c) => c.argumentsText),
    ['{"path": "p"}', "{}"],
  );
  assert.equal(r.content, "");
});

test("malformed blocks are reported and stay in the content verbatim, never repaired", () => {
  const cases: [string, string][] = [
    ['<tool_call>{"name": "read_file", "arguments": {"path": }</tool_call>', "invalid_json"],
    ["<tool_call>[1, 2]</tool_call>", "not_an_object"],
    ['<tool_call>{"arguments": {}}</tool_call>', "missing_name"],
    ['<tool_call>{"name": "", "arguments": {}}</tool_call>', "missing_name"],
    ['<tool_call>{"name": "run_tests", "arguments": [1]}</tool_call>', "invalid_arguments"],
    ['<tool_call>{"name": "run_tests", "arguments": 3}</tool_call>', "invalid_arguments"],
  ];
  for (const [block, reason] of cases) {
    const r = parseToolCallText(`before ${block} after`);
    assert.deepEqual(r.toolCalls, [], block);
    assert.deepEqual(
      r.malformed.map((m) => m.reason),
      [reason],
      block,
    );
    assert.equal(r.content, `before ${block} after`, block);
  }
});

test("an unclosed block is reported; a good block before it still counts", () => {
  const r = parseToolCallText(
    'ok <tool_call>{"name": "run_tests", "arguments": {}}</tool_call> then <tool_call>{"name": "read_file", "argu',
  );
  assert.deepEqual(
    r.toolCalls.map((c) => c.name),
    ["run_tests"],
  );
  assert.deepEqual(
    r.malformed.map((m) => [m.index, m.reason]),
    [[1, "unclosed_block"]],
  );
  assert.equal(r.content, 'ok  then <tool_call>{"name": "read_file", "argu');
  const stray = parseToolCallText("text with a stray </tool_call> only");
  assert.deepEqual([stray.toolCalls, stray.malformed, stray.content], [[], [], "text with a stray </tool_call> only"]);
});

// --- rendering -----------------------------------------------------------------------------

const tools = toolSchemasFor(CONDITIONS.C);
const conversation: ChatTurnMessage[] = [
  { role: "system", content: "You fix python_programs/gcd.py." },
  { role: "user", content: "Fix it." },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "a", name: "read_file", argumentsText: '{"path":"python_programs/gcd.py"}' }],
  },
  { role: "tool", toolCallId: "a", name: "read_file", content: "def gcd(a, b):\n    ..." },
  {
    role: "assistant",
    content: "Two things.",
    toolCalls: [
      {
        id: "b",
        name: "write_file",
        argumentsText: '{"path":"python_programs/gcd.py","content":"def gcd(a, b):\\n    return a\\n"}',
      },
      { id: "c", name: "run_tests", argumentsText: "not json" },
    ],
  },
  { role: "tool", toolCallId: "b", name: "write_file", content: "written" },
  { role: "tool", toolCallId: "c", name: "run_tests", content: "1 failed" },
];

test("round trip: rendered calls parse back to the same names and arguments", () => {
  for (const m of conversation) {
    if (m.role !== "assistant") continue;
    const text = [m.content, ...m.toolCalls.map(renderToolCallBlock)].filter((p) => p !== "").join("\n");
    const parsed = parseToolCallText(text);
    assert.equal(parsed.content, m.content);
    assert.deepEqual(
      parsed.toolCalls.map((c) => [c.name, c.argumentsText]),
      m.toolCalls.map((c) => [c.name, c.argumentsText]),
    );
  }
  const plain = textProtocolMessages(conversation, tools);
  assert.deepEqual(
    plain.map((m) => m.role),
    ["system", "user", "assistant", "user", "assistant", "user"],
  );
  assert.match(plain[0]?.content ?? "", /^You fix python_programs\/gcd\.py\.\n\n# Tools\n/);
  assert.equal(
    plain[5]?.content,
    "<tool_response>\nwritten\n</tool_response>\n<tool_response>\n1 failed\n</tool_response>",
  );
});

test("a template with tool support renders natively; the synthetic template gets the text protocol, with identical text", () => {
  const native = createConversationRenderer(toolTemplateConfig());
  const synthetic = createConversationRenderer(Buffer.from(buildSyntheticTokenizer().tokenizerConfigJson));
  assert.ok(native.ok && synthetic.ok);
  assert.equal(native.value.toolRendering, "chat_template");
  assert.equal(synthetic.value.toolRendering, "text_protocol");
  const a = native.value.render(conversation, tools);
  const b = synthetic.value.render(conversation, tools);
  assert.ok(a.ok && b.ok);
  assert.equal(b.value, a.value);
  assert.match(a.value, /<tool_call>\n\{"name": "run_tests", "arguments": "not json"\}\n<\/tool_call>/);
  assert.ok(a.value.endsWith("<|im_start|>assistant\n"));
  // Without tools (condition A) nothing about tools is rendered.
  const oneShot = synthetic.value.render([{ role: "user", content: "fix" }], []);
  assert.ok(oneShot.ok && !oneShot.value.includes("# Tools"));
  assert.equal(createConversationRenderer(Buffer.from("{}")).ok, false);
});

// --- the worker's bench profile ------------------------------------------------------------

test("worker requests: the profile fields are optional, bounded, and absent from Lab requests", () => {
  assert.deepEqual(parseWorkerRequest('{"type":"load","modelDirectory":"/m"}'), { type: "load", modelDirectory: "/m" });
  assert.deepEqual(parseWorkerRequest('{"type":"load","modelDirectory":"/m","profile":"bench"}'), {
    type: "load",
    modelDirectory: "/m",
    profile: "bench",
  });
  const gen = (extra: string): string =>
    `{"type":"generate","id":1,"reusePrefix":true,"input":{"kind":"ids","ids":[1]}${extra}}`;
  assert.deepEqual(parseWorkerRequest(gen("")), {
    type: "generate",
    id: 1,
    reusePrefix: true,
    input: { kind: "ids", ids: [1] },
  });
  assert.deepEqual(parseWorkerRequest(gen(',"profile":"bench","maxNewTokens":2048')), {
    type: "generate",
    id: 1,
    reusePrefix: true,
    input: { kind: "ids", ids: [1] },
    profile: "bench",
    maxNewTokens: 2048,
  });
  for (const bad of [
    ',"profile":"huge"',
    ',"profile":"bench","maxNewTokens":2049',
    ',"maxNewTokens":129',
    ',"profile":"bench","maxNewTokens":0',
    ',"profile":"bench","maxNewTokens":1.5',
  ]) {
    assert.equal(parseWorkerRequest(gen(bad)), null, bad);
  }
  assert.equal(parseWorkerRequest('{"type":"load","modelDirectory":"/m","maxNewTokens":5}'), null);
  const report = (n: number) => ({
    inputIds: [],
    inputTokens: 1,
    rawOutputIds: new Array<number>(n).fill(3),
    outputTokens: n,
    text: "t",
    stopCause: "max_new_tokens",
    prefixTokensReused: 0,
    timingsMs: {},
    threads: {},
    peakRssBytes: 1,
  });
  assert.equal(parseWorkerResponse(JSON.stringify({ type: "result", id: 1, report: report(2048) }))?.type, "result");
  assert.equal(parseWorkerResponse(JSON.stringify({ type: "result", id: 1, report: report(2049) })), null);
});

function recordingEngine(): GenerationEngine & { calls: { ids: number; options: GenerateOptions | undefined }[] } {
  const calls: { ids: number; options: GenerateOptions | undefined }[] = [];
  return {
    calls,
    async generate(inputIds, options) {
      calls.push({ ids: inputIds.length, options });
      const g = fakeEngineGeneration(inputIds, [9, 151645], "stop_token");
      return ok(g);
    },
    identity: () => ({ engine: "fake" }),
    dispose: async () => undefined,
  };
}

test("a bench-profile session: 14,336 input tokens and up to 2,048 new ones; other profiles refused", async () => {
  const files = buildSyntheticTokenizer();
  const tokenizer = createChatTokenizer(Buffer.from(files.tokenizerJson), Buffer.from(files.tokenizerConfigJson));
  assert.ok(tokenizer.ok);
  const engine = recordingEngine();
  const s = new ModelSession({
    tokenizer: tokenizer.value,
    engine,
    label: "synthetic-pipeline-check",
    synthetic: true,
    record: {},
    profile: "bench",
  });
  const bench = GENERATION_PROFILES.bench;
  assert.deepEqual([bench.contextSize, bench.maxNewTokens, bench.maxInputTokens], [16384, 2048, 14336]);
  const loaded = s.loadedMessage();
  assert.ok(loaded.type === "loaded");
  assert.equal(loaded.identity.input_token_budget, 14336);
  assert.deepEqual(loaded.identity.generation_profile, bench);
  assert.equal((loaded.identity.generation_config as Record<string, unknown>).max_new_tokens, 2048);
  const ids = (n: number) => ({ kind: "ids" as const, ids: new Array<number>(n).fill(5) });
  assert.deepEqual(await s.generate(1, ids(14337), true, { profile: "bench" }), {
    type: "context_limit",
    id: 1,
    inputTokens: 14337,
  });
  const fits = await s.generate(2, ids(14336), true, { profile: "bench", maxNewTokens: 2048 });
  assert.equal(fits.type, "result");
  assert.ok(fits.type === "result" && fits.report.inputIds.length === 0, "ids the controller sent are not echoed");
  assert.equal(engine.calls[0]?.options?.maxNewTokens, 2048);
  const lab = await s.generate(3, ids(10), true);
  assert.ok(lab.type === "error" && lab.error === "input_invalid");
  const tooMany = await s.generate(4, ids(10), true, { profile: "bench", maxNewTokens: 4096 });
  assert.ok(tooMany.type === "error" && tooMany.error === "input_invalid");
  assert.equal(engine.calls.length, 1);
  assert.equal(classifyOutcome("failed", "context_limit", false), "out_of_budget");
});

// --- the real backend on a tiny synthetic checkpoint ----------------------------------------

let checkpoint: TinyCheckpoint;
let backend: LocalEngineChat;
const scratch = mkdtempSync(join(tmpdir(), "tca-local-backend-"));

before(async () => {
  checkpoint = await makeTinyCheckpoint(11);
  const created = await LocalEngineChat.create({ modelDirectory: checkpoint.directory, ...workerFromBuild() });
  assert.ok(created.ok, created.ok ? "" : `${created.error}: ${created.message}`);
  backend = created.value;
});

after(async () => {
  await backend?.close();
  await checkpoint?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

test("creation refuses a directory that is not a checkpoint, with the gate's code", async () => {
  const r = await LocalEngineChat.create({ modelDirectory: join(scratch, "missing") });
  assert.ok(!r.ok);
  assert.equal(r.error, "model_directory_invalid");
});

test("describe: a synthetic checkpoint, its hashes, the engine, the bench profile and the text protocol", async () => {
  const d = await backend.describe(AbortSignal.timeout(5000));
  assert.equal(d.backend, "local-engine");
  assert.equal(d.synthetic, true);
  assert.equal(d.proposal_source, "synthetic-pipeline-check");
  assert.equal(d.tool_call_rendering, "text_protocol");
  assert.deepEqual(d.generation_profile, GENERATION_PROFILES.bench);
  assert.match(String(d.modelName), /^local:synthetic-qwen2-tiny-seed11:[0-9a-f]{12}$/);
  const hashes = d.source_sha256 as Record<string, string>;
  assert.match(hashes["model.safetensors"] ?? "", /^[0-9a-f]{64}$/);
  assert.equal((d.engine as Record<string, unknown>).context_size, 16384);
});

test("an over-budget conversation is model_context_limit: never truncated, nothing generated", async () => {
  const r = await backend.complete({
    messages: [{ role: "user", content: "word ".repeat(16_000) }],
    tools: [],
    maxTokens: 16,
    signal: AbortSignal.timeout(60_000),
  });
  assert.ok(!r.ok);
  assert.equal(r.error, "model_context_limit");
  assert.ok(((r.exchange.request as Record<string, unknown>).inputTokens as number) > 14336);
  const bad = await backend.complete({
    messages: [{ role: "user", content: "x" }],
    tools: [],
    maxTokens: 4096,
    signal: AbortSignal.timeout(60_000),
  });
  assert.ok(!bad.ok && bad.error === "model_engine_error");
});

test(
  "conditions A and C on gcd with the tiny checkpoint: real generations, sandbox grading, a labelled pipeline check",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox, dataset } = benchSetup();
    const outDir = join(scratch, "run");
    const result = await runBenchmark({
      dataset,
      sandbox,
      backend,
      modelDescription: await backend.describe(AbortSignal.timeout(5000)),
      modelName: backend.modelName,
      conditions: ["A", "C"],
      programs: ["gcd"],
      outDir,
      jobs: 2, // both tasks share the one worker: calls queue
      resume: false,
      // A small turn budget keeps the random model's run short; the bench profile allows up to 2,048.
      budget: { maxTurns: 2, maxTokensPerTurn: 48, taskTimeoutMs: 120_000 },
      testTimeoutMs: 60_000,
      includeSlow: false,
      environment: { note: "test" },
    });
    assert.ok(result.ok, result.ok ? "" : result.message);
    const tasks: TaskResult[] = result.value.results;
    assert.deepEqual(tasks.map((t) => t.taskId).sort(), ["A-gcd", "C-gcd"]);
    for (const t of tasks) {
      assert.ok(OUTCOME_CLASSES.includes(t.outcome) && t.outcome !== "model_error", `${t.taskId}: ${t.outcome}`);
      assert.ok(t.turns >= 1);
      assert.equal(t.usageReported, true);
      assert.ok(t.promptTokens > 0 && t.completionTokens > 0);
      assert.ok(t.grade.counts.passed + t.grade.counts.failed > 0, "the grading run executed the tests in the sandbox");
      const events = readTraceRecords(join(outDir, RUN_FILES.traces, `${t.taskId}.ndjson`));
      const responses = dataOf(events, "model_response");
      assert.equal(responses.length, t.turns);
      for (const r of responses) {
        const usage = r.usage as { promptTokens: number; completionTokens: number; source: string };
        const response = (r.exchange as { response: { text: string; rawOutputIds: number[]; outputTokens: number } })
          .response;
        assert.equal(usage.source, "local");
        assert.ok(usage.promptTokens > 0);
        assert.equal(usage.completionTokens, response.rawOutputIds.length);
        assert.ok(response.outputTokens >= 1 && response.outputTokens <= 48);
        // The content is the model's own decoded text (minus parsed blocks), not a script.
        if (t.condition === "A") assert.equal(r.content, response.text);
        else assert.ok(response.text.includes(String(r.content)));
      }
      assert.ok(events.some((e) => e.type === "grade"));
    }
    const manifest = JSON.parse(readFileSync(join(outDir, RUN_FILES.manifest), "utf8")) as {
      model: Record<string, unknown>;
      fingerprint: Record<string, unknown>;
    };
    assert.equal(manifest.model.synthetic, true);
    assert.equal(manifest.model.backend, "local-engine");
    assert.equal(manifest.fingerprint.model, backend.modelName);
    const md = readFileSync(join(outDir, RUN_FILES.resultsMd), "utf8");
    assert.match(md, /^# PIPELINE CHECK/);
    assert.ok(existsSync(join(outDir, RUN_FILES.resultsJson)));
  },
);

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));

function tca(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [TCA, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? Number(error.code) : 0, out: stdout, err: stderr });
    });
  });
}

test(
  "tca bench quixbugs run --backend local: option errors, then a one-shot run on the tiny checkpoint",
  { skip: sandboxPackages().skip },
  async () => {
    const out = join(scratch, "cli-run");
    const missing = await tca(["bench", "quixbugs", "run", "--backend", "local", "--out", out]);
    assert.equal(missing.code, 2, "--model-directory is required for --backend local");
    const unknown = await tca(["bench", "quixbugs", "run", "--backend", "remote", "--out", out]);
    assert.equal(unknown.code, 2);
    const mixed = await tca([
      "bench",
      "quixbugs",
      "run",
      "--backend",
      "local",
      "--model-directory",
      checkpoint.directory,
      "--model",
      "m",
      "--programs",
      "gcd",
      "--out",
      out,
      "--json",
      "--dataset",
      MINI_DATASET_DIR,
    ]);
    assert.equal(mixed.code, 1);
    assert.equal((JSON.parse(mixed.out) as { error: string }).error, "invalid_option");
    const empty = mkdtempSync(join(scratch, "empty-"));
    const notCheckpoint = await tca([
      "bench",
      "quixbugs",
      "run",
      "--backend",
      "local",
      "--model-directory",
      empty,
      "--programs",
      "gcd",
      "--out",
      out,
      "--json",
      "--dataset",
      MINI_DATASET_DIR,
    ]);
    assert.equal(notCheckpoint.code, 1);
    assert.equal((JSON.parse(notCheckpoint.out) as { error: string }).error, "model_not_verified");
    assert.equal(existsSync(out), false);
    const run = await tca([
      "bench",
      "quixbugs",
      "run",
      "--backend",
      "local",
      "--model-directory",
      checkpoint.directory,
      "--conditions",
      "A",
      "--programs",
      "gcd",
      "--out",
      out,
      "--json",
      "--dataset",
      MINI_DATASET_DIR,
    ]);
    assert.equal(run.code, 0, run.err);
    const summary = JSON.parse(run.out) as { ok: boolean; pipelineCheck: boolean; summary: { tasks: number }[] };
    assert.equal(summary.ok, true);
    assert.equal(summary.pipelineCheck, true);
    assert.equal(summary.summary[0]?.tasks, 1);
    const manifest = JSON.parse(readFileSync(join(out, RUN_FILES.manifest), "utf8")) as {
      model: Record<string, unknown>;
    };
    assert.equal(manifest.model.synthetic, true);
    assert.equal(manifest.model.tool_call_rendering, "text_protocol");
    assert.match(readFileSync(join(out, RUN_FILES.resultsMd), "utf8"), /^# PIPELINE CHECK/);
  },
);
