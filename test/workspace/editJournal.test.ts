// Replaying the edit journal: the recorded state after commits and reconciliations, the pending
// intent, the refused intents, and refusal of a journal that contradicts itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { REPAIR_EXPRESSIONS } from "../../src/constants/labConstants.ts";
import { INITIAL_STATE, replayEditJournal, type JournalRecord } from "../../src/workspace/index.ts";

const AFTER = "a".repeat(64);
const intent = (id: string, overrides: Record<string, unknown> = {}): JournalRecord => ({
  type: "edit_intent",
  data: {
    intent_id: id,
    function: "clamp",
    old_version: 0,
    new_version: 1,
    before_sha256: INITIAL_STATE.sourceSha256,
    after_sha256: AFTER,
    expressions_before: INITIAL_STATE.expressions,
    expressions_after: { ...INITIAL_STATE.expressions, clamp: REPAIR_EXPRESSIONS.clamp },
    backup_file: "backups/toy_math.v0.py",
    temp_file: "workspace/.toy_math.py.v1.1.tmp",
    ...overrides,
  },
});

test("empty journal: the initial state, nothing pending", () => {
  assert.deepEqual(replayEditJournal([]), {
    ok: true,
    value: { state: INITIAL_STATE, pending: null, refused: [], conflicted: false },
  });
});

test("intent then commit advances the state; other record types are ignored", () => {
  const replayed = replayEditJournal([
    { type: "proposal", data: {} },
    intent("i1"),
    { type: "edit_committed", data: { intent_id: "i1" } },
  ]);
  assert.ok(replayed.ok);
  assert.equal(replayed.value.state.version, 1);
  assert.equal(replayed.value.state.sourceSha256, AFTER);
  assert.equal(replayed.value.state.expressions.clamp, REPAIR_EXPRESSIONS.clamp);
  assert.equal(replayed.value.pending, null);
});

test("an intent without an outcome is pending; interrupted keeps it pending; aborted clears it", () => {
  const pending = replayEditJournal([intent("i1"), { type: "edit_interrupted", data: { intent_id: "i1" } }]);
  assert.ok(pending.ok && pending.value.pending?.intent_id === "i1" && pending.value.state.version === 0);
  const aborted = replayEditJournal([
    intent("i1"),
    { type: "edit_aborted", data: { intent_id: "i1", reason: "cancelled" } },
  ]);
  assert.ok(aborted.ok && aborted.value.pending === null && aborted.value.refused.length === 0);
});

test("reconciled outcomes: committed adopts, not_committed is refused later, conflict stays pending", () => {
  const committed = replayEditJournal([
    intent("i1"),
    { type: "edit_reconciled", data: { intent_id: "i1", outcome: "committed" } },
  ]);
  assert.ok(committed.ok && committed.value.state.version === 1);
  const notCommitted = replayEditJournal([
    intent("i1"),
    { type: "edit_reconciled", data: { intent_id: "i1", outcome: "not_committed" } },
  ]);
  assert.ok(notCommitted.ok && notCommitted.value.state.version === 0 && notCommitted.value.refused.length === 1);
  const conflict = replayEditJournal([
    intent("i1"),
    { type: "edit_reconciled", data: { intent_id: "i1", outcome: "conflict" } },
  ]);
  assert.ok(conflict.ok && conflict.value.conflicted && conflict.value.pending !== null);
});

test("a contradictory journal is refused, not guessed at", () => {
  const cases: Record<string, JournalRecord[]> = {
    "malformed intent": [intent("i1", { after_sha256: "nope" })],
    "version jump": [intent("i1", { new_version: 2 })],
    "wrong starting version": [intent("i1", { old_version: 1, new_version: 2 })],
    "wrong starting digest": [intent("i1", { before_sha256: AFTER })],
    "two open intents": [intent("i1"), intent("i2")],
    "commit without intent": [{ type: "edit_committed", data: { intent_id: "i1" } }],
    "commit of another intent": [intent("i1"), { type: "edit_committed", data: { intent_id: "i2" } }],
    "unknown outcome": [intent("i1"), { type: "edit_reconciled", data: { intent_id: "i1", outcome: "maybe" } }],
    "unlisted function": [intent("i1", { function: "constructor" })],
  };
  for (const [name, records] of Object.entries(cases)) {
    const replayed = replayEditJournal(records);
    assert.equal(!replayed.ok && replayed.error, "run_recovery_failed", name);
  }
});
