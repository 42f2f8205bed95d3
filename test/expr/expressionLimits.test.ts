// Every Part 4 limit exactly at its boundary (passes) and one past it (fails), with CPython
// confirming the node counts and depths of the boundary expressions.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  compileExpression,
  evaluateExpression,
  evaluateFixtures,
  parseToyMathSource,
  type ValidatedExpression,
} from "../../src/expr/index.ts";
import { evaluateWithLimits } from "../../src/expr/compileExpression.ts";
import type { ExprNode } from "../../src/expr/syntaxTree.ts";
import { EXPR_LIMITS, INITIAL_TOY_MATH_PY, type Fixture } from "../../src/constants/labConstants.ts";
import { askCPython } from "./cpythonOracle.ts";

function compiled(fn: "clamp" | "total", text: string): ValidatedExpression {
  const result = compileExpression(fn, text);
  assert.ok(result.ok, `${text}: ${result.ok ? "" : result.error}`);
  return result.value;
}

function rejects(fn: "clamp" | "total", text: string, code: string): void {
  const result = compileExpression(fn, text);
  assert.equal(result.ok ? "accepted" : result.error, code, text);
}

/** A balanced sum of the given leaves, parenthesized so that depth stays logarithmic. */
function balancedSum(leaves: readonly string[]): string {
  if (leaves.length === 1) return leaves[0] as string;
  const half = Math.ceil(leaves.length / 2);
  return `(${balancedSum(leaves.slice(0, half))})+(${balancedSum(leaves.slice(half))})`;
}

// 43 leaves: 3*43-2 = 127 nodes with constants; each `x` instead of `1` adds one (Name + Load).
const NODES_128 = balancedSum(["x", ...Array<string>(42).fill("1")]);
const NODES_129 = balancedSum(["x", "x", ...Array<string>(41).fill("1")]);
const DEPTH_16 = `${"-".repeat(15)}1`;
const DEPTH_17 = `${"-".repeat(16)}1`;
const DEPTH_16_NAME = `${"-".repeat(14)}x`;
const DEPTH_17_NAME = `${"-".repeat(15)}x`;

test("CPython's ast.walk and tree height agree with the boundary expressions", () => {
  const texts = [
    NODES_128,
    NODES_129,
    DEPTH_16,
    DEPTH_17,
    DEPTH_16_NAME,
    DEPTH_17_NAME,
    "x",
    "1",
    "-5",
    "1 + 1",
    "x + 1",
    "lo if x < lo else hi if x > hi else x",
  ];
  const answers = askCPython(texts.map((text, id) => ({ id, function: "clamp", text })));
  const expected = [
    [128, undefined],
    [129, undefined],
    [undefined, 16],
    [undefined, 17],
    [undefined, 16],
    [undefined, 17],
    [2, 2],
    [1, 1],
    [3, 2],
    [4, 2],
    [5, 3],
    [20, 5],
  ];
  texts.forEach((text, id) => {
    const answer = answers.get(id);
    const [nodes, depth] = expected[id] as [number | undefined, number | undefined];
    if (nodes !== undefined) assert.equal(answer?.nodes, nodes, text);
    if (depth !== undefined) assert.equal(answer?.depth, depth, text);
  });
});

test("node limit: 128 nodes pass, 129 fail", () => {
  assert.equal(compiled("clamp", NODES_128).nodeCount, 128);
  rejects("clamp", NODES_129, "too_many_nodes");
});

test("depth limit: depth 16 passes, 17 fails (root = 1, Load/operator leaves count)", () => {
  assert.equal(compiled("clamp", DEPTH_16).depth, 16);
  assert.equal(compiled("clamp", DEPTH_16_NAME).depth, 16);
  rejects("clamp", DEPTH_17, "tree_too_deep");
  rejects("clamp", DEPTH_17_NAME, "tree_too_deep");
});

test("documented counting examples", () => {
  assert.deepEqual([compiled("clamp", "1").nodeCount, compiled("clamp", "1").depth], [1, 1]);
  assert.deepEqual([compiled("clamp", "x").nodeCount, compiled("clamp", "x").depth], [2, 2]);
  assert.deepEqual([compiled("clamp", "-5").nodeCount, compiled("clamp", "-5").depth], [3, 2]);
  assert.deepEqual([compiled("clamp", "((x + 1))").nodeCount, compiled("clamp", "x + 1").depth], [5, 3]);
  assert.equal(compiled("clamp", "lo if x < lo else hi if x > hi else x").nodeCount, 20);
});

test("expression bytes: 256 pass, 257 fail; printable ASCII; one line", () => {
  assert.equal(compiled("clamp", `x${" ".repeat(255)}`).text.length, 256);
  rejects("clamp", `x${" ".repeat(256)}`, "expression_too_long");
  rejects("clamp", "x\t+ 1", "expression_not_printable_ascii");
  rejects("clamp", "x + é", "expression_not_printable_ascii");
  rejects("clamp", "x +\n1", "expression_multiline");
  rejects("clamp", "x\r", "expression_multiline");
  rejects("clamp", "", "syntax_error");
  rejects("clamp", " x", "syntax_error");
});

test("parenthesis nesting: 16 pass, 17 fail, counted lexically for every bracket kind", () => {
  compiled("clamp", `${"(".repeat(16)}x${")".repeat(16)}`);
  rejects("clamp", `${"(".repeat(17)}x${")".repeat(17)}`, "paren_nesting_too_deep");
  rejects("clamp", `${"[".repeat(17)}x`, "paren_nesting_too_deep");
  // Nesting is lexical: it is checked before the parser would notice the call.
  rejects("clamp", `f${"(".repeat(17)}x${")".repeat(17)}`, "paren_nesting_too_deep");
});

test("integer tokens: 7 digits pass, 8 fail; decimal only", () => {
  assert.equal(compiled("clamp", "1000000").nodeCount, 1);
  compiled("clamp", "0000000");
  compiled("clamp", "00");
  rejects("clamp", "10000000", "integer_token_too_long");
  rejects("clamp", "00000000", "integer_token_too_long");
  for (const token of [
    "0x10",
    "0o7",
    "0b1",
    "1e3",
    "1E3",
    "1e+3",
    "1_000",
    "01",
    "007",
    "1.5",
    "1.",
    ".5",
    "1j",
    "7if",
  ]) {
    rejects("clamp", token, "numeric_token_not_decimal");
  }
  // Names with digits are not numbers.
  rejects("clamp", "x1", "unknown_name");
});

test("pre-parse checks run in the stated order", () => {
  // nesting before numbers before comments before the parser
  rejects("clamp", `${"(".repeat(17)}0x1${")".repeat(17)} # c`, "paren_nesting_too_deep");
  rejects("clamp", "0x1 # c", "numeric_token_not_decimal");
  rejects("clamp", "f(x) # c", "comment_not_allowed");
  rejects("clamp", "f(x) \\", "line_continuation_not_allowed");
  rejects("clamp", "x # 1", "comment_not_allowed");
});

test("literal and value magnitude: 1,000,000 passes, one more fails", () => {
  compiled("clamp", "1000000");
  compiled("clamp", "-1000000");
  rejects("clamp", "1000001", "literal_out_of_range");
  rejects("clamp", "x if x < 1000001 else x", "literal_out_of_range");
  const square = compiled("clamp", "x * x");
  assert.deepEqual(evaluateExpression(square, [1000, 0, 0]), { ok: true, value: 1000000 });
  assert.equal(evaluateExpression(square, [1001, 0, 0]).ok, false);
  assert.equal((evaluateExpression(square, [1001, 0, 0]) as { error: string }).error, "value_out_of_range");
});

test("1000000 * 1000000 is rejected as an intermediate even when a later step would shrink it", () => {
  // Parameter-free: refused at validation (constantParts.test.ts has the full rule).
  for (const text of ["1000000 * 1000000 * 0", "1000000 * 1000000 - 1000000 * 1000000", "0 * (1000000 * 1000000)"]) {
    rejects("clamp", text, "value_out_of_range");
  }
  // Input-dependent: refused when evaluated on an input that makes the intermediate oversized.
  for (const text of ["x + 1000000 - 1000000", "x * 1000000 * 1000000 * 0"]) {
    const result = evaluateExpression(compiled("clamp", text), [1, 0, 0]);
    assert.deepEqual(result.ok ? "accepted" : result.error, "value_out_of_range", text);
  }
  const sum = evaluateExpression(compiled("clamp", "hi + hi - hi"), [0, 0, 600000]);
  assert.deepEqual(sum.ok ? "accepted" : sum.error, "value_out_of_range");
});

test("inputs: in range pass, out of range, wrong count and non-integers fail", () => {
  const expr = compiled("clamp", "x");
  assert.deepEqual(evaluateExpression(expr, [-1000000, 0, 0]), { ok: true, value: -1000000 });
  assert.deepEqual(evaluateExpression(expr, [1000000, 0, 0]), { ok: true, value: 1000000 });
  const codes = [
    [1000001, 0, 0],
    [0, 0, -1000001],
    [1, 2],
    [1, 2, 3, 4],
    [1.5, 0, 0],
    [Number.NaN, 0, 0],
    [Infinity, 0, 0],
  ].map((inputs) => {
    const result = evaluateExpression(expr, inputs);
    return result.ok ? "accepted" : result.error;
  });
  assert.deepEqual(codes, [
    "input_out_of_range",
    "input_out_of_range",
    "input_count_mismatch",
    "input_count_mismatch",
    "input_not_integer",
    "input_not_integer",
    "input_not_integer",
  ]);
});

test("negative zero never appears", () => {
  const result = evaluateExpression(compiled("clamp", "-0"), [0, 0, 0]);
  assert.ok(result.ok && Object.is(result.value, 0));
  const product = evaluateExpression(compiled("clamp", "x * 0"), [-3, 0, 0]);
  assert.ok(product.ok && Object.is(product.value, 0));
});

test("node visits: exactly at the budget passes, one past fails (injected budget)", () => {
  const expr = compiled("clamp", "x + 1 if x < lo else hi"); // visits: IfExp, Compare, x, lo, BinOp, x, 1 = 7
  assert.deepEqual(evaluateWithLimits(expr, [-1, 0, 5], { absoluteIntegerMax: 1_000_000, nodeVisitsMax: 7 }), {
    ok: true,
    value: 0,
  });
  const over = evaluateWithLimits(expr, [-1, 0, 5], { absoluteIntegerMax: 1_000_000, nodeVisitsMax: 6 });
  assert.equal(over.ok ? "accepted" : over.error, "visit_limit_exceeded");
  // The unselected branch costs no visits: 5 when the else-branch (a Name) is chosen.
  assert.equal(evaluateWithLimits(expr, [9, 0, 5], { absoluteIntegerMax: 1_000_000, nodeVisitsMax: 5 }).ok, true);
});

test("node visits: the real 256 budget on hand-built trees (128 AST nodes can never reach it)", () => {
  const leaf: ExprNode = { kind: "constant", value: 1 };
  const balanced = (n: number): ExprNode =>
    n === 1 ? leaf : { kind: "binary", op: "+", left: balanced(Math.ceil(n / 2)), right: balanced(Math.floor(n / 2)) };
  const withSigns = (node: ExprNode, signs: number): ExprNode =>
    signs === 0 ? node : { kind: "unary", op: "+", operand: withSigns(node, signs - 1) };
  const tree256 = withSigns(balanced(128), 1); // 255 + 1 visits
  const tree257 = withSigns(balanced(128), 2);
  const fake = (tree: ExprNode): ValidatedExpression => ({
    functionName: "clamp",
    text: "(hand-built)",
    nodeCount: 0,
    depth: 0,
    tree,
  });
  assert.deepEqual(evaluateExpression(fake(tree256), [0, 0, 0]), { ok: true, value: 128 });
  const over = evaluateExpression(fake(tree257), [0, 0, 0]);
  assert.equal(over.ok ? "accepted" : over.error, "visit_limit_exceeded");
  assert.equal(EXPR_LIMITS.nodeVisitsPerFixtureMax, 256);
});

test("fixtures: 16 per evaluation pass, 17 fail before any case runs", () => {
  const source = parseToyMathSource(INITIAL_TOY_MATH_PY);
  assert.ok(source.ok);
  const fixture: Fixture = { function: "clamp", inputs: [1, 0, 5], expected: 1 };
  const sixteen = evaluateFixtures(source.value, Array<Fixture>(16).fill(fixture));
  assert.ok(sixteen.ok && sixteen.value.length === 16 && sixteen.value.every((c) => c.passed));
  const seventeen = evaluateFixtures(source.value, Array<Fixture>(17).fill(fixture));
  assert.equal(seventeen.ok ? "accepted" : seventeen.error, "too_many_fixtures");
});

test("a runtime error is recorded in its case, not thrown, and other cases still run", () => {
  const source = parseToyMathSource(INITIAL_TOY_MATH_PY.replace("return x", "return x * 1000000"));
  assert.ok(source.ok);
  const records = evaluateFixtures(source.value, [
    { function: "clamp", inputs: [2, 0, 5], expected: 2 },
    { function: "clamp", inputs: [1, 0, 5], expected: 1000000 },
    { function: "total", inputs: [1, 1, 1], expected: 3 },
  ]);
  assert.ok(records.ok);
  assert.deepEqual(
    records.value.map((r) => [r.actual, r.error?.code ?? null, r.passed]),
    [
      [null, "value_out_of_range", false],
      [1000000, null, true],
      [3, null, true],
    ],
  );
});

test("malformed calls from untyped callers give codes, not exceptions", () => {
  const source = parseToyMathSource(INITIAL_TOY_MATH_PY);
  assert.ok(source.ok);
  const records = evaluateFixtures(source.value, [
    { function: "square", inputs: [1, 2, 3], expected: 1 } as unknown as Fixture,
  ]);
  assert.ok(records.ok);
  assert.equal(records.value[0]?.error?.code, "unknown_function");
  const fake = { ...source.value.compiled.clamp, functionName: "square" } as unknown as ValidatedExpression;
  assert.equal((evaluateExpression(fake, [1, 2, 3]) as { error: string }).error, "unknown_function");
  assert.equal((compileExpression("clamp", 42 as unknown as string) as { error: string }).error, "syntax_error");
  assert.equal((parseToyMathSource(42 as unknown as string) as { error: string }).error, "source_not_utf8");
});
