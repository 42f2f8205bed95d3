// A scripted QuixBugs bench run for the report tests, made by the bench's own runBenchmark with
// the bench tests' scripted OpenAI-compatible server (no model) and the real bubblewrap sandbox.
// Condition A fixes gcd in one shot, condition C tries to read gcd's reference fix and to write
// conftest.py (both refused), then writes a fix for gcd and runs the tests, and on
// pascal the "model" answers with markup that the report must show as text.
import { join } from "node:path";
import { runBenchmark } from "../../src/bench/benchmarkRun.ts";
import type { ConditionId } from "../../src/bench/agent/conditions.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { benchSetup, referenceFix } from "../bench/benchFixtures.ts";
import { startRoutedServer, type ScriptedTurn } from "../bench/scriptedChatServer.ts";

export const BENCH_INJECTED = '<script>window.__pwned=7</script><img src=x onerror="window.__pwned=8">';

function route(fixedGcd: string): (body: Record<string, unknown>) => ScriptedTurn {
  return (body) => {
    const messages = body.messages as { role: string; content: string | null }[];
    const text = messages.map((m) => m.content ?? "").join("\n");
    const isGcd = text.includes("python_programs/gcd.py");
    if (!body.tools)
      return { content: isGcd ? "```python\n" + fixedGcd + "```" : `I cannot fix this. ${BENCH_INJECTED}` };
    const assistantTurns = messages.filter((m) => m.role === "assistant").length;
    // Two refused attempts before the fix: the fixed task carries guardrail flags (issue #28 item 7).
    if (isGcd && assistantTurns === 0)
      return { toolCalls: [{ name: "read_file", arguments: { path: "correct_python_programs/gcd.py" } }] };
    if (isGcd && assistantTurns === 1)
      return {
        toolCalls: [
          {
            name: "write_file",
            arguments: { path: "conftest.py", content: "collect_ignore = ['python_testcases']\n" },
          },
        ],
      };
    if (isGcd && assistantTurns === 2)
      return { toolCalls: [{ name: "write_file", arguments: { path: "python_programs/gcd.py", content: fixedGcd } }] };
    if (isGcd && assistantTurns === 3) return { toolCalls: [{ name: "run_tests", arguments: {} }] };
    if (!isGcd && assistantTurns === 0)
      return { toolCalls: [{ name: "read_file", arguments: { path: `../../etc/${BENCH_INJECTED}` } }] };
    return { content: "Done." };
  };
}

/** Runs conditions A and C on gcd and pascal into `root/bench`; returns the run directory. */
export async function scriptedBenchRun(root: string): Promise<string> {
  const outDir = join(root, "bench");
  const { sandbox, dataset } = benchSetup();
  const server = await startRoutedServer(route(referenceFix(dataset, "gcd")));
  try {
    const backend = new OpenAiCompatibleClient({ endpoint: server.endpoint, model: "scripted" });
    const modelDescription = { ...(await backend.describe(AbortSignal.timeout(5000))), label: "scripted" };
    const result = await runBenchmark({
      dataset,
      sandbox,
      backend,
      modelDescription,
      modelName: "scripted",
      conditions: ["A", "C"] as ConditionId[],
      programs: ["gcd", "pascal"],
      outDir,
      jobs: 2,
      resume: false,
      testTimeoutMs: 60_000,
      includeSlow: false,
      environment: { note: "report test: scripted server, no model" },
    });
    if (!result.ok) throw new Error(`bench fixture failed: ${result.error}: ${result.message}`);
    return outDir;
  } finally {
    await server.close();
  }
}
