// Runs fixtures against a validated source. The fixture-count limit is checked before any
// case runs; a runtime error in one case (magnitude, visits) is recorded in that case.
import { EXPR_LIMITS, type Fixture, type FunctionName } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import { evaluateExpression } from "./compileExpression.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import type { ToyMathSource } from "./toyMathSource.ts";

export interface CaseRecord {
  readonly function: FunctionName;
  readonly inputs: readonly number[];
  readonly expected: number;
  readonly actual: number | null;
  readonly error: { readonly code: ExprErrorCode; readonly message: string } | null;
  readonly passed: boolean;
}

export function evaluateFixtures(
  source: ToyMathSource,
  fixtures: readonly Fixture[],
): Result<readonly CaseRecord[], ExprErrorCode> {
  if (fixtures.length > EXPR_LIMITS.fixturesPerEvaluationMax) {
    return err("too_many_fixtures", `at most ${EXPR_LIMITS.fixturesPerEvaluationMax} fixtures per evaluation`);
  }
  const records: CaseRecord[] = [];
  for (const fixture of fixtures) {
    const compiled = Object.hasOwn(source.compiled, fixture.function) ? source.compiled[fixture.function] : undefined;
    const result =
      compiled === undefined
        ? err("unknown_function", "fixture names an unknown function")
        : evaluateExpression(compiled, fixture.inputs);
    records.push({
      function: fixture.function,
      inputs: [...fixture.inputs],
      expected: fixture.expected,
      actual: result.ok ? result.value : null,
      error: result.ok ? null : { code: result.error, message: result.message },
      passed: result.ok && result.value === fixture.expected,
    });
  }
  return ok(records);
}
