// npm run bench:expr — validations + evaluations per second for a 128-node expression over the
// spec's 12 fixtures, on one core (this process is single-threaded). Prints figures; asserts
// nothing about speed. One round = 1 validation (compileExpression: all pre-parse checks,
// parse, tree limits, type checks) + 12 evaluations (one per fixture's inputs).
import { compileExpression, evaluateExpression } from "../src/expr/index.ts";
import { HELD_OUT_FIXTURES, PUBLIC_FIXTURES } from "../src/constants/labConstants.ts";

const CLAMP = "(lo if x < lo else hi if x > hi else x)";
const EXPRESSION = `(${CLAMP} + ${CLAMP}) - (${CLAMP} * 2 + ${CLAMP}) + (x - lo) * (hi - x) + 1 - (x * lo - hi * -3 + 7)`;
const INPUTS = [...PUBLIC_FIXTURES, ...HELD_OUT_FIXTURES].map((fixture) => fixture.inputs);

const probe = compileExpression("clamp", EXPRESSION);
if (!probe.ok || probe.value.nodeCount !== 128 || INPUTS.length !== 12) {
  throw new Error(`bench setup is wrong: ${JSON.stringify(probe.ok ? probe.value.nodeCount : probe)}`);
}

function round(): number {
  const compiled = compileExpression("clamp", EXPRESSION);
  if (!compiled.ok) throw new Error(compiled.error);
  let checksum = 0;
  for (const inputs of INPUTS) {
    const value = evaluateExpression(compiled.value, inputs);
    if (!value.ok) throw new Error(value.error);
    checksum += value.value;
  }
  return checksum;
}

function measure(label: string, seconds: number, body: () => number): number {
  let rounds = 0;
  let sink = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  while (performance.now() < deadline) {
    for (let i = 0; i < 200; i++) sink += body();
    rounds += 200;
  }
  const elapsed = (performance.now() - start) / 1000;
  const perSecond = rounds / elapsed;
  if (label !== "")
    console.log(
      `${label}: ${Math.round(perSecond).toLocaleString("en-US")} per second (${rounds} in ${elapsed.toFixed(2)} s, checksum ${sink % 1000})`,
    );
  return perSecond;
}

const compiledOnce = probe.value;
console.log(
  `expression: ${probe.value.nodeCount} AST nodes, depth ${probe.value.depth}, ${EXPRESSION.length} bytes; fixtures: ${INPUTS.length}`,
);
measure("", 0.5, round); // warm-up
const validations = measure("validations (compileExpression)", 2, () =>
  compileExpression("clamp", EXPRESSION).ok ? 1 : 0,
);
const evaluations = measure("evaluations (one fixture)", 2, () => {
  const value = evaluateExpression(compiledOnce, INPUTS[0] as readonly number[]);
  return value.ok ? value.value : 0;
});
const rounds = measure("rounds (1 validation + 12 evaluations)", 3, round);
console.log(
  `validations+evaluations per second: ${Math.round(rounds * 13).toLocaleString("en-US")} (target >= 100,000)`,
);
void validations;
void evaluations;
