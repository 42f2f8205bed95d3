// Issue #24, held-out fidelity: every held-out expected value is confirmed by the project's
// independent implementation (an input where it and the reference fix disagree is dropped,
// recorded and replaced, never used); answers that are not unique are checked for validity;
// generators draw from each docstring's whole domain. The last three tests are the issue's
// sample, on the real data set: a sqrt that divides by zero for 1 <= x < 2 and a lookup table of
// longest_common_subsequence's public cases are graded wrong, a correct Dijkstra for
// shortest_path_length (graded on inputs where the reference fix is wrong) fixed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDataset, referenceFixSource, type QuixDataset } from "../../src/bench/dataset/dataset.ts";
import { valueMatches } from "../../src/bench/grading/caseResults.ts";
import { heldOutCases } from "../../src/bench/grading/heldOutCases.ts";
import { generateHeldOutInputs, HELD_OUT_GENERATORS } from "../../src/bench/grading/heldOutGenerators.ts";
import type { CaseComparison } from "../../src/bench/grading/publicCases.ts";
import { runOnInputs } from "../../src/bench/grading/gradingRuns.ts";
import { gradeProgram } from "../../src/bench/grading/trustedGrader.ts";
import { formatVerifyTable, verifyDataset } from "../../src/bench/grading/verifyDataset.ts";
import { sandboxTest } from "../support/systemPackages.ts";
import { realQuixBugs } from "../support/optionalResources.ts";
import { benchSetup, MINI_DATASET_DIR, program } from "./benchFixtures.ts";

const S = (x: string): string => JSON.stringify(["s", x]);
const N = (x: number): string => JSON.stringify(["n", String(x)]);
const L = (xs: number[]): string => JSON.stringify(["l", xs.map((x) => ["n", String(x)])]);

test("LCS validity: a different longest common subsequence is accepted; a shorter one, a non-subsequence or a non-string is refused", () => {
  // "abcd" and "acbd" have two longest common subsequences, "abd" and "acd".
  const lcs: CaseComparison = { kind: "common_subsequence", a: "abcd", b: "acbd" };
  assert.equal(valueMatches(S("abd"), S("abd"), lcs), true);
  assert.equal(valueMatches(S("acd"), S("abd"), lcs), true);
  assert.equal(valueMatches(S("ad"), S("abd"), lcs), false, "shorter");
  assert.equal(valueMatches(S("abc"), S("abd"), lcs), false, "not a subsequence of b");
  assert.equal(valueMatches(S("dba"), S("abd"), lcs), false, "letters of both, wrong order");
  assert.equal(valueMatches(S("abdd"), S("abd"), lcs), false, "longer than possible");
  assert.equal(
    valueMatches(
      JSON.stringify([
        "l",
        [
          ["s", "a"],
          ["s", "b"],
          ["s", "d"],
        ],
      ]),
      S("abd"),
      lcs,
    ),
    false,
    "a list, not a string",
  );
  assert.equal(valueMatches("not json", S("abd"), lcs), false);
});

test("topological order and index validity: any valid answer passes, an invalid one fails", () => {
  const topo: CaseComparison = {
    kind: "topological_order",
    edges: [
      [0, 1],
      [0, 2],
      [2, 3],
    ],
  };
  assert.equal(valueMatches(L([0, 1, 2, 3]), L([0, 2, 3, 1]), topo), true);
  assert.equal(valueMatches(L([0, 2, 1, 3]), L([0, 2, 3, 1]), topo), true);
  assert.equal(valueMatches(L([1, 0, 2, 3]), L([0, 2, 3, 1]), topo), false, "edge 0->1 broken");
  assert.equal(valueMatches(L([0, 1, 2]), L([0, 2, 3, 1]), topo), false, "a node missing");
  assert.equal(valueMatches(L([0, 1, 2, 2]), L([0, 2, 3, 1]), topo), false, "a node twice");
  assert.equal(valueMatches(L([0, 1, 2, 4]), L([0, 2, 3, 1]), topo), false, "a node that does not exist");
  const index: CaseComparison = { kind: "index_of", arr: [1, 2, 2, 3], x: 2 };
  assert.equal(valueMatches(N(1), N(2), index), true);
  assert.equal(valueMatches(N(2), N(2), index), true);
  for (const wrong of [0, 3, 4, -1, -2]) assert.equal(valueMatches(N(wrong), N(2), index), false, String(wrong));
  const absent: CaseComparison = { kind: "index_of", arr: [1, 2, 2, 3], x: 5 };
  assert.equal(valueMatches(N(-1), N(-1), absent), true);
  assert.equal(valueMatches(N(0), N(-1), absent), false);
});

/** A canonical set of edge tuples, as trusted_runner.canon writes one (json.dumps of each item, sorted). */
const EDGES = (es: [number, number][]): string =>
  JSON.stringify([
    "set",
    es
      .map(([a, b]) =>
        JSON.stringify([
          "t",
          [
            ["n", String(a)],
            ["n", String(b)],
          ],
        ]).replace(/,/g, ", "),
      )
      .sort(),
  ]);

test("minimum spanning tree validity: another tree of the same least weight passes; a heavier tree, a cycle, a missing node or a foreign edge fails", () => {
  // A square 1-2-3-4 with weights 1, 1, 1, 1 and a diagonal (1, 3) of weight 5: four minimal trees.
  const mst: CaseComparison = {
    kind: "spanning_tree",
    edges: [
      [1, 2, 1],
      [2, 3, 1],
      [3, 4, 1],
      [4, 1, 1],
      [1, 3, 5],
    ],
  };
  const expected = EDGES([
    [1, 2],
    [2, 3],
    [3, 4],
  ]);
  assert.equal(valueMatches(expected, expected, mst), true);
  assert.equal(
    valueMatches(
      EDGES([
        [2, 3],
        [3, 4],
        [4, 1],
      ]),
      expected,
      mst,
    ),
    true,
  );
  assert.equal(
    valueMatches(
      EDGES([
        [1, 2],
        [2, 3],
        [1, 3],
      ]),
      expected,
      mst,
    ),
    false,
    "a cycle, node 4 missing",
  );
  assert.equal(
    valueMatches(
      EDGES([
        [1, 2],
        [1, 3],
        [3, 4],
      ]),
      expected,
      mst,
    ),
    false,
    "a spanning tree, heavier",
  );
  assert.equal(
    valueMatches(
      EDGES([
        [1, 2],
        [2, 3],
      ]),
      expected,
      mst,
    ),
    false,
    "too few edges",
  );
  assert.equal(
    valueMatches(
      EDGES([
        [2, 1],
        [2, 3],
        [3, 4],
      ]),
      expected,
      mst,
    ),
    false,
    "(2, 1) is not an edge key of the input",
  );
  assert.equal(valueMatches(JSON.stringify(["l", []]), expected, mst), false);
});

test("sqrt held-out inputs cover the whole domain x >= 1: 1 <= x < 2, fractions, large x, and the docstring's interval as tolerance", () => {
  const draws = generateHeldOutInputs("sqrt", 3, 2000) ?? [];
  assert.equal(draws.length, 2000);
  const xs = draws.map((d) => Number((d.input.args[0] as [string, string])[1]));
  const eps = draws.map((d) => Number((d.input.args[1] as [string, string])[1]));
  assert.ok(xs.every((x) => Number.isFinite(x) && x >= 1));
  assert.ok(xs.filter((x) => x < 2).length > 200, "1 <= x < 2 is drawn often");
  assert.ok(xs.some((x) => x > 1 && x < 2 && !Number.isInteger(x)));
  assert.ok(xs.filter((x) => !Number.isInteger(x)).length > 1000, "not only whole numbers");
  assert.ok(Math.max(...xs) > 100_000);
  assert.ok(eps.every((e) => e > 0) && eps.some((e) => e < 0.001));
  draws.forEach((d, i) => assert.deepEqual(d.compare, { kind: "approx_abs", tolerance: eps[i] }));
});

test("every program with a generator has an independent implementation in independent_oracles.py, written without the reference", () => {
  const text = readFileSync(new URL("../../src/bench/grading/independent_oracles.py", import.meta.url), "utf8");
  const defined = new Set([...text.matchAll(/^def ([a-z_]+)\(/gm)].map((m) => m[1]));
  assert.deepEqual(
    Object.keys(HELD_OUT_GENERATORS).filter((p) => !defined.has(p)),
    [],
  );
  // Only the standard library: nothing from the data set (no reference fix, no node.py).
  assert.deepEqual([...text.matchAll(/^(?:import|from) (\S+)/gm)].map((m) => m[1]).sort(), ["itertools", "math"]);
});

test("the 40 upstream programs all have held-out generators", { skip: realQuixBugs().skip }, () => {
  const ds = loadDataset(realQuixBugs().path);
  assert.ok(ds.ok);
  assert.deepEqual(
    ds.value.programs.map((p) => p.name).filter((p) => !(p in HELD_OUT_GENERATORS)),
    [],
  );
  assert.equal(ds.value.programs.length, 40);
});

/** A copy of the project's mini data set whose reference fix for gcd is wrong whenever a ends in 3. */
function datasetWithWrongReference(): { dataset: QuixDataset; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "tca-wrong-ref-"));
  const root = join(dir, "quixbugs");
  cpSync(MINI_DATASET_DIR, root, { recursive: true });
  writeFileSync(
    join(root, "correct_python_programs", "gcd.py"),
    "def gcd(a, b):\n    if a % 10 == 3:\n        return 0\n    while b:\n        a, b = b, a % b\n    return a\n",
  );
  const ds = loadDataset(root);
  if (!ds.ok) throw new Error(ds.message);
  return { dataset: ds.value, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// Exact ints: gcd's held-out inputs reach 128 bits.
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
const argNumbers = (args: readonly unknown[]): bigint[] => args.map((a) => BigInt((a as [string, string])[1]));
const NB = (x: bigint): string => JSON.stringify(["n", String(x)]);

sandboxTest(
  "a held-out input where a (deliberately wrong) reference fix and the independent implementation disagree is dropped, recorded and replaced, never used",
  async () => {
    const { sandbox } = benchSetup();
    const { dataset, cleanup } = datasetWithWrongReference();
    try {
      const held = await heldOutCases(sandbox, dataset, program(dataset, "gcd"), 4242);
      assert.ok(held);
      // About one input in ten has a ending in 3: disagreements happen, and are replaced.
      assert.ok((held.disagreements ?? 0) >= 2, `disagreements: ${String(held.disagreements)}`);
      assert.equal(held.cases.length, 50);
      for (const c of held.cases) {
        const [a, b] = argNumbers(c.input.args);
        assert.notEqual((a ?? 0n) % 10n, 3n, "a disagreeing input was used");
        assert.equal(c.expected, NB(gcd(a ?? 0n, b ?? 0n)), "every expected value is the true gcd");
      }
      assert.ok((held.disagreeing ?? []).length > 0);
      for (const d of held.disagreeing ?? []) {
        const [a, b] = argNumbers(d.input.args);
        assert.equal((a ?? 0n) % 10n, 3n);
        assert.equal(d.reference, N(0));
        assert.equal(d.independent, NB(gcd(a ?? 0n, b ?? 0n)));
      }
      // verify-dataset reports the count for the program, and the wrong reference still passes the
      // held-out cases that remain (it agrees on them by construction).
      const report = await verifyDataset(sandbox, dataset, { jobs: 2, programs: ["gcd"], heldOutSeed: 4242 });
      const record = report.records[0];
      assert.equal(record?.heldOutDisagreements, held.disagreements);
      assert.equal(report.heldOutDisagreements, held.disagreements);
      assert.deepEqual(record?.fixed.heldOut, { passed: 50, total: 50 });
      assert.match(formatVerifyTable(report), /disagreement: gcd: reference \["n","0"\], independent \["n","\d+"\]/);
    } finally {
      cleanup();
    }
  },
);

const REAL = realQuixBugs();

function realDataset(): QuixDataset {
  const ds = loadDataset(REAL.path);
  if (!ds.ok) throw new Error(ds.message);
  return ds.value;
}

sandboxTest(
  "sample: a sqrt that divides by zero for 1 <= x < 2 passes every public case and is graded wrong by held-out",
  { skip: REAL.skip },
  async () => {
    const { sandbox } = benchSetup();
    const dataset = realDataset();
    const p = program(dataset, "sqrt");
    const reference = referenceFixSource(dataset, "sqrt").toString("utf8");
    const broken = reference.replace("approx = x / 2", "approx = x // 2");
    assert.notEqual(broken, reference);
    const grade = await gradeProgram(sandbox, dataset, p, broken, {
      heldOut: await heldOutCases(sandbox, dataset, p, 99),
    });
    assert.equal(grade.fixedPublic, true);
    assert.equal(grade.outcome, "failed");
    assert.match(grade.reason ?? "", /held-out .*raised ZeroDivisionError/);
  },
);

sandboxTest(
  "sample: a lookup table of longest_common_subsequence's public cases passes them and is graded wrong by held-out",
  { skip: REAL.skip },
  async () => {
    const { sandbox } = benchSetup();
    const dataset = realDataset();
    const p = program(dataset, "longest_common_subsequence");
    const rows = readFileSync(join(dataset.root, "json_testcases", "longest_common_subsequence.json"), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as [[string, string], string]);
    const table = `TABLE = ${JSON.stringify(Object.fromEntries(rows.map(([[a, b], e]) => [`${a}|${b}`, e])))}\n\ndef longest_common_subsequence(a, b):\n    return TABLE.get(a + "|" + b, "")\n`;
    const held = await heldOutCases(sandbox, dataset, p, 99);
    assert.equal(held?.cases.length, 50);
    const grade = await gradeProgram(sandbox, dataset, p, table, { heldOut: held });
    assert.equal(grade.fixedPublic, true);
    assert.equal(grade.outcome, "failed");
    assert.ok((grade.heldOut?.failed ?? 0) > 0);
  },
);

/** A correct longest_common_subsequence that breaks ties its own way (prefix table, walked back from the end). */
const OTHER_LCS = `def longest_common_subsequence(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
    out = []
    i, j = len(a), len(b)
    while i and j:
        if a[i - 1] == b[j - 1]:
            out.append(a[i - 1])
            i -= 1
            j -= 1
        elif table[i - 1][j] >= table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return "".join(reversed(out))
`;

sandboxTest(
  "a correct longest_common_subsequence choosing other ties than the expected answers passes every held-out case",
  { skip: REAL.skip },
  async () => {
    const { sandbox } = benchSetup();
    const dataset = realDataset();
    const p = program(dataset, "longest_common_subsequence");
    const held = await heldOutCases(sandbox, dataset, p, 99);
    assert.ok(held);
    const grade = await gradeProgram(sandbox, dataset, p, OTHER_LCS, { heldOut: held });
    assert.deepEqual([grade.heldOut?.passed, grade.heldOut?.total], [50, 50]);
    // It is graded on validity, not on one string: some of its answers differ from the expected ones.
    const { output } = await runOnInputs(
      sandbox,
      dataset,
      p,
      OTHER_LCS,
      held.cases.map((c) => c.input),
    );
    assert.ok(
      held.cases.some((c, i) => output.results.get(i)?.value !== c.expected),
      "no tie was broken differently",
    );
  },
);

const DIJKSTRA = `import heapq


def shortest_path_length(length_by_edge, startnode, goalnode):
    best = {startnode: 0}
    heap = [(0, 0, startnode)]
    order = 1
    done = set()
    while heap:
        distance, _, node = heapq.heappop(heap)
        if node in done:
            continue
        if node is goalnode:
            return distance
        done.add(node)
        for nextnode in node.successors:
            candidate = distance + length_by_edge[node, nextnode]
            if candidate < best.get(nextnode, float("inf")):
                best[nextnode] = candidate
                heapq.heappush(heap, (candidate, order, nextnode))
                order += 1
    return float("inf")
`;

sandboxTest(
  "sample: a correct Dijkstra for shortest_path_length is graded fixed, held-out inputs where the reference fix is wrong included",
  { skip: REAL.skip },
  async () => {
    const { sandbox } = benchSetup();
    const dataset = realDataset();
    const p = program(dataset, "shortest_path_length");
    // Seed 11 with 2,000 held-out cases: the reference fix (which overwrites heap entries without
    // restoring the heap) is wrong on some of the drawn inputs.
    const held = await heldOutCases(sandbox, dataset, p, 11, 2000);
    assert.ok(held);
    const disagreeing = held.disagreeing ?? [];
    assert.ok(disagreeing.length > 0, "the seed draws inputs on which the reference fix is wrong");
    const grade = await gradeProgram(sandbox, dataset, p, DIJKSTRA, { heldOut: held });
    assert.equal(grade.reason, null);
    assert.equal(grade.outcome, "passed");
    assert.equal(grade.heldOut?.passed, 2000);
    // On those inputs the correct program answers what the independent implementation does, not
    // what the reference fix does: with the reference's answers as expected values (the grade
    // before issue #24) the same correct program would have been graded wrong.
    const { output } = await runOnInputs(
      sandbox,
      dataset,
      p,
      DIJKSTRA,
      disagreeing.map((d) => d.input),
    );
    disagreeing.forEach((d, i) => {
      assert.equal(output.results.get(i)?.value, d.independent);
      assert.notEqual(d.reference, d.independent);
    });
    const referenceOnly = {
      seed: 11,
      dropped: 0,
      cases: disagreeing.map((d, i) => ({
        label: `r${i}`,
        input: d.input,
        expected: d.reference,
        compare: { kind: "equal" } as const,
      })),
    };
    const before = await gradeProgram(sandbox, dataset, p, DIJKSTRA, { heldOut: referenceOnly });
    assert.equal(before.outcome, "failed");
  },
);
