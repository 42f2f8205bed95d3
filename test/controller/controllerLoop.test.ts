// The loop against a fake workspace and scripted sources: stop reasons that the real workspace
// cannot easily produce (oversized observations, context and model errors, harness faults).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../src/core/clock.ts";
import { runControllerLoop, type EvidenceSink } from "../../src/controller/controllerLoop.ts";
import type { ControllerWorkspace, Observation } from "../../src/controller/controllerWorkspace.ts";
import type { ProposalOutcome, ProposalSource } from "../../src/controller/proposalSource.ts";
import { fullLogAssembler } from "../../src/controller/requestAssembler.ts";
import { parseToyMathSource } from "../../src/expr/index.ts";
import { INITIAL_TOY_MATH_PY } from "../../src/constants/labConstants.ts";
import { ok } from "../../src/core/result.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";

const SHA = "c".repeat(64);

function fakeWorkspace(readObservation: Observation): ControllerWorkspace & { reads: number } {
  const parsed = parseToyMathSource(INITIAL_TOY_MATH_PY);
  if (!parsed.ok) throw new Error("fixture source invalid");
  const state = {
    version: 0,
    sourceSha256: SHA,
    taskSha256: SHA,
    expressions: { clamp: "x", total: "unit + qty + fee" },
  };
  const workspace = {
    reads: 0,
    state: () => state,
    integrityCheck: async () => ok(undefined),
    read: async () => {
      workspace.reads += 1;
      return readObservation;
    },
    replace: async (): Promise<Observation> => ({
      ok: false,
      action: "replace",
      error: "old_expression_mismatch",
      message: "no",
      version: 0,
    }),
    snapshot: async () =>
      ok({ version: 0, sha256: SHA, bytes: Buffer.from(INITIAL_TOY_MATH_PY), source: parsed.value }),
    reconcile: async () => ok({ outcome: "none_pending" as const, state }),
  };
  return workspace;
}

/** What the loop appended, each payload as the typed sink received it, viewed as JSON for the assertions. */
type SunkRecord = { type: string; payload: Readonly<Record<string, unknown>>; proposal: number | null };

function recordingSink(): EvidenceSink & { records: SunkRecord[] } {
  const records: SunkRecord[] = [];
  return {
    records,
    append(type, payload, proposal = null) {
      const json: Readonly<Record<string, unknown>> = payload;
      return records.push({ type, payload: json, proposal });
    },
  };
}

const READ = '{"action":"read","file":"toy_math.py"}';
const okRead: Observation = {
  ok: true,
  action: "read",
  file: "toy_math.py",
  version: 0,
  sha256: SHA,
  content: INITIAL_TOY_MATH_PY,
  expressions: { clamp: "x", total: "unit + qty + fee" },
};

function run(
  source: ProposalSource,
  workspace = fakeWorkspace(okRead),
  clock = new ManualClock(0),
  cancellation = new AbortController().signal,
) {
  const evidence = recordingSink();
  const outcome = runControllerLoop({
    workspace,
    evidence,
    source,
    assembler: fullLogAssembler,
    clock,
    cancellation,
    overallDeadlineMs: 600_000,
  });
  return { outcome, evidence, workspace };
}

class FixedOutcomeSource implements ProposalSource {
  readonly label = "fixed";
  calls = 0;
  constructor(private readonly outcome: ProposalOutcome | (() => Promise<ProposalOutcome>)) {}
  describe() {
    return {};
  }
  async propose(): Promise<ProposalOutcome> {
    this.calls += 1;
    return typeof this.outcome === "function" ? this.outcome() : this.outcome;
  }
  async close() {}
}

test("an observation over 2,048 bytes stops the run with observation_limit, never truncated", async () => {
  const huge: Observation = { ...okRead, content: "x".repeat(3000) };
  const { outcome, evidence } = run(new ScriptedSource([READ, READ]), fakeWorkspace(huge));
  const result = await outcome;
  assert.equal(result.stopReason, "observation_limit");
  assert.equal(result.proposalsUsed, 1);
  const shown = evidence.records
    .filter((r) => r.type === "observation")
    .map((r) => r.payload["observation"] as Record<string, unknown>);
  assert.equal(shown.length, 1);
  assert.equal(shown[0]?.["error"], "observation_limit");
  assert.ok(!JSON.stringify(shown).includes("x".repeat(100)));
});

test("context_limit, model_error, time_limit and cancelled outcomes stop with that reason and consume the proposal", async () => {
  for (const kind of ["context_limit", "model_error", "time_limit", "cancelled"] as const) {
    const outcome: ProposalOutcome =
      kind === "context_limit"
        ? { kind, inputTokens: 4000, metadata: {} }
        : kind === "model_error"
          ? { kind, message: "boom", metadata: {} }
          : { kind, metadata: {} };
    const source = new FixedOutcomeSource(outcome);
    const { outcome: loop, workspace } = run(source);
    const result = await loop;
    assert.equal(result.stopReason, kind);
    assert.equal(result.proposalsUsed, 1);
    assert.equal(workspace.reads, 0, "nothing is dispatched after a failed generation");
  }
});

test("a throwing source is a model_error, never a scripted fallback", async () => {
  const source = new FixedOutcomeSource(async () => {
    throw new Error("worker crashed at /secret/path");
  });
  const { outcome, evidence } = run(source);
  const result = await outcome;
  assert.equal(result.stopReason, "model_error");
  const generation = evidence.records.find((r) => r.type === "generation");
  assert.equal(generation?.payload["raw_text"], null);
  assert.ok(!JSON.stringify(generation).includes("/secret/path"));
});

test("two consecutive invalid proposals stop the run; a successful tool call resets the counter", async () => {
  const first = await run(new ScriptedSource(["nope", "also nope"])).outcome;
  assert.equal(first.stopReason, "invalid_proposal_limit");
  assert.equal(first.proposalsUsed, 2);
  assert.equal(first.invalidProposals, 2);

  const second = await run(new ScriptedSource(["nope", READ, "nope", READ, "nope", READ])).outcome;
  assert.equal(second.stopReason, "proposal_limit");
  assert.equal(second.invalidProposals, 3);
});

test("a failing public test is a successful tool call, not an invalid proposal", async () => {
  const result = await run(
    new ScriptedSource([READ, '{"action":"test"}', "nope", '{"action":"test"}', "nope", '{"action":"test"}']),
  ).outcome;
  assert.equal(result.stopReason, "proposal_limit");
  assert.equal(result.invalidProposals, 2);
  const tests = result.log.filter((entry) => entry.kind === "test_result");
  assert.equal(tests.length, 3);
  assert.ok(
    tests.every(
      (entry) => entry.observation.ok && entry.observation.action === "test" && entry.observation.passed === 0,
    ),
  );
});

test("a deadline that has passed before a proposal stops without calling the source", async () => {
  const clock = new ManualClock(700_000);
  const source = new FixedOutcomeSource({ kind: "text", text: READ, metadata: {} });
  const result = await run(source, fakeWorkspace(okRead), clock).outcome;
  assert.equal(result.stopReason, "time_limit");
  assert.equal(source.calls, 0);
  assert.equal(result.proposalsUsed, 0);
});

test("cancellation before the first proposal stops without calling the source", async () => {
  const cancel = new AbortController();
  cancel.abort();
  const source = new FixedOutcomeSource({ kind: "text", text: READ, metadata: {} });
  const result = await run(source, fakeWorkspace(okRead), new ManualClock(0), cancel.signal).outcome;
  assert.equal(result.stopReason, "cancelled");
  assert.equal(source.calls, 0);
});

test("the per-call deadline is the earlier of 120 s and the overall deadline", async () => {
  const clock = new ManualClock(550_000);
  const source = new ScriptedSource([READ]);
  const evidence = recordingSink();
  await runControllerLoop({
    workspace: fakeWorkspace(okRead),
    evidence,
    source,
    assembler: fullLogAssembler,
    clock,
    cancellation: new AbortController().signal,
    overallDeadlineMs: 600_000,
  });
  assert.equal(source.requests[0]?.deadlineMs, 600_000);
  const early = new ScriptedSource([READ]);
  await runControllerLoop({
    workspace: fakeWorkspace(okRead),
    evidence,
    source: early,
    assembler: fullLogAssembler,
    clock: new ManualClock(0),
    cancellation: new AbortController().signal,
    overallDeadlineMs: 600_000,
  });
  assert.equal(early.requests[0]?.deadlineMs, 120_000);
});

test("requests carry the fixed system instruction and the controller state, nothing else authoritative", async () => {
  const source = new ScriptedSource([READ, "nope"]);
  await run(source).outcome;
  const [first, second] = source.requests;
  assert.equal(first?.messages[0]?.content, second?.messages[0]?.content);
  assert.match(first?.messages[1]?.content ?? "", /"remaining_proposals":6,"current_version":0,"source_read":false/);
  assert.match(second?.messages[1]?.content ?? "", /"remaining_proposals":5,"current_version":0,"source_read":true/);
  assert.match(second?.messages[1]?.content ?? "", /\[event \d+, proposal 1\] \{"ok":true,"action":"read"/);
});

test("a deadline that passes while the text arrives is caught by the recheck after generation", async () => {
  let now = 0;
  // Timers never fire on this clock: only the controller's own rechecks can see the deadline.
  const clock = { now: () => now, at: () => () => undefined };
  const workspace = fakeWorkspace(okRead);
  const source = new ScriptedSource([{ text: READ, duringGeneration: () => void (now = 600_001) }]);
  const evidence = recordingSink();
  const result = await runControllerLoop({
    workspace,
    evidence,
    source,
    assembler: fullLogAssembler,
    clock,
    cancellation: new AbortController().signal,
    overallDeadlineMs: 600_000,
  });
  assert.equal(result.stopReason, "time_limit");
  assert.equal(workspace.reads, 0);
  const discarded = evidence.records.find((r) => r.type === "proposal_discarded");
  assert.deepEqual(discarded?.payload, { reason: "time_limit", at: "after_generation" });
  assert.ok(!evidence.records.some((r) => r.type === "validation"), "a late proposal is never validated");
});

test("cancellation during the integrity check is caught by the recheck immediately before dispatch", async () => {
  const cancel = new AbortController();
  const workspace = fakeWorkspace(okRead);
  const checking = workspace.integrityCheck;
  workspace.integrityCheck = async () => {
    cancel.abort();
    return checking();
  };
  const evidence = recordingSink();
  const result = await runControllerLoop({
    workspace,
    evidence,
    source: new ScriptedSource([READ]),
    assembler: fullLogAssembler,
    clock: new ManualClock(0),
    cancellation: cancel.signal,
    overallDeadlineMs: 600_000,
  });
  assert.equal(result.stopReason, "cancelled");
  assert.equal(workspace.reads, 0);
  assert.deepEqual(evidence.records.find((r) => r.type === "proposal_discarded")?.payload, {
    reason: "cancelled",
    at: "before_dispatch",
  });
  assert.ok(!evidence.records.some((r) => r.type === "dispatch"));
});

test("a source answering with an outcome kind outside the interface is a model_error, not a stop reason it names", async () => {
  const forged = { kind: "finish_accepted", metadata: {} } as unknown as ProposalOutcome;
  const result = await run(new FixedOutcomeSource(forged)).outcome;
  assert.equal(result.stopReason, "model_error");
  assert.equal(result.acceptedFinish, null);
  const noText = { kind: "text", text: 42, metadata: {} } as unknown as ProposalOutcome;
  assert.equal((await run(new FixedOutcomeSource(noText)).outcome).stopReason, "model_error");
});
