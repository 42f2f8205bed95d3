// Structural type validation of the whole tree, both branches of every conditional included,
// before any evaluation. Types: integers and Booleans. Arithmetic and comparison operands are
// integers, comparisons give Booleans, conditions must be Boolean (no truthiness), branches and
// the returned value are integers. Literals are range-checked here too. Iterative post-order
// walk (explicit stacks) so that no recursion happens before the interpreter, whose depth the
// tree limits have bounded by then.
import { EXPR_LIMITS } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { ExprErrorCode } from "./errorCodes.ts";
import { childNodes, type ExprNode } from "./syntaxTree.ts";

type ValueType = "int" | "bool";

function resultType(node: ExprNode, childTypes: readonly ValueType[]): Result<ValueType, ExprErrorCode> {
  switch (node.kind) {
    case "constant":
      if (Math.abs(node.value) > EXPR_LIMITS.absoluteIntegerMax) {
        return err(
          "literal_out_of_range",
          `literal ${node.value} exceeds ${EXPR_LIMITS.absoluteIntegerMax} in magnitude`,
        );
      }
      return INT;
    case "name":
      return INT;
    case "unary":
    case "binary":
      if (childTypes.some((t) => t !== "int")) {
        return err("operand_not_integer", `operand of "${node.op}" must be an integer, not a comparison result`);
      }
      return INT;
    case "compare":
      if (childTypes.some((t) => t !== "int")) {
        return err("operand_not_integer", `operand of "${node.op}" must be an integer, not a comparison result`);
      }
      return BOOL;
    case "conditional":
      if (childTypes[0] !== "bool") {
        return err("condition_not_boolean", "a conditional's condition must be a comparison (no truthiness)");
      }
      if (childTypes[1] !== "int" || childTypes[2] !== "int") {
        return err("result_not_integer", "both branches of a conditional must be integers");
      }
      return INT;
  }
}

const INT = ok<ValueType>("int");
const BOOL = ok<ValueType>("bool");

export function checkTypes(root: ExprNode): Result<null, ExprErrorCode> {
  // Post-order: `pending` holds nodes to expand or to finish; `values` holds the types of
  // finished subtrees, so a node's children's types are the top entries when it finishes.
  const pending: { node: ExprNode; expanded: boolean }[] = [{ node: root, expanded: false }];
  const values: ValueType[] = [];
  for (let top = pending.pop(); top !== undefined; top = pending.pop()) {
    const children = childNodes(top.node);
    if (!top.expanded) {
      pending.push({ node: top.node, expanded: true });
      for (let i = children.length - 1; i >= 0; i--) pending.push({ node: children[i] as ExprNode, expanded: false });
      continue;
    }
    const childTypes = values.splice(values.length - children.length, children.length);
    const typed = resultType(top.node, childTypes);
    if (!typed.ok) return typed;
    values.push(typed.value);
  }
  if (values[0] !== "int")
    return err("result_not_integer", "the returned value must be an integer, not a comparison result");
  return ok(null);
}
