// A server that stalls, before its headers or in the middle of a body, ends the attempt with its
// own code at the idle timeout instead of at the 20-minute deadline. Time is the fake clock's:
// the test advances it when the server has stalled, nothing sleeps.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readManifest } from "../../src/model/artifacts/manifest.ts";
import { silentProgress, type AcquisitionProgress } from "../../src/model/artifacts/progress.ts";
import type { ManualClock } from "../../src/core/clock.ts";
import { acquireFixture, FakeClock, makeFixture, scratchParent, startHub, type FileHandler } from "./fixtureHub.ts";
import { assertAcquisitionFailed } from "./failureAssertions.ts";

const WEIGHTS = "model.safetensors";

async function setup(t: { after: (fn: () => Promise<void>) => void }, handler: FileHandler) {
  const fixture = makeFixture();
  const hub = await startHub(fixture, { [WEIGHTS]: handler });
  const { parent, cleanup } = await scratchParent();
  t.after(async () => {
    await hub.close();
    await cleanup();
  });
  return { fixture, hub, directory: join(parent, "qwen") };
}

/**
 * A body stall: once the client has received the stalled chunk (its body idle timer is then
 * armed, before the bytes are reported), `ms` pass on the fake clock.
 */
function stallAfterBytes(clock: ManualClock, ms: number): { progress: AcquisitionProgress; stallNext: () => void } {
  let stalled = false;
  return {
    stallNext: () => {
      stalled = true;
    },
    progress: {
      ...silentProgress,
      payloadBytes: () => {
        if (!stalled) return;
        stalled = false;
        setImmediate(() => clock.advance(ms));
      },
    },
  };
}

function weightsEntry(manifest: { files: readonly { name: string; retries: number; status: string }[] }) {
  const entry = manifest.files.find((file) => file.name === WEIGHTS);
  assert.ok(entry !== undefined);
  return entry;
}

test("no response headers: header_timeout after 30 s, retried once, then the acquisition fails with that code", async (t) => {
  const clock = new FakeClock();
  const started = clock.now();
  const stalled = await setup(t, () => {
    // Never answer; once the request is here, 30 s pass on the fake clock.
    setImmediate(() => clock.advance(30_000));
    return true;
  });
  const result = await acquireFixture(stalled.fixture, stalled.hub, stalled.directory, { clock });
  const manifest = await assertAcquisitionFailed(
    result,
    "header_timeout",
    stalled.directory,
    stalled.fixture.pins,
    WEIGHTS,
  );
  assert.equal(weightsEntry(manifest).retries, 1, "the timeout counts against the one retry");
  assert.equal(clock.now() - started, 60_000, "two attempts of 30 s each, far inside the 20-minute deadline");
  assert.equal(manifest.limits.header_timeout_ms, 30_000);
  assert.equal(manifest.limits.body_idle_timeout_ms, 30_000);
});

test("a body that stalls: body_idle_timeout; a second attempt that completes is verified", async (t) => {
  const clock = new FakeClock();
  const stall = stallAfterBytes(clock, 30_000);
  const stalling = await setup(t, ({ body, response, attempt }) => {
    if (attempt > 1) return false; // the default handler serves the whole file
    response.writeHead(200, { "content-length": String(body.length) });
    stall.stallNext();
    response.write(body.subarray(0, 10_000));
    return true;
  });
  const result = await acquireFixture(stalling.fixture, stalling.hub, stalling.directory, {
    clock,
    progress: stall.progress,
  });
  assert.ok(result.ok, result.ok ? "" : result.message);
  const read = await readManifest(stalling.directory);
  assert.ok(read.ok);
  assert.equal(weightsEntry(read.value).retries, 1);
  assert.equal(weightsEntry(read.value).status, "verified");
});

test("a body that stalls on both attempts fails with body_idle_timeout; the timeouts are configurable and recorded", async (t) => {
  const clock = new FakeClock();
  const stall = stallAfterBytes(clock, 7_000);
  const stalling = await setup(t, ({ body, response }) => {
    response.writeHead(200, { "content-length": String(body.length) });
    stall.stallNext();
    response.write(body.subarray(0, 1_000));
    return true;
  });
  const result = await acquireFixture(stalling.fixture, stalling.hub, stalling.directory, {
    clock,
    progress: stall.progress,
    idleTimeouts: { headerMs: 5_000, bodyIdleMs: 7_000 },
  });
  const manifest = await assertAcquisitionFailed(
    result,
    "body_idle_timeout",
    stalling.directory,
    stalling.fixture.pins,
    WEIGHTS,
  );
  assert.equal(weightsEntry(manifest).retries, 1);
  assert.equal(manifest.limits.header_timeout_ms, 5_000);
  assert.equal(manifest.limits.body_idle_timeout_ms, 7_000);
  assert.match(manifest.error?.message ?? "", /no body bytes for 7000 ms after 1000 of/);
});
