// Issue 13, cases 1-9: outcomes that were recorded wrongly, each replayed against the scripted
// OpenAI-compatible server through the real client, the real agent loop, the real sandbox and
// the real grading: the expected outcome, the trace, and what the run directory records.
import { sandboxTest as test } from "../support/systemPackages.ts";
import { readTraceRecords } from "./traceFixtures.ts";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isInterruption, runTask as runHarnessTask, type TaskInterruption } from "../../src/bench/taskRunner.ts";
import { runBenchmark, type BenchmarkOptions } from "../../src/bench/benchmarkRun.ts";
import { AGENT_BUDGET, CONDITIONS, type ConditionId } from "../../src/bench/agent/conditions.ts";
import { loadComparison, renderComparison } from "../../src/bench/runs/runComparison.ts";
import { readTaskResults } from "../../src/bench/runs/runDirectory.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { MemoryTrace } from "../../src/bench/agent/taskTrace.ts";
import type { BenchTraceCatalog } from "../../src/bench/runs/benchTrace.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { benchSetup, buggy, program, referenceFix } from "./benchFixtures.ts";
import {
  startRoutedServer,
  startScriptedServer,
  type ScriptedServer,
  type ScriptedTurn,
} from "./scriptedChatServer.ts";

const T = "python_programs/gcd.py";
const FAST_RETRY = { maxRetries: 4, baseDelayMs: 10, maxDelayMs: 2000 };

function finished(r: TaskResult | TaskInterruption): TaskResult {
  assert.ok(!isInterruption(r), "the task was not interrupted");
  return r;
}

async function runTask(
  server: ScriptedServer,
  condition: ConditionId,
  o: { signal?: AbortSignal; taskTimeoutMs?: number } = {},
): Promise<{ ended: TaskResult | TaskInterruption; trace: MemoryTrace<BenchTraceCatalog> }> {
  const { sandbox, dataset } = benchSetup();
  const trace = new MemoryTrace<BenchTraceCatalog>();
  const ended = await runHarnessTask({
    dataset,
    program: program(dataset, "gcd"),
    condition: CONDITIONS[condition],
    backend: new OpenAiCompatibleClient({ endpoint: server.endpoint, model: "scripted", retry: FAST_RETRY }),
    sandbox,
    budget: { ...AGENT_BUDGET, taskTimeoutMs: o.taskTimeoutMs ?? AGENT_BUDGET.taskTimeoutMs },
    trace,
    clock: () => performance.now(),
    testTimeoutMs: 60_000,
    includeSlow: false,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return { ended, trace };
}

async function scripted(
  condition: ConditionId,
  script: ScriptedTurn[],
  fallback?: ScriptedTurn,
): Promise<{ result: TaskResult; trace: MemoryTrace<BenchTraceCatalog> }> {
  const server = await startScriptedServer(script, fallback);
  try {
    const { ended, trace } = await runTask(server, condition);
    return { result: finished(ended), trace };
  } finally {
    await server.close();
  }
}

/** The data of the trace's records of one type. */
const events = (trace: MemoryTrace<BenchTraceCatalog>, type: string): Record<string, unknown>[] =>
  trace.records.filter((r) => r.type === type).map((r) => ({ ...r.data }));

async function withRunDir<T>(fn: (out: string) => Promise<T>): Promise<T> {
  const out = mkdtempSync(join(tmpdir(), "tca-accounting-"));
  try {
    return await fn(out);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function runOptions(server: ScriptedServer, outDir: string, extra: Partial<BenchmarkOptions> = {}): BenchmarkOptions {
  const { sandbox, dataset } = benchSetup();
  return {
    dataset,
    sandbox,
    backend: new OpenAiCompatibleClient({ endpoint: server.endpoint, model: "scripted", retry: FAST_RETRY }),
    modelDescription: { label: "scripted" },
    modelName: "scripted",
    conditions: ["A"],
    programs: ["gcd"],
    outDir,
    jobs: 1,
    resume: false,
    testTimeoutMs: 60_000,
    includeSlow: false,
    environment: {},
    ...extra,
  };
}

/** A trace through the strict reader, each record as its type and its data's fields. */
function traceEvents(path: string): { event: string; [k: string]: unknown }[] {
  return readTraceRecords(path).map((r) => ({ event: r.type, ...r.data }));
}

test("case 1: Ctrl-C during grading is not a wrong fix: not graded, not recorded, redone by --resume (attempt 2, attempt 1's trace kept)", async () => {
  const { dataset } = benchSetup();
  const fix = referenceFix(dataset, "gcd");
  const sleepyFix = "import time\ntime.sleep(15)\n" + fix;
  const controller = new AbortController();
  let interruptNext = true;
  const server = await startRoutedServer(() => {
    if (interruptNext) {
      interruptNext = false;
      // Ctrl-C while the harness grades the (correct but 15-second) answer.
      setTimeout(() => controller.abort(), 1500);
      return { content: "```python\n" + sleepyFix + "```" };
    }
    return { content: "```python\n" + fix + "```" };
  });
  try {
    await withRunDir(async (out) => {
      const started = performance.now();
      const first = await runBenchmark(runOptions(server, out, { signal: controller.signal }));
      assert.ok(first.ok);
      assert.ok(performance.now() - started < 12_000, "grading was cut short by the cancellation");
      assert.deepEqual(first.value.results, []);
      const stored = readTaskResults(out);
      assert.deepEqual(stored.ok ? stored.value : ["unreadable"], []);
      const trace1 = traceEvents(join(out, "traces/A-gcd.ndjson"));
      assert.equal(trace1.filter((e) => e.event === "grade").length, 0);
      assert.deepEqual(
        trace1.filter((e) => e.event === "task_interrupted").map((e) => e.stage),
        ["grading"],
      );
      assert.doesNotMatch(readFileSync(join(out, "results.md"), "utf8"), /wrong fix \(false fixed\)/);

      const resumed = await runBenchmark(runOptions(server, out, { resume: true }));
      assert.ok(resumed.ok);
      assert.deepEqual(
        resumed.value.results.map((r) => [r.taskId, r.outcome, r.attempt, r.tracePath]),
        [["A-gcd", "fixed", 2, "traces/A-gcd.attempt-2.ndjson"]],
      );
      // Attempt 1's trace is still there, unchanged.
      assert.deepEqual(
        traceEvents(join(out, "traces/A-gcd.ndjson")).map((e) => e.event),
        trace1.map((e) => e.event),
      );
    });
  } finally {
    await server.close();
  }
});

test("case 1: Ctrl-C during a model call is an interruption, never out of budget, and is not graded", async () => {
  const server = await startScriptedServer([{ hang: true }]);
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const { ended, trace } = await runTask(server, "C", { signal: controller.signal });
    assert.ok(isInterruption(ended));
    assert.equal(ended.stage, "agent");
    assert.equal(events(trace, "grade").length, 0);
    assert.equal(events(trace, "budget_exhausted").length, 0);
    assert.equal(events(trace, "task_interrupted").length, 1);
  } finally {
    await server.close();
  }
});

test("case 2: a server that never answers ends the task at the task's deadline as out of budget, not as a model error", async () => {
  const server = await startScriptedServer([{ hang: true }]);
  try {
    const started = performance.now();
    const { ended, trace } = await runTask(server, "C", { taskTimeoutMs: 1200 });
    const elapsed = performance.now() - started;
    const result = finished(ended);
    assert.equal(result.stopReason, "time_budget");
    assert.equal(result.outcome, "out_of_budget");
    assert.equal(events(trace, "model_error")[0]?.error, "model_timeout");
    assert.ok(elapsed >= 1200 && elapsed < 20_000, `ended after ${elapsed} ms`);
  } finally {
    await server.close();
  }
});

test("case 3: a truncated one-shot reply is never a claim, even with a complete code block before the cut", async () => {
  const { dataset } = benchSetup();
  const { result, trace } = await scripted("A", [
    {
      content:
        "```python\n" + referenceFix(dataset, "gcd") + "```\nThe fix swaps the arguments because the recursion must",
      finishReason: "length",
    },
  ]);
  assert.equal(result.stopReason, "truncated");
  assert.equal(result.outcome, "out_of_budget");
  assert.equal(result.claimedFixed, false);
  assert.equal(result.falseFixed, false);
  assert.equal(result.changed, false);
  assert.deepEqual(
    events(trace, "stop_attempt").map((e) => [e.accepted, e.codeBlock, e.truncated]),
    [[false, true, true]],
  );
});

test("case 4: echoing the file as the prompt shows it (one extra final newline) is no change, not a wrong fix", async () => {
  const { dataset } = benchSetup();
  const original = buggy(dataset, "gcd");
  const { result, trace } = await scripted("A", [{ content: "```python\n" + original + "\n```" }]);
  assert.equal(result.outcome, "no_change");
  assert.equal(result.changed, false);
  assert.equal(events(trace, "diff").length, 0);
  // Whitespace that is not at the end of the file is a change.
  const indented = await scripted("A", [
    { content: "```python\n" + original.replace("    if b == 0:", "    if b == 0 :") + "```" },
  ]);
  assert.equal(indented.result.outcome, "wrong_fix");
  assert.equal(indented.result.changed, true);
});

const TEXT_CALL =
  '<tool_call>\n{"name": "write_file", "arguments": {"path": "python_programs/gcd.py", "content": "x"}}\n</tool_call>';

test("case 5: tool calls that arrive as text are a protocol finding and a model error, never a claim (B and C)", async () => {
  for (const condition of ["B", "C"] as const) {
    const { result, trace } = await scripted(condition, [{ content: TEXT_CALL }]);
    assert.equal(result.outcome, "model_error", condition);
    assert.equal(result.stopReason, "tool_calls_as_text", condition);
    assert.equal(result.claimedFixed, false, condition);
    assert.equal(result.falseFixed, false, condition);
    assert.equal(result.protocolFindings, 1, condition);
    assert.deepEqual(
      events(trace, "protocol_finding").map((e) => [e.kind, e.blocks]),
      [["tool_calls_as_text", 1]],
      condition,
    );
  }
});

test("case 5: a malformed tool-call block in the text is the model's failure: no claim, graded, not a model error", async () => {
  const { result, trace } = await scripted("C", [
    { content: '<tool_call>\n{"name": "write_file", "arguments": {"path": \n</tool_call>' },
  ]);
  assert.equal(result.stopReason, "no_answer");
  assert.equal(result.outcome, "no_change");
  assert.equal(result.claimedFixed, false);
  assert.equal(result.protocolFindings, 0);
  assert.deepEqual(
    events(trace, "protocol_finding").map((e) => e.kind),
    ["malformed_tool_call_text"],
  );
  assert.equal(events(trace, "grade").length, 1);
});

test("case 5: the run's tables count text tool calls in their own column and warn with the server fix", async () => {
  const server = await startScriptedServer([], { content: TEXT_CALL });
  try {
    await withRunDir(async (out) => {
      const r = await runBenchmark(
        runOptions(server, out, {
          conditions: ["B", "C"],
          modelDescription: { label: "scripted", serverProps: { chat_template_caps: { supports_tool_calls: false } } },
        }),
      );
      assert.ok(r.ok);
      const md = readFileSync(join(out, "results.md"), "utf8");
      assert.match(md, /> \*\*Warning:\*\* The endpoint is not parsing tool calls: in 2 task\(s\)/);
      assert.match(md, /--jinja/);
      assert.match(md, /--enable-auto-tool-choice --tool-call-parser hermes/);
      assert.match(md, /"supports_tool_calls":false/);
      // Tasks | Graded | Fixed | Fixed rate | … | Model errors | Tool calls as text | Retried requests
      // ... | Claimed fixed | False "fixed" (claimed, tests fail) | Claimed, tests pass, held-out fail | Model errors | Tool calls as text | Retried
      assert.match(
        md,
        /\| B · agent, cannot run tests \| 1 \| 0 \| 0 \| 0\.0% \| 0\.0% – 0\.0% \| 0 \| 0 \| 0 \| 1 \| 1 \| 0 \|/,
      );
      assert.match(md, /False "fixed" \(claimed, tests fail\) in all: 0\./);
    });
  } finally {
    await server.close();
  }
});

test("case 6: model errors have their own column and are never in the fixed rate's denominator", async () => {
  const { dataset } = benchSetup();
  const fix = referenceFix(dataset, "gcd");
  const server = await startRoutedServer((body) => {
    const text = JSON.stringify(body.messages);
    return text.includes("python_programs/gcd.py")
      ? { content: "```python\n" + fix + "```" }
      : { httpStatus: 404, errorBody: { error: { message: "model 'x' not found" } } };
  });
  try {
    await withRunDir(async (out) => {
      const r = await runBenchmark(runOptions(server, out, { programs: ["gcd", "pascal"] }));
      assert.ok(r.ok);
      const md = readFileSync(join(out, "results.md"), "utf8");
      // Fixed | Fixed, confirmed by held-out | Tests pass, held-out fail | Wrong fix | No change | Broken file | Out of budget | Model error
      assert.match(md, /\| A · one-shot, no tools \| 100\.0% \| 1 \| 0 \| 0 \| 0 \| 0 \| 0 \| 1 \|/);
      assert.match(md, /\| A · one-shot, no tools \| 2 \| 1 \| 1 \| 100\.0% \|/);
      const trace = traceEvents(join(out, "traces/A-pascal.ndjson"));
      const error = trace.find((e) => e.event === "model_error");
      assert.equal(error?.error, "model_http_error");
      assert.equal(error?.message, "HTTP 404: model 'x' not found");
      const cmp = loadComparison([out]);
      assert.match(renderComparison(cmp.ok ? cmp.value : []), /\| 100\.0% \| 20\.7%–100\.0% \| 1 \| 1 \|/);
    });
  } finally {
    await server.close();
  }
});

test("case 7: 429 and 503 are retried with bounded backoff honoring Retry-After, counted in the trace and the result", async () => {
  const { dataset } = benchSetup();
  const { result, trace } = await scripted("A", [
    { httpStatus: 503, headers: { "retry-after": "0" } },
    { httpStatus: 429, headers: { "retry-after": "1" } },
    { content: "```python\n" + referenceFix(dataset, "gcd") + "```" },
  ]);
  assert.equal(result.outcome, "fixed");
  assert.equal(result.modelRetries, 2);
  const response = events(trace, "model_response")[0] as {
    exchange: { retries: { status: number; waitMs: number }[] };
  };
  assert.deepEqual(response.exchange.retries, [
    { status: 503, waitMs: 0 },
    { status: 429, waitMs: 1000 },
  ]);
});

test("case 7: retries never extend the task's time budget", async () => {
  const server = await startScriptedServer([], { httpStatus: 503, headers: { "retry-after": "30" } });
  try {
    const started = performance.now();
    const { ended, trace } = await runTask(server, "A", { taskTimeoutMs: 1000 });
    const result = finished(ended);
    assert.ok(performance.now() - started < 15_000);
    assert.equal(result.stopReason, "time_budget");
    assert.equal(result.outcome, "out_of_budget");
    assert.equal(result.modelRetries, 1);
    assert.equal(events(trace, "model_error")[0]?.retries, 1);
  } finally {
    await server.close();
  }
});

test("case 8: resuming with a smaller selection keeps run.json and the tables in agreement with tasks.ndjson", async () => {
  const { dataset } = benchSetup();
  const fix = referenceFix(dataset, "gcd");
  const server = await startRoutedServer((body) =>
    body.tools ? { content: "Done." } : { content: "```python\n" + fix + "```" },
  );
  try {
    await withRunDir(async (out) => {
      assert.ok(
        (await runBenchmark(runOptions(server, out, { conditions: ["A", "B"], programs: ["gcd", "pascal"] }))).ok,
      );
      const again = await runBenchmark(runOptions(server, out, { conditions: ["A"], programs: ["gcd"], resume: true }));
      assert.ok(again.ok);
      const manifest = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
        programs: string[];
        conditions: string[];
        resumedAt: string[];
      };
      assert.deepEqual([...manifest.programs].sort(), ["gcd", "pascal"]);
      assert.deepEqual([...manifest.conditions].sort(), ["A", "B"]);
      assert.equal(manifest.resumedAt.length, 1);
      const json = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as {
        tasksDone: number;
        tasksExpected: number;
        complete: boolean;
      };
      assert.deepEqual([json.tasksDone, json.tasksExpected, json.complete], [4, 4, true]);
      const stored = readTaskResults(out);
      assert.equal(stored.ok && stored.value.length, 4);
      assert.match(readFileSync(join(out, "results.md"), "utf8"), /tasks: 4 of 4; conditions A, B/);
    });
  } finally {
    await server.close();
  }
});

test("case 9: a tool call without a function name is one counted tool error, and the task goes on", async () => {
  const { dataset } = benchSetup();
  const { result, trace } = await scripted("C", [
    { rawToolCalls: [{ id: "nameless", type: "function", function: { arguments: "{}" } }] },
    { toolCalls: [{ name: "write_file", arguments: { path: T, content: referenceFix(dataset, "gcd") } }] },
    { content: "Fixed." },
  ]);
  assert.equal(result.outcome, "fixed");
  assert.equal(result.guardrails.toolErrors, 1);
  assert.deepEqual(
    events(trace, "tool_error").map((e) => e.error),
    ["unknown_tool"],
  );
  assert.equal(result.turns, 3);
});

test("case 9: reads of the reference fix by any path spelling count as reference-read attempts", async () => {
  const spellings = [
    "../correct_python_programs/gcd.py",
    "/work/shared/quixbugs/correct_python_programs/gcd.py",
    "correct_python_programs\\gcd.py",
    "./CORRECT_PYTHON_PROGRAMS/gcd.py",
    "python_programs/../correct_python_programs/gcd.py",
  ];
  const { result, trace } = await scripted("C", [
    { toolCalls: spellings.map((path) => ({ name: "read_file", arguments: { path } })) },
    { content: "Done." },
  ]);
  assert.deepEqual(
    events(trace, "tool_refused").map((e) => e.error),
    spellings.map(() => "read_reference_fix"),
  );
  assert.equal(result.guardrails.referenceReadAttempts, spellings.length);
  assert.equal(result.guardrails.blockedReads, spellings.length);
});

test("real servers: llama-server's HTTP 500 for output its chat parser rejects is model_output_unparsed, with the server's message", async () => {
  const { result, trace } = await scripted("C", [
    {
      httpStatus: 500,
      errorBody: {
        error: {
          code: 500,
          message: "The model produced output that does not match the expected Hermes 2 Pro format",
          type: "server_error",
        },
      },
    },
  ]);
  assert.equal(result.outcome, "model_error");
  assert.equal(result.stopReason, "model_error");
  const error = events(trace, "model_error")[0];
  assert.equal(error?.error, "model_output_unparsed");
  assert.equal(
    error?.message,
    "HTTP 500: The model produced output that does not match the expected Hermes 2 Pro format",
  );
  // A 500 is not retried (only 429, 502, 503, 504 are).
  assert.equal(result.modelRetries, 0);
});
