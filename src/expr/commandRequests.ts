// The pure part of `tca expr eval` and `tca expr check`: argument text in, one Result out.
// The CLI file only reads the file and prints, so every decision here is testable directly.
import { EXPR_LIMITS, FUNCTIONS, type FunctionName } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import { compileExpression, evaluateExpression } from "./compileExpression.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import { parseToyMathSource } from "./toyMathSource.ts";

function isFunctionName(name: string): name is FunctionName {
  return Object.hasOwn(FUNCTIONS, name);
}

/** "-2,0,5" -> [-2, 0, 5]; decimal integers only, the count checked by evaluation. */
export function parseArgumentList(text: string): Result<number[], ExprErrorCode> {
  if (text.length > 64) return err("arguments_invalid", "--args is too long");
  const parts = text.split(",");
  const values: number[] = [];
  for (const part of parts) {
    const trimmed = part.trim();
    if (!/^[+-]?[0-9]{1,16}$/.test(trimmed))
      return err("arguments_invalid", "--args must be comma-separated decimal integers, e.g. -2,0,5");
    const value = Number(trimmed);
    if (Math.abs(value) > EXPR_LIMITS.absoluteIntegerMax)
      return err("input_out_of_range", `input ${trimmed} exceeds ${EXPR_LIMITS.absoluteIntegerMax} in magnitude`);
    values.push(value + 0);
  }
  return ok(values);
}

/** The three options are required by the command line (a missing one is its usage error, exit 2). */
export function runEvalRequest(
  functionName: string,
  expression: string,
  argumentText: string,
): Result<number, ExprErrorCode> {
  if (!isFunctionName(functionName)) return err("unknown_function", "--function must be clamp or total");
  const compiled = compileExpression(functionName, expression);
  if (!compiled.ok) return compiled;
  const inputs = parseArgumentList(argumentText);
  if (!inputs.ok) return inputs;
  return evaluateExpression(compiled.value, inputs.value);
}

export interface CheckSummary {
  readonly expressions: { readonly clamp: string; readonly total: string };
  readonly nodeCount: { readonly clamp: number; readonly total: number };
  readonly depth: { readonly clamp: number; readonly total: number };
}

export function runCheckRequest(source: Uint8Array): Result<CheckSummary, ExprErrorCode> {
  const parsed = parseToyMathSource(source);
  if (!parsed.ok) return parsed;
  const { clamp, total } = parsed.value.compiled;
  return ok({
    expressions: parsed.value.expressions,
    nodeCount: { clamp: clamp.nodeCount, total: total.nodeCount },
    depth: { clamp: clamp.depth, total: total.depth },
  });
}
