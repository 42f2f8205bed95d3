// tca expr eval / check: one JSON object on stdout, exit 0 or 1; a missing option is a usage error
// (one line on stderr, exit 2, stdout empty). The pure request functions are tested directly; the
// real binary is spawned a few times to check the wiring end to end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgumentList, runCheckRequest, runEvalRequest } from "../../src/expr/commandRequests.ts";
import { readBoundedFile } from "../../src/cli/commands/expr.ts";
import { INITIAL_TOY_MATH_PY } from "../../src/constants/labConstants.ts";

const BIN = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));

function tca(args: readonly string[]): { status: number | null; stdout: string; json: unknown } {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, json: JSON.parse(run.stdout) };
}

function tcaRaw(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
}

test("eval request: value or error code", () => {
  assert.deepEqual(runEvalRequest("clamp", "lo if x < lo else x", "-2,0,5"), { ok: true, value: 0 });
  assert.deepEqual(runEvalRequest("total", "unit * qty + fee", "3, 4, 2"), { ok: true, value: 14 });
  const codes = [
    runEvalRequest("square", "x", "1,2,3"),
    runEvalRequest("clamp", "f(x)", "1,2,3"),
    runEvalRequest("clamp", "x", "1,2"),
    runEvalRequest("clamp", "x", "1,,3"),
    runEvalRequest("clamp", "x", "1.5,2,3"),
    runEvalRequest("clamp", "x", "0x1,2,3"),
    runEvalRequest("clamp", "x", "1000001,2,3"),
    runEvalRequest("clamp", "x * x", "1001,2,3"),
  ].map((r) => (r.ok ? "accepted" : r.error));
  assert.deepEqual(codes, [
    "unknown_function",
    "forbidden_call",
    "input_count_mismatch",
    "arguments_invalid",
    "arguments_invalid",
    "arguments_invalid",
    "input_out_of_range",
    "value_out_of_range",
  ]);
  assert.deepEqual(parseArgumentList("-0,+1,1000000"), { ok: true, value: [0, 1, 1000000] });
  assert.ok(Object.is((parseArgumentList("-0") as { value: number[] }).value[0], 0));
});

test("check request: summary or error code", () => {
  const ok = runCheckRequest(new TextEncoder().encode(INITIAL_TOY_MATH_PY));
  assert.deepEqual(ok, {
    ok: true,
    value: {
      expressions: { clamp: "x", total: "unit + qty + fee" },
      nodeCount: { clamp: 2, total: 10 },
      depth: { clamp: 2, total: 4 },
    },
  });
  const bad = runCheckRequest(new TextEncoder().encode(INITIAL_TOY_MATH_PY.replace("return x", "return x.y")));
  assert.equal(bad.ok ? "accepted" : bad.error, "forbidden_attribute");
});

test("the tca binary prints exactly one JSON object and exits 0 or 1", () => {
  const good = tca(["expr", "eval", "--function", "clamp", "--expr", "lo if x < lo else x", "--args", "-2,0,5"]);
  assert.equal(good.status, 0);
  assert.equal(good.stdout, '{"ok":true,"value":0}\n');
  const bad = tca(["expr", "eval", "--function", "clamp", "--expr", "x ** 2", "--args", "-2,0,5"]);
  assert.equal(bad.status, 1);
  assert.deepEqual(bad.json, { ok: false, error: "forbidden_power", message: 'power operator "**" is not allowed' });
  assert.equal(bad.stdout.trim().split("\n").length, 1);

  const dir = mkdtempSync(join(tmpdir(), "tca-expr-"));
  try {
    const file = join(dir, "toy_math.py");
    writeFileSync(file, INITIAL_TOY_MATH_PY);
    const checked = tca(["expr", "check", file]);
    assert.equal(checked.status, 0);
    assert.equal((checked.json as { ok: boolean }).ok, true);
    const missing = tca(["expr", "check", join(dir, "absent.py")]);
    assert.equal(missing.status, 1);
    assert.deepEqual(missing.json, { ok: false, error: "file_unreadable", message: "the file cannot be read" });
    assert.ok(!missing.stdout.includes(dir), "no host path in the answer");
    // The file reader, directly: bounded read, no directories.
    writeFileSync(file, "\n".repeat(100_000));
    const big = readBoundedFile(file);
    assert.ok(big.ok && big.value.byteLength === 4097);
    assert.equal((runCheckRequest((big as { value: Uint8Array }).value) as { error: string }).error, "source_too_long");
    const directory = readBoundedFile(dir);
    assert.equal(directory.ok ? "read" : directory.error, "file_unreadable");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the newcomer's expr eval without --args (or any option): a usage error, one line on stderr, exit 2, nothing on stdout", () => {
  const cases: readonly [string[], string][] = [
    [["--function", "clamp", "--expr", "x"], "--args <list>"],
    [["--function", "clamp", "--args", "1,2,3"], "--expr <text>"],
    [["--expr", "x", "--args", "1,2,3"], "--function <name>"],
    [[], "--function <name>"],
  ];
  for (const [args, missing] of cases) {
    const r = tcaRaw(["expr", "eval", ...args]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr,
      `tca expr eval: usage_error: required option '${missing}' not specified (see tca expr eval --help)\n`,
    );
  }
  // A value that parses but is not a list of integers is still the expression's verdict, on stdout.
  const malformed = tca(["expr", "eval", "--function", "clamp", "--expr", "x", "--args", "1,,3"]);
  assert.equal(malformed.status, 1);
  assert.equal((malformed.json as { error: string }).error, "arguments_invalid");
});
