// One test per parsing rule (input checks and strict JSON syntax), asserting the stable code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseProposal, parseStrictJson, type JsonErrorCode, type InputErrorCode } from "../../src/proposal/index.ts";
import { toPlain, utf8 } from "./jsonOracle.ts";

const VALID = '{"action":"test"}';

/** Asserts the code through both entry points and both input forms (string and bytes). */
function rejects(input: string | Uint8Array, code: JsonErrorCode | InputErrorCode): void {
  const forms = typeof input === "string" ? [input, utf8(input)] : [input];
  for (const form of forms) {
    const parsed = parseStrictJson(form);
    assert.equal(parsed.ok, false, `expected ${code} for ${JSON.stringify(String(input))}`);
    if (!parsed.ok) assert.equal(parsed.error, code);
    const verdict = parseProposal(form);
    assert.equal(verdict.ok, false);
    if (!verdict.ok) {
      assert.equal(verdict.error, code);
      assert.equal(verdict.attemptedAction, null);
      assert.ok(verdict.message.length > 0);
    }
  }
}

function parses(input: string | Uint8Array): unknown {
  const parsed = parseStrictJson(input);
  assert.ok(parsed.ok, `expected ${JSON.stringify(String(input))} to parse: ${parsed.ok ? "" : parsed.error}`);
  return toPlain(parsed.value);
}

// --- input checks before parsing ---

test("exactly 2,048 bytes is accepted, 2,049 is proposal_too_large", () => {
  const padded = VALID + " ".repeat(2048 - VALID.length);
  assert.equal(parseProposal(padded).ok, true);
  assert.equal(parseProposal(utf8(padded)).ok, true);
  rejects(padded + " ", "proposal_too_large");
});

test("the limit counts UTF-8 bytes, not characters", () => {
  // "é" is 2 bytes: 1,020 of them inside a 9-byte frame is 2,049 bytes in 1,029 characters.
  const text = `{"xy":"${"é".repeat(1020)}"}`;
  assert.equal(new TextEncoder().encode(text).length, 2049);
  rejects(text, "proposal_too_large");
  const fits = `{"xy":"${"é".repeat(1019)}"} `;
  assert.equal(new TextEncoder().encode(fits).length, 2048);
  assert.equal(parseStrictJson(fits).ok, true);
});

test("size is checked before UTF-8: 3,000 invalid bytes are proposal_too_large", () => {
  rejects(new Uint8Array(3000).fill(0xff), "proposal_too_large");
});

test("invalid UTF-8 byte sequences are invalid_utf8", () => {
  const prefix = utf8('{"action":"');
  const suffix = utf8('"}');
  const bad = [
    [0xff],
    [0xc0, 0xaf], // overlong "/"
    [0xe0, 0x80, 0xaf], // overlong
    [0xed, 0xa0, 0x80], // encoded surrogate U+D800
    [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
    [0xe2, 0x82], // truncated sequence
    [0x80], // lone continuation byte
  ];
  for (const sequence of bad) rejects(new Uint8Array([...prefix, ...sequence, ...suffix]), "invalid_utf8");
  rejects(new Uint8Array([0xe2, 0x82]), "invalid_utf8");
});

test("a string argument with an unpaired surrogate is invalid_utf8 (it has no UTF-8 encoding)", () => {
  const verdict = parseProposal('{"action":"test\ud800"}');
  assert.equal(verdict.ok, false);
  if (!verdict.ok) assert.equal(verdict.error, "invalid_utf8");
  const low = parseStrictJson('"\udc00"');
  assert.equal(low.ok ? "" : low.error, "invalid_utf8");
});

test("valid multi-byte UTF-8 inside strings is accepted", () => {
  assert.deepEqual(parses('{"k":"héllo ✓ 😀"}'), { k: "héllo ✓ 😀" });
});

// --- exactly one object, JSON whitespace only ---

test("empty or whitespace-only input is empty_proposal", () => {
  rejects("", "empty_proposal");
  rejects(" \t\r\n", "empty_proposal");
});

test("the four JSON whitespace characters are allowed around and between tokens", () => {
  assert.equal(parseProposal(` \t\r\n{ "action" :\t"test" }\r\n \t`).ok, true);
});

test("other whitespace (NBSP, form feed, vertical tab, U+2028, BOM) before the object is leading_text", () => {
  for (const space of ["\u00a0", "\f", "\v", "\u2028", "\ufeff"]) rejects(`${space}${VALID}`, "leading_text");
});

test("other whitespace after the object is trailing_text", () => {
  for (const space of ["\u00a0", "\f", "\v", "\u2028", "\u3000"]) rejects(`${VALID}${space}`, "trailing_text");
});

test("other whitespace between tokens is json_syntax", () => {
  rejects('{"action":\u00a0"test"}', "json_syntax");
});

test("a code fence around the object is code_fence", () => {
  rejects("```json\n" + VALID + "\n```", "code_fence");
  rejects("```\n" + VALID + "\n```", "code_fence");
  rejects(VALID + "\n```", "code_fence");
});

test("prose before the object is leading_text", () => {
  rejects(`Here is my proposal: ${VALID}`, "leading_text");
  rejects(`json\n${VALID}`, "leading_text");
  rejects(`# plan\n${VALID}`, "leading_text");
  rejects(`<tool_call>${VALID}`, "leading_text");
});

test("prose after the object is trailing_text", () => {
  rejects(`${VALID} I will now run the tests.`, "trailing_text");
  rejects(`${VALID}}`, "trailing_text");
  rejects(`${VALID}<|im_end|>`, "trailing_text");
});

test("a second object or array after the first is multiple_json_values", () => {
  rejects(`${VALID}${VALID}`, "multiple_json_values");
  rejects(`${VALID}\n${VALID}`, "multiple_json_values");
  rejects(`${VALID} []`, "multiple_json_values");
});

// --- keys and nesting ---

test("a duplicate key at the top level is duplicate_key", () => {
  rejects('{"action":"test","action":"test"}', "duplicate_key");
  rejects('{"action":"read","file":"TASK.txt","file":"toy_math.py"}', "duplicate_key");
});

test("a duplicate key at any depth is duplicate_key", () => {
  rejects('{"a":{"b":{"c":1,"c":1}}}', "duplicate_key");
  rejects('{"a":[1,{"x":1,"y":2,"x":3}]}', "duplicate_key");
  rejects('[[[{"k":0,"k":0}]]]', "duplicate_key");
});

test("keys are compared after unescaping: \\u0061 duplicates a", () => {
  rejects('{"a":1,"\\u0061":2}', "duplicate_key");
  rejects('{"__proto__":1,"\\u005f_proto__":2}', "duplicate_key");
});

test("depth 8 is accepted (the top container is depth 1)", () => {
  assert.deepEqual(parses("[[[[[[[[]]]]]]]]"), [[[[[[[[]]]]]]]]);
  assert.equal(parseStrictJson('{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":1}}}}}}}}').ok, true);
  assert.equal(parseStrictJson('{"action":"test","x":[[[[[[[0]]]]]]]}').ok, true);
});

test("depth 9 is nesting_too_deep", () => {
  rejects("[[[[[[[[[]]]]]]]]]", "nesting_too_deep");
  rejects('{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{}}}}}}}}}', "nesting_too_deep");
  rejects('{"action":"test","x":[[[[[[[[0]]]]]]]]}', "nesting_too_deep");
});

test("nesting is rejected when the ninth container opens, before its contents are scanned", () => {
  // The content after the ninth '[' is garbage and unterminated; only the depth is reported.
  rejects("[[[[[[[[[ this is not json", "nesting_too_deep");
  rejects(`{"a":[[[[[[[[${"x".repeat(1900)}`, "nesting_too_deep");
});

test("scalars do not add depth", () => {
  assert.equal(parseStrictJson('[[[[[[[["s",1,true,null]]]]]]]]').ok, true);
});

// --- constants and literals ---

test("NaN, Infinity, -Infinity, undefined and Python constants are non_json_constant", () => {
  for (const word of [
    "NaN",
    "Infinity",
    "-Infinity",
    "+Infinity",
    "undefined",
    "None",
    "True",
    "False",
    "nan",
    "inf",
    "-NaN",
  ]) {
    rejects(`{"action":"finish","version":${word}}`, "non_json_constant");
  }
  rejects("NaN", "non_json_constant");
});

test("other bare words in value position are invalid_literal", () => {
  for (const word of ["tru", "truee", "nul", "TRUE", "Null", "version", "x", "true1", "null_"]) {
    rejects(`{"a":${word}}`, "invalid_literal");
  }
});

test("true, false and null parse as themselves", () => {
  assert.deepEqual(parses('{"t":true,"f":false,"n":null}'), { t: true, f: false, n: null });
});

test("a single-quoted string or key is single_quoted_string", () => {
  rejects("{'action':'test'}", "single_quoted_string");
  rejects(`{"action":'test'}`, "single_quoted_string");
  rejects(`'x'`, "single_quoted_string");
});

test("an unquoted key is unquoted_key", () => {
  rejects('{action:"test"}', "unquoted_key");
  rejects('{"action":"test",version:1}', "unquoted_key");
});

test("comments anywhere are comment", () => {
  rejects(`// proposal\n${VALID}`, "comment");
  rejects(`/* c */${VALID}`, "comment");
  rejects('{"action":"test" // run\n}', "comment");
  rejects('{/* c */"action":"test"}', "comment");
  rejects('{"action":"test",/* c */"x":1}', "comment");
  rejects(`${VALID} // done`, "comment");
  rejects("[1 /* c */]", "comment");
});

test("a trailing comma in an object or array is trailing_comma", () => {
  rejects('{"action":"test",}', "trailing_comma");
  rejects('{"action":"test" , }', "trailing_comma");
  rejects('{"a":[1,2,]}', "trailing_comma");
});

// --- strings ---

test("raw control characters U+0000-U+001F inside strings are control_character_in_string", () => {
  for (let unit = 0; unit < 0x20; unit++) {
    rejects(`{"action":"te${String.fromCharCode(unit)}st"}`, "control_character_in_string");
  }
  rejects('{"a\nb":1}', "control_character_in_string");
});

test("DEL and U+2028 are allowed raw inside strings (JSON permits them)", () => {
  assert.deepEqual(parses('{"a":"x\u007fy\u2028z"}'), { a: "x\u007fy\u2028z" });
});

test("all eight JSON escapes decode", () => {
  assert.deepEqual(parses('["\\"\\\\\\/\\b\\f\\n\\r\\t"]'), ['"\\/\b\f\n\r\t']);
  assert.deepEqual(parses('["\\u0041\\u00e9\\u2028\\uFFFF\\u0000"]'), ["A\u00e9\u2028\uffff\u0000"]);
});

test("unknown escapes and bad \\u hex are invalid_escape", () => {
  for (const escape of ["\\a", "\\x41", "\\'", "\\U0041", "\\u00G1", "\\u12", "\\ ", "\\0"]) {
    rejects(`{"a":"${escape}zzzz"}`, "invalid_escape");
  }
});

test("a valid surrogate pair escape decodes to one code point", () => {
  assert.deepEqual(parses('["\\ud83d\\ude00"]'), ["😀"]);
  assert.deepEqual(parses('["\\uD83D\\uDE00"]'), ["😀"]);
});

test("lone surrogates written as \\u escapes are lone_surrogate", () => {
  for (const body of [
    "\\ud800",
    "\\udbff x",
    "\\udc00",
    "\\udfff",
    "\\ud800\\u0041",
    "\\ud800\\ud800",
    "\\ude00\\ud83d",
    "\\ud800\\n",
  ]) {
    rejects(`{"a":"${body}"}`, "lone_surrogate");
  }
  rejects('{"\\ud800":1}', "lone_surrogate");
});

// --- numbers ---

test("numbers keep their exact token text", () => {
  for (const token of [
    "0",
    "-0",
    "7",
    "-12",
    "1.0",
    "1e0",
    "1E+2",
    "-0.5e-3",
    "123456789012345678901234567890",
    "1e400",
  ]) {
    const parsed = parseStrictJson(`[${token}]`);
    assert.ok(parsed.ok);
    if (parsed.ok && parsed.value.kind === "array") assert.deepEqual(parsed.value.items[0], { kind: "number", token });
  }
});

test("numbers outside the JSON grammar are invalid_number", () => {
  for (const token of [
    "01",
    "-01",
    "00",
    "+1",
    ".5",
    "1.",
    "-.5",
    "0x10",
    "1_000",
    "1.2.3",
    "1e5e",
    "1ee5",
    "- 1",
    "1e+-2",
    "0b1",
    "1f",
    "5L",
  ]) {
    rejects(`{"a":${token}}`, "invalid_number");
  }
});

// --- truncation and general syntax ---

test("input that ends early is truncated_json", () => {
  for (const text of [
    '{"action":"test"',
    '{"action":"te',
    '{"action":',
    '{"action"',
    "{",
    "[1,",
    '{"a":-',
    '{"a":1.',
    '{"a":1e',
    '{"a":"\\',
    '{"a":"\\u00',
    '{"a":"\\ud83d',
    '{"a":"\\ud83d\\',
  ]) {
    rejects(text, "truncated_json");
  }
});

test("other grammar violations are json_syntax", () => {
  for (const text of [
    '{"action" "test"}',
    '{"a":1 "b":2}',
    "[1 2]",
    '{"a":}',
    "[,1]",
    "[1,,2]",
    '{,"a":1}',
    '{"a"=1}',
    '{"a":1;}',
    "{]",
    "[}",
  ]) {
    rejects(text, "json_syntax");
  }
});

test("a top-level scalar or array parses as JSON (the contract, not the parser, demands an object)", () => {
  assert.deepEqual(parses("[1]"), [1]);
  assert.equal(parses('"s"'), "s");
  assert.equal(parses("-0"), -0);
});

test("a __proto__ key is plain data in a Map and pollutes nothing", () => {
  const parsed = parseStrictJson('{"__proto__":{"polluted":true},"constructor":{"prototype":1}}');
  assert.ok(parsed.ok);
  if (!parsed.ok || parsed.value.kind !== "object") return;
  assert.ok(parsed.value.members instanceof Map);
  assert.deepEqual([...parsed.value.members.keys()], ["__proto__", "constructor"]);
  assert.equal((Object.prototype as Record<string, unknown>)["polluted"], undefined);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});
