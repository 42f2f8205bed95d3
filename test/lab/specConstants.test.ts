// The constants module against the normative spec text itself (../shared/spec, beside the
// checkout in development and in CI, or $TCA_SHARED_DIR/spec): byte strings, fixtures,
// proposals, limits and generation settings are extracted from the spec and compared, so a
// changed word fails here. Without the spec (a fresh clone) every test here is reported as
// skipped with the reason; CI sets TCA_REQUIRE_SHARED=1 so that there they always run.
import { before, test as nodeTest, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { specText } from "../support/optionalResources.ts";
import {
  BASELINE_PROPOSALS,
  CONTROLLER_LIMITS,
  EXPR_LIMITS,
  GENERATION_CONFIG,
  HELD_OUT_FIXTURES,
  INITIAL_TOY_MATH_PY,
  PREDICTION_QUESTIONS,
  PROPOSAL_LIMITS,
  PUBLIC_FIXTURES,
  REPAIR_EXPRESSIONS,
  STOP_REASONS,
  SYSTEM_INSTRUCTION,
  TASK_TXT,
  type Fixture,
} from "../../src/constants/labConstants.ts";

const SPEC = specText();

function specLines(): string[] {
  assert.ok(existsSync(SPEC.path), `the spec must be at ${SPEC.path} (shared/ beside the checkout, or TCA_SHARED_DIR)`);
  return readFileSync(SPEC.path, "utf8").split("\n");
}

/** Every test of this file: skipped with the reason when the spec is absent. */
function test(name: string, fn: (t: TestContext) => void): void {
  nodeTest(name, { skip: SPEC.skip }, fn);
}

/** The lines after `marker` and one blank line, up to (not including) the first line matching `end`. */
function blockAfter(lines: readonly string[], marker: string, end: (line: string) => boolean): string[] {
  const start = lines.findIndex((line) => line.startsWith(marker));
  assert.ok(start >= 0, `marker not found: ${marker}`);
  assert.equal(lines[start + 1], "");
  const block: string[] = [];
  for (let i = start + 2; i < lines.length && !end(lines[i] ?? ""); i++) block.push(lines[i] ?? "");
  return block;
}

// Read before the tests, not at load time, so that a missing spec skips them instead of
// failing the file's load.
let lines: string[] = [];
before(() => {
  if (SPEC.skip === false) lines = specLines();
});

test("TASK.txt and toy_math.py are the spec's bytes with a final newline", () => {
  assert.equal(
    TASK_TXT,
    `${blockAfter(lines, "Create TASK.txt with exactly this text", (l) => l === "").join("\n")}\n`,
  );
  const source = blockAfter(lines, "Create toy_math.py with exactly these bytes", (l) =>
    l.startsWith("Workspace version starts"),
  );
  assert.equal(INITIAL_TOY_MATH_PY, `${source.join("\n").trimEnd()}\n`);
});

test("the system instruction is the spec's, byte for byte", () => {
  assert.equal(SYSTEM_INSTRUCTION, blockAfter(lines, "Keep this system instruction fixed", (l) => l === "").join("\n"));
});

test("the baseline proposals and repair expressions are the spec's", () => {
  assert.deepEqual(
    BASELINE_PROPOSALS,
    blockAfter(lines, "On a fresh baseline run, dispatch exactly:", (l) => l === ""),
  );
  const repairs = blockAfter(lines, "The expected repair expressions are:", (l) => l === "");
  assert.deepEqual(repairs, [`clamp: ${REPAIR_EXPRESSIONS.clamp}`, `total: ${REPAIR_EXPRESSIONS.total}`]);
});

test("public and held-out fixtures are the spec's tables", () => {
  const table = (marker: string): Fixture[] =>
    blockAfter(lines, marker, (l) => l === "")
      .slice(1)
      .map((row) => {
        const m = /^(clamp|total) \((-?\d+), (-?\d+), (-?\d+)\) (-?\d+)$/.exec(row);
        assert.ok(m, `unexpected row ${row}`);
        return {
          function: m[1] as Fixture["function"],
          inputs: [Number(m[2]), Number(m[3]), Number(m[4])],
          expected: Number(m[5]),
        };
      });
  assert.deepEqual(PUBLIC_FIXTURES, table("Public cases, returned only by test:"));
  assert.deepEqual(HELD_OUT_FIXTURES, table("Held-out cases, never included"));
});

test("the limits table, budgets and generation settings are the spec's numbers", () => {
  const limits = blockAfter(lines, "Apply these hard limits:", (l) => l === "").slice(1);
  assert.deepEqual(limits, [
    `Whole source ${EXPR_LIMITS.sourceMaxBytes.toLocaleString("en-US")} UTF-8 bytes`,
    `Replacement or old expression ${EXPR_LIMITS.expressionMaxBytes} printable ASCII bytes, one line`,
    `Lexical parenthesis nesting ${EXPR_LIMITS.parenNestingMax}`,
    `Decimal digits in one integer token ${EXPR_LIMITS.integerTokenMaxDigits}`,
    `Expression AST nodes, including operators/contexts ${EXPR_LIMITS.astNodesMax}`,
    `Expression tree depth ${EXPR_LIMITS.treeDepthMax}, counting the expression root as 1`,
    `Absolute input, literal, intermediate, or returned integer ${EXPR_LIMITS.absoluteIntegerMax.toLocaleString("en-US")}`,
    `Interpreter node visits per fixture ${EXPR_LIMITS.nodeVisitsPerFixtureMax}`,
    `Fixtures in any evaluation ${EXPR_LIMITS.fixturesPerEvaluationMax}`,
  ]);
  const text = lines.join("\n");
  assert.match(text, new RegExp(`at most ${PROPOSAL_LIMITS.maxBytes.toLocaleString("en-US")} bytes`));
  assert.match(
    text,
    new RegExp(
      `Limit JSON nesting to ${["zero", "one", "two", "three", "four", "five", "six", "seven", "eight"][PROPOSAL_LIMITS.jsonNestingMax]}`,
    ),
  );
  assert.match(text, new RegExp(`version is an integer ${PROPOSAL_LIMITS.versionMin}–${PROPOSAL_LIMITS.versionMax}`));
  assert.match(
    text,
    new RegExp(
      `earlier of the ${CONTROLLER_LIMITS.perCallDeadlineMs / 1000}-second call deadline and the ten-minute overall deadline`,
    ),
  );
  assert.equal(CONTROLLER_LIMITS.overallDeadlineMs, 10 * 60 * 1000);
  assert.match(text, new RegExp(`within ${CONTROLLER_LIMITS.maxInputTokens.toLocaleString("en-US")} tokens`));
  assert.match(
    text,
    new RegExp(`Cap any observation at ${CONTROLLER_LIMITS.observationMaxBytes.toLocaleString("en-US")} bytes`),
  );
  const generation = blockAfter(lines, "Construct an explicit generation configuration", (l) => l === "");
  const expected = Object.entries(GENERATION_CONFIG)
    .filter(([key]) => key !== "seed")
    .map(
      ([key, value]) =>
        `${key} = ${Array.isArray(value) ? `[${value.join(", ")}]` : typeof value === "boolean" ? String(value) : key === "repetition_penalty" ? Number(value).toFixed(1) : String(value)}`,
    );
  assert.deepEqual(generation, expected);
  assert.match(text, /Set seed 0 and record it/);
});

test("stop reasons and prediction questions are the spec's", () => {
  const stops = /Stop reasons include ([a-z_, ]+), and ([a-z_]+)\./.exec(lines.join("\n"));
  assert.ok(stops);
  const listed = [...(stops[1] ?? "").split(", "), stops[2] ?? ""];
  // The two of this harness's own (harness_error, script_exhausted) come after the spec's list.
  assert.deepEqual(
    STOP_REASONS.filter((r) => r !== "harness_error" && r !== "script_exhausted"),
    listed,
  );
  assert.deepEqual(STOP_REASONS.slice(listed.length), ["harness_error", "script_exhausted"]);
  const questions = blockAfter(lines, "Write predictions before implementation:", (l) => l === "").map((l) =>
    l.replace(/^\s+\d\.\s+/, ""),
  );
  assert.deepEqual(PREDICTION_QUESTIONS, questions);
});
