// Every construct outside the subset is rejected with the code that names it; the subset
// itself parses with Python's precedence and associativity and evaluates correctly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileExpression, evaluateExpression, EXPR_ERROR_CODES } from "../../src/expr/index.ts";
import type { FunctionName } from "../../src/constants/labConstants.ts";

function code(text: string, fn: FunctionName = "clamp"): string {
  const result = compileExpression(fn, text);
  return result.ok ? "accepted" : result.error;
}

function value(text: string, inputs: readonly number[], fn: FunctionName = "clamp"): number | string {
  const compiled = compileExpression(fn, text);
  if (!compiled.ok) return compiled.error;
  const result = evaluateExpression(compiled.value, inputs);
  return result.ok ? result.value : result.error;
}

const FORBIDDEN: readonly (readonly [string, string])[] = [
  ["f(x)", "forbidden_call"],
  ["abs(x)", "forbidden_call"],
  ["__import__('os')", "forbidden_call"],
  ["x(1)", "forbidden_call"],
  ["(x)(1)", "forbidden_call"],
  ["x.real", "forbidden_attribute"],
  ["(x).real", "forbidden_attribute"],
  ["os.system", "forbidden_attribute"],
  ["x[0]", "forbidden_subscript"],
  ["(x)[0]", "forbidden_subscript"],
  ["'s'", "forbidden_string"],
  ['"s"', "forbidden_string"],
  ["b'x'", "forbidden_string"],
  ["f'{x}'", "forbidden_string"],
  ["x + 's'", "forbidden_string"],
  ["[x]", "forbidden_container"],
  ["{x}", "forbidden_container"],
  ["{x: 1}", "forbidden_container"],
  ["(x, lo)", "forbidden_container"],
  ["x, lo", "forbidden_container"],
  ["()", "forbidden_container"],
  ["[a for a in b]", "forbidden_comprehension"],
  ["{a for a in b}", "forbidden_comprehension"],
  ["(a for a in b)", "forbidden_comprehension"],
  ["x and lo", "forbidden_boolean_operator"],
  ["x or lo", "forbidden_boolean_operator"],
  ["x if x < lo and x < hi else lo", "forbidden_boolean_operator"],
  ["not x", "forbidden_not"],
  ["x if not x < lo else lo", "forbidden_not"],
  ["x ** 2", "forbidden_power"],
  ["-x ** 2", "forbidden_power"],
  ["x / 2", "forbidden_division"],
  ["x // 2", "forbidden_floor_division"],
  ["x % 2", "forbidden_modulo"],
  ["x @ lo", "forbidden_matrix_multiplication"],
  ["x & 1", "forbidden_bitwise"],
  ["x | 1", "forbidden_bitwise"],
  ["x ^ 1", "forbidden_bitwise"],
  ["~x", "forbidden_bitwise"],
  ["x << 1", "forbidden_bitwise"],
  ["x >> 1", "forbidden_bitwise"],
  ["lambda: 1", "forbidden_lambda"],
  ["(lambda: 1)", "forbidden_lambda"],
  ["(y := 1)", "forbidden_walrus"],
  ["(x := 1)", "forbidden_walrus"],
  ["x if x < lo < hi else lo", "forbidden_chained_comparison"],
  ["x if lo <= x <= hi else lo", "forbidden_chained_comparison"],
  ["x if x in lo else lo", "forbidden_membership_test"],
  ["x if x not in lo else lo", "forbidden_membership_test"],
  ["x if x is lo else lo", "forbidden_identity_test"],
  ["True", "forbidden_keyword_constant"],
  ["False", "forbidden_keyword_constant"],
  ["None", "forbidden_keyword_constant"],
  ["x + True", "forbidden_keyword_constant"],
  ["...", "forbidden_ellipsis"],
  ["*x", "forbidden_starred"],
  ["(*x)", "forbidden_starred"],
  ["x = 1", "forbidden_assignment"],
  ["x += 1", "forbidden_assignment"],
  ["await x", "forbidden_keyword"],
  ["(yield)", "forbidden_keyword"],
  ["y", "unknown_name"],
  ["unit", "unknown_name"],
  ["math", "unknown_name"],
  ["_x", "underscore_name"],
  ["_", "underscore_name"],
  ["__x__", "underscore_name"],
  ["__builtins__", "underscore_name"],
  ["x_1", "underscore_name"],
  ["import os", "syntax_error"],
  ["x +", "syntax_error"],
  ["(x", "syntax_error"],
  ["x)", "syntax_error"],
  ["x if x < lo", "syntax_error"],
  ["x lo", "syntax_error"],
  ["x; lo", "syntax_error"],
  ["x $ 1", "syntax_error"],
  ["x <> 1", "syntax_error"],
  ["if", "syntax_error"],
];

test("each forbidden construct is rejected with the code naming it", () => {
  const wrong = FORBIDDEN.filter(([text, expected]) => code(text) !== expected).map(
    ([text, expected]) => `${text}: ${code(text)} != ${expected}`,
  );
  assert.deepEqual(wrong, []);
  for (const [, expected] of FORBIDDEN) assert.ok((EXPR_ERROR_CODES as readonly string[]).includes(expected));
});

test("every forbidden construct is rejected in the unselected branch of a conditional too", () => {
  for (const [text, expected] of FORBIDDEN) {
    if (
      [
        "forbidden_container",
        "forbidden_assignment",
        "syntax_error",
        "forbidden_lambda",
        "forbidden_starred",
        "forbidden_comprehension",
        "forbidden_keyword",
        "forbidden_boolean_operator",
        "forbidden_not",
        "forbidden_chained_comparison",
        "forbidden_membership_test",
        "forbidden_identity_test",
      ].includes(expected)
    )
      continue;
    assert.equal(code(`x if x < lo else ${text}`), expected, text);
    assert.equal(code(`${text} if lo > hi else x`), expected, text);
  }
  // The famous case: a call that the chosen inputs would never reach.
  assert.equal(code("x if x < 0 else f(x)"), "forbidden_call");
  assert.equal(code("x if 0 < 1 else __import__('os').system('id')"), "forbidden_call");
});

test("type rules: integer operands, Boolean conditions, integer branches and result", () => {
  assert.equal(code("x < lo"), "result_not_integer");
  assert.equal(code("(x < lo)"), "result_not_integer");
  assert.equal(code("(x < lo) + 1"), "operand_not_integer");
  assert.equal(code("-(x < lo)"), "operand_not_integer");
  assert.equal(code("(x < lo) * 2"), "operand_not_integer");
  assert.equal(code("x if (x < lo) < hi else lo"), "operand_not_integer");
  assert.equal(code("x if x else lo"), "condition_not_boolean");
  assert.equal(code("x if 1 else lo"), "condition_not_boolean");
  assert.equal(code("x if (lo if x < lo else hi) else lo"), "condition_not_boolean");
  assert.equal(code("(x < 1) if x < lo else lo"), "result_not_integer");
  assert.equal(code("lo if x < lo else (x > hi)"), "result_not_integer");
  // A conditional inside arithmetic or a comparison is fine when the types hold.
  assert.equal(code("(lo if x < lo else x) + 1"), "accepted");
  assert.equal(code("x if (lo if x < lo else hi) < 3 else 0"), "accepted");
});

test("parameter names are per function", () => {
  assert.equal(code("unit * qty + fee", "total"), "accepted");
  assert.equal(code("x", "total"), "unknown_name");
  assert.equal(code("unit", "clamp"), "unknown_name");
});

test("precedence and associativity follow Python", () => {
  const inputs = [7, 3, 2];
  assert.equal(value("x - lo - hi", inputs), 2); // (7-3)-2
  assert.equal(value("x - lo + hi", inputs), 6);
  assert.equal(value("x + lo * hi", inputs), 13);
  assert.equal(value("x * lo - hi * 2", inputs), 17);
  assert.equal(value("-x * lo", inputs), -21);
  assert.equal(value("- -x", inputs), 7);
  assert.equal(value("--x", inputs), 7);
  assert.equal(value("+-+x", inputs), -7);
  assert.equal(value("x - -lo", inputs), 10);
  assert.equal(value("1 if x < lo else 2 if x < hi else 3", inputs), 3);
  assert.equal(value("(1 if x > lo else 2) if x < hi else 3", inputs), 3);
  assert.equal(value("1 if x > lo else 2 if x < hi else 3", inputs), 1);
  assert.equal(value("x + 1 if x < lo else hi * 10", inputs), 20);
  assert.equal(value("x if x + 1 > lo * 2 else 0", inputs), 7);
  assert.equal(value("x if x == 7 else 0", inputs), 7);
  assert.equal(value("x if x != 7 else 0", inputs), 0);
  assert.equal(value("x if x <= 7 else 0", inputs), 7);
  assert.equal(value("x if x >= 8 else 0", inputs), 0);
});

test("the spec's repairs evaluate correctly on every fixture shape", () => {
  const clamp = "lo if x < lo else hi if x > hi else x";
  assert.deepEqual(
    [
      [-2, 0, 5],
      [8, 0, 5],
      [-5, -3, -1],
      [0, -3, 5],
      [5, 5, 5],
      [10, -2, 3],
    ].map((i) => value(clamp, i)),
    [0, 5, -3, 0, 5, 3],
  );
  assert.deepEqual(
    [
      [3, 4, 2],
      [7, 0, 2],
      [0, 8, 3],
      [6, 1, 4],
      [2, 3, 0],
      [9, 2, 1],
    ].map((i) => value("unit * qty + fee", i, "total")),
    [14, 2, 3, 10, 6, 19],
  );
});

test("only the selected branch is evaluated", () => {
  const text = "x if x < lo else x * 1000000 * 1000000";
  assert.equal(value(text, [-1, 0, 0]), -1);
  assert.equal(value(text, [1, 0, 0]), "value_out_of_range");
  // A parameter-free oversized branch is refused at validation instead (constantParts.test.ts).
  assert.equal(code("x if x < lo else 1000000 * 1000000"), "value_out_of_range");
});

test("whitespace between tokens is free, but not leading", () => {
  assert.equal(value("x+lo*hi", [1, 2, 3]), 7);
  assert.equal(value("x   +   lo   ", [1, 2, 3]), 3);
  assert.equal(code(" x"), "syntax_error");
});

test("compileExpression rejects unknown function names without throwing", () => {
  assert.equal(compileExpression("nope" as FunctionName, "x").ok, false);
});
