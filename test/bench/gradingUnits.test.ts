// The trusted grader's parts: the result-line reader treats every line as untrusted (malformed,
// duplicated, out-of-range lines fail), the comparison, the test-data reader's refusals, the
// canonical form the runner writes (checked against hand-written canonical texts), the seeded
// held-out generators, and a data set whose test file no transcription matches.
import { test } from "node:test";
import { sandboxPackages } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONDITIONS } from "../../src/bench/agent/conditions.ts";
import { loadDataset } from "../../src/bench/dataset/dataset.ts";
import { heldOutRows, renderHeldOutSection } from "../../src/bench/results/heldOutSummary.ts";
import { renderResultsMarkdown } from "../../src/bench/results/resultsSummary.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { parseRunnerOutput, uncomparedClass, valueMatches } from "../../src/bench/grading/caseResults.ts";
import {
  generateHeldOutInputs,
  HELD_OUT_GENERATORS,
  HELD_OUT_NOT_GENERATED,
  seededRandom,
} from "../../src/bench/grading/heldOutGenerators.ts";
import { parsePrepareOutput } from "../../src/bench/grading/publicCases.ts";
import { runOnInputs } from "../../src/bench/grading/gradingRuns.ts";
import { gradeProgram } from "../../src/bench/grading/trustedGrader.ts";
import { benchSetup, program } from "./benchFixtures.ts";

const line = (o: unknown): string => JSON.stringify(o);

test("result lines: a complete, well-formed output is read case by case", () => {
  const out = parseRunnerOutput(
    [
      line({ i: 0, s: "ok", v: '["n","1"]' }),
      line({ i: 1, s: "error", e: "ZeroDivisionError" }),
      line({ i: 2, s: "timeout" }),
      line({ done: true }),
      "",
    ].join("\n"),
    3,
  );
  assert.equal(out.finished, true);
  assert.equal(out.malformed, undefined);
  assert.deepEqual(out.results.get(0), { status: "ok", value: '["n","1"]' });
  assert.deepEqual(out.results.get(1), { status: "error", error: "ZeroDivisionError" });
  assert.deepEqual(out.results.get(2), { status: "timeout" });
});

test("result lines: duplicates, unknown cases, garbage, two markers and unknown shapes make the channel malformed", () => {
  const cases: [string, RegExp][] = [
    [[line({ i: 0, s: "ok", v: "x" }), line({ i: 0, s: "ok", v: "y" })].join("\n"), /two results for case 0/],
    [line({ i: 5, s: "ok", v: "x" }), /case 5, which does not exist/],
    [line({ i: -1, s: "ok", v: "x" }), /case -1/],
    ["6 passed in 0.01s", /unreadable/],
    [[line({ done: true }), line({ done: true })].join("\n"), /two completion markers/],
    [line({ i: 0, s: "ok" }), /malformed result for case 0/],
    [line({ passed: 6 }), /unknown shape/],
    [line([1, 2]), /not an object/],
  ];
  for (const [text, why] of cases) {
    const out = parseRunnerOutput(text, 2);
    assert.match(out.malformed ?? "", why, text);
  }
  assert.equal(parseRunnerOutput("", 2).finished, false);
  assert.equal(parseRunnerOutput(line({ import_error: "SyntaxError" }), 2).importError, "SyntaxError");
});

test("comparison: exact canonical text, or pytest.approx replayed on the typed number", () => {
  assert.equal(valueMatches('["n","6"]', '["n","6"]', { kind: "equal" }), true);
  assert.equal(valueMatches('["n","6"]', '["n","7"]', { kind: "equal" }), false);
  const tol = { kind: "approx_abs", tolerance: 0.01 } as const;
  assert.equal(valueMatches('["float","1.414"]', '["float","1.4166666666666665"]', tol), true);
  assert.equal(valueMatches('["float","1.40"]', '["float","1.4166666666666665"]', tol), false);
  assert.equal(valueMatches('["int","2"]', '["float","2.005"]', tol), true);
  assert.equal(valueMatches('["other","str"]', '["float","1.414"]', tol), false);
  assert.equal(valueMatches('["float","nan"]', '["float","1.0"]', tol), false);
  assert.equal(valueMatches('["float","inf"]', '["float","inf"]', tol), true);
  assert.equal(valueMatches('["float","1e308"]', '["float","inf"]', tol), false);
  // The old canonical forms are no typed numbers: never a pass.
  assert.equal(valueMatches('["f","1.414"]', '["float","1.414"]', tol), false);
  assert.equal(valueMatches("not json", '["float","1.414"]', tol), false);
});

test("a refused class is named wherever it sits in the value (list, tuple, set item, dict key or value), and nowhere else", () => {
  const other = '["other","No"]';
  assert.equal(uncomparedClass(other), "No");
  assert.equal(uncomparedClass(`["l",[["n","1"],["t",[${other}]]]]`), "No");
  assert.equal(uncomparedClass(JSON.stringify(["set", ['["n","1"]', other]])), "No");
  assert.equal(uncomparedClass(JSON.stringify(["d", [[other, ["n", "1"]]]])), "No");
  assert.equal(uncomparedClass(JSON.stringify(["d", [['["s","k"]', JSON.parse(other)]]])), "No");
  // A string that looks like a refused value is a string.
  assert.equal(uncomparedClass(JSON.stringify(["s", other])), undefined);
  assert.equal(uncomparedClass(JSON.stringify(["l", [["s", other]]])), undefined);
  assert.equal(uncomparedClass('["n","1"]'), undefined);
  assert.equal(uncomparedClass("not json"), undefined);
});

test("test-data reader: an untranscribed test file, no cases, no marker and a malformed case are refused", () => {
  const refusals = [
    line({ untranscribed: "abc" }),
    line({ done: true }),
    line({ case: { label: "c", input: { args: [], adapter: "identity" }, expected: "x", compare: { kind: "equal" } } }),
    [
      line({
        case: { label: "c", input: { args: "no", adapter: "identity" }, expected: "x", compare: { kind: "equal" } },
      }),
      line({ done: true }),
    ].join("\n"),
    [
      line({
        case: { label: "c", input: { args: [], adapter: "identity" }, expected: "x", compare: { kind: "close" } },
      }),
      line({ done: true }),
    ].join("\n"),
  ];
  for (const text of refusals) {
    const r = parsePrepareOutput(text);
    assert.equal(r.ok, false, text);
    assert.equal(r.ok ? "" : r.error, "grading_cases_unavailable");
  }
  const good = parsePrepareOutput(
    [
      line({
        case: {
          label: "c",
          input: { args: [["n", "1"]], adapter: "identity" },
          expected: '["n","1"]',
          compare: { kind: "approx_abs", tolerance: "0.5" },
        },
      }),
      line({ excluded: "c2: slow" }),
      line({ done: true }),
    ].join("\n"),
  );
  assert.ok(good.ok);
  assert.deepEqual(good.value.excluded, ["c2: slow"]);
  assert.deepEqual(good.value.cases[0]?.compare, { kind: "approx_abs", tolerance: 0.5 });
});

test(
  "the runner's canonical form: Python equality for plain values, contents (not claims) for subclasses",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox, dataset } = benchSetup();
    const returns: [string, string][] = [
      ["[1, 2.0, True]", '["l",[["n","1"],["n","2"],["n","1"]]]'],
      ["(1, 'a', None)", '["t",[["n","1"],["s","a"],["none"]]]'],
      ["{3, 1, 2}", '["set",["[\\"n\\", \\"1\\"]","[\\"n\\", \\"2\\"]","[\\"n\\", \\"3\\"]"]]'],
      [
        "__import__('collections').defaultdict(int, {'b': 2, 'a': 1})",
        '["d",[["[\\"s\\", \\"a\\"]",["n","1"]],["[\\"s\\", \\"b\\"]",["n","2"]]]]',
      ],
      ["float('inf')", '["f","inf"]'],
      ["0.5", '["f","0.5"]'],
      ["type('L', (list,), {'__iter__': lambda s: iter([9])})([1])", '["l",[["n","1"]]]'],
      ["(x for x in [1])", '["other","generator"]'],
      ["12345678901234567890123", '["n","12345678901234567890123"]'],
    ];
    for (const [expr, canonical] of returns) {
      const { output } = await runOnInputs(
        sandbox,
        dataset,
        program(dataset, "gcd"),
        `def gcd(a, b):\n    return ${expr}\n`,
        [
          {
            args: [
              ["n", "1"],
              ["n", "2"],
            ],
            adapter: "identity",
          },
        ],
      );
      assert.equal(output.finished, true, expr);
      assert.deepEqual(output.results.get(0), { status: "ok", value: canonical }, expr);
    }
  },
);

test("held-out generators are seeded: the same seed gives the same inputs, another seed others", () => {
  const a = generateHeldOutInputs("gcd", 7, 20);
  const b = generateHeldOutInputs("gcd", 7, 20);
  const c = generateHeldOutInputs("gcd", 8, 20);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  // Every one of the 40 programs has a generator since issue #24 (longest_common_subsequence by
  // a validity check); an unknown program has none.
  assert.equal(generateHeldOutInputs("no_such_program", 7, 5), undefined);
  assert.equal(generateHeldOutInputs("longest_common_subsequence", 7, 5)?.length, 5);
  assert.deepEqual(Object.keys(HELD_OUT_NOT_GENERATED), []);
  assert.equal(Object.keys(HELD_OUT_GENERATORS).length, 40);
  const r = seededRandom(1);
  const xs = Array.from({ length: 1000 }, r);
  assert.ok(xs.every((x) => x >= 0 && x < 1));
});

test(
  "a data set whose test file matches no template or transcription is not graded (never guessed at)",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox, dataset } = benchSetup();
    const copy = mkdtempSync(join(tmpdir(), "tca-untranscribed-"));
    try {
      cpSync(dataset.root, copy, { recursive: true });
      writeFileSync(
        join(copy, "python_testcases", "test_gcd.py"),
        "from python_programs.gcd import gcd\n\ndef test_gcd():\n    assert gcd(4, 6) == 2\n",
      );
      const ds = loadDataset(copy);
      assert.ok(ds.ok);
      const g = await gradeProgram(sandbox, ds.value, program(ds.value, "gcd"), "def gcd(a, b):\n    return 2\n");
      assert.equal(g.outcome, "error");
      assert.match(g.reason ?? "", /matches no transcription/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  },
);

function graded(
  program: string,
  fixedPublic: boolean | undefined,
  fixedWithHeldOut: boolean | null | undefined,
): TaskResult {
  const passed = fixedPublic === true && fixedWithHeldOut !== false;
  return {
    taskId: `C-${program}`,
    program,
    condition: "C",
    outcome: passed ? "fixed" : "wrong_fix",
    stopReason: "agent_done",
    claimedFixed: true,
    falseFixed: !passed,
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
      outcome: passed ? "passed" : "failed",
      counts: { passed: 0, failed: 0, errors: 0, skipped: 0 },
      seconds: 0,
      summary: "",
      ...(fixedPublic === undefined
        ? {}
        : {
            fixedPublic,
            fixedWithHeldOut: fixedWithHeldOut ?? null,
            heldOut: fixedWithHeldOut === null ? null : { seed: 99, passed: 0, total: 50, dropped: 0 },
          }),
    },
    changed: true,
    finalSha256: "",
    specialCasing: null,
    servedModel: null,
  };
}

test("results.md puts fixed (public) and fixed (public + held-out) side by side, naming the public-only fixes", () => {
  const results = [
    graded("gcd", true, true),
    graded("kth", true, false),
    graded("lcs", true, null),
    graded("sqrt", false, false),
    graded("old", undefined, undefined),
  ];
  const [row] = heldOutRows(results);
  assert.deepEqual(row, {
    label: CONDITIONS.C.label,
    graded: 4,
    fixedPublic: 3,
    fixedWithHeldOut: 2,
    publicOnly: ["C-kth"],
    withoutHeldOut: 1,
  });
  const md = renderResultsMarkdown({ title: "t", lines: [] }, results);
  assert.match(md, /## Public and held-out verification/);
  assert.match(md, /\| 4 \| 3 \| 2 \| 1: C-kth \| 1 \|/);
  assert.match(md, /seed 99/);
  assert.deepEqual(renderHeldOutSection([graded("old", undefined, undefined)]), []);
});
