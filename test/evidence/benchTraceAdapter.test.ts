// The replay's one reader of trace records (src/verdicts/benchTraceAdapter.ts): the v1 layout and
// the v2 envelope give the same typed entry (the v2 envelope's `proposal` is the decisions' `turn`);
// a record of neither layout is named by its line, never dropped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { traceEntries } from "../../src/verdicts/benchTraceAdapter.ts";

test("a v1 record and its v2 envelope give the same entry; a record of neither layout is named by its line", () => {
  const { entries, unreadable } = traceEntries([
    { v: 1, event: "stop_attempt", t: 5, turn: 2, accepted: false, refusal: "Not done." },
    {
      format: "tca.bench-trace",
      v: 2,
      run_id: "r",
      event_id: 3,
      t_ms: 5,
      type: "stop_attempt",
      source: "harness",
      proposal: 2,
      data: { accepted: false, refusal: "Not done." },
    },
    { v: 2, type: "task_start", data: { taskId: "A-gcd" } },
    { v: 2, type: "task_start", data: "not fields" },
    { nothing: 1 },
  ]);
  assert.deepEqual(entries[0], {
    type: "stop_attempt",
    data: { turn: 2, accepted: false, refusal: "Not done." },
    line: 1,
  });
  assert.deepEqual(entries[1], { ...entries[0], line: 2 });
  assert.deepEqual(entries[2], { type: "task_start", data: { taskId: "A-gcd" }, line: 3 });
  assert.deepEqual(unreadable, [4, 5]);
});
