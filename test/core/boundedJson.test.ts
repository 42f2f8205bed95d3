// The bounded JSON parse (src/core/boundedJson.ts): depth is counted without recursion, brackets
// inside strings (escaped quotes included) do not count, and over-deep JSON is refused with its
// own code before JSON.parse, at depths where a recursive walk would throw RangeError.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { EVIDENCE_JSON_MAX_DEPTH, jsonDepth, parseBoundedJson } from "../../src/core/boundedJson.ts";

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === "object" && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

test("jsonDepth equals the nesting of any JSON value, whatever its strings hold", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
      assert.equal(jsonDepth(JSON.stringify(value)), depthOf(value));
    }),
    { numRuns: 500 },
  );
  assert.equal(jsonDepth(JSON.stringify({ text: '[[["\\"{{{' })), 1);
  assert.equal(jsonDepth('"[[["'), 0);
});

test("at the limit parses; one past it is json_too_deep; malformed JSON is json_invalid", () => {
  const atLimit = parseBoundedJson(nested(EVIDENCE_JSON_MAX_DEPTH), "x");
  assert.ok(atLimit.ok);
  const past = parseBoundedJson(nested(EVIDENCE_JSON_MAX_DEPTH + 1), "trace line 3");
  assert.ok(!past.ok);
  assert.equal(past.error, "json_too_deep");
  assert.match(past.message, /trace line 3 nests deeper than 128 levels/);
  const smaller = parseBoundedJson(nested(10), "reply", 5);
  assert.ok(!smaller.ok && smaller.error === "json_too_deep");
  const broken = parseBoundedJson('{"a":', "x");
  assert.ok(!broken.ok && broken.error === "json_invalid");
});

test("a million levels are refused without a RangeError, and quickly stop counting past the limit", () => {
  const huge = parseBoundedJson(nested(1_000_000), "x");
  assert.ok(!huge.ok && huge.error === "json_too_deep");
  assert.equal(jsonDepth(nested(1_000_000), 10), 11);
});
