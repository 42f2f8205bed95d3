// Re-evaluates a Lab run's final toy_math.py: the bytes are validated by the project's own
// expression validator (src/expr) and evaluated on the spec's 4 public and 8 held-out fixtures.
// A file outside the grammar (an import, a call, anything but the two return expressions) is
// never evaluated and can never verify. The case records are worded as the final evaluation
// words them (controller/finalEvaluation.ts), so the recorded list can be compared one to one.
import type { CaseOutcome } from "../controller/finalEvaluation.ts";
import { evaluateFixtures, parseToyMathSource } from "../expr/index.ts";
import { HELD_OUT_FIXTURES, PUBLIC_FIXTURES, type Fixture } from "../constants/labConstants.ts";

/** A recomputed case has the final evaluation's own shape, so the two compare field by field. */
export type RecomputedCase = CaseOutcome;

export interface Reevaluation {
  /** "valid", or the validator's error code for a file outside the grammar. */
  readonly grammar: string;
  readonly publicPassed: number;
  readonly heldOutPassed: number;
  /** All twelve cases, public first (empty when the file is outside the grammar). */
  readonly cases: readonly RecomputedCase[];
  /** Every public and held-out case passes. */
  readonly allPass: boolean;
}

const ALL_CASES: readonly { readonly set: RecomputedCase["set"]; readonly fixture: Fixture }[] = [
  ...PUBLIC_FIXTURES.map((fixture) => ({ set: "public" as const, fixture })),
  ...HELD_OUT_FIXTURES.map((fixture) => ({ set: "held_out" as const, fixture })),
];

export function reevaluateSource(source: string | Uint8Array): Reevaluation {
  const parsed = parseToyMathSource(source);
  if (!parsed.ok) return { grammar: parsed.error, publicPassed: 0, heldOutPassed: 0, cases: [], allPass: false };
  const cases: RecomputedCase[] = [];
  for (const { set, fixture } of ALL_CASES) {
    const evaluated = evaluateFixtures(parsed.value, [fixture]);
    const record = evaluated.ok ? evaluated.value[0] : undefined;
    // One trusted fixture is always within the evaluation limits; a failure here is not a pass.
    if (record === undefined) return { grammar: "valid", publicPassed: 0, heldOutPassed: 0, cases: [], allPass: false };
    cases.push({
      set,
      function: record.function,
      inputs: record.inputs,
      expected: record.expected,
      actual: record.actual,
      error: record.error?.code ?? null,
      passed: record.passed,
    });
  }
  const passed = (set: RecomputedCase["set"]): number => cases.filter((item) => item.set === set && item.passed).length;
  const publicPassed = passed("public");
  const heldOutPassed = passed("held_out");
  return {
    grammar: "valid",
    publicPassed,
    heldOutPassed,
    cases,
    allPass: publicPassed === PUBLIC_FIXTURES.length && heldOutPassed === HELD_OUT_FIXTURES.length,
  };
}
