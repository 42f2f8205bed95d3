// The run layer: run directory files, incremental results, --resume, --shard, merge, compare.
import { test } from "node:test";
import { readTraceRecords } from "./traceFixtures.ts";
import { BENCH_TRACE_FORMAT } from "../../src/bench/runs/benchTrace.ts";
import { sandboxPackages } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBenchmark, type BenchmarkOptions } from "../../src/bench/benchmarkRun.ts";
import { planTasks, parseShard } from "../../src/bench/runs/taskPlan.ts";
import type { ConditionId } from "../../src/bench/agent/conditions.ts";
import { loadComparison, renderComparison } from "../../src/bench/runs/runComparison.ts";
import { readTaskResults } from "../../src/bench/runs/runDirectory.ts";
import { mergeRuns } from "../../src/bench/runs/runMerge.ts";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { benchSetup, referenceFix } from "./benchFixtures.ts";
import { startRoutedServer, startScriptedServer, type ScriptedTurn } from "./scriptedChatServer.ts";

/** A model that fixes gcd (one-shot or with tools) and gives up on everything else. */
function route(fixedGcd: string): (body: Record<string, unknown>) => ScriptedTurn {
  return (body) => {
    const messages = body.messages as { role: string; content: string | null }[];
    const text = messages.map((m) => m.content ?? "").join("\n");
    const isGcd = text.includes("python_programs/gcd.py");
    if (!body.tools) return { content: isGcd ? "```python\n" + fixedGcd + "```" : "I cannot fix this." };
    const assistantTurns = messages.filter((m) => m.role === "assistant").length;
    if (isGcd && assistantTurns === 0)
      return { toolCalls: [{ name: "write_file", arguments: { path: "python_programs/gcd.py", content: fixedGcd } }] };
    return { content: "Done." };
  };
}

async function withRun<T>(
  fn: (opts: (out: string, extra?: Partial<BenchmarkOptions>) => BenchmarkOptions, calls: () => number) => Promise<T>,
): Promise<T> {
  const { sandbox, dataset } = benchSetup();
  const server = await startRoutedServer(route(referenceFix(dataset, "gcd")));
  try {
    const backend = new OpenAiCompatibleClient({ endpoint: server.endpoint, model: "scripted" });
    const modelDescription = { ...(await backend.describe(AbortSignal.timeout(5000))), label: "scripted" };
    const opts = (outDir: string, extra: Partial<BenchmarkOptions> = {}): BenchmarkOptions => ({
      dataset,
      sandbox,
      backend,
      modelDescription,
      modelName: "scripted",
      conditions: ["A", "B"] as ConditionId[],
      programs: ["gcd", "pascal"],
      outDir,
      jobs: 2,
      resume: false,
      testTimeoutMs: 60_000,
      includeSlow: false,
      environment: { note: "test" },
      ...extra,
    });
    return await fn(opts, () => server.requests.length);
  } finally {
    await server.close();
  }
}

test("planTasks orders by task id and --shard takes a deterministic slice that partitions the tasks", () => {
  const all = planTasks(["gcd", "bitcount", "pascal"], ["A", "D"]);
  assert.deepEqual(
    all.map((t) => t.taskId),
    ["A-bitcount", "A-gcd", "A-pascal", "D-bitcount", "D-gcd", "D-pascal"],
  );
  const s1 = planTasks(["gcd", "bitcount", "pascal"], ["A", "D"], { index: 1, count: 2 }).map((t) => t.taskId);
  const s2 = planTasks(["gcd", "bitcount", "pascal"], ["A", "D"], { index: 2, count: 2 }).map((t) => t.taskId);
  assert.deepEqual(
    [...s1, ...s2].sort(),
    all.map((t) => t.taskId),
  );
  assert.equal(s1.filter((x) => s2.includes(x)).length, 0);
  assert.deepEqual(parseShard("2/3"), { index: 2, count: 3 });
  for (const bad of ["0/3", "4/3", "1/0", "a/b", "1-2", ""]) assert.equal(parseShard(bad), undefined, bad);
});

test(
  "a run writes the manifest, traces, diffs, tasks.ndjson, results.json and results.md; --resume skips finished tasks",
  { skip: sandboxPackages().skip },
  async () => {
    const out = mkdtempSync(join(tmpdir(), "tca-run-"));
    try {
      await withRun(async (opts, calls) => {
        const r = await runBenchmark(opts(out));
        assert.equal(r.ok, true);
        const results = r.ok ? r.value.results : [];
        assert.equal(results.length, 4);
        const byId = Object.fromEntries(results.map((x) => [x.taskId, x]));
        assert.equal(byId["A-gcd"]?.outcome, "fixed");
        assert.equal(byId["B-gcd"]?.outcome, "fixed");
        assert.equal(byId["A-pascal"]?.outcome, "no_change");
        assert.equal(byId["B-pascal"]?.outcome, "no_change");
        for (const f of [
          "run.json",
          "tasks.ndjson",
          "results.json",
          "results.md",
          "traces/A-gcd.ndjson",
          "traces/B-pascal.ndjson",
          "diffs/A-gcd.diff",
          "diffs/B-gcd.diff",
        ]) {
          assert.ok(existsSync(join(out, f)), f);
        }
        assert.equal(existsSync(join(out, "diffs/A-pascal.diff")), false);
        assert.match(readFileSync(join(out, "diffs/B-gcd.diff"), "utf8"), /^\+ +return gcd\(b, a % b\)$/m);
        const md = readFileSync(join(out, "results.md"), "utf8");
        // Fixed | Fixed, confirmed by held-out | Tests pass, held-out fail | Wrong fix | No change | Broken file | Out of budget
        assert.match(md, /\| A · one-shot, no tools \| 50\.0% \| 1 \| 0 \| 0 \| 1 \| 0 \| 0 \|/);
        assert.match(md, /\| Test runs \| Blocked writes \| Attempts to edit tests \| Blocked reads \|/);
        assert.match(md, /False "fixed" \(claimed, tests fail\) in all: 1\./);
        const json = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as {
          complete: boolean;
          summary: { condition: string; fixedRateCi95: number[] }[];
        };
        assert.equal(json.complete, true);
        assert.equal(json.summary.length, 2);
        // Trace lines are records of the v2 envelope (the strict reader finds no problem), numbered
        // 1, 2, 3, … with never-decreasing t_ms, from task_start to task_end.
        const trace = readTraceRecords(join(out, "traces/B-gcd.ndjson"));
        assert.equal(trace[0]?.type, "task_start");
        assert.equal(trace.at(-1)?.type, "task_end");
        assert.ok(trace.every((x) => x.format === BENCH_TRACE_FORMAT && x.v === 2));
        assert.deepEqual(
          trace.map((x) => x.event_id),
          trace.map((_, i) => i + 1),
        );
        assert.ok(trace.every((x, i) => i === 0 || x.t_ms >= trace[i - 1]!.t_ms));
        assert.equal(new Set(trace.map((x) => x.run_id)).size, 1);

        // Resuming a finished run asks the model nothing; an existing run is never overwritten.
        const before = calls();
        const again = await runBenchmark(opts(out, { resume: true }));
        assert.equal(again.ok, true);
        assert.equal(calls(), before);
        const refused = await runBenchmark(opts(out));
        assert.equal(refused.ok ? "" : refused.error, "run_dir_invalid");
        const otherModel = await runBenchmark(opts(out, { resume: true, modelName: "other" }));
        assert.equal(otherModel.ok ? "" : otherModel.error, "run_dir_invalid");
      });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);

test(
  "an interrupted run (a torn last line, missing tasks) resumes only the missing tasks",
  { skip: sandboxPackages().skip },
  async () => {
    const out = mkdtempSync(join(tmpdir(), "tca-run-"));
    try {
      await withRun(async (opts, calls) => {
        const first = await runBenchmark(opts(out, { conditions: ["A"] }));
        assert.equal(first.ok, true);
        // Simulate an interruption: drop one finished task and leave a torn line.
        const lines = readFileSync(join(out, "tasks.ndjson"), "utf8").trim().split("\n");
        writeFileSync(join(out, "tasks.ndjson"), lines[0] + "\n");
        appendFileSync(join(out, "tasks.ndjson"), '{"taskId":"A-pasc');
        const before = calls();
        const resumed = await runBenchmark(opts(out, { conditions: ["A"], resume: true }));
        assert.equal(resumed.ok, true);
        assert.equal(calls() - before, 1);
        const stored = readTaskResults(out);
        assert.equal(stored.ok && stored.value.length, 2);
      });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);

test(
  "two shards merge into the same results as one run, and compare puts runs side by side",
  { skip: sandboxPackages().skip },
  async () => {
    const base = mkdtempSync(join(tmpdir(), "tca-shards-"));
    try {
      await withRun(async (opts) => {
        const s1 = await runBenchmark(opts(join(base, "s1"), { shard: { index: 1, count: 2 } }));
        const s2 = await runBenchmark(opts(join(base, "s2"), { shard: { index: 2, count: 2 } }));
        assert.ok(s1.ok && s2.ok);
        assert.equal((s1.ok ? s1.value.results.length : 0) + (s2.ok ? s2.value.results.length : 0), 4);
        const merged = mergeRuns([join(base, "s1"), join(base, "s2")], join(base, "merged"));
        assert.equal(merged.ok, true);
        const results = merged.ok ? merged.value.results : [];
        assert.deepEqual(
          results.map((r) => r.taskId),
          ["A-gcd", "A-pascal", "B-gcd", "B-pascal"],
        );
        for (const r of results) assert.ok(existsSync(join(base, "merged", r.tracePath ?? "missing")));
        // Each shard and the merged run pass the bench verdict: the shards' traces bind shard i/2, the merge names them.
        for (const dir of ["s1", "s2", "merged"])
          assert.deepEqual(deriveBenchVerdict(join(base, dir)).problems, [], dir);
        assert.equal(deriveBenchVerdict(join(base, "merged")).kind, "complete");
        const again = mergeRuns([join(base, "s1")], join(base, "merged"));
        assert.equal(again.ok ? "" : again.error, "run_dir_invalid");
        const cmp = loadComparison([join(base, "merged"), join(base, "s1")]);
        assert.equal(cmp.ok, true);
        const table = renderComparison(cmp.ok ? cmp.value : []);
        assert.match(table, /^\| Run \| Cond \| Fixed \| 95% CI \| n \| Model errors \| False "fixed" \|$/m);
        assert.match(table, /^\| R1 \| A \| 50\.0% \| 9\.5%–90\.5% \| 2 \| 0 \| \d+ \|$/m);
        const bad = loadComparison([join(base, "nope")]);
        assert.equal(bad.ok ? "" : bad.error, "run_dir_invalid");
      });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  },
);

test("tasks that ended in a model error are redone on --resume", { skip: sandboxPackages().skip }, async () => {
  const out = mkdtempSync(join(tmpdir(), "tca-run-"));
  const down = await startScriptedServer([], { httpStatus: 503 });
  try {
    await withRun(async (opts, calls) => {
      const failing = new OpenAiCompatibleClient({ endpoint: down.endpoint, model: "scripted" });
      const first = await runBenchmark(opts(out, { conditions: ["A"], backend: failing }));
      assert.ok(first.ok);
      assert.deepEqual(first.ok ? first.value.results.map((r) => r.outcome) : [], ["model_error", "model_error"]);
      const before = calls();
      const resumed = await runBenchmark(opts(out, { conditions: ["A"], resume: true }));
      assert.ok(resumed.ok);
      assert.equal(calls() - before, 2);
      const outcomes = resumed.ok ? resumed.value.results.map((r) => `${r.taskId}:${r.outcome}`).sort() : [];
      assert.deepEqual(outcomes, ["A-gcd:fixed", "A-pascal:no_change"]);
      const stored = readTaskResults(out);
      assert.deepEqual(stored.ok ? stored.value.map((r) => r.outcome).sort() : [], ["fixed", "no_change"]);
    });
  } finally {
    await down.close();
    rmSync(out, { recursive: true, force: true });
  }
});
