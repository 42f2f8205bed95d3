// Validation-time evaluation of the parameter-free parts of an expression (Part 4: "apply
// magnitude and operation limits at every intermediate step; a final value of zero does not
// excuse an oversized earlier result"). A subtree with no parameter below it has the same value
// for every input, so if it overflows it overflows every time it is evaluated: such an edit is
// refused at the replace, with the run-time code value_out_of_range, instead of being committed
// and failing only at test time.
//
// The rule, exactly (docs/expression-language.md, "Constant parts"):
//   - A subtree is parameter-free when no Name occurs in it.
//   - Every maximal parameter-free subtree that is reachable is evaluated with the interpreter
//     itself (same operation table, same operand/result checks, same visit budget).
//   - Reachable: a conditional whose condition is parameter-free selects one branch, for every
//     input, so only that branch is reachable (the unselected one is never evaluated, exactly as
//     in the interpreter). A conditional whose condition depends on parameters may select either
//     branch, so both are reachable and a constant branch is checked: it overflows whenever it is
//     selected.
//   - Parts that contain a parameter are not judged here (`x * x` is fine for |x| <= 1000, and
//     `unit * 1000000 * 1000000` is 0 for unit = 0); the interpreter checks them per fixture.
//
// The walk over the tree is iterative; the interpreter's recursion into one constant part is
// bounded by the tree-depth limit (16), which compileExpression has already enforced.
import { err, ok, type Result } from "../core/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import { DEFAULT_EVALUATION_LIMITS, evaluateCondition, evaluateTree, type EvaluationLimits } from "./interpreter.ts";
import { childNodes, type ExprNode } from "./syntaxTree.ts";

const NO_INPUTS: readonly number[] = [];

/** Which nodes have no Name anywhere below them (iterative post-order). */
function parameterFreeNodes(root: ExprNode): ReadonlySet<ExprNode> {
  const free = new Set<ExprNode>();
  const pending: { node: ExprNode; expanded: boolean }[] = [{ node: root, expanded: false }];
  for (let top = pending.pop(); top !== undefined; top = pending.pop()) {
    const children = childNodes(top.node);
    if (!top.expanded) {
      pending.push({ node: top.node, expanded: true });
      for (const child of children) pending.push({ node: child, expanded: false });
      continue;
    }
    if (top.node.kind !== "name" && children.every((child) => free.has(child))) free.add(top.node);
  }
  return free;
}

function constantFailure(code: ExprErrorCode, message: string): Result<never, ExprErrorCode> {
  return err(
    code,
    `a constant part of the expression (one that uses no parameter) is out of range whenever it is evaluated: ${message}`,
  );
}

/**
 * Evaluates every reachable maximal parameter-free subtree of a type-checked tree; the first
 * failure (value_out_of_range in practice) is returned with the interpreter's code.
 */
export function checkConstantParts(
  root: ExprNode,
  limits: EvaluationLimits = DEFAULT_EVALUATION_LIMITS,
): Result<null, ExprErrorCode> {
  const free = parameterFreeNodes(root);
  const stack: ExprNode[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (free.has(node)) {
      // A parameter-free comparison can only be a condition whose conditional uses a parameter
      // in a branch; the conditional case below evaluates it, so it never arrives here.
      const evaluated =
        node.kind === "compare" ? evaluateCondition(node, NO_INPUTS, limits) : evaluateTree(node, NO_INPUTS, limits);
      if (!evaluated.ok) return constantFailure(evaluated.error, evaluated.message);
      continue;
    }
    if (node.kind === "conditional" && free.has(node.test)) {
      const condition = evaluateCondition(node.test, NO_INPUTS, limits);
      if (!condition.ok) return constantFailure(condition.error, condition.message);
      stack.push(condition.value ? node.body : node.orelse);
      continue;
    }
    for (const child of childNodes(node)) stack.push(child);
  }
  return ok(null);
}
