// A real bench run of every condition A-D for the replay's tests: the bench's own runBenchmark, the
// real sandbox, and a scripted OpenAI-compatible server playing an agent that reads the target, the
// tests and the reference fix (refused), writes a wrong fix, runs the tests (they fail) and says it is
// done; D refuses that, so it goes on: writes the reference fix, says done again (refused: not run),
// runs the tests (they pass) and stops (accepted). A: the reference fix as its one-shot answer.
import type { QuixDataset } from "../../src/bench/dataset/dataset.ts";
import { processHeldOutSeed } from "../../src/bench/grading/heldOutCases.ts";
import { GRADER_ID } from "../../src/bench/grading/trustedGrader.ts";
import { buggy, referenceFix } from "../bench/benchFixtures.ts";
import type { ScriptedTurn } from "../bench/scriptedChatServer.ts";
import { realBenchRun } from "./regradeRunFixture.ts";

export const REPLAY_PROGRAM = "gcd";
/** The run's recorded environment, as the CLI records it (the held-out seed and the grader named). */
export function replayEnvironment(): Readonly<Record<string, unknown>> {
  return { note: "bench replay test: scripted agent", heldOutSeed: processHeldOutSeed(), grader: GRADER_ID };
}

export function wrongFix(dataset: QuixDataset): string {
  return `${buggy(dataset, REPLAY_PROGRAM)}\n# an edit that fixes nothing\n`;
}

const target = `python_programs/${REPLAY_PROGRAM}.py`;

/** The scripted agent's turn k (the number of assistant messages so far). */
function agentTurn(k: number, dataset: QuixDataset): ScriptedTurn {
  switch (k) {
    case 0:
      return {
        toolCalls: [
          { name: "read_file", arguments: { path: target } },
          { name: "read_file", arguments: { path: `python_testcases/test_${REPLAY_PROGRAM}.py` } },
          { name: "read_file", arguments: { path: `correct_python_programs/${REPLAY_PROGRAM}.py` } },
        ],
      };
    case 1:
      return {
        toolCalls: [
          { name: "write_file", arguments: { path: target, content: wrongFix(dataset) } },
          { name: "run_tests", arguments: {} },
        ],
      };
    case 2:
      return { content: "I fixed the bug." };
    case 3:
      return {
        toolCalls: [
          { name: "write_file", arguments: { path: target, content: referenceFix(dataset, REPLAY_PROGRAM) } },
        ],
      };
    case 4:
      return { content: "Done." };
    case 5:
      return { toolCalls: [{ name: "run_tests", arguments: {} }] };
    default:
      return { content: "Done: the tests pass." };
  }
}

export function replayRoute(body: Record<string, unknown>, dataset: QuixDataset): ScriptedTurn {
  const messages = body.messages as { role: string }[];
  if (!Array.isArray(body.tools) || body.tools.length === 0)
    return { content: "```python\n" + referenceFix(dataset, REPLAY_PROGRAM) + "```" };
  return agentTurn(messages.filter((m) => m.role === "assistant").length, dataset);
}

/** The honest run of A-D on gcd into `root/name`. */
export function replayBenchRun(root: string, name = "honest"): Promise<string> {
  return realBenchRun(root, name, {
    programs: [REPLAY_PROGRAM],
    conditions: ["A", "B", "C", "D"],
    route: replayRoute,
    environment: replayEnvironment(),
  });
}
