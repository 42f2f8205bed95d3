// The invariant every failed acquisition must satisfy: the stable code, a manifest that
// records "failed" and why, no temporary file left, the failing file absent under its final
// name, and a loader gate that refuses the directory.
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import type { AcquireResult } from "../../src/model/artifacts/acquire.ts";
import type { ArtifactErrorCode } from "../../src/model/artifacts/errorCodes.ts";
import { readLedger } from "../../src/model/artifacts/ledger.ts";
import { readManifest, type DownloadManifest } from "../../src/model/artifacts/manifest.ts";
import { requireVerifiedModelDirectory } from "../../src/model/artifacts/verifiedDirectory.ts";
import type { PinSet } from "../../src/model/pins.ts";

export async function assertAcquisitionFailed(
  result: AcquireResult,
  code: ArtifactErrorCode,
  directory: string,
  pins: PinSet,
  failingFile: string | null,
): Promise<DownloadManifest> {
  assert.equal(result.ok, false);
  assert.ok(!result.ok);
  assert.equal(result.error, code, result.message);
  assert.equal(typeof result.manifestPath, "string");
  const manifestRead = await readManifest(directory);
  assert.ok(manifestRead.ok);
  const manifest = manifestRead.value;
  assert.equal(manifest.status, "failed");
  assert.equal(manifest.error?.code, code);
  assert.equal(manifest.error?.file, failingFile);
  const names = await readdir(directory);
  assert.deepEqual(
    names.filter((name) => name.includes(".partial") || name.endsWith(".writing")),
    [],
  );
  if (failingFile !== null && pins.files.some((file) => file.name === failingFile)) {
    const entry = manifest.files.find((file) => file.name === failingFile);
    assert.equal(entry?.status, "failed");
    assert.equal(entry?.error?.code, code);
    assert.ok(!names.includes(failingFile), `${failingFile} must not exist under its final name`);
  }
  const gate = await requireVerifiedModelDirectory(directory, pins);
  assert.equal(gate.ok, false);
  const ledger = await readLedger(directory);
  assert.ok(ledger.ok);
  assert.equal(ledger.value.windows.at(-1)?.acquisition.outcome, "failed");
  assert.equal(ledger.value.windows.at(-1)?.acquisition.error?.code, code);
  return manifest;
}
