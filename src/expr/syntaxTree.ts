// The syntax tree of the subset. It has exactly the six node kinds the subset allows, so
// nothing outside the subset can even be represented. Field names follow CPython's ast
// (left/right/operand/test/body/orelse) to keep the node-count rule easy to audit.
export type BinaryOperator = "+" | "-" | "*";
export type UnaryOperator = "+" | "-";
export type CompareOperator = "<" | "<=" | ">" | ">=" | "==" | "!=";

export type ExprNode =
  | { readonly kind: "constant"; readonly value: number }
  | { readonly kind: "name"; readonly name: string; readonly parameterIndex: number }
  | { readonly kind: "unary"; readonly op: UnaryOperator; readonly operand: ExprNode }
  | { readonly kind: "binary"; readonly op: BinaryOperator; readonly left: ExprNode; readonly right: ExprNode }
  | { readonly kind: "compare"; readonly op: CompareOperator; readonly left: ExprNode; readonly right: ExprNode }
  | { readonly kind: "conditional"; readonly test: ExprNode; readonly body: ExprNode; readonly orelse: ExprNode };

/** The expression children of a node, in CPython's field order. */
export function childNodes(node: ExprNode): readonly ExprNode[] {
  switch (node.kind) {
    case "constant":
    case "name":
      return [];
    case "unary":
      return [node.operand];
    case "binary":
    case "compare":
      return [node.left, node.right];
    case "conditional":
      return [node.test, node.body, node.orelse];
  }
}
