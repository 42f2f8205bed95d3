// A real bench run on the project's mini data set for verify-run's tests: the bench's own
// runBenchmark with the scripted OpenAI-compatible server (no model) and the real sandbox.
// By default condition A only: gcd gets the reference fix (fixed), pascal a change that still
// fails (wrong_fix), is_palindrome no code at all (no_change); every other program gets no code.
// bench/verdict.bench.ts makes a larger one (more programs and conditions) for verify-run's figure.
import { join } from "node:path";
import { runBenchmark } from "../../src/bench/benchmarkRun.ts";
import type { ConditionId } from "../../src/bench/agent/conditions.ts";
import type { QuixDataset } from "../../src/bench/dataset/dataset.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { benchSetup, buggy, referenceFix } from "../bench/benchFixtures.ts";
import { startRoutedServer, type ScriptedTurn } from "../bench/scriptedChatServer.ts";

export const REGRADE_PROGRAMS = ["gcd", "is_palindrome", "pascal"] as const;

export interface RegradeRunOptions {
  /** Default: the three programs above, condition A, the mini data set. */
  readonly programs?: readonly string[];
  readonly conditions?: readonly ConditionId[];
  readonly dataset?: QuixDataset;
  readonly jobs?: number;
  /** What the scripted server answers: per program (the task's prompt names its file), and for any other. */
  readonly answers?: (dataset: QuixDataset) => {
    readonly byProgram: Readonly<Record<string, string>>;
    readonly otherwise: string;
  };
  /** The server's whole answer to each request (a multi-turn agent); `answers` is not used then. */
  readonly route?: (body: Record<string, unknown>, dataset: QuixDataset) => ScriptedTurn;
  /** The run's recorded environment (default: a note saying it is this fixture). */
  readonly environment?: Readonly<Record<string, unknown>>;
}

/** gcd the reference fix, pascal an edit that fixes nothing, anything else no code. */
function defaultAnswers(dataset: QuixDataset): { byProgram: Record<string, string>; otherwise: string } {
  const wrongPascal = `${buggy(dataset, "pascal")}\n# an edit that fixes nothing\n`;
  return {
    byProgram: {
      gcd: "```python\n" + referenceFix(dataset, "gcd") + "```",
      pascal: "```python\n" + wrongPascal + "```",
    },
    otherwise: "I cannot fix this.",
  };
}

/** Runs the programs into `root/<name>`; returns the run directory. */
export async function realBenchRun(root: string, name = "run", options: RegradeRunOptions = {}): Promise<string> {
  const outDir = join(root, name);
  const setup = benchSetup();
  const sandbox = setup.sandbox;
  const dataset = options.dataset ?? setup.dataset;
  const answers = (options.answers ?? defaultAnswers)(dataset);
  const route = options.route;
  const server = await startRoutedServer((body) => {
    if (route !== undefined) return route(body, dataset);
    const text = (body.messages as { content: string | null }[]).map((m) => m.content ?? "").join("\n");
    for (const [program, content] of Object.entries(answers.byProgram))
      if (text.includes(`python_programs/${program}.py`)) return { content };
    return { content: answers.otherwise };
  });
  try {
    const backend = new OpenAiCompatibleClient({ endpoint: server.endpoint, model: "scripted" });
    const modelDescription = {
      ...(await backend.describe(AbortSignal.timeout(5000))),
      label: "scripted",
      synthetic: true,
    };
    const result = await runBenchmark({
      dataset,
      sandbox,
      backend,
      modelDescription,
      modelName: "scripted",
      conditions: [...(options.conditions ?? ["A"])],
      programs: [...(options.programs ?? REGRADE_PROGRAMS)],
      outDir,
      jobs: options.jobs ?? 2,
      resume: false,
      testTimeoutMs: 60_000,
      includeSlow: false,
      environment: options.environment ?? { note: "verify-run test: scripted server, no model" },
    });
    if (!result.ok) throw new Error(`regrade fixture failed: ${result.error}: ${result.message}`);
    return outDir;
  } finally {
    await server.close();
  }
}
