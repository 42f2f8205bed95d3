// The user message holds the complete closed contract of Part 5: each branch's exact keys and
// allowed values, the version range, and the old/new expression-string bounds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ACTION_CONTRACT_TEXT, renderUserMessage } from "../../src/controller/requestAssembler.ts";
import {
  EXPR_LIMITS,
  FUNCTION_NAMES,
  MANAGED_FILES,
  PROPOSAL_LIMITS,
  TASK_TXT,
} from "../../src/constants/labConstants.ts";
import { parseProposal } from "../../src/proposal/index.ts";

const state = { remainingProposals: 6, currentVersion: 0, sourceRead: false, latestPublicTest: "not_run" as const };

test("the contract text states the old/new bounds: 256 printable ASCII bytes, one line", () => {
  assert.match(
    ACTION_CONTRACT_TEXT,
    new RegExp(`old and new are each at most ${EXPR_LIMITS.expressionMaxBytes} printable ASCII bytes on one line`),
  );
  assert.match(
    ACTION_CONTRACT_TEXT,
    new RegExp(`version is an integer from ${PROPOSAL_LIMITS.versionMin} to ${PROPOSAL_LIMITS.versionMax}`),
  );
  assert.match(ACTION_CONTRACT_TEXT, new RegExp(`at most ${PROPOSAL_LIMITS.maxBytes} bytes`));
});

test("every action, file, function and key of the closed schema is named in the contract", () => {
  for (const action of ["read", "replace", "test", "finish"])
    assert.ok(ACTION_CONTRACT_TEXT.includes(`{"action":"${action}"`), action);
  for (const file of MANAGED_FILES) assert.ok(ACTION_CONTRACT_TEXT.includes(`"file":"${file}"`), file);
  for (const fn of FUNCTION_NAMES) assert.ok(ACTION_CONTRACT_TEXT.includes(`"${fn}"`), fn);
  for (const key of ['"function":', '"old":', '"new":', '"version":'])
    assert.ok(ACTION_CONTRACT_TEXT.includes(key), key);
});

test("the example lines of the contract are the shapes the parser accepts (with placeholders filled)", () => {
  const lines = ACTION_CONTRACT_TEXT.split("\n").filter((line) => line.startsWith("{"));
  const filled = lines
    .map((line) => line.replace('"clamp" or "total"', '"total"'))
    .flatMap((line) => line.split(" or "))
    .map((shape) =>
      shape
        .replace("<exact current return expression>", "x")
        .replace("<new expression>", "lo")
        .replace("<current version>", "0"),
    );
  assert.ok(filled.length >= 4);
  for (const shape of filled) {
    const verdict = parseProposal(shape);
    assert.ok(verdict.ok, `${shape}: ${verdict.ok ? "" : verdict.error}`);
  }
});

test("the user message carries the task bytes, the whole contract and the state envelope", () => {
  const message = renderUserMessage(state, []);
  assert.ok(message.includes(TASK_TXT));
  assert.ok(message.includes(ACTION_CONTRACT_TEXT));
  assert.ok(
    message.includes(
      '{"remaining_proposals":6,"current_version":0,"source_read":false,"latest_public_test":"not_run"}',
    ),
  );
});
