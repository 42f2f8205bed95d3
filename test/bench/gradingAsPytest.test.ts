// Issue #34's fidelity attacks, kept: programs the grade passed while upstream pytest fails them,
// each graded by the trusted grader (public cases) and run by pytest (the data set's own test
// file, as the agent's run_tests runs it, in the sandbox), which must now agree case for case;
// numpy, which is importable neither in the grade nor in run_tests; and wrong programs that held-out inputs drawn
// too narrowly "confirmed" (graded fixed on the public cases, and now caught by held-out).
// Needs the real QuixBugs data set (TCA_SHARED_DIR).
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runProgramTests } from "../../src/bench/agent/testRunner.ts";
import { loadDataset, type QuixDataset } from "../../src/bench/dataset/dataset.ts";
import { heldOutCases } from "../../src/bench/grading/heldOutCases.ts";
import { gradeProgram, UNSUPPORTED_TYPE, type TrustedGrade } from "../../src/bench/grading/trustedGrader.ts";
import { realQuixBugs } from "../support/optionalResources.ts";
import { pytestSiteDirs } from "../../src/bench/sandbox/pythonRuntime.ts";
import { benchSetup, program, referenceFix } from "./benchFixtures.ts";

const real = realQuixBugs();
const lines = (...xs: string[]): string => xs.join("\n") + "\n";

function dataset(): QuixDataset {
  const ds = loadDataset(real.path);
  assert.ok(ds.ok, ds.ok ? "" : ds.message);
  return ds.value;
}

/** The grade (public cases) and pytest's verdict on the same program. */
async function judged(
  name: string,
  source: string,
): Promise<{ grade: TrustedGrade; pytest: { passed: number; failed: number } }> {
  const { sandbox } = benchSetup();
  const ds = dataset();
  const p = program(ds, name);
  const [grade, tests] = await Promise.all([
    gradeProgram(sandbox, ds, p, source),
    runProgramTests(sandbox, ds, p, source),
  ]);
  return { grade, pytest: { passed: tests.counts.passed, failed: tests.counts.failed + tests.counts.errors } };
}

// ---- shared module-level state, as the test file shares it ----

const CLEARS_LENGTHS = (ds: QuixDataset): string => {
  const fix = referenceFix(ds, "shortest_path_length");
  const attack = fix.replace(
    "            return distance\n",
    "            length_by_edge.clear()\n            return distance\n",
  );
  assert.notEqual(attack, fix);
  return attack;
};

test(
  "shortest_path_length that clears length_by_edge before returning: pytest fails test2 (the shared dict is empty), and so does the grade (was 4/4)",
  { skip: real.skip },
  async () => {
    const { grade, pytest } = await judged("shortest_path_length", CLEARS_LENGTHS(dataset()));
    assert.deepEqual(pytest, { passed: 3, failed: 1 });
    assert.equal(grade.fixedPublic, false);
    assert.deepEqual([grade.public.passed, grade.public.total], [3, 4]);
    assert.match(grade.reason ?? "", /^public cases: test2: raised KeyError$/);
  },
);

test(
  "shortest_path_length that cuts the successors it walked: the later tests see the damaged shared nodes, under pytest and in the grade",
  { skip: real.skip },
  async () => {
    const attack = lines(
      "def shortest_path_length(length_by_edge, startnode, goalnode):",
      "    import heapq, itertools",
      "    tie = itertools.count()",
      "    best, heap, seen = {startnode: 0}, [(0, next(tie), startnode)], set()",
      "    while heap:",
      "        d, _, node = heapq.heappop(heap)",
      "        if node is goalnode:",
      "            startnode.successors = []",
      "            return d",
      "        if node in seen:",
      "            continue",
      "        seen.add(node)",
      "        for nxt in node.successors:",
      "            nd = d + length_by_edge[node, nxt]",
      "            if nd < best.get(nxt, float('inf')):",
      "                best[nxt] = nd",
      "                heapq.heappush(heap, (nd, next(tie), nxt))",
      "    return float('inf')",
    );
    const { grade, pytest } = await judged("shortest_path_length", attack);
    // test1 leaves node0 without successors: test2 (node0 to node5) finds no path.
    assert.deepEqual(pytest, { passed: 3, failed: 1 });
    assert.deepEqual([grade.public.passed, grade.public.total], [3, 4]);
    assert.match(grade.reason ?? "", /test2: expected \["n","7"\], got \["f","inf"\]/);
  },
);

test(
  "control: the reference fixes of the two programs whose test files share state pass both",
  { skip: real.skip },
  async () => {
    const ds = dataset();
    for (const name of ["shortest_path_length", "detect_cycle"]) {
      const { grade, pytest } = await judged(name, referenceFix(ds, name));
      assert.equal(grade.fixedPublic, true, `${name}: ${grade.reason ?? ""}`);
      assert.equal(pytest.failed, 0, name);
    }
  },
);

// ---- exact comparison ----

test(
  "sqrt returning Decimal(x).sqrt() + Decimal(epsilon) + Decimal('1e-25'): pytest fails 7/7 (float - Decimal raises; 2 - it is past 0.2), so does the grade (was 6 of 7 cases)",
  { skip: real.skip },
  async () => {
    const attack = lines(
      "from decimal import Decimal",
      "def sqrt(x, epsilon):",
      '    return Decimal(x).sqrt() + Decimal(epsilon) + Decimal("1e-25")',
    );
    const { grade, pytest } = await judged("sqrt", attack);
    assert.deepEqual(pytest, { passed: 0, failed: 7 });
    assert.deepEqual([grade.public.passed, grade.public.failed, grade.public.total], [0, 7, 7]);
  },
);

test(
  "sqrt returning the reference's own float as a Decimal: pytest passes it only where it equals the expected float exactly (5 of 7), and so does the grade",
  { skip: real.skip },
  async () => {
    const { grade, pytest } = await judged(
      "sqrt",
      lines(
        "from decimal import Decimal",
        "def sqrt(x, epsilon):",
        "    approx = x / 2",
        "    while abs(x - approx ** 2) > epsilon:",
        "        approx = 0.5 * (approx + x / approx)",
        "    return Decimal(approx)",
      ),
    );
    assert.deepEqual(pytest, { passed: 5, failed: 2 });
    assert.deepEqual([grade.public.passed, grade.public.failed], [5, 2]);
  },
);

// ---- classes with their own == ----

test(
  "an int subclass whose __eq__ always says no, holding the right gcd: pytest fails 6/6, the grade refuses it with unsupported_type (was 6/6)",
  { skip: real.skip },
  async () => {
    const attack = lines(
      "import math",
      "class No(int):",
      "    def __eq__(self, other):",
      "        return False",
      "    __hash__ = int.__hash__",
      "def gcd(a, b):",
      "    return No(math.gcd(a, b))",
    );
    const { grade, pytest } = await judged("gcd", attack);
    assert.deepEqual(pytest, { passed: 0, failed: 6 });
    assert.deepEqual([grade.public.passed, grade.public.failed], [0, 6]);
    assert.match(grade.reason ?? "", new RegExp(`case 1: ${UNSUPPORTED_TYPE}: returned a value of class No`));
  },
);

test(
  "control: an int subclass that leaves == alone compares as the int it is, under pytest and in the grade",
  { skip: real.skip },
  async () => {
    const { grade, pytest } = await judged(
      "gcd",
      lines("import math", "class Plain(int):", "    pass", "def gcd(a, b):", "    return Plain(math.gcd(a, b))"),
    );
    assert.deepEqual(pytest, { passed: 6, failed: 0 });
    assert.equal(grade.fixedPublic, true, grade.reason ?? "");
  },
);

// ---- numpy ----

// On the mini data set (always present): the model's run_tests and the grade see the same Python
// environment (the standard library, plus pytest's own packages for pytest), so a program that
// imports numpy fails the same way in both, whether or not this machine's Python has numpy.
test("numpy imported in the function: ModuleNotFoundError on every case, in run_tests as in the grade", async () => {
  const { sandbox, dataset: mini } = benchSetup();
  const source = lines("def gcd(a, b):", "    import numpy", "    return int(numpy.gcd(a, b))");
  const p = program(mini, "gcd");
  const [g, tests] = await Promise.all([
    gradeProgram(sandbox, mini, p, source),
    runProgramTests(sandbox, mini, p, source),
  ]);
  assert.equal(g.fixedPublic, false);
  assert.deepEqual([g.public.errors, g.public.total], [6, 6]);
  assert.match(g.reason ?? "", /case 1: raised ModuleNotFoundError/);
  assert.equal(tests.outcome, "failed", tests.output);
  assert.deepEqual([tests.counts.failed, tests.counts.passed], [6, 0]);
  assert.match(tests.output, /ModuleNotFoundError: No module named 'numpy'/);
  const host = spawnSync("python3", ["-c", "import numpy"], { timeout: 30_000 });
  // Informative only: where the host has numpy, this is what changed (pytest passed it before).
  if (host.status !== 0) console.log("note: this machine's Python has no numpy");
});

test("numpy imported at module level: the file cannot be imported, in run_tests (collection error) as in the grade", async () => {
  const { sandbox, dataset: mini } = benchSetup();
  const source = lines("import numpy", "def gcd(a, b):", "    return int(numpy.gcd(a, b))");
  const p = program(mini, "gcd");
  const [g, tests] = await Promise.all([
    gradeProgram(sandbox, mini, p, source),
    runProgramTests(sandbox, mini, p, source),
  ]);
  assert.equal(g.outcome, "error", g.reason ?? "");
  assert.match(g.reason ?? "", /could not be imported \(ModuleNotFoundError\)/);
  assert.equal(tests.outcome, "error", tests.output);
  assert.match(tests.output, /ModuleNotFoundError: No module named 'numpy'/);
});

test("run_tests' pytest imports only the standard library and pytest's own packages: its site-packages holds nothing else", async () => {
  const { sandbox, dataset: mini } = benchSetup();
  // Fails (one line per fact) unless the site-packages folder pytest comes from holds pytest's
  // packages and no numpy, hypothesis or IPython (all beside pytest on this machine, if
  // installed); then computes gcd right, so the tests pass.
  const source = lines(
    "import os, importlib.util, math",
    "import pytest",
    "site = os.path.dirname(os.path.dirname(pytest.__file__))",
    "there = set(os.listdir(site))",
    "assert {'pytest', '_pytest', 'pluggy'} <= there, sorted(there)",
    "assert not there & {'numpy', 'hypothesis', 'IPython'}, sorted(there)",
    "for name in ('numpy', 'hypothesis', 'IPython'):",
    "    assert importlib.util.find_spec(name) is None, name",
    "def gcd(a, b):",
    "    return math.gcd(a, b)",
  );
  const tests = await runProgramTests(sandbox, mini, program(mini, "gcd"), source);
  assert.equal(tests.outcome, "passed", tests.output);
});

test("a graded program that puts pytest's site-packages back on sys.path still cannot import numpy (the folder is masked)", async () => {
  const { sandbox, dataset: mini } = benchSetup();
  const site = pytestSiteDirs(sandbox.python);
  const g = await gradeProgram(
    sandbox,
    mini,
    program(mini, "gcd"),
    lines(
      "import sys",
      `sys.path.extend(${JSON.stringify(site)})`,
      "def gcd(a, b):",
      "    import numpy",
      "    return int(numpy.gcd(a, b))",
    ),
  );
  assert.deepEqual([g.public.errors, g.public.total], [6, 6]);
  assert.match(g.reason ?? "", /case 1: raised ModuleNotFoundError/);
});

// ---- held-out generators over the docstrings' domains ----

const SEED = 20_341;

async function withHeldOut(name: string, source: string): Promise<TrustedGrade> {
  const { sandbox } = benchSetup();
  const ds = dataset();
  const p = program(ds, name);
  const held = await heldOutCases(sandbox, ds, p, SEED);
  assert.ok(held && held.cases.length === 50, `${name}: held-out cases`);
  return gradeProgram(sandbox, ds, p, source, { heldOut: held });
}

/** The kept mutants (test/fixtures/kept-mutants/<program>__<how>.py; bench:mutation runs them too). */
const KEPT = fileURLToPath(new URL("../fixtures/kept-mutants/", import.meta.url));
const NARROW: [string, string, string][] = readdirSync(KEPT)
  .filter((f) => f.endsWith(".py"))
  .sort()
  .map((f) => {
    const [name = "", how = ""] = f.replace(/\.py$/, "").split("__");
    return [name, how.replace(/_/g, " "), readFileSync(join(KEPT, f), "utf8")];
  });

test("the kept mutants: the four of issue #34 and three more", () => {
  assert.deepEqual(
    NARROW.map(([name]) => name),
    ["bitcount", "gcd", "get_factors", "mergesort", "pascal", "sieve", "to_base"],
  );
});

for (const [name, how, source] of NARROW) {
  test(
    `${name} ${how}: fixed on the public cases, and now caught by held-out (fixed with held-out: no)`,
    { skip: real.skip },
    async () => {
      const g = await withHeldOut(name, source);
      assert.equal(g.fixedPublic, true, g.reason ?? "");
      assert.equal(g.fixedWithHeldOut, false);
      assert.ok((g.heldOut?.failed ?? 0) + (g.heldOut?.errors ?? 0) > 0);
      assert.match(g.reason ?? "", /^held-out cases: /);
    },
  );
}

test("control: the reference fixes of those programs pass public and held-out", { skip: real.skip }, async () => {
  const ds = dataset();
  for (const [name] of NARROW) {
    const g = await withHeldOut(name, referenceFix(ds, name));
    assert.equal(g.fixedWithHeldOut, true, `${name}: ${g.reason ?? ""}`);
  }
});
