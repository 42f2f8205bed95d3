// The closed action contract, exhaustively: every branch's happy path, missing key, extra
// key, wrong type for each field, bad values, and the order in which checks report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseProposal, type ActionName, type ContractErrorCode } from "../../src/proposal/index.ts";

function accepts(text: string, expected: Record<string, unknown>): void {
  const verdict = parseProposal(text);
  assert.ok(verdict.ok, `expected ${text} to be accepted: ${verdict.ok ? "" : verdict.error}`);
  if (!verdict.ok) return;
  assert.deepEqual(verdict.action, expected);
  assert.ok(Object.isFrozen(verdict.action));
}

function rejects(text: string, code: ContractErrorCode, attempted: ActionName | null): void {
  const verdict = parseProposal(text);
  assert.equal(verdict.ok, false, `expected ${text} to be rejected with ${code}`);
  if (verdict.ok) return;
  assert.equal(verdict.error, code, text);
  assert.equal(verdict.attemptedAction, attempted, text);
  assert.ok(verdict.message.length > 0 && verdict.message.length < 200);
}

const j = (value: unknown): string => JSON.stringify(value);
const WRONG_TYPES: readonly unknown[] = [1, true, false, null, [], ["TASK.txt"], {}, { file: "TASK.txt" }];
const REPLACE = {
  action: "replace",
  function: "clamp",
  old: "x",
  new: "lo if x < lo else hi if x > hi else x",
  version: 0,
};

// --- the action discriminator ---

test("a JSON value that is not an object is not_an_object", () => {
  for (const text of ["[]", '[{"action":"test"}]', '"read"', "1", "null", "true"]) rejects(text, "not_an_object", null);
});

test("a missing action key is missing_key with no attempted action", () => {
  rejects("{}", "missing_key", null);
  rejects(j({ file: "TASK.txt" }), "missing_key", null);
});

test("a non-string action is wrong_type", () => {
  for (const value of WRONG_TYPES) rejects(j({ action: value }), "wrong_type", null);
});

test("any other action name is unknown_action, including prototype property names", () => {
  const names = [
    "READ",
    "Read",
    "read ",
    " read",
    "write",
    "edit",
    "shell",
    "exec",
    "run",
    "import",
    "eval",
    "",
    "read\u0000",
    "constructor",
    "__proto__",
    "toString",
    "hasOwnProperty",
    "valueOf",
    "prototype",
    "__defineGetter__",
  ];
  for (const name of names) rejects(j({ action: name }), "unknown_action", null);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});

// --- read ---

test("read accepts exactly the two logical file keys", () => {
  accepts(j({ action: "read", file: "TASK.txt" }), { action: "read", file: "TASK.txt" });
  accepts(j({ file: "toy_math.py", action: "read" }), { action: "read", file: "toy_math.py" });
});

test("read without file is missing_key", () => {
  rejects(j({ action: "read" }), "missing_key", "read");
});

test("read with any extra key is extra_key", () => {
  for (const extra of ["version", "path", "files", "", "__proto__", "constructor", "File"]) {
    rejects(`{"action":"read","file":"TASK.txt",${j(extra)}:0}`, "extra_key", "read");
  }
});

test("read with a non-string file is wrong_type", () => {
  for (const value of WRONG_TYPES) rejects(j({ action: "read", file: value }), "wrong_type", "read");
});

test("read with any other file value, path-like or look-alike, is unknown_file", () => {
  const files = [
    "../TASK.txt",
    "/etc/passwd",
    "./toy_math.py",
    "TOY_MATH.PY",
    "task.txt",
    "Task.txt",
    "TASK.TXT",
    "TASK.txt ",
    " TASK.txt",
    "TASK.txt\u0000",
    "TASK.txt\n",
    "toy_math.py/",
    "workspace/toy_math.py",
    "workspace/TASK.txt",
    "C:\\TASK.txt",
    "..\\TASK.txt",
    "~/TASK.txt",
    "%2e%2e/TASK.txt",
    "file:///etc/passwd",
    "toy_math",
    "toy_math.pyc",
    "",
    ".",
    "..",
    "\uff54oy_math.py",
    "toy_math.py\u200b",
    "TASK.txt/.",
    "constructor",
    "__proto__",
    "toString",
    "manifest.json",
    "audit.jsonl",
  ];
  for (const file of files) rejects(j({ action: "read", file }), "unknown_file", "read");
});

// --- replace ---

test("replace accepts both functions, every version 0-6 and any key order", () => {
  accepts(j(REPLACE), REPLACE);
  accepts(j({ ...REPLACE, function: "total", old: "unit + qty + fee", new: "unit * qty + fee" }), {
    ...REPLACE,
    function: "total",
    old: "unit + qty + fee",
    new: "unit * qty + fee",
  });
  for (let version = 0; version <= 6; version++) accepts(j({ ...REPLACE, version }), { ...REPLACE, version });
  accepts('{"version":3,"new":"x","old":"x","function":"total","action":"replace"}', {
    action: "replace",
    function: "total",
    old: "x",
    new: "x",
    version: 3,
  });
});

test("replace missing any one of its keys is missing_key", () => {
  for (const key of ["function", "old", "new", "version"]) {
    const partial: Record<string, unknown> = { ...REPLACE };
    delete partial[key];
    rejects(j(partial), "missing_key", "replace");
  }
});

test("replace with an extra key is extra_key", () => {
  for (const extra of ["file", "expression", "path", "__proto__", "prototype"]) {
    rejects(`${j(REPLACE).slice(0, -1)},${j(extra)}:"x"}`, "extra_key", "replace");
  }
});

test("replace with a wrong type in each field is wrong_type", () => {
  for (const key of ["function", "old", "new", "version"]) {
    for (const value of WRONG_TYPES) {
      if (key === "version" && typeof value === "number") continue;
      rejects(j({ ...REPLACE, [key]: value }), "wrong_type", "replace");
    }
  }
  rejects(j({ ...REPLACE, version: "0" }), "wrong_type", "replace");
});

test("replace with an unlisted function is unknown_function", () => {
  for (const name of [
    "Clamp",
    "CLAMP",
    "clamp ",
    "clamp()",
    "total\u0000",
    "main",
    "eval",
    "",
    "__proto__",
    "constructor",
    "toString",
    "clamp,total",
  ]) {
    rejects(j({ ...REPLACE, function: name }), "unknown_function", "replace");
  }
});

test("old and new are checked against the expression-string bounds", () => {
  for (const key of ["old", "new"] as const) {
    accepts(j({ ...REPLACE, [key]: "1".repeat(256) }), { ...REPLACE, [key]: "1".repeat(256) });
    accepts(j({ ...REPLACE, [key]: " ~!" }), { ...REPLACE, [key]: " ~!" });
    rejects(j({ ...REPLACE, [key]: "1".repeat(257) }), "expression_too_long", "replace");
    rejects(j({ ...REPLACE, [key]: "x\ny" }), "expression_multiline", "replace");
    rejects(j({ ...REPLACE, [key]: "x\r" }), "expression_multiline", "replace");
    for (const bad of ["x\ty", "x\u0000", "x\u007f", "é", "x\u2028", "😀"]) {
      rejects(j({ ...REPLACE, [key]: bad }), "expression_not_printable_ascii", "replace");
    }
  }
});

test("bounds only: an empty or non-grammatical expression passes here and is checked by the workspace later", () => {
  accepts(j({ ...REPLACE, new: "" }), { ...REPLACE, new: "" });
  accepts(j({ ...REPLACE, new: "__import__('os')" }), { ...REPLACE, new: "__import__('os')" });
});

// --- version (replace and finish share one rule) ---

for (const base of [REPLACE, { action: "finish", version: 0 }]) {
  const name = base.action as ActionName;
  const withVersion = (token: string): string =>
    `${j({ ...base, version: 9 }).replace('"version":9', `"version":${token}`)}`;

  test(`${name}: a boolean, string, null, array or object version is wrong_type`, () => {
    for (const token of ["true", "false", '"1"', '"one"', "null", "[1]", '{"v":1}'])
      rejects(withVersion(token), "wrong_type", name);
  });

  test(`${name}: a number token with a fraction or exponent is not_an_integer`, () => {
    for (const token of ["1.0", "1e0", "1E0", "1e+0", "0.5", "6.0", "-0.0", "10e-1", "0e0", "2.5e0"]) {
      rejects(withVersion(token), "not_an_integer", name);
    }
  });

  test(`${name}: integers outside 0-6 are version_out_of_range, compared without rounding`, () => {
    for (const token of [
      "7",
      "-1",
      "100",
      "1000000",
      "-999",
      "99999999999999999999999",
      "9007199254740993",
      `1${"0".repeat(500)}`,
    ]) {
      rejects(withVersion(token), "version_out_of_range", name);
    }
  });

  test(`${name}: -0 is the JSON integer 0`, () => {
    const verdict = parseProposal(withVersion("-0"));
    assert.ok(verdict.ok);
    if (verdict.ok && "version" in verdict.action) assert.ok(Object.is(verdict.action.version, 0));
  });
}

// --- test ---

test("test accepts exactly {action}", () => {
  accepts('{"action":"test"}', { action: "test" });
});

test("test with any other key is extra_key", () => {
  for (const extra of [
    '"version":0',
    '"file":"toy_math.py"',
    '"args":[]',
    '"":null',
    '"__proto__":{}',
    '"constructor":1',
  ]) {
    rejects(`{"action":"test",${extra}}`, "extra_key", "test");
  }
});

// --- finish ---

test("finish accepts every version 0-6", () => {
  for (let version = 0; version <= 6; version++)
    accepts(j({ action: "finish", version }), { action: "finish", version });
});

test("finish without version is missing_key, with an extra key is extra_key", () => {
  rejects('{"action":"finish"}', "missing_key", "finish");
  rejects('{"action":"finish","version":2,"sha256":"00"}', "extra_key", "finish");
  rejects('{"action":"finish","version":2,"passed":true}', "extra_key", "finish");
});

// --- check order ---

test("checks report in a fixed order: extra key, then missing key, then fields in key order", () => {
  rejects('{"action":"finish","x":1}', "extra_key", "finish");
  rejects(
    j({ action: "replace", function: "nope", old: "x".repeat(300), new: "x", version: 9 }),
    "unknown_function",
    "replace",
  );
  rejects(j({ ...REPLACE, old: "x".repeat(300), new: "\n", version: 9 }), "expression_too_long", "replace");
  rejects(j({ ...REPLACE, new: "\n", version: 9 }), "expression_multiline", "replace");
});

test("an accepted action carries only the contract's keys", () => {
  const verdict = parseProposal(j(REPLACE));
  assert.ok(verdict.ok);
  if (verdict.ok) assert.deepEqual(Object.keys(verdict.action), ["action", "function", "old", "new", "version"]);
});
