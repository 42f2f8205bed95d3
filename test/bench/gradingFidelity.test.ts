// The grading-fidelity corpus (issue #24): candidate programs written for this test
// (test/fixtures/grading-fidelity/<program>__<variant>.py: results as Fraction, Decimal, complex,
// UserList, UserDict, UserString, OrderedDict, tuple or deque; iterative and recursive rewrites;
// recursion at pytest's limit; programs that mutate their inputs or the test file's shared
// objects; int subclasses with and without their own __eq__; `from node import Node`),
// each judged by upstream pytest (the data set's own test file, run as the agent's run_tests
// runs it, in the sandbox) and by the trusted grader (public cases). Each file declares the
// verdict pytest must give (`# pytest: pass|fail`), so a pytest run that broke for another
// reason cannot make the two agree; the grader must give the same verdict, except where the
// file declares a `# difference:` with its reason. The differences are listed and counted in
// docs/quixbugs-benchmark.md. Needs the real QuixBugs data set (TCA_SHARED_DIR).
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runProgramTests } from "../../src/bench/agent/testRunner.ts";
import { loadDataset } from "../../src/bench/dataset/dataset.ts";
import { valueMatches } from "../../src/bench/grading/caseResults.ts";
import { runOnInputs } from "../../src/bench/grading/gradingRuns.ts";
import { gradeProgram } from "../../src/bench/grading/trustedGrader.ts";
import { realQuixBugs } from "../support/optionalResources.ts";
import { benchSetup, program } from "./benchFixtures.ts";

const CORPUS = fileURLToPath(new URL("../fixtures/grading-fidelity", import.meta.url));
const real = realQuixBugs();

interface Entry {
  readonly file: string;
  readonly program: string;
  readonly source: string;
  readonly pytestPasses: boolean;
  readonly difference: string | null;
}

function corpus(): Entry[] {
  return readdirSync(CORPUS)
    .filter((f) => f.endsWith(".py"))
    .sort()
    .map((file) => {
      const source = readFileSync(join(CORPUS, file), "utf8");
      const verdict = /^# pytest: (pass|fail)$/m.exec(source);
      if (!verdict) throw new Error(`${file}: no "# pytest: pass|fail" line`);
      return {
        file,
        program: file.split("__")[0] ?? "",
        source,
        pytestPasses: verdict[1] === "pass",
        difference: /^# difference: (.+)$/m.exec(source)?.[1] ?? null,
      };
    });
}

test(
  "grading fidelity corpus: upstream pytest and the trusted grader agree on every program but the documented differences",
  { skip: real.skip, timeout: 600_000 },
  async (t) => {
    const started = performance.now();
    const { sandbox } = benchSetup();
    const ds = loadDataset(real.path);
    assert.ok(ds.ok, ds.ok ? "" : ds.message);
    const entries = corpus();
    assert.ok(entries.length >= 25, `corpus has ${entries.length} programs`);
    const judge = async (e: Entry): Promise<string[]> => {
      const p = program(ds.value, e.program);
      const [tests, grade] = await Promise.all([
        runProgramTests(sandbox, ds.value, p, e.source),
        gradeProgram(sandbox, ds.value, p, e.source),
      ]);
      const problems: string[] = [];
      const pytestPasses = tests.outcome === "passed";
      if (pytestPasses !== e.pytestPasses)
        problems.push(
          `${e.file}: pytest ${tests.outcome} (${tests.summary}), declared ${e.pytestPasses ? "pass" : "fail"}`,
        );
      const wanted = e.difference === null ? e.pytestPasses : !e.pytestPasses;
      if (grade.fixedPublic !== wanted)
        problems.push(
          `${e.file}: grader ${grade.outcome} (${grade.reason ?? "fixed"}), wanted ${wanted ? "fixed" : "not fixed"}`,
        );
      return problems;
    };
    // Two at a time: each judgement is two sandboxed Python runs.
    const problems: string[] = [];
    for (let k = 0; k < entries.length; k += 2) {
      for (const list of await Promise.all(entries.slice(k, k + 2).map(judge))) problems.push(...list);
    }
    assert.deepEqual(problems, []);
    // The documented differences, by name (docs/quixbugs-benchmark.md counts them).
    assert.deepEqual(
      entries.filter((e) => e.difference !== null).map((e) => e.file),
      ["bitcount__forged_eq.py"],
    );
    t.diagnostic(
      `${entries.length} programs judged by pytest and the grader in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  },
);

test("canonical form across the numeric tower and the standard library's wrappers: equal where Python's == is, never through a candidate's method", async () => {
  const { sandbox, dataset } = benchSetup();
  const q = (s: string): string => JSON.stringify(s);
  // [Python expression, canonical form written by hand from Python's == semantics]
  const rows: [string, string][] = [
    ["Fraction(6, 2)", `["n","3"]`], // == 3
    ["Fraction(1, 2)", `["f","0.5"]`], // == 0.5
    ["Fraction(1, 3)", `["q","1/3"]`], // == no float
    ["Fraction(-4, 6)", `["q","-2/3"]`],
    ["Decimal('3.000')", `["n","3"]`],
    ["Decimal('0.25')", `["f","0.25"]`],
    ["Decimal('0.1')", `["q","1/10"]`], // Decimal('0.1') != 0.1 in Python
    ["Decimal('-Infinity')", `["f","-inf"]`],
    ["complex(3, 0)", `["n","3"]`],
    ["complex(0.5, -0.0)", `["f","0.5"]`],
    ["complex(1, 2)", `["c",["n","1"],["n","2"]]`],
    ["UserList([1, Fraction(2)])", `["l",[["n","1"],["n","2"]]]`],
    ["UserList((1, 2))", `["l",[["n","1"],["n","2"]]]`], // UserList() makes a list of it
    ["UserString('ab')", `["s","ab"]`],
    ["UserDict({'a': 1})", `["d",[[${q(`["s", "a"]`)},["n","1"]]]]`],
    ["OrderedDict([('a', 1)])", `["d",[[${q(`["s", "a"]`)},["n","1"]]]]`],
    ["deque([1])", `["other","deque"]`], // deque([1]) != [1]
    ["range(2)", `["other","range"]`],
    ["{}.keys()", `["other","dict_keys"]`],
    ["type('F', (Fraction,), {'__eq__': lambda s, o: True})(1, 2)", `["other","F"]`],
    ["type('U', (UserList,), {'__eq__': lambda s, o: True})([1])", `["other","U"]`],
    ["type('D', (Decimal,), {'__eq__': lambda s, o: True})('1')", `["other","D"]`],
  ];
  const source =
    [
      "from collections import OrderedDict, UserDict, UserList, UserString, deque",
      "from decimal import Decimal",
      "from fractions import Fraction",
      `VALUES = [${rows.map(([e]) => e).join(", ")}]`,
      "def gcd(a, b):",
      "    return VALUES[a]",
    ].join("\n") + "\n";
  const { output } = await runOnInputs(
    sandbox,
    dataset,
    program(dataset, "gcd"),
    source,
    rows.map((_, k) => ({
      args: [
        ["n", String(k)],
        ["n", "0"],
      ],
      adapter: "identity",
    })),
  );
  assert.equal(output.finished, true);
  rows.forEach(([expr, canonical], k) =>
    assert.deepEqual(output.results.get(k), { status: "ok", value: canonical }, expr),
  );
  // sqrt's pytest.approx reads the typed number (approxScalar.ts): Fraction through float(),
  // complex by its modulus.
  const tol = (tolerance: number) => ({ kind: "approx_abs", tolerance }) as const;
  assert.equal(valueMatches(`["fraction","1","3"]`, `["float","0.3333"]`, tol(0.001)), true);
  assert.equal(valueMatches(`["fraction","1","3"]`, `["float","0.5"]`, tol(0.001)), false);
  assert.equal(valueMatches(`["complex","1.0","2.0"]`, `["int","1"]`, tol(5)), true);
  assert.equal(valueMatches(`["complex","1.0","2.0"]`, `["int","1"]`, tol(1.9)), false);
});
