// The outer source boundary: exactly clamp(x, lo, hi) and total(unit, qty, fee), each a single
// return; the generator renders the canonical file, byte-identical to the spec's initial file.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { evaluateFixtures, parseToyMathSource, renderToyMathSource } from "../../src/expr/index.ts";
import {
  HELD_OUT_FIXTURES,
  INITIAL_TOY_MATH_PY,
  PUBLIC_FIXTURES,
  REPAIR_EXPRESSIONS,
} from "../../src/constants/labConstants.ts";
import { renderTree, treeArbitrary } from "./expressionGenerator.ts";

function code(source: string | Uint8Array): string {
  const result = parseToyMathSource(source);
  return result.ok ? "accepted" : result.error;
}

const CANONICAL = INITIAL_TOY_MATH_PY;
const replaceLine = (from: string, to: string): string => {
  assert.ok(CANONICAL.includes(from));
  return CANONICAL.replace(from, to);
};

test("the renderer reproduces the spec's initial toy_math.py byte for byte", () => {
  assert.equal(renderToyMathSource({ clamp: "x", total: "unit + qty + fee" }), INITIAL_TOY_MATH_PY);
  assert.deepEqual(
    Buffer.from(renderToyMathSource({ clamp: "x", total: "unit + qty + fee" })),
    Buffer.from(INITIAL_TOY_MATH_PY),
  );
});

test("the initial source parses, as text and as bytes, with its exact return-expression strings", () => {
  for (const source of [INITIAL_TOY_MATH_PY, new TextEncoder().encode(INITIAL_TOY_MATH_PY)]) {
    const parsed = parseToyMathSource(source);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.expressions, { clamp: "x", total: "unit + qty + fee" });
    assert.equal(parsed.value.compiled.total.nodeCount, 10);
  }
});

test("initial source fails all four public cases; the repair passes all twelve", () => {
  const initial = parseToyMathSource(INITIAL_TOY_MATH_PY);
  assert.ok(initial.ok);
  const before = evaluateFixtures(initial.value, PUBLIC_FIXTURES);
  assert.ok(before.ok);
  assert.deepEqual(
    before.value.map((c) => c.actual),
    [-2, 8, 9, 9],
  );
  assert.equal(before.value.filter((c) => c.passed).length, 0);
  const repaired = parseToyMathSource(renderToyMathSource(REPAIR_EXPRESSIONS));
  assert.ok(repaired.ok);
  const after = evaluateFixtures(repaired.value, [...PUBLIC_FIXTURES, ...HELD_OUT_FIXTURES]);
  assert.ok(after.ok);
  assert.equal(after.value.filter((c) => c.passed).length, 12);
});

test("render then parse returns the same expressions for generated expressions", () => {
  const pair = fc.record({ clamp: treeArbitrary(4), total: treeArbitrary(4) });
  for (const { clamp, total } of fc.sample(pair, { seed: 5, numRuns: 300 })) {
    const expressions = {
      clamp: renderTree(clamp, { functionName: "clamp", compact: false }),
      total: renderTree(total, { functionName: "total", compact: true }),
    };
    const parsed = parseToyMathSource(renderToyMathSource(expressions));
    if (parsed.ok) assert.deepEqual(parsed.value.expressions, expressions);
    else
      assert.ok(
        ["too_many_nodes", "tree_too_deep", "expression_too_long", "value_out_of_range"].includes(parsed.error),
        parsed.error,
      );
  }
});

test("source size: 4,096 bytes pass, 4,097 fail; UTF-8 validity checked", () => {
  const padded = CANONICAL + "\n".repeat(4096 - CANONICAL.length);
  assert.equal(Buffer.byteLength(padded), 4096);
  assert.equal(code(padded), "accepted");
  assert.equal(code(new TextEncoder().encode(padded)), "accepted");
  assert.equal(code(padded + "\n"), "source_too_long");
  assert.equal(code(new TextEncoder().encode(padded + "\n")), "source_too_long");
  assert.equal(code(new Uint8Array([...new TextEncoder().encode(CANONICAL), 0xff])), "source_not_utf8");
  assert.equal(code(new Uint8Array([0xc3])), "source_not_utf8");
  assert.equal(code(CANONICAL + "\uD800"), "source_not_utf8");
  // Length before encoding: an oversized invalid buffer reports its size.
  assert.equal(code(new Uint8Array(5000).fill(0xff)), "source_too_long");
});

test("only printable ASCII lines with LF endings", () => {
  assert.equal(code(CANONICAL.replaceAll("\n", "\r\n")), "source_not_printable_ascii");
  assert.equal(code(replaceLine("    return x", "\treturn x")), "source_not_printable_ascii");
  assert.equal(code(replaceLine("    return x", "    return x  # é")), "source_not_printable_ascii");
  assert.equal(code("\uFEFF" + CANONICAL), "source_not_printable_ascii");
});

test("lexical checks over the whole source, before parsing", () => {
  assert.equal(code(replaceLine("    return x", "    return x  # note")), "comment_not_allowed");
  assert.equal(code("# header\n" + CANONICAL), "comment_not_allowed");
  assert.equal(code(replaceLine("    return x", "    return x + \\\n        1")), "line_continuation_not_allowed");
  assert.equal(code(replaceLine("    return x", "    return 0x1")), "numeric_token_not_decimal");
  assert.equal(
    code(replaceLine("    return x", `    return ${"(".repeat(17)}x${")".repeat(17)}`)),
    "paren_nesting_too_deep",
  );
  assert.equal(code(replaceLine("    return x", "    return 12345678")), "integer_token_too_long");
});

test("expression errors inside a return propagate with their own code", () => {
  assert.equal(code(replaceLine("    return x", "    return f(x)")), "forbidden_call");
  assert.equal(code(replaceLine("    return x", "    return x if x < 0 else f(x)")), "forbidden_call");
  assert.equal(code(replaceLine("    return x", "    return unit")), "unknown_name");
  assert.equal(code(replaceLine("    return x", "    return  x")), "syntax_error");
  assert.equal(code(replaceLine("    return x", "    return x; y = 1")), "syntax_error");
  assert.equal(code(replaceLine("    return x", "    return (x +")), "syntax_error");
  // A parameter-free overflow fails for every input, so it is a static failure ...
  assert.equal(code(replaceLine("    return x", "    return 1000000 * 1000000")), "value_out_of_range");
  // ... an input-dependent one only fails at run time, on the inputs that cause it.
  assert.equal(code(replaceLine("    return x", "    return x * 1000000 * 1000000")), "accepted");
});

test("the outer structure: each forbidden form has its own code", () => {
  const cases: readonly (readonly [string, string])[] = [
    ["@decorator\n" + CANONICAL, "decorator_not_allowed"],
    [replaceLine("def total", "@cache\ndef total"), "decorator_not_allowed"],
    [replaceLine("def clamp", "async def clamp"), "async_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, hi=5):"), "default_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x: int, lo, hi):"), "annotation_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, hi) -> int:"), "annotation_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp[T](x, lo, hi):"), "type_parameters_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, *hi):"), "variadic_parameter_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, hi, **kw):"), "variadic_parameter_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, *, hi):"), "variadic_parameter_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, /, hi):"), "variadic_parameter_not_allowed"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, hi, lo):"), "signature_mismatch"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo):"), "signature_mismatch"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, hi, extra):"), "signature_mismatch"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, h i):"), "signature_mismatch"],
    [replaceLine("    return x", '    """Clamp."""\n    return x'), "docstring_not_allowed"],
    [replaceLine("    return x", "    'doc'\n    return x"), "docstring_not_allowed"],
    ['"""Module."""\n' + CANONICAL, "module_expression_not_allowed"],
    [CANONICAL + "clamp(1, 2, 3)\n", "module_expression_not_allowed"],
    [CANONICAL + "x\n", "module_expression_not_allowed"],
    ["import os\n" + CANONICAL, "statement_not_allowed"],
    ["from os import system\n" + CANONICAL, "statement_not_allowed"],
    [CANONICAL + "y = 1\n", "statement_not_allowed"],
    [CANONICAL + "class A:\n    pass\n", "statement_not_allowed"],
    [CANONICAL + "if x:\n    pass\n", "statement_not_allowed"],
    [replaceLine("    return x", "    y = 1\n    return x"), "statement_not_allowed"],
    [replaceLine("    return x", "    return x\n    return lo"), "statement_not_allowed"],
    [replaceLine("    return x", "    pass\n    return x"), "statement_not_allowed"],
    [replaceLine("    return x", "    return(x)"), "statement_not_allowed"],
    [CANONICAL + "\ndef helper(a):\n    return a\n", "extra_definition"],
    [CANONICAL + "\ndef clamp(x, lo, hi):\n    return x\n", "extra_definition"],
    ["def clamp(x, lo, hi):\n    return x\n", "missing_function"],
    ["", "missing_function"],
    ["  def clamp(x, lo, hi):\n    return x\n", "unexpected_indentation"],
    [replaceLine("    return x", "    return x\n      return x"), "unexpected_indentation"],
    [replaceLine("def clamp(x, lo, hi):\n    return x", "def clamp(x, lo, hi): return x"), "function_body_invalid"],
    [replaceLine("    return x\n", ""), "function_body_invalid"],
    [replaceLine("    return x", "    return"), "function_body_invalid"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp(x, lo, hi)"), "syntax_error"],
    [replaceLine("def clamp(x, lo, hi):", "def clamp x, lo, hi:"), "syntax_error"],
  ];
  const wrong = cases
    .filter(([source, expected]) => code(source) !== expected)
    .map(([source, expected]) => `${JSON.stringify(source.slice(0, 60))}: ${code(source)} != ${expected}`);
  assert.deepEqual(wrong, []);
});

test("equivalent layouts Python accepts are accepted too", () => {
  const total = "def total(unit, qty, fee):\n    return unit + qty + fee\n";
  const clamp = "def clamp(x, lo, hi):\n    return x\n";
  assert.equal(code(total + "\n" + clamp), "accepted");
  assert.equal(code(CANONICAL.trimEnd()), "accepted");
  assert.equal(code("\n\n" + CANONICAL + "\n\n"), "accepted");
  assert.equal(code(CANONICAL.replaceAll("    return", "  return")), "accepted");
  assert.equal(code(replaceLine("def clamp(x, lo, hi):", "def clamp(x,lo,hi,):")), "accepted");
  const parsed = parseToyMathSource(replaceLine("    return x", "    return x   "));
  assert.ok(parsed.ok);
  assert.equal(parsed.value.expressions.clamp, "x   ");
});
