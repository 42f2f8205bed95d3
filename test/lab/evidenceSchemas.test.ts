// The three evidence files validate against their versioned JSON Schemas (schemas/*.json),
// for a successful baseline, a denied run, a harness fault and a timed-out run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { runLab, type LabRunOptions } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { freshRoot, readAudit, readJson, validateAudit, validateFinal, validateManifest } from "./labRunTestSupport.ts";
const root = freshRoot("schemas");

async function runAndValidate(
  name: string,
  options: Omit<LabRunOptions, "runDirectory">,
): Promise<Record<string, unknown>> {
  const result = await runLab({ ...options, runDirectory: join(root, name) });
  assert.ok(result.ok);
  const dir = result.value.runDirectory;
  const manifest = readJson(join(dir, "manifest.json"));
  assert.ok(validateManifest(manifest), JSON.stringify(validateManifest.errors));
  const final = readJson(join(dir, "final.json"));
  assert.ok(validateFinal(final), JSON.stringify(validateFinal.errors));
  const audit = readAudit(dir);
  let previous = { id: 0, t: -Infinity };
  for (const record of audit) {
    assert.ok(validateAudit(record), JSON.stringify(validateAudit.errors));
    assert.equal(record.event_id, previous.id + 1, "event ids are consecutive");
    assert.ok(record.t_ms >= previous.t, "timestamps are monotonic");
    assert.equal(record.run_id, manifest["run_id"]);
    previous = { id: record.event_id, t: record.t_ms };
  }
  assert.equal(audit.at(-1)?.type, "run_finished");
  return final;
}

test("baseline evidence matches the schemas", async () => {
  const final = await runAndValidate("baseline", {
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "scripted_baseline",
  });
  assert.equal(final["verified_success"], true);
});

test("denied-run evidence matches the schemas", async () => {
  const final = await runAndValidate("denied", {
    source: new ScriptedSource(["not json", '{"action":"finish","version":0}']),
    kind: "negative_check",
  });
  assert.equal(final["stop_reason"], "invalid_proposal_limit");
  assert.equal(final["invalid_proposals"], 2);
});

test("an unexpected exception is a harness_error with evidence kept, never a success", async () => {
  const final = await runAndValidate("harness-error", {
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "negative_check",
    controllerHooks: {
      afterObservation: (n) => {
        if (n === 3) throw new TypeError("injected harness fault");
      },
    },
  });
  assert.equal(final["stop_reason"], "harness_error");
  assert.equal(final["verified_success"], false);
  assert.equal((final["final_evaluation"] as Record<string, unknown>)["status"], "not_run_harness_error");
  assert.deepEqual(final["diagnostic"], { error_name: "TypeError", error_message: "injected harness fault" });
});

test("a run past its deadline never starts final evaluation", async () => {
  const clock = new ManualClock(0);
  const final = await runAndValidate("deadline", {
    source: new ScriptedSource([
      '{"action":"read","file":"toy_math.py"}',
      { text: '{"action":"test"}', duringGeneration: () => clock.advance(700_000) },
    ]),
    kind: "negative_check",
    clock,
  });
  assert.equal(final["stop_reason"], "time_limit");
  assert.equal((final["final_evaluation"] as Record<string, unknown>)["status"], "not_started_deadline");
  assert.equal((final["final_evaluation"] as Record<string, unknown>)["public_passed"], 0);
});

test("a deadline expiring during final evaluation records it as interrupted", async () => {
  const clock = new ManualClock(0);
  let evaluations = 0;
  const original = clock.now.bind(clock);
  // After the loop ends, every clock read during evaluation moves time forward 100 s.
  const final = await runAndValidate("interrupted", {
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "negative_check",
    clock: Object.assign(clock, {
      now: () => {
        if (evaluations > 0) clock.advance(100_000);
        return original();
      },
    }),
    beforeFinalEvaluation: () => {
      evaluations = 1;
      clock.set(420_000);
    },
  });
  assert.equal((final["final_evaluation"] as Record<string, unknown>)["status"], "interrupted");
  assert.equal(final["verified_success"], false);
});

test("the audit schema (generated from the catalog) checks each record type's payload", () => {
  const good = {
    format: "tca.audit",
    v: 2,
    run_id: "r",
    event_id: 1,
    t_ms: 0,
    type: "generation",
    source: "scripted",
    proposal: 1,
    data: { outcome: "text", raw_text: "{}", message: null, metadata: {}, elapsed_ms: 1 },
  };
  assert.ok(validateAudit(good));
  assert.equal(validateAudit({ ...good, v: 1 }), false, "only format version 2 is a record of this schema");
  assert.equal(validateAudit({ ...good, data: { ...good.data, extra: 1 } }), false, "an unknown data field is refused");
  assert.equal(
    validateAudit({ ...good, data: { outcome: "text", message: null, metadata: {}, elapsed_ms: 1 } }),
    false,
    "raw_text is required",
  );
  assert.equal(
    validateAudit({ ...good, type: "stop", data: { stop_reason: "done" } }),
    false,
    "stop reasons are a closed set",
  );
  assert.equal(
    validateAudit({
      ...good,
      type: "edit_intent",
      data: {
        intent_id: "i",
        function: "clamp",
        old_version: 0,
        new_version: 1,
        before_sha256: "x",
        after_sha256: "y",
      },
    }),
    false,
  );
});
