// The task-set generator's pure parts: the seed's parsing, the project's own seeded stream and
// try order, the one-line application of a candidate, the failing-case distribution.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyCandidate, differingLines, type MutationCandidate } from "../../src/bench/tasksets/mutationCandidates.ts";
import { parseSeed, SeededStream, seededTryOrder } from "../../src/bench/tasksets/seededOrder.ts";
import { failingDistribution } from "../../src/bench/tasksets/tasksetSummary.ts";
import type { ChosenMutant } from "../../src/bench/tasksets/mutantSelection.ts";

test("parseSeed takes decimal non-negative integers up to 2^53 - 1 and nothing else", () => {
  assert.equal(parseSeed("0"), 0);
  assert.equal(parseSeed("004"), 4);
  assert.equal(parseSeed("9007199254740991"), 9007199254740991);
  for (const bad of ["", "-1", "+1", "1.0", "1e3", "0x10", " 1", "abc", "9007199254740992", "12345678901234567"])
    assert.equal(parseSeed(bad), null, bad);
});

test("a seeded stream is a pure function of seed and stream name, and stays in bounds", () => {
  const draws = (seed: number, name: string): number[] => {
    const s = new SeededStream(seed, name);
    return Array.from({ length: 50 }, () => s.below(7));
  };
  assert.deepEqual(draws(1, "gcd"), draws(1, "gcd"));
  assert.notDeepEqual(draws(1, "gcd"), draws(2, "gcd"));
  assert.notDeepEqual(draws(1, "gcd"), draws(1, "kth"));
  assert.ok(draws(5, "x").every((v) => Number.isInteger(v) && v >= 0 && v < 7));
  // Every value is reachable (not a constant stream).
  assert.equal(new Set(draws(3, "y")).size, 7);
  assert.throws(() => new SeededStream(1, "z").below(0), RangeError);
});

test("the try order is a permutation that takes one candidate of each operator class in turn", () => {
  const candidates = [
    ...Array.from({ length: 6 }, (_, i) => ({ op: "wrong_variable", id: i })),
    { op: "swap_break_continue", id: 10 },
    { op: "flip_comparison", id: 11 },
    { op: "flip_comparison", id: 12 },
  ];
  const order = seededTryOrder(9, "p", candidates);
  assert.deepEqual(
    order.map((c) => c.id).sort((a, b) => a - b),
    candidates.map((c) => c.id).sort((a, b) => a - b),
  );
  assert.deepEqual(
    new Set(order.slice(0, 3).map((c) => c.op)),
    new Set(["wrong_variable", "swap_break_continue", "flip_comparison"]),
  );
  assert.deepEqual(seededTryOrder(9, "p", candidates), order);
  assert.ok([1, 2, 3, 4, 5].some((s) => JSON.stringify(seededTryOrder(s, "p", candidates)) !== JSON.stringify(order)));
});

test("a candidate changes exactly its own line, and only when that line is what it says", () => {
  const reference = Buffer.from("def f(a, b):\n    # keep me\n    return a - b\n");
  const c: MutationCandidate = { op: "swap_operands", line: 3, before: "    return a - b", after: "    return b - a" };
  const mutant = applyCandidate(reference, c);
  assert.equal(mutant?.toString(), "def f(a, b):\n    # keep me\n    return b - a\n");
  assert.deepEqual(differingLines(reference, mutant ?? Buffer.alloc(0)), [3]);
  assert.equal(applyCandidate(reference, { ...c, line: 2 }), null);
  assert.equal(applyCandidate(reference, { ...c, line: 9 }), null);
  assert.deepEqual(differingLines(reference, Buffer.from("x\n    # keep me\n    return b - a\n")), [1, 3]);
});

test("the failing-case distribution puts each mutant in one bucket", () => {
  const m = (failing: number, total: number): ChosenMutant => ({ publicCases: { failing, total } }) as ChosenMutant;
  const d = failingDistribution([m(1, 10), m(3, 10), m(6, 10), m(10, 10), m(1, 1)]);
  assert.deepEqual([d.oneCase, d.upToHalf, d.overHalf, d.allCases], [1, 1, 1, 2]);
  assert.deepEqual(d.failing, [1, 1, 3, 6, 10]);
  assert.equal(d.median, 3);
  assert.equal(failingDistribution([]).median, null);
});
