// Child-process probe for the deadline tests (agentBudget.test.ts): run as
// `node --expose-gc --import tsx test/bench/deadlineGcProbe.ts <endpoint>`. It forces garbage
// collections while (1) a bare TaskDeadline, of which only the signal is still referenced, and
// (2) a whole agent task against a server that never answers wait for their deadlines, and
// prints one JSON line with what happened. Not a test file itself (the runner skips it).
import { runTask, isInterruption } from "../../src/bench/taskRunner.ts";
import { AGENT_BUDGET, CONDITIONS } from "../../src/bench/agent/conditions.ts";
import { TaskDeadline } from "../../src/bench/agent/taskDeadline.ts";
import { MemoryTrace } from "../../src/bench/agent/taskTrace.ts";
import type { BenchTraceCatalog } from "../../src/bench/runs/benchTrace.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { benchSetup, program } from "./benchFixtures.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  process.stdout.write(JSON.stringify({ error: "run with --expose-gc" }) + "\n");
  process.exit(2);
}
const endpoint = process.argv[2] ?? "";
const collect = setInterval(() => gc(), 20);

function firedWithin(signal: AbortSignal, limitMs: number): Promise<number | null> {
  const started = performance.now();
  return new Promise((resolve) => {
    const give = setTimeout(() => resolve(null), limitMs);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(give);
        resolve(performance.now() - started);
      },
      { once: true },
    );
  });
}

// (1) Only the signal survives this function; the deadline object itself is garbage.
function bareSignal(): AbortSignal {
  return new TaskDeadline(300).signal;
}
const bareMs = await firedWithin(bareSignal(), 5000);

// (2) A whole task: 1.5 s budget, a model call that never returns.
const { sandbox, dataset } = benchSetup();
const trace = new MemoryTrace<BenchTraceCatalog>();
const started = performance.now();
const ended = await runTask({
  dataset,
  program: program(dataset, "gcd"),
  condition: CONDITIONS.C,
  backend: new OpenAiCompatibleClient({ endpoint, model: "scripted" }),
  sandbox,
  budget: { ...AGENT_BUDGET, taskTimeoutMs: 1500 },
  trace,
  clock: () => performance.now(),
  testTimeoutMs: 60_000,
  includeSlow: false,
});
const taskMs = performance.now() - started;
clearInterval(collect);
const modelError = trace.records.find((r) => r.type === "model_error");
process.stdout.write(
  JSON.stringify({
    bareMs,
    taskMs,
    stopReason: isInterruption(ended) ? "interrupted" : ended.stopReason,
    outcome: isInterruption(ended) ? "interrupted" : ended.outcome,
    modelError: modelError?.type === "model_error" ? modelError.data.error : null,
  }) + "\n",
);
