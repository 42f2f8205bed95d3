// Issue 28, item 4: `acquire` after a failure. An unfinished download of these pins (manifest
// "failed", or "in_progress" past its deadline after a killed process) is resumed: the files it
// had placed are re-hashed and kept, the rest fetched, and the manifest says so. One that may
// still be running, or whose kept files were changed, is refused before consent and before any
// request, with a message that says exactly what is there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  acquireFixture,
  makeFixture,
  scratchParent,
  startHub,
  type FileHandler,
  type Fixture,
  type LocalHub,
} from "./fixtureHub.ts";
import { assertAcquisitionFailed } from "./failureAssertions.ts";
import { readLedger } from "../../src/model/artifacts/ledger.ts";
import { readManifest, type DownloadManifest } from "../../src/model/artifacts/manifest.ts";
import { requireVerifiedModelDirectory } from "../../src/model/artifacts/verifiedDirectory.ts";

const WEIGHTS = "model.safetensors";

/** The weights' connection always drops halfway: transfer_interrupted after the one retry. */
const dropWeights: FileHandler = ({ body, response }) => {
  response.writeHead(200, { "content-length": String(body.length) });
  response.write(body.subarray(0, body.length >> 1), () => response.destroy());
  return true;
};

async function failedDownload(t: {
  after: (fn: () => Promise<void>) => void;
}): Promise<{ fixture: Fixture; directory: string; healthy: LocalHub }> {
  const fixture = makeFixture();
  const broken = await startHub(fixture, { [WEIGHTS]: dropWeights });
  const healthy = await startHub(fixture);
  const { parent, cleanup } = await scratchParent();
  t.after(async () => {
    await broken.close();
    await healthy.close();
    await cleanup();
  });
  const directory = join(parent, "qwen");
  await assertAcquisitionFailed(
    await acquireFixture(fixture, broken, directory),
    "transfer_interrupted",
    directory,
    fixture.pins,
    WEIGHTS,
  );
  return { fixture, directory, healthy };
}

async function manifestOf(directory: string): Promise<DownloadManifest> {
  const read = await readManifest(directory);
  assert.ok(read.ok);
  return read.value;
}

async function rewriteManifest(directory: string, change: (manifest: DownloadManifest) => void): Promise<void> {
  const manifest = await manifestOf(directory);
  change(manifest);
  await writeFile(join(directory, "download-manifest.json"), JSON.stringify(manifest, null, 2));
}

test("acquire again after transfer_interrupted resumes: the seven verified files are kept, only the weights are fetched", async (t) => {
  const { fixture, directory, healthy } = await failedDownload(t);
  const result = await acquireFixture(fixture, healthy, directory);
  assert.ok(result.ok, result.ok ? "" : result.message);
  const smaller = fixture.pins.files.filter((file) => file.name !== WEIGHTS).map((file) => file.name);
  assert.deepEqual([...result.value.keptFiles].sort(), [...smaller].sort());
  // Exactly one request, for the weights: nothing already verified is downloaded again.
  assert.deepEqual(
    healthy.requests.map((request) => request.path.split("/").at(-1)),
    [WEIGHTS],
  );
  assert.equal(result.value.payloadBytesReceived, fixture.contents.get(WEIGHTS)?.length);
  const manifest = await manifestOf(directory);
  assert.equal(manifest.status, "verified");
  assert.equal(manifest.resumed_from?.status, "failed");
  assert.equal(manifest.resumed_from?.error?.code, "transfer_interrupted");
  assert.deepEqual([...(manifest.resumed_from?.kept_files ?? [])].sort(), [...smaller].sort());
  assert.ok(manifest.files.every((file) => file.status === "verified"));
  assert.equal(manifest.files.find((file) => file.name === "config.json")?.payload_bytes_received, 0);
  assert.equal((await requireVerifiedModelDirectory(directory, fixture.pins)).ok, true);
  const ledger = await readLedger(directory);
  assert.ok(ledger.ok);
  assert.deepEqual(
    ledger.value.windows.map((window) => window.acquisition.outcome),
    ["failed", "verified"],
  );
});

test("a killed acquisition (in_progress past its deadline, a .partial left) is resumed and the leftover is fetched again whole", async (t) => {
  const { fixture, directory, healthy } = await failedDownload(t);
  await rewriteManifest(directory, (manifest) => {
    manifest.status = "in_progress";
    manifest.error = null;
    manifest.started_at = new Date(Date.now() - manifest.limits.acquisition_deadline_ms - 60_000).toISOString();
  });
  await writeFile(join(directory, `.${WEIGHTS}.partial`), "half of it");
  const result = await acquireFixture(fixture, healthy, directory);
  assert.ok(result.ok, result.ok ? "" : result.message);
  assert.deepEqual(
    (await readdir(directory)).filter((name) => name.endsWith(".partial")),
    [],
  );
  const manifest = await manifestOf(directory);
  assert.equal(manifest.resumed_from?.status, "in_progress");
  assert.deepEqual(manifest.resumed_from?.removed_leftovers, [`.${WEIGHTS}.partial`]);
  assert.deepEqual(await readFile(join(directory, WEIGHTS)), fixture.contents.get(WEIGHTS));
});

test("an acquisition that may still be running is not resumed: refused before consent and before any request", async (t) => {
  const { fixture, directory, healthy } = await failedDownload(t);
  await rewriteManifest(directory, (manifest) => {
    manifest.status = "in_progress";
    manifest.error = null;
    manifest.started_at = new Date(Date.now() - 60_000).toISOString();
  });
  let asked = false;
  const result = await acquireFixture(fixture, healthy, directory, {
    consent: async () => {
      asked = true;
      return { given: true, form: "flag_yes" };
    },
  });
  assert.ok(!result.ok);
  assert.equal(result.error, "destination_exists");
  assert.match(
    result.message,
    /holds an unfinished download \(the manifest records "in_progress"\); 7 of 8 pinned files present; missing: model\.safetensors, started at \S+Z; another acquire may still be running there until \S+Z: wait for it, or choose a new directory$/,
  );
  assert.equal(asked, false);
  assert.equal(healthy.requests.length, 0);
});

test("a kept file changed after it was verified: not resumed, the message says what is there and marks it for starting over", async (t) => {
  const { fixture, directory, healthy } = await failedDownload(t);
  const vocab = join(directory, "vocab.json");
  const bytes = await readFile(vocab);
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  await writeFile(vocab, bytes);
  const before = (await readdir(directory)).sort();
  const result = await acquireFixture(fixture, healthy, directory);
  assert.ok(!result.ok);
  assert.equal(result.error, "destination_exists");
  assert.equal(result.startOver, true);
  assert.match(
    result.message,
    /^the destination holds an unfinished download \(the manifest records "failed": transfer_interrupted \(model\.safetensors\): [^)]+\); 7 of 8 pinned files present; missing: model\.safetensors, which cannot be resumed: vocab\.json does not match its pin \(changed after it was verified\)$/,
  );
  assert.equal(healthy.requests.length, 0);
  assert.deepEqual((await readdir(directory)).sort(), before);
});
