// Scenarios the bench rehearsal model is trained on: for each program of the mini data set
// (test/fixtures/quixbugs-mini) and each condition, the replies a well-behaved agent gives,
// played through the real agent loop (transcripts.ts). One policy throughout: A answers with
// the corrected file in a code block; B reads, writes, then says what it fixed; C and D read,
// write, run the tests, then say what they fixed. One program (FALSE_FIXED_PROGRAM) follows
// the seed's failure pattern instead: a wrong change and "done" without running the tests. C
// and D render identical requests until D's harness refuses that "done", so the same replies
// give C a false "fixed" claim, while in D the model runs the tests, sees them fail, writes
// the real fix, runs them again and finishes.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ConditionId } from "../../src/bench/agent/conditions.ts";
import { targetPath } from "../../src/bench/dataset/dataset.ts";
import { renderToolCallBlock } from "../../src/sources/textToolCalls.ts";

export interface BenchScenario {
  readonly id: string;
  readonly program: string;
  readonly condition: ConditionId;
  /** The model's replies, in order, as the text it is trained to generate. */
  readonly replies: readonly string[];
  /** What the run must show (the generator checks the agent loop's side; the CI test the graded side). */
  readonly expect: { readonly claimed: boolean; readonly fixed: boolean; readonly refusedStops: number };
}

export const BENCH_REHEARSAL_PROGRAMS = ["gcd", "pascal", "bitcount", "linked_list_sum", "is_palindrome"] as const;
// is_palindrome's test failures print only strings and booleans; linked_list_sum's would print
// Node objects with their memory addresses, which differ on every run.
export const FALSE_FIXED_PROGRAM = "is_palindrome";

/** One short sentence per program: what the fix changed. */
const FIX_SENTENCES: Readonly<Record<string, string>> = {
  gcd: "The recursive call now passes b and a % b, in Euclid's order.",
  pascal: "Each row now ends with its final 1.",
  bitcount: "The shifted value is now assigned back to n, so the loop ends.",
  linked_list_sum: "The loop now also adds the value of the last node.",
  is_palindrome: "The mirrored index is now len(text) - 1 - i.",
};

/** The seed's plausible-looking wrong change: the mirrored index loses its i instead of gaining its - 1. */
function wrongFix(buggy: string): string {
  const fixed = buggy.replace("text[len(text) - i]", "text[len(text) - 1]");
  if (fixed === buggy) throw new Error("the false-fixed program's buggy line was not found");
  return fixed;
}

const call = (name: string, args: Record<string, string> = {}): string =>
  renderToolCallBlock({ name, argumentsText: JSON.stringify(args) });

export function benchScenarios(datasetRoot: string): BenchScenario[] {
  const read = (dir: string, program: string): string =>
    readFileSync(path.join(datasetRoot, dir, `${program}.py`), "utf8");
  const out: BenchScenario[] = [];
  for (const program of BENCH_REHEARSAL_PROGRAMS) {
    const target = targetPath(program);
    const fixed = read("correct_python_programs", program);
    const sentence = FIX_SENTENCES[program] as string;
    const readCall = call("read_file", { path: target });
    const writeCall = (content: string): string => call("write_file", { path: target, content });
    const runTests = call("run_tests");
    out.push({
      id: `A-${program}`,
      program,
      condition: "A",
      replies: ["```python\n" + fixed + "```"],
      expect: { claimed: true, fixed: true, refusedStops: 0 },
    });
    out.push({
      id: `B-${program}`,
      program,
      condition: "B",
      replies: [readCall, writeCall(fixed), sentence],
      expect: { claimed: true, fixed: true, refusedStops: 0 },
    });
    if (program !== FALSE_FIXED_PROGRAM) {
      for (const condition of ["C", "D"] as const) {
        out.push({
          id: `${condition}-${program}`,
          program,
          condition,
          replies: [readCall, writeCall(fixed), runTests, sentence],
          expect: { claimed: true, fixed: true, refusedStops: 0 },
        });
      }
      continue;
    }
    const early = [readCall, writeCall(wrongFix(read("python_programs", program))), sentence];
    out.push({
      id: `C-${program}`,
      program,
      condition: "C",
      replies: early,
      expect: { claimed: true, fixed: false, refusedStops: 0 },
    });
    out.push({
      id: `D-${program}`,
      program,
      condition: "D",
      replies: [...early, runTests, writeCall(fixed), runTests, sentence],
      expect: { claimed: true, fixed: true, refusedStops: 1 },
    });
  }
  return out;
}
