// Structural type validation of the whole tree, both branches of every conditional included,
// before any evaluation. Types: integers and Booleans. Arithmetic and comparison operands are
// integers, comparisons give Booleans, conditions must be Boolean (no truthiness), branches and
// the returned value are integers. Literals are range-checked here too. Iterative post-order
// walk so that no recursion happens before the interpreter (whose depth is then bounded).
import { EXPR_LIMITS } from "../lab/constants.ts";
import { err, ok, type Result } from "../lab/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import { childNodes, type ExprNode } from "./syntaxTree.ts";

type ValueType = "int" | "bool";

function resultType(node: ExprNode, childTypes: readonly ValueType[]): Result<ValueType, ExprErrorCode> {
  switch (node.kind) {
    case "constant":
      if (Math.abs(node.value) > EXPR_LIMITS.absoluteIntegerMax) {
        return err("literal_out_of_range", `literal ${node.value} exceeds ${EXPR_LIMITS.absoluteIntegerMax} in magnitude`);
      }
      return ok("int");
    case "name":
      return ok("int");
    case "unary":
    case "binary":
      if (childTypes.some((t) => t !== "int")) {
        return err("operand_not_integer", `operand of "${node.op}" must be an integer, not a comparison result`);
      }
      return ok("int");
    case "compare":
      if (childTypes.some((t) => t !== "int")) {
        return err("operand_not_integer", `operand of "${node.op}" must be an integer, not a comparison result`);
      }
      return ok("bool");
    case "conditional":
      if (childTypes[0] !== "bool") {
        return err("condition_not_boolean", "a conditional's condition must be a comparison (no truthiness)");
      }
      if (childTypes[1] !== "int" || childTypes[2] !== "int") {
        return err("result_not_integer", "both branches of a conditional must be integers");
      }
      return ok("int");
  }
}

export function checkTypes(root: ExprNode): Result<null, ExprErrorCode> {
  // Post-order with an explicit stack: a node is typed once all its children are.
  const types = new Map<ExprNode, ValueType>();
  const stack: { node: ExprNode; expanded: boolean }[] = [{ node: root, expanded: false }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const children = childNodes(top.node);
    if (!top.expanded) {
      stack.push({ node: top.node, expanded: true });
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i] as ExprNode, expanded: false });
      continue;
    }
    const typed = resultType(top.node, children.map((child) => types.get(child) ?? "int"));
    if (!typed.ok) return typed;
    types.set(top.node, typed.value);
  }
  if (types.get(root) !== "int") return err("result_not_integer", "the returned value must be an integer, not a comparison result");
  return ok(null);
}
