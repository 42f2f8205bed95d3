// The replay's one reader of trace records (src/verdicts/benchTraceAdapter.ts): it takes the records
// the trace reader parsed (the v2 envelope) and gives the replay's entries, the envelope's `proposal`
// back in the data as the decisions' `turn`; a task-level record (proposal null) gets no `turn`. A
// trace of format 1 never reaches it: the reader refuses it with old_format_version.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseBenchTrace } from "../../src/bench/runs/benchTrace.ts";
import { asClaimEvent, traceEntries } from "../../src/verdicts/benchTraceAdapter.ts";
import { traceLine } from "../bench/traceFixtures.ts";

test("a parsed record's entry has its proposal as `turn`; a task-level record has none; the claim view drops it", () => {
  const text =
    traceLine("stop_attempt", { accepted: false, refusal: "Not done." }, { eventId: 1, proposal: 2 }) +
    traceLine("budget_exhausted", { reason: "turn_budget", turns: 2 }, { eventId: 2 });
  const parsed = parseBenchTrace(text, "traces/D-gcd.ndjson");
  assert.deepEqual(parsed.problems, []);
  const entries = traceEntries(parsed.records);
  assert.deepEqual(entries, [
    { type: "stop_attempt", data: { turn: 2, accepted: false, refusal: "Not done." }, line: 1 },
    { type: "budget_exhausted", data: { reason: "turn_budget", turns: 2 }, line: 2 },
  ]);
  assert.deepEqual(asClaimEvent(entries[0]!), {
    type: "stop_attempt",
    data: { accepted: false, refusal: "Not done." },
  });
});

test("a format 1 trace is refused by the reader before the adapter sees a record", () => {
  const v1 = JSON.stringify({ v: 1, event: "stop_attempt", t: 5, turn: 2, accepted: false, refusal: "Not done." });
  const parsed = parseBenchTrace(`${v1}\n`, "traces/D-gcd.ndjson");
  assert.deepEqual(traceEntries(parsed.records), []);
  assert.deepEqual(
    parsed.problems.map((problem) => problem.code),
    ["old_format_version"],
  );
});
