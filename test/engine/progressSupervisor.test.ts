// Progress messages through the supervisor, against a scripted fake worker: delivered in order
// to the call's onProgress, asked for only by calls that want them, never extending a deadline;
// malformed, oversized, unasked-for, out-of-order or flooding progress is a protocol violation
// (worker killed, model_error); progress for a call not in flight is a discarded late message.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ManualClock } from "../../src/core/clock.ts";
import { ModelSupervisor, type SupervisedProgress, type SupervisorEvent } from "../../src/model/worker/supervisor.ts";

const fakeWorker = path.join(path.dirname(fileURLToPath(import.meta.url)), "fakeProgressWorker.mjs");
const input = { kind: "ids", ids: [1, 2, 3] } as const;

async function loadedSupervisor(
  mode: string,
  clock: ManualClock,
  events: SupervisorEvent[],
  progressIntervalMs?: number,
): Promise<ModelSupervisor> {
  const supervisor = new ModelSupervisor({
    args: [fakeWorker, mode],
    clock,
    callDeadlineMs: 120_000,
    cancelGraceMs: 2_000,
    onEvent: (e) => events.push(e),
    ...(progressIntervalMs !== undefined ? { progressIntervalMs } : {}),
  });
  const loaded = await supervisor.load("/nowhere", 600_000);
  assert.ok(loaded.ok, loaded.ok ? "" : loaded.message);
  return supervisor;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), "condition reached");
}

const countsOf = (seen: readonly SupervisedProgress[]) =>
  seen.map((p) => (p.phase === "prefill" ? `prefill ${p.tokens}/${p.total}` : `decode ${p.tokens}`));

test("a call that asks for progress gets each count in order, then its result; the request carries the interval", async () => {
  const clock = new ManualClock(0);
  const supervisor = await loadedSupervisor("progress", clock, [], 300);
  const seen: SupervisedProgress[] = [];
  const outcome = await supervisor.generate(input, { overallDeadlineMs: 600_000, onProgress: (p) => seen.push(p) });
  assert.equal(outcome.kind, "result");
  assert.deepEqual(countsOf(seen), ["prefill 4/10", "prefill 8/10", "decode 1", "decode 2"]);
  assert.ok(
    seen.every((p) => p.elapsedMs === 0),
    "elapsed time on the supervisor's clock",
  );
  assert.ok(
    seen.every((p) => p.callId === 1),
    "each count names its call",
  );
  const echoed =
    outcome.kind === "result" ? (outcome.report.threads as { request: Record<string, unknown> }).request : {};
  assert.equal(echoed.progressIntervalMs, 300);
  await supervisor.close();
});

test("a call without onProgress sends exactly the request it sent before progress existed", async () => {
  const supervisor = await loadedSupervisor("echo", new ManualClock(0), [], 300);
  const outcome = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
  assert.equal(outcome.kind, "result");
  const echoed = outcome.kind === "result" ? (outcome.report.threads as { request: unknown }).request : null;
  assert.deepEqual(echoed, { type: "generate", id: 1, input: { kind: "ids", ids: [1, 2, 3] }, reusePrefix: true });
  const asked = await supervisor.generate(input, { overallDeadlineMs: 600_000, onProgress: () => undefined });
  const askedRequest = asked.kind === "result" ? (asked.report.threads as { request: unknown }).request : null;
  assert.deepEqual(askedRequest, {
    type: "generate",
    id: 2,
    input: { kind: "ids", ids: [1, 2, 3] },
    reusePrefix: true,
    progressIntervalMs: 300,
  });
  await supervisor.close();
});

test("progress the call did not ask for is a protocol violation", async () => {
  const events: SupervisorEvent[] = [];
  const supervisor = await loadedSupervisor("unasked", new ManualClock(0), events);
  const outcome = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
  assert.equal(outcome.kind, "model_error");
  assert.ok(events.some((e) => e.kind === "protocol_violation" && e.detail === "progress that was not asked for"));
  assert.ok(events.some((e) => e.kind === "killed" && e.reason === "protocol_violation"));
  assert.equal(supervisor.alive, false);
  await supervisor.close();
});

for (const [mode, detail] of [
  ["malformed", "malformed worker message"],
  ["extra_key", "malformed worker message"],
  ["oversized", "worker message exceeds the size cap"],
  ["repeated", "progress count did not increase"],
  ["decreasing", "progress count did not increase"],
  ["prefill_after_decode", "prefill progress after decode progress"],
  ["total_changed", "prefill total changed"],
  ["beyond_bound", "progress beyond the call's bound on new tokens"],
  ["flood", "progress messages faster than the requested interval"],
  ["flood_rising", "progress messages faster than the requested interval"],
] as const) {
  test(
    `progress '${mode}' is a protocol violation: worker killed, model_error, no later delivery`,
    { timeout: 20_000 },
    async () => {
      const events: SupervisorEvent[] = [];
      const supervisor = await loadedSupervisor(mode, new ManualClock(0), events);
      const seen: SupervisedProgress[] = [];
      const outcome = await supervisor.generate(input, { overallDeadlineMs: 600_000, onProgress: (p) => seen.push(p) });
      assert.equal(outcome.kind, "model_error");
      assert.match(outcome.kind === "model_error" ? outcome.message : "", /worker protocol violation/);
      assert.ok(
        events.some((e) => e.kind === "protocol_violation" && e.detail === detail),
        JSON.stringify(events),
      );
      assert.ok(events.some((e) => e.kind === "killed" && e.reason === "protocol_violation"));
      assert.equal(supervisor.alive, false);
      // Nothing after the violation reached the callback (a flood stops at the rate budget).
      assert.ok(seen.length <= 8, `delivered ${seen.length}`);
      const next = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
      assert.equal(next.kind, "model_error", "a killed worker is never reused");
      await supervisor.close();
    },
  );
}

test("progress for another call id, or after the result, is a discarded late message", async () => {
  const events: SupervisorEvent[] = [];
  const wrong = await loadedSupervisor("wrong_id", new ManualClock(0), events);
  const seen: SupervisedProgress[] = [];
  const outcome = await wrong.generate(input, { overallDeadlineMs: 600_000, onProgress: (p) => seen.push(p) });
  assert.equal(outcome.kind, "result");
  assert.deepEqual(seen, []);
  assert.equal(events.filter((e) => e.kind === "late_message_discarded" && e.messageType === "progress").length, 2);
  assert.ok(!events.some((e) => e.kind === "protocol_violation"));
  await wrong.close();

  const lateEvents: SupervisorEvent[] = [];
  const late = await loadedSupervisor("after_result", new ManualClock(0), lateEvents);
  const lateSeen: SupervisedProgress[] = [];
  const first = await late.generate(input, { overallDeadlineMs: 600_000, onProgress: (p) => lateSeen.push(p) });
  assert.equal(first.kind, "result");
  await until(() => lateEvents.some((e) => e.kind === "late_message_discarded" && e.messageType === "progress"));
  assert.deepEqual(countsOf(lateSeen), ["decode 1"], "the progress after the result never reaches the callback");
  assert.equal(late.alive, true, "a late message does not kill the worker");
  // The next call's own progress starts afresh: decode 1 again is not 'did not increase'.
  const second = await late.generate(input, { overallDeadlineMs: 600_000, onProgress: (p) => lateSeen.push(p) });
  assert.equal(second.kind, "result");
  await late.close();
});

test("progress while loading is a discarded late message; loading completes", async () => {
  const events: SupervisorEvent[] = [];
  const supervisor = await loadedSupervisor("progress_during_load", new ManualClock(0), events);
  assert.ok(events.some((e) => e.kind === "late_message_discarded" && e.messageType === "progress"));
  assert.equal(supervisor.alive, true);
  await supervisor.close();
});

test("progress never extends the call deadline", async () => {
  const clock = new ManualClock(0);
  const events: SupervisorEvent[] = [];
  const supervisor = await loadedSupervisor("progress_then_hang", clock, events);
  const seen: SupervisedProgress[] = [];
  let settled = false;
  const pending = supervisor
    .generate(input, { overallDeadlineMs: 600_000, onProgress: (p) => seen.push(p) })
    .then((o) => {
      settled = true;
      return o;
    });
  await until(() => seen.length === 3);
  clock.advance(119_999);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(settled, false);
  clock.advance(1); // the 120-second call deadline, as if no progress had come
  const outcome = await pending;
  assert.equal(outcome.kind, "time_limit");
  assert.equal(outcome.elapsedMs, 120_000);
  assert.ok(events.some((e) => e.kind === "killed" && e.reason === "call_deadline"));
  await supervisor.close();
});

test("progress after a cancel does not end the call early: it waits for the worker's 'cancelled'", async () => {
  const clock = new ManualClock(0);
  const events: SupervisorEvent[] = [];
  const supervisor = await loadedSupervisor("cancellable", clock, events);
  const seen: SupervisedProgress[] = [];
  const controller = new AbortController();
  const pending = supervisor.generate(input, {
    overallDeadlineMs: 600_000,
    signal: controller.signal,
    onProgress: (p) => seen.push(p),
  });
  await until(() => seen.length === 3);
  controller.abort();
  const outcome = await pending;
  assert.equal(outcome.kind, "cancelled");
  assert.equal(seen.length, 3, "progress after the cancel is not shown");
  assert.equal(supervisor.alive, true, "acknowledged: the worker is kept");
  await new Promise((resolve) => setTimeout(resolve, 300)); // the worker acknowledges 50 ms after its progress
  assert.ok(
    !events.some((e) => e.kind === "late_message_discarded" && e.messageType === "cancelled"),
    "the acknowledgement ended the call, it was not left over",
  );
  await supervisor.close();
});

test("an onProgress that throws does not disturb the call", async () => {
  const supervisor = await loadedSupervisor("progress", new ManualClock(0), []);
  const outcome = await supervisor.generate(input, {
    overallDeadlineMs: 600_000,
    onProgress: () => {
      throw new Error("display failed");
    },
  });
  assert.equal(outcome.kind, "result");
  assert.equal(supervisor.alive, true);
  await supervisor.close();
});
