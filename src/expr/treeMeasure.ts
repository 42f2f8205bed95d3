// Tree limits, measured iteratively (explicit stack, no recursion) before any recursive work.
//
// Counting rule: nodes are counted exactly as CPython's `ast.walk(tree.body)` yields them for
// `tree = ast.parse(text, mode="eval")`, i.e. the expression's root node and everything below
// it; the `ast.Expression` wrapper itself is NOT counted. ast.walk yields every node object it
// reaches, including operator and context nodes, once per occurrence:
//   Constant                      1
//   Name                          2   (Name + its Load context)
//   UnaryOp                       2 + operand          (UnaryOp + UAdd/USub)
//   BinOp                         2 + left + right     (BinOp + Add/Sub/Mult)
//   Compare (one comparator)      2 + left + right     (Compare + Lt/LtE/Gt/GtE/Eq/NotEq)
//   IfExp                         1 + test + body + orelse
// Parentheses create no nodes. "-5" is UnaryOp(USub, Constant 5): 3 nodes.
//
// Depth rule: the height of that same tree (the one ast.walk traverses, operator and context
// nodes included as leaves), with the expression's root node at depth 1. So "5" has depth 1,
// "x" has depth 2 (Name -> Load), "1 + 1" has depth 2 (BinOp -> Constant/Add), "x + 1" depth 3.
import type { ExprNode } from "./syntaxTree.ts";
import { childNodes } from "./syntaxTree.ts";

export interface TreeMeasure {
  readonly nodeCount: number;
  readonly depth: number;
}

/** Nodes a node contributes itself (its own node plus operator/context leaves). */
function ownNodes(node: ExprNode): number {
  switch (node.kind) {
    case "constant":
      return 1;
    case "name":
    case "unary":
    case "binary":
    case "compare":
      return 2;
    case "conditional":
      return 1;
  }
}

/** Depth below a node contributed by its operator/context leaf (1), or 0 if it has none. */
function leafHeight(node: ExprNode): number {
  return node.kind === "constant" || node.kind === "conditional" ? 0 : 1;
}

export function measureTree(root: ExprNode): TreeMeasure {
  let nodeCount = 0;
  let depth = 0;
  const stack: { node: ExprNode; level: number }[] = [{ node: root, level: 1 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, level } = top;
    nodeCount += ownNodes(node);
    const reach = level + leafHeight(node);
    if (reach > depth) depth = reach;
    for (const child of childNodes(node)) stack.push({ node: child, level: level + 1 });
  }
  return { nodeCount, depth };
}
