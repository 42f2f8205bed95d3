// The time budget, driven by an injected clock (nothing sleeps), with an in-process backend:
// the ChatBackend contract needs no HTTP, which is how a local-engine backend plugs in.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { isInterruption, runTask, type TaskInterruption } from "../../src/bench/taskRunner.ts";
import { AGENT_BUDGET, CONDITIONS } from "../../src/bench/agent/conditions.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { MemoryTrace } from "../../src/bench/agent/taskTrace.ts";
import type { BenchTraceCatalog } from "../../src/bench/runs/benchTrace.ts";
import type { ChatBackend, ChatTurnRequest, ChatTurnResult } from "../../src/sources/openaiCompatibleChat.ts";
import { benchSetup, program } from "./benchFixtures.ts";
import { startScriptedServer } from "./scriptedChatServer.ts";

const execFileAsync = promisify(execFile);

function finished(r: TaskResult | TaskInterruption): TaskResult {
  assert.ok(!isInterruption(r), "the task was not interrupted");
  return r;
}

class ClockedBackend implements ChatBackend {
  calls = 0;
  constructor(
    private readonly advance: () => void,
    private readonly reply: (
      n: number,
    ) => Omit<Extract<ChatTurnResult, { ok: true }>, "ok" | "exchange" | "usage" | "servedModel">,
  ) {}
  async describe(): Promise<Readonly<Record<string, unknown>>> {
    return { backend: "in-process" };
  }
  async complete(request: ChatTurnRequest): Promise<ChatTurnResult> {
    this.calls++;
    this.advance();
    assert.equal(request.maxTokens, 2048);
    return {
      ok: true,
      ...this.reply(this.calls),
      usage: { promptTokens: null, completionTokens: null, source: "none" },
      servedModel: null,
      exchange: { request: null, response: null, httpStatus: null, elapsedMs: 0 },
    };
  }
  async close(): Promise<void> {}
}

test("D: when the 300-second task budget is spent, the task ends out of budget (injected clock)", async () => {
  const { sandbox, dataset } = benchSetup();
  let now = 1_000;
  const backend = new ClockedBackend(
    () => {
      now += 160_000;
    },
    () => ({ content: "Done.", toolCalls: [], finishReason: "stop" }),
  );
  const trace = new MemoryTrace<BenchTraceCatalog>();
  const result = finished(
    await runTask({
      dataset,
      program: program(dataset, "gcd"),
      condition: CONDITIONS.D,
      backend,
      sandbox,
      budget: AGENT_BUDGET,
      trace,
      clock: () => now,
      testTimeoutMs: 60_000,
      includeSlow: false,
    }),
  );
  assert.equal(backend.calls, 2);
  assert.equal(result.stopReason, "time_budget");
  assert.equal(result.outcome, "out_of_budget");
  assert.equal(result.guardrails.refusedStopAttempts, 2);
  assert.equal(result.seconds, 320);
  assert.equal(result.usageReported, false);
  assert.equal(result.tokens, 0);
  assert.ok(trace.records.some((r) => r.type === "budget_exhausted" && r.data.reason === "time_budget"));
});

test("C: eight turns of tool calls and no stop: out of budget after exactly eight model turns", async () => {
  const { sandbox, dataset } = benchSetup();
  const backend = new ClockedBackend(
    () => {},
    (n) => ({
      content: "",
      toolCalls: [{ id: `c${n}`, name: "read_file", argumentsText: '{"path":"python_programs/gcd.py"}' }],
      finishReason: "tool_calls",
    }),
  );
  const result = finished(
    await runTask({
      dataset,
      program: program(dataset, "gcd"),
      condition: CONDITIONS.C,
      backend,
      sandbox,
      budget: AGENT_BUDGET,
      trace: new MemoryTrace<BenchTraceCatalog>(),
      clock: () => 0,
      testTimeoutMs: 60_000,
      includeSlow: false,
    }),
  );
  assert.equal(backend.calls, 8);
  assert.equal(result.turns, 8);
  assert.equal(result.stopReason, "turn_budget");
  assert.equal(result.outcome, "out_of_budget");
  assert.equal(result.claimedFixed, false);
});

test("deadlines survive forced garbage collection (node --expose-gc, gc() every 20 ms)", async () => {
  const server = await startScriptedServer([{ hang: true }]);
  try {
    const probe = fileURLToPath(new URL("./deadlineGcProbe.ts", import.meta.url));
    const { stdout } = await execFileAsync(
      process.execPath,
      ["--expose-gc", "--import", "tsx", probe, server.endpoint],
      { timeout: 60_000 },
    );
    const r = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
      bareMs: number | null;
      taskMs: number;
      stopReason: string;
      outcome: string;
      modelError: string | null;
    };
    assert.ok(
      r.bareMs !== null && r.bareMs >= 250 && r.bareMs < 3000,
      `a 300 ms deadline fired after ${String(r.bareMs)} ms`,
    );
    assert.equal(r.stopReason, "time_budget");
    assert.equal(r.outcome, "out_of_budget");
    assert.equal(r.modelError, "model_timeout");
    assert.ok(r.taskMs >= 1500 && r.taskMs < 20_000, `the 1.5 s task ended after ${r.taskMs} ms`);
  } finally {
    await server.close();
  }
});
