// The full expression pipeline, in the order Part 4 fixes: string bounds, lexical checks,
// tokenizing and parsing (forbidden constructs named), iterative tree limits, structural type
// validation of the whole tree, then the parameter-free ("constant") parts evaluated once, so an
// intermediate that overflows for every input is refused here; evaluation on inputs is a separate
// step that never re-parses.
import { EXPR_LIMITS, FUNCTIONS, type FunctionName } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import { checkConstantParts } from "./constantParts.ts";
import { checkExpressionString } from "./expressionString.ts";
import { checkInputs, DEFAULT_EVALUATION_LIMITS, evaluateTree, type EvaluationLimits } from "./interpreter.ts";
import { tokenize } from "./lexer.ts";
import { runLexicalChecks } from "./lexicalChecks.ts";
import { parseTokens } from "./parser.ts";
import type { ExprNode } from "./syntaxTree.ts";
import { measureTree } from "./treeMeasure.ts";
import { checkTypes } from "./typeCheck.ts";

export interface ValidatedExpression {
  readonly functionName: FunctionName;
  readonly text: string;
  readonly nodeCount: number;
  readonly depth: number;
  readonly tree: ExprNode;
}

/** Pre-parse checks and parsing only (no limits, no types): the differential tests measure these trees. */
export function parseExpressionSyntax(functionName: FunctionName, text: string): Result<ExprNode, ExprErrorCode> {
  const bounds = checkExpressionString(text);
  if (!bounds.ok) return bounds;
  const lexical = runLexicalChecks(text);
  if (!lexical.ok) return lexical;
  const tokens = tokenize(text);
  if (!tokens.ok) return tokens;
  return parseTokens(tokens.value, FUNCTIONS[functionName].params);
}

/** All checks, no evaluation on inputs: a returned expression can only fail per fixture on input-dependent parts. */
export function compileExpression(
  functionName: FunctionName,
  text: string,
): Result<ValidatedExpression, ExprErrorCode> {
  if (!Object.hasOwn(FUNCTIONS, functionName)) return err("unknown_function", "function must be clamp or total");
  if (typeof text !== "string") return err("syntax_error", "expression must be a string");
  const tree = parseExpressionSyntax(functionName, text);
  if (!tree.ok) return tree;
  const { nodeCount, depth } = measureTree(tree.value);
  if (nodeCount > EXPR_LIMITS.astNodesMax) {
    return err("too_many_nodes", `expression has ${nodeCount} AST nodes; the limit is ${EXPR_LIMITS.astNodesMax}`);
  }
  if (depth > EXPR_LIMITS.treeDepthMax) {
    return err("tree_too_deep", `expression tree depth is ${depth}; the limit is ${EXPR_LIMITS.treeDepthMax}`);
  }
  const typed = checkTypes(tree.value);
  if (!typed.ok) return typed;
  const constants = checkConstantParts(tree.value);
  if (!constants.ok) return constants;
  return ok({ functionName, text, nodeCount, depth, tree: tree.value });
}

/** Evaluation with injectable limits, so tests can reach the visit budget that 128 nodes never hit. */
export function evaluateWithLimits(
  expr: ValidatedExpression,
  inputs: readonly number[],
  limits: EvaluationLimits,
): Result<number, ExprErrorCode> {
  if (!Object.hasOwn(FUNCTIONS, expr.functionName)) return err("unknown_function", "function must be clamp or total");
  if (!Array.isArray(inputs)) return err("input_count_mismatch", "inputs must be a list");
  const checked = checkInputs(inputs, FUNCTIONS[expr.functionName].params.length, limits);
  if (!checked.ok) return checked;
  return evaluateTree(expr.tree, inputs, limits);
}

export function evaluateExpression(
  expr: ValidatedExpression,
  inputs: readonly number[],
): Result<number, ExprErrorCode> {
  return evaluateWithLimits(expr, inputs, DEFAULT_EVALUATION_LIMITS);
}
