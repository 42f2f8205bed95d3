import { test } from "node:test";
import assert from "node:assert/strict";
import {
  BASELINE_PROPOSALS,
  INITIAL_TOY_MATH_PY,
  TASK_TXT,
  SYSTEM_INSTRUCTION,
} from "../../src/constants/labConstants.ts";

test("spec byte strings use LF only and end with exactly one newline", () => {
  for (const text of [TASK_TXT, INITIAL_TOY_MATH_PY]) {
    assert.ok(!text.includes("\r"));
    assert.ok(text.endsWith("\n") && !text.endsWith("\n\n"));
  }
  assert.equal(TASK_TXT.split("\n").length - 1, 6);
  assert.equal(INITIAL_TOY_MATH_PY.split("\n").length - 1, 5);
});

test("the system instruction is eleven lines with no trailing newline", () => {
  assert.equal(SYSTEM_INSTRUCTION.split("\n").length, 11);
  assert.ok(!SYSTEM_INSTRUCTION.endsWith("\n"));
});

test("each baseline proposal is one JSON object within 2,048 bytes", () => {
  assert.equal(BASELINE_PROPOSALS.length, 6);
  for (const text of BASELINE_PROPOSALS) {
    const parsed: unknown = JSON.parse(text);
    assert.equal(typeof parsed, "object");
    assert.ok(Buffer.byteLength(text, "utf8") <= 2048);
  }
});
