// The one proposal classification, branch by branch, on records written out by hand (expected
// statuses and origins are the Lab's rules, not output of the code under test); then the two
// renderings (report timeline, submission story) over one run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { classifyProposal, type ProposalRecord } from "../../src/verdicts/proposalOutcome.ts";

let id = 0;
function r(type: string, data: Record<string, unknown>): ProposalRecord {
  id += 1;
  return { type, event_id: id, data };
}
const text = r("generation", { outcome: "text", raw_text: "{}" });
const valid = (action: Record<string, unknown>) => r("validation", { ok: true, action });

test("each branch: status, code, failure origin and the event that shows it", () => {
  const cases: Array<[string, ProposalRecord[], string, string | null, string | null]> = [
    ["context limit before generation", [r("context_limit", {})], "no_proposal", "context_limit", "resource_limit"],
    ["no generation at all", [], "incomplete", null, null],
    ["model error", [r("generation", { outcome: "model_error" })], "no_proposal", "model_error", "generation"],
    [
      "generation time limit",
      [r("generation", { outcome: "time_limit" })],
      "no_proposal",
      "time_limit",
      "resource_limit",
    ],
    [
      "late proposal discarded",
      [text, r("proposal_discarded", { reason: "time_limit" })],
      "discarded",
      "time_limit",
      "resource_limit",
    ],
    [
      "invalid JSON",
      [text, r("validation", { ok: false, error: "invalid_json" })],
      "invalid",
      "invalid_json",
      "schema",
    ],
    [
      "integrity failure",
      [text, valid({ action: "read" }), r("integrity_check", { ok: false })],
      "integrity_failure",
      "workspace_conflict",
      "integrity",
    ],
    [
      "denied",
      [
        text,
        valid({ action: "replace" }),
        r("integrity_check", { ok: true }),
        r("authorization", { allowed: false, error: "read_required" }),
      ],
      "denied",
      "read_required",
      "permission",
    ],
    [
      "stale edit",
      [
        text,
        valid({ action: "replace" }),
        r("authorization", { allowed: true }),
        r("observation", { observation: { ok: false, error: "stale_version" } }),
      ],
      "tool_error",
      "stale_version",
      "permission",
    ],
    [
      "observation too large",
      [
        text,
        valid({ action: "read" }),
        r("authorization", { allowed: true }),
        r("observation", { observation: { ok: false, error: "observation_limit" } }),
      ],
      "tool_error",
      "observation_limit",
      "resource_limit",
    ],
    [
      "edit refused",
      [
        text,
        valid({ action: "replace" }),
        r("authorization", { allowed: true }),
        r("observation", { observation: { ok: false, error: "old_not_found" } }),
      ],
      "tool_error",
      "old_not_found",
      "editing",
    ],
    [
      "test with failing cases",
      [
        text,
        valid({ action: "test" }),
        r("authorization", { allowed: true }),
        r("observation", { observation: { ok: true, passed: 1, total: 4 } }),
      ],
      "accepted",
      null,
      "testing",
    ],
    [
      "read ok",
      [
        text,
        valid({ action: "read" }),
        r("authorization", { allowed: true }),
        r("observation", { observation: { ok: true, status: "read" } }),
      ],
      "accepted",
      null,
      null,
    ],
  ];
  for (const [name, records, status, code, origin] of cases) {
    const outcome = classifyProposal(records);
    assert.equal(outcome.status, status, name);
    assert.equal(outcome.code, code, name);
    assert.equal(outcome.failure?.origin ?? null, origin, name);
    const last = records.at(-1);
    if (records.length > 0 && status !== "incomplete")
      assert.equal(outcome.eventId, last?.event_id, `${name}: the last record shows the outcome`);
  }
  assert.equal(
    classifyProposal([text, r("validation", { ok: false, error: "unknown_action", attempted_action: "delete" })])
      .action,
    "delete",
  );
});
