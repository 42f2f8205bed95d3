// Property-based checks of the parser with fast-check: random bytes and random JSON-ish
// text never throw and always give a well-formed verdict, and the strict parser agrees with
// JSON.parse (the oracle) wherever both should accept.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ACTION_NAMES,
  PROPOSAL_ERROR_CODES,
  parseProposal,
  parseStrictJson,
  type ProposalVerdict,
} from "../../src/proposal/index.ts";
import { depthOf, hasLoneSurrogate, toPlain, utf8 } from "./jsonOracle.ts";

const RUNS = 400;

function assertWellFormedVerdict(verdict: ProposalVerdict): void {
  assert.equal(typeof verdict.ok, "boolean");
  if (verdict.ok) {
    assert.ok(ACTION_NAMES.includes(verdict.action.action));
    return;
  }
  assert.ok(PROPOSAL_ERROR_CODES.includes(verdict.error), verdict.error);
  assert.equal(typeof verdict.message, "string");
  assert.ok(verdict.message.length > 0 && verdict.message.length < 300);
  assert.ok(verdict.attemptedAction === null || ACTION_NAMES.includes(verdict.attemptedAction));
}

/** Pieces a model (or a fuzzer) might glue together: valid, near-valid and hostile tokens. */
const JSONISH_TOKENS = [
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  " ",
  "\t",
  "\n",
  "\r",
  "\u00a0",
  "\ufeff",
  '"action"',
  '"read"',
  '"replace"',
  '"test"',
  '"finish"',
  '"file"',
  '"version"',
  '"function"',
  '"old"',
  '"new"',
  '"TASK.txt"',
  '"toy_math.py"',
  '"../TASK.txt"',
  '"clamp"',
  '"total"',
  '"x"',
  '"__proto__"',
  '"constructor"',
  "0",
  "-0",
  "6",
  "7",
  "-1",
  "1.0",
  "1e0",
  "01",
  "+1",
  ".5",
  "1e400",
  "123456789012345678901234567890",
  "true",
  "false",
  "null",
  "NaN",
  "Infinity",
  "-Infinity",
  "undefined",
  "None",
  "'x'",
  "//",
  "/*",
  "*/",
  "```",
  "```json",
  '"\\ud800"',
  '"\\ud83d\\ude00"',
  '"\\u0041"',
  '"\\x"',
  '"\u0001"',
  '"unterminated',
  "\\",
  '"',
  "é",
  "😀",
  "Here is",
];

const jsonishText = fc.array(fc.constantFrom(...JSONISH_TOKENS), { maxLength: 60 }).map((parts) => parts.join(""));

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 40 }), fc.constantFrom("[", '{"a":', '{"action":"test","x":'), fc.boolean())
  .map(([depth, opener, closed]) => {
    const closer = opener === "[" ? "]" : "}";
    return opener.repeat(depth) + "1" + (closed ? closer.repeat(depth) : "");
  });

/** Random JSON wrapped in 0-8 extra arrays/objects, so depths on both sides of 8 occur often. */
const nestedJsonValue = fc
  .tuple(
    fc.jsonValue({ maxDepth: 6, depthSize: "large" }),
    fc.array(fc.option(fc.string({ maxLength: 4 }), { nil: null }), { maxLength: 8 }),
  )
  .map(([inner, wrappers]) =>
    wrappers.reduce<unknown>(
      (value, key) =>
        key === null
          ? [value]
          : Object.defineProperty({}, key, { value, enumerable: true, writable: true, configurable: true }),
      inner,
    ),
  );

const hugeNumber = fc.stringMatching(/^-?(0|[1-9][0-9]{0,300})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,4})?$/);

test("random byte strings never throw and always give a verdict", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) => {
      assertWellFormedVerdict(parseProposal(bytes));
      const parsed = parseStrictJson(bytes);
      if (!parsed.ok) assert.ok(PROPOSAL_ERROR_CODES.includes(parsed.error));
    }),
    { numRuns: RUNS },
  );
});

test("random byte strings around a valid proposal never throw", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 20 }), fc.uint8Array({ maxLength: 20 }), (before, after) => {
      const bytes = new Uint8Array([...before, ...utf8('{"action":"finish","version":2}'), ...after]);
      assertWellFormedVerdict(parseProposal(bytes));
    }),
    { numRuns: RUNS },
  );
});

test("random JSON-ish text never throws, and whatever the strict parser accepts JSON.parse accepts identically", () => {
  fc.assert(
    fc.property(jsonishText, (text) => {
      assertWellFormedVerdict(parseProposal(text));
      const parsed = parseStrictJson(text);
      let oracle: { ok: true; value: unknown } | { ok: false };
      try {
        oracle = { ok: true, value: JSON.parse(text) };
      } catch {
        oracle = { ok: false };
      }
      if (parsed.ok) {
        assert.ok(oracle.ok, `strict parser accepted what JSON.parse rejects: ${JSON.stringify(text)}`);
        if (oracle.ok) assert.deepStrictEqual(toPlain(parsed.value), oracle.value);
      }
    }),
    { numRuns: RUNS * 2 },
  );
});

test("deep nesting is accepted exactly up to depth 8 and never throws", () => {
  fc.assert(
    fc.property(deepNesting, (text) => {
      assertWellFormedVerdict(parseProposal(text));
      const parsed = parseStrictJson(text);
      const depth = text.split("").filter((c) => c === "[" || c === "{").length;
      const closed = text.endsWith("]") || text.endsWith("}");
      if (depth > 8) assert.equal(parsed.ok ? "ok" : parsed.error, "nesting_too_deep");
      else if (closed) assert.equal(parsed.ok, true);
      else assert.equal(parsed.ok ? "ok" : parsed.error, "truncated_json");
    }),
    { numRuns: RUNS },
  );
});

test("huge and fractional numbers keep their token; as a version only 0-6 integer tokens pass", () => {
  fc.assert(
    fc.property(hugeNumber, (token) => {
      const value = parseStrictJson(`[${token}]`);
      assert.ok(value.ok && value.value.kind === "array");
      if (value.ok && value.value.kind === "array") assert.deepEqual(value.value.items[0], { kind: "number", token });
      const verdict = parseProposal(`{"action":"finish","version":${token}}`);
      assertWellFormedVerdict(verdict);
      const isInteger = /^-?(0|[1-9][0-9]*)$/.test(token);
      if (!isInteger) assert.equal(verdict.ok ? "ok" : verdict.error, "not_an_integer");
      else if (/^(-0|[0-6])$/.test(token)) assert.equal(verdict.ok, true);
      else assert.equal(verdict.ok ? "ok" : verdict.error, "version_out_of_range");
    }),
    { numRuns: RUNS },
  );
});

test("differential: valid JSON within the limits parses to the same value as JSON.parse", () => {
  fc.assert(
    fc.property(nestedJsonValue, fc.constantFrom(undefined, 1, "\t"), (value, indent) => {
      const text = JSON.stringify(value, null, indent);
      const parsed = parseStrictJson(text);
      const bytes = utf8(text).length;
      if (bytes > 2048) {
        assert.equal(parsed.ok ? "ok" : parsed.error, "proposal_too_large");
      } else if (depthOf(value) > 8) {
        assert.equal(parsed.ok ? "ok" : parsed.error, "nesting_too_deep");
      } else {
        assert.ok(parsed.ok, `rejected valid JSON: ${parsed.ok ? "" : parsed.error} ${text}`);
        if (parsed.ok) assert.deepStrictEqual(toPlain(parsed.value), JSON.parse(text));
        assert.deepStrictEqual(parseStrictJson(utf8(text)), parsed);
      }
    }),
    { numRuns: RUNS },
  );
});

test("differential with any UTF-16 strings: only lone surrogates (escaped by JSON.stringify) separate the two parsers", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }), (value) => {
      const text = JSON.stringify(value);
      if (utf8(text).length > 2048) return;
      const parsed = parseStrictJson(text);
      if (containsLoneSurrogate(value)) {
        assert.equal(parsed.ok ? "ok" : parsed.error, "lone_surrogate");
      } else {
        assert.ok(parsed.ok);
        if (parsed.ok) assert.deepStrictEqual(toPlain(parsed.value), JSON.parse(text));
      }
    }),
    { numRuns: RUNS },
  );
});

function containsLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") return hasLoneSurrogate(value);
  if (Array.isArray(value)) return value.some(containsLoneSurrogate);
  if (value !== null && typeof value === "object") {
    return Object.entries(value).some(([key, member]) => hasLoneSurrogate(key) || containsLoneSurrogate(member));
  }
  return false;
}

test("a duplicated key anywhere within the limits is duplicate_key (where JSON.parse silently keeps the last)", () => {
  const keyArb = fc.string({ maxLength: 6 });
  fc.assert(
    fc.property(
      keyArb,
      fc.jsonValue({ maxDepth: 2 }),
      fc.jsonValue({ maxDepth: 2 }),
      fc.integer({ min: 0, max: 4 }),
      (key, first, second, wrap) => {
        const inner = `{${JSON.stringify(key)}:${JSON.stringify(first)},"pad":0,${JSON.stringify(key)}:${JSON.stringify(second)}}`;
        const text = "[".repeat(wrap) + inner + "]".repeat(wrap);
        fc.pre(utf8(text).length <= 2048 && wrap + 1 + Math.max(depthOf(first), depthOf(second)) <= 8);
        assert.doesNotThrow(() => JSON.parse(text));
        const parsed = parseStrictJson(text);
        assert.equal(parsed.ok ? "ok" : parsed.error, "duplicate_key");
      },
    ),
    { numRuns: RUNS },
  );
});

test("the same proposal as a string and as its UTF-8 bytes gets the same verdict", () => {
  fc.assert(
    fc.property(fc.oneof(jsonishText, fc.string({ unit: "grapheme", maxLength: 80 })), (text) => {
      assert.deepStrictEqual(parseProposal(utf8(text)), parseProposal(text));
    }),
    { numRuns: RUNS },
  );
});
