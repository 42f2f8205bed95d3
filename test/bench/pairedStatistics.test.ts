// Paired comparison of conditions within a run: per-program pairs and the exact McNemar test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { conditionPairs, exactMcNemar, renderPairedSection } from "../../src/bench/results/pairedStatistics.ts";
import type { ConditionId } from "../../src/bench/agent/conditions.ts";
import type { OutcomeClass, TaskResult } from "../../src/bench/results/taskOutcome.ts";

/** Two-sided exact binomial tail, by enumerating every one of the 2^n sign patterns (small n only). */
function bruteForce(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let extreme = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    let ones = 0;
    for (let bit = 0; bit < n; bit++) if ((mask >> bit) & 1) ones++;
    if (Math.min(ones, n - ones) <= Math.min(b, c)) extreme++;
  }
  return Math.min(1, extreme / 2 ** n);
}

test("exact McNemar: textbook values and an enumeration of every outcome agree", () => {
  assert.equal(exactMcNemar(0, 0), 1);
  const near = (x: number, y: number): boolean => Math.abs(x - y) < 1e-12;
  assert.ok(near(exactMcNemar(0, 5), 2 / 32));
  assert.ok(near(exactMcNemar(1, 8), (2 * (1 + 9)) / 512));
  for (const [b, c] of [
    [0, 1],
    [2, 3],
    [3, 3],
    [1, 10],
    [6, 2],
    [0, 12],
    [7, 9],
  ] as const) {
    assert.ok(Math.abs(exactMcNemar(b, c) - bruteForce(b, c)) < 1e-12, `${b}, ${c}`);
  }
  // Large counts stay finite and tiny rather than underflowing to NaN.
  const p = exactMcNemar(0, 2000);
  assert.ok(p >= 0 && p < 1e-100);
  assert.equal(exactMcNemar(1000, 1000), 1);
});

function r(program: string, condition: ConditionId, outcome: OutcomeClass, repeat = 1): TaskResult {
  return {
    taskId: `${condition}-${program}`,
    program,
    condition,
    outcome,
    stopReason: "agent_done",
    claimedFixed: true,
    falseFixed: outcome !== "fixed",
    turns: 1,
    promptTokens: 0,
    completionTokens: 0,
    tokens: 0,
    usageReported: false,
    seconds: 1,
    guardrails: {
      testRuns: 0,
      blockedWrites: 0,
      blockedReads: 0,
      testEditAttempts: 0,
      referenceReadAttempts: 0,
      toolErrors: 0,
      refusedStopAttempts: 0,
    },
    grade: {
      outcome: outcome === "fixed" ? "passed" : "failed",
      counts: { passed: 0, failed: 0, errors: 0, skipped: 0 },
      seconds: 0,
      summary: "",
    },
    changed: true,
    finalSha256: "",
    specialCasing: null,
    servedModel: null,
    repeat,
  };
}

const results = [
  r("gcd", "C", "fixed"),
  r("gcd", "D", "fixed"),
  r("sqrt", "C", "wrong_fix"),
  r("sqrt", "D", "fixed"),
  r("bitcount", "C", "wrong_fix"),
  r("bitcount", "D", "fixed"),
  r("flatten", "C", "fixed"),
  r("flatten", "D", "out_of_budget"),
  r("kth", "C", "no_change"),
  r("kth", "D", "out_of_budget"),
  r("hanoi", "C", "fixed"),
  r("hanoi", "D", "model_error"),
  r("hanoi", "C", "wrong_fix", 2),
];

test("pairs per program: both, only one, neither; model errors and later repeats left out", () => {
  const [pair] = conditionPairs(results);
  assert.deepEqual(pair, {
    first: "C",
    second: "D",
    programs: 5,
    bothFixed: 1,
    onlyFirst: ["flatten"],
    onlySecond: ["bitcount", "sqrt"],
    neither: 1,
    pValue: 1,
  });
});

test("results.md: the pair table with its p-value and the program × condition matrix", () => {
  const md = renderPairedSection(results).join("\n");
  assert.match(md, /\| C vs D \| 5 \| 1 \| 1: flatten \| 2: bitcount, sqrt \| 1 \| 1\.000 \|/);
  assert.match(md, /\| Program \| C \| D \|/);
  assert.match(md, /\| hanoi \| fixed \| model error \|/);
  assert.match(md, /\| sqrt \| not fixed \| fixed \|/);
  assert.deepEqual(renderPairedSection([]), []);
  // One condition: the matrix, no pairs.
  assert.equal(
    renderPairedSection([r("gcd", "A", "fixed")])
      .join("\n")
      .includes("McNemar"),
    false,
  );
});
