// The `tca lab checks` table fits 100 columns, failing rows and long names included, and loses
// nothing a reader needs: every case name, the observed code, and for a failure the expected one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatChecksTable, wrap } from "../../src/cli/checksTable.ts";
import type { CheckRow } from "../../src/lab/checkRow.ts";

function row(overrides: Partial<CheckRow>): CheckRow {
  return {
    id: "short",
    description: "d",
    expected: "unknown_action",
    observed: "unknown_action",
    unchanged: "yes",
    passed: true,
    problems: [],
    runDirectory: "/r",
    stopReason: "script_exhausted",
    ...overrides,
  };
}

test("every line fits 100 columns, with long case names, a failing row and a long report path", () => {
  const rows = [
    row({}),
    row({ id: "changed_between_finish_and_final_evaluation_and_then_some_more_words" }),
    row({
      id: "a_failing_case",
      expected: "signature_mismatch",
      observed: null,
      passed: false,
      stopReason: null,
      unchanged: "no",
      problems: ["the source changed although the proposal was refused; ".repeat(4)],
    }),
  ];
  const text = formatChecksTable(rows, `/tmp/${"deep/".repeat(30)}checks.json`);
  for (const line of text.split("\n")) assert.ok(line.length <= 100, `${line.length}: ${line}`);
  // Nothing a reader needs is lost.
  assert.ok(text.includes("changed_between_finish_and_final_evaluation_and_then_some_more_words"));
  assert.match(text, /^FAIL {4}a_failing_case +\(none\) +no +\(no run\)$/m);
  assert.match(text, /^FAIL a_failing_case: expected signature_mismatch, observed \(none\); the source changed/m);
  assert.match(text, /^2 passed, 1 failed$/m);
  assert.match(text, /^ok {6}short +unknown_action +yes +script_exhausted$/m);
});

test("a case name longer than its column gets its own line above its cells", () => {
  const long = "x".repeat(60);
  const lines = formatChecksTable([row({ id: long })], "/c.json").split("\n");
  const at = lines.findIndex((line) => line.trim() === long);
  assert.ok(at > 1, lines.join("\n"));
  assert.match(lines[at + 1] ?? "", /^ok {8,}unknown_action/);
});

test("wrap keeps words whole, indents continuations and cuts only a word longer than a line", () => {
  assert.deepEqual(wrap("aa bb cc", 5, "  "), ["aa bb", "  cc"]);
  assert.deepEqual(wrap("x".repeat(12), 5, ""), ["xxxxx", "xxxxx", "xx"]);
  assert.deepEqual(wrap("short", 100, "  "), ["short"]);
});
