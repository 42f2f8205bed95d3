import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inspectModelDirectory } from "../../src/model/artifacts/directoryInspection.ts";
import { createHash } from "node:crypto";
import { gitBlobSha1 } from "../../src/model/artifacts/fileIdentity.ts";

const sha256Hex = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");
import { readLedger, openTrialWindow } from "../../src/model/artifacts/ledger.ts";
import { MANIFEST_FILE_NAME, readManifest } from "../../src/model/artifacts/manifest.ts";
import { requireVerifiedModelDirectory } from "../../src/model/artifacts/verifiedDirectory.ts";
import { TIME_LIMITS, TRANSFER_RULES } from "../../src/model/pins.ts";
import {
  acquireFixture,
  FakeClock,
  FIXTURE_REPOSITORY,
  FIXTURE_REVISION,
  makeFixture,
  scratchParent,
  startHub,
} from "./fixtureHub.ts";

test("happy path: every file verified, manifest recorded field by field, loader accepts, a flipped byte is caught", async (t) => {
  const fixture = makeFixture();
  const hub = await startHub(fixture);
  const { parent, cleanup } = await scratchParent();
  t.after(async () => {
    await hub.close();
    await cleanup();
  });
  const directory = join(parent, "qwen");
  const clock = new FakeClock();
  const previousToken = process.env.HF_TOKEN;
  process.env.HF_TOKEN = "hf_this_token_must_never_be_sent";
  let result;
  try {
    result = await acquireFixture(fixture, hub, directory, { clock, wallClock: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
  } finally {
    if (previousToken === undefined) delete process.env.HF_TOKEN;
    else process.env.HF_TOKEN = previousToken;
  }
  assert.equal(result.ok, true, result.ok ? "" : result.message);
  const total = fixture.pins.files.reduce((sum, file) => sum + file.bytes, 0);
  assert.ok(result.ok);
  assert.equal(result.value.status, "acquired");
  assert.equal(result.value.payloadBytesReceived, total);

  // Exactly the eight pinned URLs, once each, anonymous.
  const prefix = `/${FIXTURE_REPOSITORY}/resolve/${FIXTURE_REVISION}/`;
  assert.deepEqual(
    hub.requests.map((request) => request.path).sort(),
    fixture.pins.files.map((file) => `${prefix}${file.name}`).sort(),
  );
  for (const request of hub.requests) {
    assert.equal(request.headers.authorization, undefined);
    assert.equal(request.headers.cookie, undefined);
    assert.equal(request.headers["accept-encoding"], "identity");
  }

  // Owner-only directory and files; exactly the pinned names plus manifest and ledger.
  assert.equal((await stat(directory)).mode & 0o777, 0o700);
  const names = (await readdir(directory)).sort();
  assert.deepEqual(
    names,
    [...fixture.pins.files.map((file) => file.name), MANIFEST_FILE_NAME, "acquisition-ledger.json"].sort(),
  );
  for (const file of fixture.pins.files) {
    const bytes = await readFile(join(directory, file.name));
    assert.deepEqual(bytes, fixture.contents.get(file.name));
    assert.equal((await stat(join(directory, file.name))).mode & 0o077, 0);
  }

  const manifestRead = await readManifest(directory);
  assert.ok(manifestRead.ok);
  const manifest = manifestRead.value;
  assert.equal(manifest.schema, "tca.model-download-manifest");
  assert.equal(manifest.schema_version, 1);
  assert.equal(manifest.status, "verified");
  assert.equal(manifest.error, null);
  assert.equal(manifest.repository, FIXTURE_REPOSITORY);
  assert.equal(manifest.revision, FIXTURE_REVISION);
  assert.equal(manifest.endpoint, hub.base);
  assert.equal(manifest.consent.form, "flag_yes");
  assert.match(
    manifest.consent.prompt,
    /^Download the eight listed model files, totaling [\d,]+ bytes, from Qwen’s public Hugging Face repository into this new model directory\?$/,
  );
  assert.equal(manifest.consent.given_at, "2026-01-02T03:04:05.000Z");
  assert.deepEqual(manifest.limits, {
    aggregate_ceiling_bytes: fixture.pins.aggregateCeilingBytes,
    acquisition_deadline_ms: TIME_LIMITS.acquisitionMs,
    max_retries_per_file: TRANSFER_RULES.maxRetriesPerFile,
    max_redirects: TRANSFER_RULES.maxRedirects,
    header_timeout_ms: 30_000,
    body_idle_timeout_ms: 30_000,
  });
  assert.equal(manifest.started_at, "2026-01-02T03:04:05.000Z");
  assert.equal(manifest.finished_at, "2026-01-02T03:04:05.000Z");
  assert.equal(manifest.elapsed_ms, 0); // the fake monotonic clock never moved
  assert.deepEqual(
    manifest.files.map((entry) => entry.name),
    fixture.pins.files.map((file) => file.name),
  );
  for (const pinned of fixture.pins.files) {
    const entry = manifest.files.find((file) => file.name === pinned.name);
    const body = fixture.contents.get(pinned.name);
    assert.ok(entry !== undefined && body !== undefined);
    assert.deepEqual(entry, {
      name: pinned.name,
      repository: FIXTURE_REPOSITORY,
      revision: FIXTURE_REVISION,
      url: `${hub.base}${prefix}${pinned.name}`,
      expected_bytes: pinned.bytes,
      observed_bytes: body.length,
      expected_identity:
        pinned.gitBlobSha1 !== undefined
          ? { kind: "git_blob_sha1", value: pinned.gitBlobSha1 }
          : { kind: "sha256", value: pinned.sha256 },
      expected_sha256: pinned.sha256 ?? null,
      observed_sha256: sha256Hex(body),
      observed_git_blob_sha1: gitBlobSha1(body),
      status: "verified",
      retries: 0,
      payload_bytes_received: body.length,
      redirects: 0,
      served_by: hub.base,
      error: null,
    });
  }
  assert.deepEqual(manifest.totals, {
    files_expected: 8,
    files_verified: 8,
    expected_bytes: total,
    observed_bytes: total,
    payload_bytes_received: total,
    retries: 0,
  });

  const ledger = await readLedger(directory);
  assert.ok(ledger.ok);
  assert.equal(ledger.value.windows.length, 1);
  const window = ledger.value.windows[0];
  assert.ok(window !== undefined);
  assert.equal(window.acquisition.outcome, "verified");
  assert.equal(window.acquisition.payload_bytes_received, total);
  assert.equal(window.consent?.form, "flag_yes");
  assert.equal(window.closes_at_epoch_ms - window.opened_at_epoch_ms, TIME_LIMITS.windowMs);

  // The loader gate accepts it, twice (verification only reads).
  for (let round = 0; round < 2; round++) {
    const verified = await requireVerifiedModelDirectory(directory, fixture.pins);
    assert.ok(verified.ok, verified.ok ? "" : verified.message);
    assert.deepEqual(verified.value.configBytes, fixture.contents.get("config.json"));
    assert.equal(
      verified.value.files["model.safetensors"]?.sha256,
      fixture.pins.files.find((file) => file.name === "model.safetensors")?.sha256,
    );
    assert.equal(verified.value.files["config.json"]?.gitBlobSha1, fixture.pins.files[0]?.gitBlobSha1);
    assert.equal((await inspectModelDirectory(directory, fixture.pins, { requireManifest: true })).ok, true);
  }

  // The trial claims the window once: min(10 minutes, what is left of 30).
  const opened = window.opened_at_epoch_ms;
  const trial = await openTrialWindow(directory, opened + 5 * 60_000);
  assert.ok(trial.ok);
  assert.equal(trial.value.remainingMs, TIME_LIMITS.trialMs);
  const again = await openTrialWindow(directory, opened + 6 * 60_000);
  assert.equal(again.ok ? "" : again.error, "window_expired");

  // A byte flipped on disk afterwards fails verification, for the weights and a small file.
  const weightsPath = join(directory, "model.safetensors");
  const weights = await readFile(weightsPath);
  weights[1234] = (weights[1234] ?? 0) ^ 0x01;
  await writeFile(weightsPath, weights);
  const afterFlip = await requireVerifiedModelDirectory(directory, fixture.pins);
  assert.equal(afterFlip.ok ? "" : afterFlip.error, "hash_mismatch");
  const configPath = join(directory, "config.json");
  const config = await readFile(configPath);
  config[5] = (config[5] ?? 0) ^ 0x20;
  await writeFile(configPath, config);
  const report = await inspectModelDirectory(directory, fixture.pins, { requireManifest: true });
  assert.equal(report.ok, false);
  assert.deepEqual(report.issues.map((issue) => issue.code).sort(), ["blob_id_mismatch", "hash_mismatch"]);
});

test("an already verified directory skips acquisition and opens a new window without any request", async (t) => {
  const fixture = makeFixture();
  const hub = await startHub(fixture);
  const { parent, cleanup } = await scratchParent();
  t.after(async () => {
    await hub.close();
    await cleanup();
  });
  const directory = join(parent, "qwen");
  const first = await acquireFixture(fixture, hub, directory);
  assert.ok(first.ok);
  const requestsBefore = hub.requests.length;
  let asked = false;
  const second = await acquireFixture(fixture, hub, directory, {
    consent: async () => {
      asked = true;
      return { given: true, form: "flag_yes" };
    },
  });
  assert.ok(second.ok);
  assert.equal(second.value.status, "already_verified");
  assert.equal(second.value.payloadBytesReceived, 0);
  assert.equal(hub.requests.length, requestsBefore);
  assert.equal(asked, false);
  const ledger = await readLedger(directory);
  assert.ok(ledger.ok);
  assert.deepEqual(
    ledger.value.windows.map((window) => window.acquisition.outcome),
    ["verified", "skipped_already_verified"],
  );
  assert.equal(ledger.value.windows[1]?.acquisition.elapsed_ms, 0);
  assert.ok((await requireVerifiedModelDirectory(directory, fixture.pins)).ok);
});
