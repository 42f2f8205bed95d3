// Differential tests against CPython's ast (test/expr/cpython_oracle.py, one subprocess for the
// whole file): verdicts, node counts, depths and values must agree.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compileExpression, evaluateExpression } from "../../src/expr/index.ts";
import { parseExpressionSyntax } from "../../src/expr/compileExpression.ts";
import { measureTree } from "../../src/expr/treeMeasure.ts";
import type { FunctionName } from "../../src/constants/labConstants.ts";
import { askCPython, type OracleRequest } from "./cpythonOracle.ts";
import { integerNodeCount, MUTATIONS, renderTree, treeArbitrary, wideTreeArbitrary } from "./expressionGenerator.ts";

const functionName = fc.constantFrom<FunctionName>("clamp", "total");
const inputValue = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
);
const inputVector = fc.tuple(inputValue, inputValue, inputValue);

interface Case {
  readonly request: OracleRequest;
  readonly origin: "generated" | "mutated" | "edge";
}

function buildCases(): Case[] {
  const cases: Case[] = [];
  const add = (origin: Case["origin"], fn: FunctionName, text: string, inputs?: readonly (readonly number[])[]) => {
    const request: OracleRequest =
      inputs === undefined
        ? { id: cases.length, function: fn, text }
        : { id: cases.length, function: fn, text, inputs };
    cases.push({ request, origin });
  };
  const generated = fc.record({
    tree: treeArbitrary(6),
    fn: functionName,
    compact: fc.boolean(),
    inputs: fc.array(inputVector, { minLength: 3, maxLength: 3 }),
  });
  for (const g of fc.sample(generated, { seed: 20261130, numRuns: 2500 })) {
    add("generated", g.fn, renderTree(g.tree, { functionName: g.fn, compact: g.compact }), g.inputs);
  }
  // Deeper trees cross the 128-node and depth-16 limits from both sides.
  const deep = fc.record({
    tree: treeArbitrary(10),
    fn: functionName,
    compact: fc.boolean(),
    inputs: fc.array(inputVector, { minLength: 2, maxLength: 2 }),
  });
  for (const g of fc.sample(deep, { seed: 7, numRuns: 700 })) {
    add("generated", g.fn, renderTree(g.tree, { functionName: g.fn, compact: g.compact }), g.inputs);
  }
  const wide = fc.record({
    tree: wideTreeArbitrary(),
    fn: functionName,
    compact: fc.constant(true),
    inputs: fc.array(inputVector, { minLength: 2, maxLength: 2 }),
  });
  for (const g of fc.sample(wide, { seed: 128, numRuns: 1000 })) {
    add("generated", g.fn, renderTree(g.tree, { functionName: g.fn, compact: g.compact }), g.inputs);
  }
  const mutated = fc.record({
    tree: treeArbitrary(5),
    fn: functionName,
    compact: fc.boolean(),
    mutation: fc.nat({ max: MUTATIONS.length - 1 }),
    position: fc.nat(),
  });
  for (const m of fc.sample(mutated, { seed: 99, numRuns: 3000 })) {
    const target = m.position % integerNodeCount(m.tree);
    const mutate = MUTATIONS[m.mutation] as (s: string, fn: FunctionName) => string;
    const text = renderTree(m.tree, {
      functionName: m.fn,
      compact: m.compact,
      override: (index, rendered) => (index === target ? mutate(rendered, m.fn) : null),
    });
    add("mutated", m.fn, text);
  }
  // Each mutation at least once on a simple operand, so every construct is covered deterministically.
  for (const mutate of MUTATIONS) {
    add("edge", "clamp", mutate("x", "clamp"));
    add("edge", "total", mutate("unit * qty + fee", "total"));
  }
  return cases;
}

test("CPython agrees on verdict, node count, depth and value for thousands of expressions", () => {
  const cases = buildCases();
  const answers = askCPython(cases.map((c) => c.request));
  const mismatches: string[] = [];
  let accepted = 0;
  let rejected = 0;
  let measured = 0;
  let valuesCompared = 0;
  let outOfRange = 0;
  const limitRejections = { too_many_nodes: 0, tree_too_deep: 0, expression_too_long: 0, value_out_of_range: 0 };
  const atNodeLimit = { 128: 0, 129: 0 };
  let nearLimitAccepted = 0;
  for (const { request, origin } of cases) {
    const answer = answers.get(request.id);
    assert.ok(answer !== undefined, `no oracle answer for ${request.text}`);
    const ours = compileExpression(request.function, request.text);
    const cpythonVerdict = answer.parses && answer.subset;
    if (ours.ok) accepted++;
    else rejected++;
    if (ours.ok && (ours.value.nodeCount >= 100 || ours.value.depth >= 14)) nearLimitAccepted++;
    if (
      !ours.ok &&
      (ours.error === "too_many_nodes" ||
        ours.error === "tree_too_deep" ||
        ours.error === "expression_too_long" ||
        ours.error === "value_out_of_range")
    )
      limitRejections[ours.error]++;
    if (answer.nodes === 128 || answer.nodes === 129) atNodeLimit[answer.nodes]++;
    if (ours.ok !== cpythonVerdict) {
      mismatches.push(
        `${origin} ${request.function} ${JSON.stringify(request.text)}: ours=${ours.ok ? "accept" : ours.error} cpython=${answer.parses ? (answer.subset ? "accept" : `outside(${answer.reason})`) : "no parse"}`,
      );
      continue;
    }
    const syntax = parseExpressionSyntax(request.function, request.text);
    if (syntax.ok) {
      measured++;
      const measure = measureTree(syntax.value);
      if (!answer.parses || measure.nodeCount !== answer.nodes || measure.depth !== answer.depth) {
        mismatches.push(
          `${JSON.stringify(request.text)}: nodes/depth ours=${measure.nodeCount}/${measure.depth} cpython=${answer.nodes}/${answer.depth}`,
        );
      }
    }
    if (ours.ok && request.inputs !== undefined) {
      request.inputs.forEach((inputs, i) => {
        const expected = answer.values?.[i];
        const value = evaluateExpression(ours.value, inputs);
        valuesCompared++;
        if (expected === "value_out_of_range") outOfRange++;
        const agrees = value.ok
          ? value.value === expected
          : value.error === "value_out_of_range" && expected === "value_out_of_range";
        if (!agrees)
          mismatches.push(
            `${JSON.stringify(request.text)} on ${JSON.stringify(inputs)}: ours=${JSON.stringify(value)} cpython=${JSON.stringify(expected)}`,
          );
      });
    }
  }
  if (process.env.EXPR_DIFF_STATS === "1")
    console.log({
      atNodeLimit,
      nearLimitAccepted,
      limitRejections,
      cases: cases.length,
      accepted,
      rejected,
      measured,
      valuesCompared,
      outOfRange,
    });
  assert.deepEqual(mismatches.slice(0, 15), [], `${mismatches.length} disagreements`);
  // The generator must really exercise both sides of the boundary.
  assert.ok(cases.length >= 6000, `only ${cases.length} cases`);
  assert.ok(accepted >= 2000, `only ${accepted} accepted`);
  assert.ok(rejected >= 2000, `only ${rejected} rejected`);
  assert.ok(measured >= 3000, `only ${measured} trees measured`);
  assert.ok(valuesCompared >= 5000, `only ${valuesCompared} values compared`);
  assert.ok(nearLimitAccepted >= 20, `only ${nearLimitAccepted} accepted near the limits`);
  assert.ok(
    limitRejections.too_many_nodes >= 20 && limitRejections.tree_too_deep >= 20,
    JSON.stringify(limitRejections),
  );
  // Constant parts that overflow (refused at validation) must be exercised as well.
  assert.ok(limitRejections.value_out_of_range >= 20, JSON.stringify(limitRejections));
  assert.ok(outOfRange >= 50, `only ${outOfRange} out-of-range evaluations`);
});
