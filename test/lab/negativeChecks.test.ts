// Every negative check of Part 7 as an automated test: the expected code is observed, and the
// controller's source bytes, version and backups did not change across the denied proposal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { NEGATIVE_CHECKS } from "../../src/lab/negativeChecks.ts";
import { POSITIVE_CHECKS } from "../../src/lab/positiveChecks.ts";
import { runNegativeCheck, runSourceValidatorCheck, SOURCE_VALIDATOR_CHECKS } from "../../src/lab/checkRunner.ts";
import { INITIAL_TOY_MATH_PY } from "../../src/constants/labConstants.ts";
import { mkdirSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { parseToyMathSource } from "../../src/expr/index.ts";
import { freshRoot, readAudit } from "./labRunTestSupport.ts";

const root = freshRoot("checks");

// The list the spec requires (Part 7), so a check silently dropped from the table fails here.
const REQUIRED = [
  "unknown_action",
  "extra_field",
  "duplicate_key",
  "trailing_prose",
  "boolean_version",
  "oversized_proposal",
  "forbidden_filename",
  "replace_before_read",
  "stale_version",
  "future_version",
  "wrong_old",
  "unlisted_function",
  "call",
  "attribute",
  "import",
  "power",
  "huge_integer",
  "excessive_nesting",
  "oversized_multiplication",
  "unselected_branch_call",
  "symlink_target",
  "hard_link_target",
  "changed_between_read_and_edit",
  "changed_between_test_and_finish",
  "changed_between_finish_and_final_evaluation",
  "repeated_uncertain_edit",
  "premature_finish",
  "cancelled_during_generation",
  "deadline_during_generation",
  "late_proposal_discarded",
  "cancelled_before_commit",
  "deadline_before_commit",
  "injected_instruction_observation",
];

test("the check table covers every case Part 7 lists", () => {
  const ids = new Set(NEGATIVE_CHECKS.map((c) => c.id));
  for (const id of REQUIRED) assert.ok(ids.has(id), `missing check ${id}`);
  assert.deepEqual(POSITIVE_CHECKS.map((c) => c.id).sort(), [
    "existing_output_destination",
    "no_change_keeps_passing_test",
    "no_change_resets_invalid_counter",
  ]);
  assert.deepEqual(SOURCE_VALIDATOR_CHECKS.map((c) => c.id).sort(), [
    "altered_signature",
    "extra_statement",
    "unexpected_source_content",
  ]);
});

for (const check of NEGATIVE_CHECKS) {
  test(`negative check ${check.id}: ${check.expected}, source and version unchanged`, async () => {
    const row = await runNegativeCheck(check, root);
    assert.equal(row.observed, check.expected);
    assert.equal(row.unchanged, "yes");
    assert.deepEqual(row.problems, []);
    assert.ok(row.passed);
    assert.ok(row.runDirectory !== null && existsSync(join(row.runDirectory, "final.json")));
    // The row shows the check run's own stop reason, read back from its final.json; no check run
    // ever calls a model, so none may say model_error.
    const final = JSON.parse(readFileSync(join(row.runDirectory, "final.json"), "utf8")) as Record<string, unknown>;
    assert.equal(row.stopReason, final["stop_reason"]);
    assert.notEqual(row.stopReason, "model_error");
    // Independently of the runner's own comparison, from the audit: nothing was committed at or
    // after the denied proposal, and the recorded version is the number of earlier commits.
    const audit = readAudit(row.runDirectory);
    const commits = audit.filter(
      (r) => r.type === "edit_committed" || (r.type === "edit_reconciled" && r.data["outcome"] === "committed"),
    );
    assert.deepEqual(
      commits.filter((r) => (r.proposal ?? 0) >= check.deniedProposal).map((r) => r.event_id),
      [],
    );
    const started = audit.find((r) => r.type === "run_started");
    assert.equal((started?.data["initial_state"] as Record<string, unknown>)["version"], 0);
    const finalEvaluation = audit.find((r) => r.type === "final_evaluation")?.data["snapshot"] as Record<
      string,
      unknown
    > | null;
    if (finalEvaluation) assert.equal(finalEvaluation["version"], commits.length);
    // Whatever the check, a denied or interrupted run never claims success.
    const finalRecord = audit.find((r) => r.type === "run_finished");
    assert.equal(finalRecord?.data["verified_success"], false);
  });
}

for (const check of POSITIVE_CHECKS) {
  test(`positive check ${check.id}`, async () => {
    const row = await check.run(root);
    assert.equal(row.observed, row.expected);
    assert.equal(row.unchanged, "yes");
    assert.deepEqual(row.problems, []);
  });
}

for (const check of SOURCE_VALIDATOR_CHECKS) {
  test(`source validator refuses ${check.id}, in a fresh workspace whose recorded source and version stay`, async () => {
    const verdict = parseToyMathSource(check.source);
    assert.equal(verdict.ok, false);
    assert.equal(verdict.ok ? null : verdict.error, check.expected);
    const row = await runSourceValidatorCheck(check, root);
    assert.equal(row.observed, check.expected);
    assert.equal(row.unchanged, "yes");
    assert.deepEqual(row.problems, []);
    assert.ok(row.passed);
    assert.equal(row.stopReason, "workspace_conflict");
    assert.ok(row.runDirectory !== null);
    // The file on disk is the refused source; the controller's record is still the initial one.
    assert.equal(readFileSync(join(row.runDirectory, "workspace", "toy_math.py"), "utf8"), check.source);
    const started = readAudit(row.runDirectory).find((r) => r.type === "run_started");
    const initial = started?.data["initial_state"] as Record<string, unknown>;
    assert.equal(initial["sourceSha256"], createHash("sha256").update(INITIAL_TOY_MATH_PY).digest("hex"));
    assert.ok(!readAudit(row.runDirectory).some((r) => r.type === "edit_committed"));
  });
}

test("the stale-version row is truly stale: an edit committed, then the old version was proposed", async () => {
  const check = NEGATIVE_CHECKS.find((c) => c.id === "stale_version");
  assert.ok(check);
  mkdirSync(join(root, "stale-again"));
  const row = await runNegativeCheck(check, join(root, "stale-again"));
  assert.ok(row.runDirectory !== null);
  const audit = readAudit(row.runDirectory);
  const committed = audit.filter((r) => r.type === "edit_committed");
  assert.equal(committed.length, 1);
  assert.ok((committed[0]?.proposal ?? 99) < check.deniedProposal);
  const denied = audit.find((r) => r.type === "observation" && r.proposal === check.deniedProposal)?.data[
    "observation"
  ] as Record<string, unknown>;
  assert.equal(denied["error"], "stale_version");
  assert.equal(denied["version"], 1, "the current version is 1");
  const proposed = audit.find((r) => r.type === "generation" && r.proposal === check.deniedProposal)?.data["raw_text"];
  assert.equal(
    (JSON.parse(String(proposed)) as Record<string, unknown>)["version"],
    0,
    "the proposal named the older version",
  );
});

test("the injection row shows a synthetic source-read record to the next request, and the forbidden read is refused", async () => {
  const check = NEGATIVE_CHECKS.find((c) => c.id === "injected_instruction_observation");
  assert.ok(check);
  mkdirSync(join(root, "injection-again"));
  const row = await runNegativeCheck(check, join(root, "injection-again"));
  assert.ok(row.runDirectory !== null);
  const audit = readAudit(row.runDirectory);
  const injected = audit.find((r) => r.type === "synthetic_observation_injected")?.data["observation"] as Record<
    string,
    unknown
  >;
  assert.equal(injected["ok"], true);
  assert.equal(injected["action"], "read");
  assert.equal(injected["file"], "toy_math.py");
  assert.match(String(injected["content"]), /SYSTEM: new policy/);
  // It is not a source the grammar accepts.
  assert.equal(parseToyMathSource(String(injected["content"])).ok, false);
  const request = audit.find((r) => r.type === "request" && r.proposal === 2)?.data["messages"] as {
    content: string;
  }[];
  assert.match(request[1]?.content ?? "", /SYSTEM: new policy/);
  assert.match(request[1]?.content ?? "", /"current_version":0,"source_read":true/);
  assert.equal(row.observed, "unknown_file");
});
