// Stops that come out of the real workspace (not a fake): an observation over 2,048 bytes
// injected at the workspace boundary, and the end of a scripted check's script.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/core/clock.ts";
import { runControllerLoop, type EvidenceSink } from "../../src/controller/controllerLoop.ts";
import type { ControllerWorkspace } from "../../src/controller/controllerWorkspace.ts";
import { fullLogAssembler } from "../../src/controller/requestAssembler.ts";
import { INITIAL_TOY_MATH_PY } from "../../src/constants/labConstants.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { capObservation, type Observation } from "../../src/workspace/index.ts";
import { freshRun } from "../workspace/workspaceFixture.ts";
import { freshRoot, readAudit, schemaProblems } from "../lab/labRunTestSupport.ts";

const READ = '{"action":"read","file":"toy_math.py"}';

function recordingSink(): EvidenceSink & {
  records: { type: string; payload: Readonly<Record<string, unknown>>; proposal: number | null }[];
} {
  const records: { type: string; payload: Readonly<Record<string, unknown>>; proposal: number | null }[] = [];
  return { records, append: (type, payload, proposal = null) => records.push({ type, payload, proposal }) };
}

/**
 * The real run workspace, with one injection at its boundary: the read observation it built is
 * padded past 2,048 bytes and then passed through the workspace's own cap (capObservation), which
 * is exactly what its read does with an observation that does not fit.
 */
function withOversizedRead(real: ControllerWorkspace): ControllerWorkspace {
  return {
    state: () => real.state(),
    integrityCheck: () => real.integrityCheck(),
    replace: (request, guard) => real.replace(request, guard),
    snapshot: () => real.snapshot(),
    reconcile: () => real.reconcile(),
    async read(file) {
      const observation = await real.read(file);
      assert.ok(observation.ok && observation.action === "read");
      const padded: Observation = { ...observation, content: `${observation.content}${"#".repeat(3000)}` };
      return capObservation(padded, "read", real.state().version);
    },
  };
}

test("an oversized observation from the real workspace stops the run with observation_limit", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    const source = new ScriptedSource([READ, READ, READ]);
    const evidence = recordingSink();
    const result = await runControllerLoop({
      workspace: withOversizedRead(ws),
      evidence,
      source,
      assembler: fullLogAssembler,
      clock: new ManualClock(0),
      cancellation: new AbortController().signal,
      overallDeadlineMs: 600_000,
    });
    assert.equal(result.stopReason, "observation_limit");
    assert.equal(result.proposalsUsed, 1);
    // A stop, not an invalid proposal: the model did nothing wrong.
    assert.equal(result.invalidProposals, 0);
    assert.equal(source.requests.length, 1, "no further proposal is requested");
    const shown = evidence.records
      .filter((r) => r.type === "observation")
      .map((r) => r.payload["observation"] as Record<string, unknown>);
    assert.equal(shown.length, 1);
    assert.equal(shown[0]?.["ok"], false);
    assert.equal(shown[0]?.["error"], "observation_limit");
    assert.equal(shown[0]?.["version"], 0);
    assert.ok(
      !JSON.stringify(shown).includes("#".repeat(50)),
      "the oversized content is never shown, not even truncated",
    );
    assert.deepEqual(evidence.records.find((r) => r.type === "stop")?.payload, {
      stop_reason: "observation_limit",
      at: "dispatch",
    });
    // Nothing on disk changed.
    assert.equal(readFileSync(join(ws.paths.workspace, "toy_math.py"), "utf8"), INITIAL_TOY_MATH_PY);
    assert.equal(ws.state().version, 0);
  } finally {
    cleanup();
  }
});

test("the same read without the injection is an ordinary successful read (the padding is what stops it)", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    const evidence = recordingSink();
    const result = await runControllerLoop({
      workspace: ws,
      evidence,
      source: new ScriptedSource([READ]),
      assembler: fullLogAssembler,
      clock: new ManualClock(0),
      cancellation: new AbortController().signal,
      overallDeadlineMs: 600_000,
    });
    assert.equal(result.stopReason, "script_exhausted");
    assert.equal(result.log[0]?.observation["ok"], true);
  } finally {
    cleanup();
  }
});

test("a script that runs out stops with script_exhausted: no request, no generation, no proposal counted", async () => {
  const root = freshRoot("exhausted");
  const source = new ScriptedSource([READ, '{"action":"test"}']);
  const result = await runLab({ runDirectory: join(root, "run"), source, kind: "negative_check" });
  assert.ok(result.ok);
  assert.equal(result.value.final.stop_reason, "script_exhausted");
  assert.equal(result.value.final.proposals_used, 2);
  assert.equal(result.value.final.invalid_proposals, 0);
  assert.equal(source.requests.length, 2, "the source was never asked for a third proposal");
  const audit = readAudit(result.value.runDirectory);
  assert.equal(audit.filter((r) => r.type === "request").length, 2);
  assert.equal(audit.filter((r) => r.type === "generation").length, 2);
  assert.ok(!audit.some((r) => r.type === "generation" && r.data["outcome"] === "model_error"));
  const stop = audit.find((r) => r.type === "stop");
  assert.deepEqual(stop?.data, { stop_reason: "script_exhausted", at: "before_request", proposals_scripted: 2 });
  assert.equal(stop?.proposal, null);
  // The final evaluation still runs on the untouched source; the run is not a success.
  assert.equal(result.value.final.final_evaluation["status"], "completed");
  assert.equal(result.value.final.verified_success, false);
  assert.deepEqual(schemaProblems(result.value.runDirectory), []);
});

test("only a source labelled scripted can end a run as script_exhausted", async () => {
  const { ws, cleanup } = await freshRun();
  try {
    // A source that claims to be exhausted but is not the scripted one: the claim is ignored,
    // and its failure to produce text is a model_error like any other.
    const impostor = {
      label: "model",
      describe: () => ({}),
      exhausted: () => true,
      propose: async () => ({ kind: "model_error" as const, message: "no text", metadata: {} }),
      close: async () => undefined,
    };
    const result = await runControllerLoop({
      workspace: ws,
      evidence: recordingSink(),
      source: impostor,
      assembler: fullLogAssembler,
      clock: new ManualClock(0),
      cancellation: new AbortController().signal,
      overallDeadlineMs: 600_000,
    });
    assert.equal(result.stopReason, "model_error");
    assert.equal(result.proposalsUsed, 1);
  } finally {
    cleanup();
  }
});
