// The supervisor against a scripted fake worker: deadlines from an injected clock (nothing
// sleeps to reach a deadline), SIGKILL of the whole process group, late and malformed
// messages, size caps, worker crashes, cancellation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ManualClock } from "../../src/core/clock.ts";
import { ModelSupervisor, type SupervisorEvent } from "../../src/model/worker/supervisor.ts";

const fakeWorker = path.join(path.dirname(fileURLToPath(import.meta.url)), "fakeWorker.mjs");
const input = { kind: "ids", ids: [1, 2, 3] } as const;

function supervisorFor(mode: string, clock: ManualClock, events: SupervisorEvent[], pidFile?: string): ModelSupervisor {
  return new ModelSupervisor({
    args: [fakeWorker, mode, ...(pidFile === undefined ? [] : [pidFile])],
    clock,
    callDeadlineMs: 120_000,
    cancelGraceMs: 2_000,
    onEvent: (e) => events.push(e),
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until the process is gone (killed processes are reaped asynchronously by the OS). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

/** Resolves once the worker has the request (the fake worker reads stdin promptly). */
async function afterRequestSent(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

test("a normal call returns the worker's report and labels", async () => {
  const clock = new ManualClock(0);
  const supervisor = supervisorFor("normal", clock, []);
  const loaded = await supervisor.load("/nowhere", 600_000);
  assert.ok(loaded.ok);
  assert.equal(loaded.value.label, "synthetic-pipeline-check");
  const outcome = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
  assert.equal(outcome.kind, "result");
  assert.deepEqual(outcome.kind === "result" && outcome.report.rawOutputIds, [7, 151645]);
  await supervisor.close();
});

test("the call deadline kills the whole process group and yields time_limit", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "tca-supervisor-"));
  const pidFile = path.join(dir, "grandchild.pid");
  const clock = new ManualClock(0);
  const events: SupervisorEvent[] = [];
  const supervisor = supervisorFor("hang", clock, events, pidFile);
  assert.ok((await supervisor.load("/nowhere", 600_000)).ok);
  const workerPid = supervisor.pid as number;
  const grandchild = Number(await readFile(pidFile, "utf8"));
  assert.ok(alive(grandchild));
  const pending = supervisor.generate(input, { overallDeadlineMs: 600_000 });
  await afterRequestSent();
  clock.advance(119_999);
  clock.advance(1); // the 120-second call deadline
  const outcome = await pending;
  assert.equal(outcome.kind, "time_limit");
  assert.ok(events.some((e) => e.kind === "killed" && e.reason === "call_deadline"));
  assert.ok(await gone(workerPid), "worker killed");
  assert.ok(await gone(grandchild), "grandchild in the same process group killed");
  const next = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
  assert.equal(next.kind, "model_error", "a killed worker is not reused");
  await supervisor.close();
  await rm(dir, { recursive: true, force: true });
});

test("the overall deadline wins when it is earlier than the call deadline", async () => {
  const clock = new ManualClock(1_000);
  const events: SupervisorEvent[] = [];
  const supervisor = supervisorFor("hang", clock, events);
  assert.ok((await supervisor.load("/nowhere", 60_000)).ok);
  const pending = supervisor.generate(input, { overallDeadlineMs: 60_000 });
  await afterRequestSent();
  clock.set(60_000);
  assert.equal((await pending).kind, "time_limit");
  await supervisor.close();
  const expired = supervisorFor("normal", new ManualClock(5_000), []);
  assert.equal((await expired.load("/nowhere", 5_000)).ok, false, "no load after the overall deadline");
  await expired.close();
});

test("loading is bounded by the overall deadline", async () => {
  const clock = new ManualClock(0);
  const events: SupervisorEvent[] = [];
  const supervisor = supervisorFor("hang_load", clock, events);
  const pending = supervisor.load("/nowhere", 600_000);
  await afterRequestSent();
  clock.set(600_000);
  const loaded = await pending;
  assert.equal(!loaded.ok && loaded.error, "time_limit");
  assert.ok(events.some((e) => e.kind === "killed" && e.reason === "load_deadline"));
  await supervisor.close();
});

test("Ctrl-C during a load: cancelled at once (no deadline reached), the worker's whole group killed", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "tca-supervisor-"));
  const pidFile = path.join(dir, "grandchild.pid");
  const clock = new ManualClock(0);
  const events: SupervisorEvent[] = [];
  const supervisor = supervisorFor("hang_load", clock, events, pidFile);
  const controller = new AbortController();
  const pending = supervisor.load("/nowhere", 600_000, { signal: controller.signal });
  // The fake worker writes its grandchild's pid as it starts; wait for it, then press Ctrl-C.
  let grandchild = Number.NaN;
  for (let i = 0; i < 500 && Number.isNaN(grandchild); i++) {
    grandchild = Number(await readFile(pidFile, "utf8").catch(() => "NaN"));
    if (Number.isNaN(grandchild)) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const workerPid = supervisor.pid as number;
  controller.abort();
  // The manual clock never moves: only the abort can end this load.
  const loaded = await pending;
  assert.equal(!loaded.ok && loaded.error, "cancelled");
  assert.ok(events.some((e) => e.kind === "killed" && e.reason === "load_cancelled"));
  assert.ok(await gone(workerPid), "worker killed");
  assert.ok(await gone(grandchild), "grandchild in the same process group killed");
  const already = await supervisorFor("hang_load", clock, []).load("/nowhere", 600_000, { signal: controller.signal });
  assert.equal(!already.ok && already.error, "cancelled", "an aborted signal never starts a worker");
  await supervisor.close();
  await rm(dir, { recursive: true, force: true });
});

test("a failed load is model_error and carries the worker's code only in the message", async () => {
  const supervisor = supervisorFor("fail_load", new ManualClock(0), []);
  const loaded = await supervisor.load("/nowhere", 600_000);
  assert.equal(!loaded.ok && loaded.error, "model_error");
  await supervisor.close();
});

test("a stale message for an earlier call is discarded", async () => {
  const events: SupervisorEvent[] = [];
  const supervisor = supervisorFor("late", new ManualClock(0), events);
  assert.ok((await supervisor.load("/nowhere", 600_000)).ok);
  const outcome = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
  assert.equal(outcome.kind, "result");
  assert.deepEqual(outcome.kind === "result" && outcome.report.threads, { id: 1 });
  assert.ok(events.some((e) => e.kind === "late_message_discarded"));
  await supervisor.close();
});

for (const mode of ["oversized", "malformed", "garbage", "crash", "error"]) {
  test(`a worker that answers with ${mode} output gives model_error`, async () => {
    const events: SupervisorEvent[] = [];
    const supervisor = supervisorFor(mode, new ManualClock(0), events);
    assert.ok((await supervisor.load("/nowhere", 600_000)).ok);
    const outcome = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
    assert.equal(outcome.kind, "model_error");
    if (mode === "oversized" || mode === "malformed" || mode === "garbage") {
      assert.ok(events.some((e) => e.kind === "protocol_violation"));
      assert.ok(events.some((e) => e.kind === "killed"));
    }
    await supervisor.close();
  });
}

test("a second call while one is in flight is refused, not interleaved", async () => {
  const clock = new ManualClock(0);
  const supervisor = supervisorFor("hang", clock, []);
  assert.ok((await supervisor.load("/nowhere", 600_000)).ok);
  const first = supervisor.generate(input, { overallDeadlineMs: 600_000 });
  const second = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
  assert.equal(second.kind, "model_error");
  clock.advance(120_000);
  assert.equal((await first).kind, "time_limit");
  await supervisor.close();
});

test("context_limit from the worker is passed through", async () => {
  const supervisor = supervisorFor("context_limit", new ManualClock(0), []);
  assert.ok((await supervisor.load("/nowhere", 600_000)).ok);
  const outcome = await supervisor.generate(input, { overallDeadlineMs: 600_000 });
  assert.equal(outcome.kind, "context_limit");
  await supervisor.close();
});

test("an oversized request is refused before it is sent", async () => {
  const supervisor = supervisorFor("normal", new ManualClock(0), []);
  assert.ok((await supervisor.load("/nowhere", 600_000)).ok);
  const outcome = await supervisor.generate(
    { kind: "ids", ids: new Array<number>(60_000).fill(123456) },
    { overallDeadlineMs: 600_000 },
  );
  assert.equal(outcome.kind, "model_error");
  await supervisor.close();
});

test("cancellation: an acknowledged cancel keeps the worker; an ignored one is killed after the grace period", async () => {
  const clock = new ManualClock(0);
  const politeEvents: SupervisorEvent[] = [];
  const polite = supervisorFor("cancellable", clock, politeEvents);
  assert.ok((await polite.load("/nowhere", 600_000)).ok);
  const controller = new AbortController();
  const pending = polite.generate(input, { overallDeadlineMs: 600_000, signal: controller.signal });
  await afterRequestSent();
  controller.abort();
  assert.equal((await pending).kind, "cancelled");
  assert.ok(!politeEvents.some((e) => e.kind === "killed"));
  assert.ok(alive(polite.pid as number));
  await polite.close();

  const rudeEvents: SupervisorEvent[] = [];
  const rude = supervisorFor("hang", clock, rudeEvents);
  assert.ok((await rude.load("/nowhere", 600_000)).ok);
  const rudeController = new AbortController();
  const rudePending = rude.generate(input, { overallDeadlineMs: 600_000, signal: rudeController.signal });
  await afterRequestSent();
  rudeController.abort();
  clock.advance(2_000);
  assert.equal((await rudePending).kind, "cancelled");
  assert.ok(rudeEvents.some((e) => e.kind === "killed" && e.reason === "cancel_grace_expired"));
  assert.ok(await gone(rude.pid as number));
  await rude.close();
});
