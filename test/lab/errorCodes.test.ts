// Error codes are closed unions, one per room. A code that two rooms share must mean the same
// thing in both; this list names every such code, so an accidental collision fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PROPOSAL_ERROR_CODES } from "../../src/proposal/index.ts";
import { EXPR_ERROR_CODES } from "../../src/expr/index.ts";
import { COMMIT_ABORT_CODES, WORKSPACE_ERROR_CODES } from "../../src/workspace/index.ts";
import { CONTROLLER_ERROR_CODES } from "../../src/controller/errorCodes.ts";
import { STOP_REASONS } from "../../src/constants/labConstants.ts";

const SHARED_SAME_MEANING: Record<string, string> = {
  unknown_file: "a file key other than TASK.txt or toy_math.py",
  unknown_function: "a function other than clamp or total",
  expression_too_long: "an expression string over 256 bytes",
  expression_not_printable_ascii: "an expression string outside printable ASCII",
  expression_multiline: "an expression string with a line break",
  workspace_conflict: "a managed file is not what the controller recorded",
  stale_version: "the proposal's version is not the current version",
  observation_limit: "an observation does not fit in 2,048 bytes",
};

test("codes shared between rooms are exactly the ones with one meaning", () => {
  const rooms: Record<string, readonly string[]> = {
    proposal: PROPOSAL_ERROR_CODES,
    expr: EXPR_ERROR_CODES,
    workspace: WORKSPACE_ERROR_CODES,
    controller: CONTROLLER_ERROR_CODES,
  };
  const owners = new Map<string, string[]>();
  for (const [room, codes] of Object.entries(rooms)) {
    assert.equal(new Set(codes).size, codes.length, `${room} lists a code twice`);
    for (const code of codes) owners.set(code, [...(owners.get(code) ?? []), room]);
  }
  const shared = [...owners]
    .filter(([, list]) => list.length > 1)
    .map(([code]) => code)
    .sort();
  assert.deepEqual(shared, Object.keys(SHARED_SAME_MEANING).sort());
});

test("every code is snake_case, and the commit guard's codes are stop reasons", () => {
  for (const code of [
    ...PROPOSAL_ERROR_CODES,
    ...EXPR_ERROR_CODES,
    ...WORKSPACE_ERROR_CODES,
    ...CONTROLLER_ERROR_CODES,
  ]) {
    assert.match(code, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  }
  for (const code of COMMIT_ABORT_CODES) assert.ok((STOP_REASONS as readonly string[]).includes(code));
});
