// Generates the canonical toy_math.py from two expressions. With the initial expressions the
// output is byte-identical to INITIAL_TOY_MATH_PY. It does not validate: callers pass the result
// through parseToyMathSource before committing it (Part 5: regenerate, then validate).
import { FUNCTION_NAMES, FUNCTIONS } from "../constants/labConstants.ts";

export function renderToyMathSource(expressions: { readonly clamp: string; readonly total: string }): string {
  return FUNCTION_NAMES.map(
    (name) => `def ${name}(${FUNCTIONS[name].params.join(", ")}):\n    return ${expressions[name]}\n`,
  ).join("\n");
}
