// Validation-time evaluation of parameter-free parts (src/expr/constantParts.ts): an intermediate
// that overflows for every input is refused by compileExpression with value_out_of_range; parts
// that use a parameter are left to the per-fixture interpreter. CPython (test/expr/cpython_oracle.py,
// which restates the rule independently) must give the same verdict on every example.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileExpression, evaluateExpression } from "../../src/expr/index.ts";
import { checkConstantParts } from "../../src/expr/constantParts.ts";
import type { ExprNode } from "../../src/expr/syntaxTree.ts";
import type { FunctionName } from "../../src/constants/labConstants.ts";
import { askCPython } from "./cpythonOracle.ts";

type Verdict = "accepted" | string;

function verdict(fn: FunctionName, text: string): Verdict {
  const result = compileExpression(fn, text);
  return result.ok ? "accepted" : result.error;
}

// [function, text, expected verdict]
const CASES: readonly (readonly [FunctionName, string, Verdict])[] = [
  // The multiplication boundary.
  ["clamp", "1000 * 1000", "accepted"],
  ["clamp", "1000 * 1001", "value_out_of_range"],
  ["clamp", "-1000 * 1000", "accepted"],
  ["clamp", "-1000 * 1001", "value_out_of_range"],
  ["clamp", "1000000 * 1000000 * 0", "value_out_of_range"],
  ["clamp", "0 * (1000000 * 1000000)", "value_out_of_range"],
  ["clamp", "1000000 * 1000000 - 1000000 * 1000000", "value_out_of_range"],
  // Addition, subtraction and unary minus at the boundary.
  ["clamp", "999999 + 1", "accepted"],
  ["clamp", "999999 + 2", "value_out_of_range"],
  ["clamp", "-1000000 - 0", "accepted"],
  ["clamp", "-1000000 - 1", "value_out_of_range"],
  ["clamp", "-(-1000000 - 1) + x", "value_out_of_range"],
  // A parameter anywhere in a subtree exempts that subtree: only its parameter-free parts are judged.
  ["clamp", "x * 1000000", "accepted"],
  ["clamp", "x * x", "accepted"],
  ["total", "unit * 1000000 * 1000000 - unit * 1000000 * 1000000 + fee", "accepted"],
  ["total", "unit * (1000000 * 1000000)", "value_out_of_range"],
  ["total", "1000000 * 1000000 * 0 + unit * qty + fee", "value_out_of_range"],
  // Nested constant parts inside a larger expression.
  ["clamp", "x + (1 + (999998 + 1))", "accepted"],
  ["clamp", "x + (1 + (999999 + 1))", "value_out_of_range"],
  ["clamp", "x + (1 + (999999 + 2))", "value_out_of_range"],
  ["clamp", "(lo if x < lo else hi) + (x - (1000 * (999 + 2)))", "value_out_of_range"],
  ["clamp", "(lo if x < lo else hi) + (x - (1000 * (999 + 1)))", "accepted"],
  ["total", "unit * qty + fee * (3 - 4 * (500000 + 500001))", "value_out_of_range"],
  // Conditionals: a parameter-free one evaluates only its selected branch.
  ["clamp", "1 if 1 < 2 else 1000000 * 2", "accepted"],
  ["clamp", "1000000 * 2 if 1 < 2 else 1", "value_out_of_range"],
  ["clamp", "x + (1 if 1 < 2 else 1000000 * 2)", "accepted"],
  // A parameter-free condition selects the same branch for every input, so the other is never evaluated.
  ["clamp", "x if 1 < 2 else 1000000 * 2", "accepted"],
  ["clamp", "1000000 * 2 if 1 < 2 else x", "value_out_of_range"],
  ["clamp", "x if 1000000 * 2 < 2 else 1", "value_out_of_range"],
  // A condition that uses a parameter may select either branch: a constant branch is checked.
  ["clamp", "x if x < 0 else 1000000 * 2", "value_out_of_range"],
  ["clamp", "1000000 * 2 if x < 0 else x", "value_out_of_range"],
  ["clamp", "x if x < 1000000 * 2 else 1", "value_out_of_range"],
  // The deliberate choice (docs/expression-language.md, "Why refuse at validation"): refused even
  // though inputs with x < 0 never select the overflowing branch.
  ["clamp", "x if x < 0 else 1000000 + 1", "value_out_of_range"],
  ["clamp", "x if x < 0 else (1 if 1 < 2 else 1000000 * 2)", "accepted"],
  ["clamp", "x if x < 0 else (1000000 * 2 if 1 < 2 else 1)", "value_out_of_range"],
  ["clamp", "lo if x < lo else hi if x > hi else 1000 * 1000", "accepted"],
  ["clamp", "lo if x < lo else hi if x > hi else 1000 * 1001", "value_out_of_range"],
  // The earlier checks keep their precedence over constant evaluation.
  ["clamp", "1000001 * 0", "literal_out_of_range"],
  ["clamp", "1000000 * 1000000 + (1 < 2)", "operand_not_integer"],
  ["clamp", "1000000 * 1000000 if 1 else 0", "condition_not_boolean"],
];

test("parameter-free parts: boundary verdicts", () => {
  const wrong = CASES.filter(([fn, text, expected]) => verdict(fn, text) !== expected).map(
    ([fn, text, expected]) => `${fn} ${text}: expected ${expected}, got ${verdict(fn, text)}`,
  );
  assert.deepEqual(wrong, []);
});

test("parameter-free parts: CPython's oracle reaches the same verdicts", () => {
  const answers = askCPython(CASES.map(([fn, text], id) => ({ id, function: fn, text })));
  CASES.forEach(([fn, text, expected], id) => {
    const answer = answers.get(id);
    assert.ok(answer?.parses, text);
    assert.equal(answer.subset, expected === "accepted", `${fn} ${text}: cpython ${answer.reason}`);
    if (expected === "value_out_of_range") assert.equal(answer.reason, "value_out_of_range", text);
  });
});

test("the refusal names a constant part and uses the run-time code", () => {
  const result = compileExpression("total", "1000000 * 1000000 * 0 + unit * qty + fee");
  assert.equal(result.ok, false);
  assert.ok(!result.ok);
  assert.equal(result.error, "value_out_of_range");
  assert.match(result.message, /constant part/);
  assert.doesNotMatch(result.message, /\//, "no paths or stack text");
});

test("input-dependent overflow still compiles and fails only on the inputs that cause it", () => {
  const scaled = compileExpression("clamp", "x * 1000000");
  assert.ok(scaled.ok);
  assert.deepEqual(evaluateExpression(scaled.value, [1, 0, 0]), { ok: true, value: 1000000 });
  const over = evaluateExpression(scaled.value, [2, 0, 0]);
  assert.equal(over.ok ? "accepted" : over.error, "value_out_of_range");
  // Zero for unit = 0: not an overflow for every input, so not refused at validation.
  const chain = compileExpression("total", "unit * 1000000 * 1000000 + fee");
  assert.ok(chain.ok);
  assert.deepEqual(evaluateExpression(chain.value, [0, 0, 5]), { ok: true, value: 5 });
  const chainOver = evaluateExpression(chain.value, [1, 0, 5]);
  assert.equal(chainOver.ok ? "accepted" : chainOver.error, "value_out_of_range");
  // The unselected constant branch of a parameter-free condition is never evaluated.
  const pruned = compileExpression("clamp", "x if 1 < 2 else 1000000 * 2");
  assert.ok(pruned.ok);
  assert.deepEqual(evaluateExpression(pruned.value, [7, 0, 0]), { ok: true, value: 7 });
});

test("constant parts use the interpreter's own limits (injected visit budget)", () => {
  const two: ExprNode = {
    kind: "binary",
    op: "+",
    left: { kind: "constant", value: 1 },
    right: { kind: "constant", value: 1 },
  };
  assert.deepEqual(checkConstantParts(two, { absoluteIntegerMax: 1_000_000, nodeVisitsMax: 3 }), {
    ok: true,
    value: null,
  });
  const over = checkConstantParts(two, { absoluteIntegerMax: 1_000_000, nodeVisitsMax: 2 });
  assert.equal(over.ok ? "accepted" : over.error, "visit_limit_exceeded");
  const magnitude = checkConstantParts(two, { absoluteIntegerMax: 1, nodeVisitsMax: 256 });
  assert.equal(magnitude.ok ? "accepted" : magnitude.error, "value_out_of_range");
});

test("a parameter-free part at the depth limit is evaluated without trouble", () => {
  // depth 16: fifteen unary minus signs over one literal, then inside a sum with a parameter.
  assert.equal(verdict("clamp", `${"-".repeat(15)}1000000`), "accepted");
  assert.equal(verdict("clamp", `x + ${"-".repeat(13)}(999999 + 1)`), "accepted");
  assert.equal(verdict("clamp", `x + ${"-".repeat(13)}(999999 + 2)`), "value_out_of_range");
});
