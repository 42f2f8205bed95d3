// The checks verdict takes every expected code from src/constants/checkTable.ts; the runner (src/lab)
// defines the checks it runs. This holds the two to each other, so neither can drift: a check
// added, removed or re-coded in one place without the other fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../src/core/clock.ts";
import { SOURCE_VALIDATOR_CHECKS } from "../../src/lab/checkRunner.ts";
import { NEGATIVE_CHECKS } from "../../src/lab/negativeChecks.ts";
import { POSITIVE_CHECKS } from "../../src/lab/positiveChecks.ts";
import { CHECK_TABLE } from "../../src/constants/checkTable.ts";

test("the spec's check table lists exactly the checks the runner runs, in its order", () => {
  const ran = [
    ...SOURCE_VALIDATOR_CHECKS.map((c) => c.id),
    ...NEGATIVE_CHECKS.map((c) => c.id),
    ...POSITIVE_CHECKS.map((c) => c.id),
  ];
  assert.deepEqual(
    CHECK_TABLE.map((row) => row.id),
    ran,
  );
  assert.equal(new Set(ran).size, ran.length, "check ids are unique");
});

test("every negative and source-validator check expects the table's code, observes where the table says, denies the table's proposal", () => {
  const byId = new Map(CHECK_TABLE.map((row) => [row.id, row]));
  for (const check of SOURCE_VALIDATOR_CHECKS) {
    assert.equal(byId.get(check.id)?.expected, check.expected, check.id);
    assert.equal(byId.get(check.id)?.observe, "source_validator", check.id);
  }
  const context = {
    clock: new ManualClock(0),
    cancel: new AbortController(),
    target: () => {
      throw new Error("no run directory in this test");
    },
  };
  for (const check of NEGATIVE_CHECKS) {
    const row = byId.get(check.id);
    assert.equal(row?.expected, check.expected, check.id);
    assert.equal(row?.observe, check.plan(context).observe, check.id);
    assert.equal(row?.deniedProposal, check.deniedProposal, check.id);
  }
});
