// The restricted interpreter: an explicit operation table, and for every step "validate the
// operands, apply the trusted operation, validate the result". Only trees that passed parsing,
// tree limits and type checks reach it, so its recursion depth is at most the depth limit (16).
// Only the selected branch of a conditional is evaluated.
//
// A node visit is one evaluation of one expression node (Constant, Name, UnaryOp, BinOp,
// Compare, IfExp); operator and context nodes are not visited. The visit budget is checked
// before each visit.
import { EXPR_LIMITS } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import type { BinaryOperator, CompareOperator, ExprNode, UnaryOperator } from "./syntaxTree.ts";

export interface EvaluationLimits {
  readonly absoluteIntegerMax: number;
  readonly nodeVisitsMax: number;
}

export const DEFAULT_EVALUATION_LIMITS: EvaluationLimits = {
  absoluteIntegerMax: EXPR_LIMITS.absoluteIntegerMax,
  nodeVisitsMax: EXPR_LIMITS.nodeVisitsPerFixtureMax,
};

// `+ 0` turns a JavaScript -0 into 0: Python integers have no negative zero.
const BINARY_OPERATIONS: { readonly [op in BinaryOperator]: (a: number, b: number) => number } = {
  "+": (a, b) => a + b + 0,
  "-": (a, b) => a - b + 0,
  "*": (a, b) => a * b + 0,
};

const UNARY_OPERATIONS: { readonly [op in UnaryOperator]: (a: number) => number } = {
  "+": (a) => a,
  "-": (a) => 0 - a,
};

const COMPARE_OPERATIONS: { readonly [op in CompareOperator]: (a: number, b: number) => boolean } = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
};

class EvaluationStop {
  constructor(
    readonly code: ExprErrorCode,
    readonly message: string,
  ) {}
}

class Evaluation {
  private visits = 0;

  constructor(
    private readonly inputs: readonly number[],
    private readonly limits: EvaluationLimits,
  ) {}

  private checkInteger(value: number, what: string): number {
    if (!Number.isSafeInteger(value) || Math.abs(value) > this.limits.absoluteIntegerMax) {
      throw new EvaluationStop(
        "value_out_of_range",
        `${what} ${value} exceeds ${this.limits.absoluteIntegerMax} in magnitude`,
      );
    }
    return value;
  }

  private visit(): void {
    this.visits++;
    if (this.visits > this.limits.nodeVisitsMax) {
      throw new EvaluationStop("visit_limit_exceeded", `evaluation exceeded ${this.limits.nodeVisitsMax} node visits`);
    }
  }

  integer(node: ExprNode): number {
    this.visit();
    switch (node.kind) {
      case "constant":
        return this.checkInteger(node.value, "literal");
      case "name": {
        const value = this.inputs[node.parameterIndex];
        if (value === undefined) throw new EvaluationStop("input_count_mismatch", "missing input");
        return this.checkInteger(value, "input");
      }
      case "unary": {
        const operand = this.checkInteger(this.integer(node.operand), "operand");
        return this.checkInteger(UNARY_OPERATIONS[node.op](operand), "intermediate value");
      }
      case "binary": {
        const left = this.checkInteger(this.integer(node.left), "operand");
        const right = this.checkInteger(this.integer(node.right), "operand");
        return this.checkInteger(BINARY_OPERATIONS[node.op](left, right), "intermediate value");
      }
      case "conditional":
        return this.boolean(node.test) ? this.integer(node.body) : this.integer(node.orelse);
      case "compare":
        throw new EvaluationStop("result_not_integer", "a comparison cannot produce an integer");
    }
  }

  boolean(node: ExprNode): boolean {
    if (node.kind !== "compare") throw new EvaluationStop("condition_not_boolean", "a condition must be a comparison");
    this.visit();
    const left = this.checkInteger(this.integer(node.left), "operand");
    const right = this.checkInteger(this.integer(node.right), "operand");
    return COMPARE_OPERATIONS[node.op](left, right);
  }
}

export function checkInputs(
  inputs: readonly number[],
  parameterCount: number,
  limits: EvaluationLimits,
): Result<null, ExprErrorCode> {
  if (inputs.length !== parameterCount) {
    return err("input_count_mismatch", `expected ${parameterCount} inputs, got ${inputs.length}`);
  }
  for (const value of inputs) {
    if (typeof value !== "number" || !Number.isInteger(value))
      return err("input_not_integer", "every input must be an integer");
    if (Math.abs(value) > limits.absoluteIntegerMax) {
      return err("input_out_of_range", `input ${value} exceeds ${limits.absoluteIntegerMax} in magnitude`);
    }
  }
  return ok(null);
}

/** Evaluates a validated tree; the caller has already checked the inputs with checkInputs. */
export function evaluateTree(
  root: ExprNode,
  inputs: readonly number[],
  limits: EvaluationLimits = DEFAULT_EVALUATION_LIMITS,
): Result<number, ExprErrorCode> {
  return run(() => new Evaluation(inputs, limits).integer(root));
}

/** Evaluates a validated comparison (a conditional's condition) with the same checks. */
export function evaluateCondition(
  node: ExprNode,
  inputs: readonly number[],
  limits: EvaluationLimits = DEFAULT_EVALUATION_LIMITS,
): Result<boolean, ExprErrorCode> {
  return run(() => new Evaluation(inputs, limits).boolean(node));
}

function run<T>(evaluate: () => T): Result<T, ExprErrorCode> {
  try {
    return ok(evaluate());
  } catch (error) {
    if (error instanceof EvaluationStop) return err(error.code, error.message);
    throw error;
  }
}
