import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inspectModelDirectory } from "../../src/model/artifacts/directoryInspection.ts";
import { openTrialWindow, readLedger } from "../../src/model/artifacts/ledger.ts";
import { manifestPath } from "../../src/model/artifacts/manifest.ts";
import { requireVerifiedModelDirectory } from "../../src/model/artifacts/verifiedDirectory.ts";
import { TIME_LIMITS } from "../../src/model/pins.ts";
import { acquireFixture, makeFixture, scratchParent, startHub } from "./fixtureHub.ts";

const fixture = makeFixture();
let parent = "";
let golden = "";
let cleanup: () => Promise<void> = async () => undefined;
let counter = 0;

before(async () => {
  const hub = await startHub(fixture);
  const scratch = await scratchParent();
  parent = scratch.parent;
  cleanup = scratch.cleanup;
  golden = join(parent, "golden");
  const result = await acquireFixture(fixture, hub, golden);
  await hub.close();
  assert.ok(result.ok);
});

after(() => cleanup());

/** A fresh copy of the verified directory for one tampering case. */
async function copy(): Promise<string> {
  counter += 1;
  const directory = join(parent, `copy-${counter}`);
  await cp(golden, directory, { recursive: true });
  return directory;
}

async function expectRefused(directory: string, code: string): Promise<void> {
  const gate = await requireVerifiedModelDirectory(directory, fixture.pins);
  assert.equal(gate.ok ? "" : gate.error, code);
  const report = await inspectModelDirectory(directory, fixture.pins, { requireManifest: true });
  assert.equal(report.ok, false);
  assert.ok(report.issues.some((issue) => issue.code === code));
}

test("a copy of the verified directory verifies", async () => {
  const gate = await requireVerifiedModelDirectory(await copy(), fixture.pins);
  assert.ok(gate.ok);
  assert.equal(Object.keys(gate.value.files).length, 8);
});

test("unexpected files: pickle, Python, a subdirectory, any other name, a leftover partial download", async () => {
  const cases: [string, "file" | "dir", string][] = [
    ["pytorch_model.bin", "file", "unexpected_executable_file"],
    ["modeling_qwen2.py", "file", "unexpected_executable_file"],
    ["weights.pkl", "file", "unexpected_executable_file"],
    ["custom_generate", "dir", "unexpected_file"],
    ["README.md", "file", "unexpected_file"],
    [".model.safetensors.partial", "file", "unexpected_file"],
  ];
  for (const [name, kind, code] of cases) {
    const directory = await copy();
    if (kind === "dir") await mkdir(join(directory, name));
    else await writeFile(join(directory, name), "x");
    await expectRefused(directory, code);
  }
});

test("missing, truncated, symlinked or altered files are refused", async () => {
  const missing = await copy();
  await rm(join(missing, "merges.txt"));
  await expectRefused(missing, "file_missing");

  const truncated = await copy();
  await truncate(join(truncated, "model.safetensors"), 1000);
  await expectRefused(truncated, "size_mismatch");

  const linked = await copy();
  await rm(join(linked, "LICENSE"));
  await symlink(join(golden, "LICENSE"), join(linked, "LICENSE"));
  await expectRefused(linked, "file_not_regular");

  const altered = await copy();
  const path = join(altered, "tokenizer.json");
  const bytes = await readFile(path);
  bytes[bytes.length - 2] = 0x21;
  await writeFile(path, bytes);
  await expectRefused(altered, "blob_id_mismatch");
});

test("the manifest must exist, parse, say verified, match the pins and the bytes on disk", async () => {
  const missing = await copy();
  await rm(manifestPath(missing));
  await expectRefused(missing, "manifest_missing");

  const invalid = await copy();
  await writeFile(manifestPath(invalid), "{not json");
  await expectRefused(invalid, "manifest_invalid");

  const edit = async (
    change: (manifest: Record<string, unknown> & { files: Record<string, unknown>[] }) => void,
  ): Promise<string> => {
    const directory = await copy();
    const manifest = JSON.parse(await readFile(manifestPath(directory), "utf8")) as Record<string, unknown> & {
      files: Record<string, unknown>[];
    };
    change(manifest);
    await writeFile(manifestPath(directory), JSON.stringify(manifest));
    return directory;
  };
  await expectRefused(await edit((manifest) => (manifest.status = "failed")), "manifest_not_verified");
  await expectRefused(await edit((manifest) => (manifest.status = "in_progress")), "manifest_not_verified");
  await expectRefused(await edit((manifest) => (manifest.schema_version = 2)), "manifest_invalid");
  await expectRefused(await edit((manifest) => (manifest.revision = "main")), "manifest_mismatch");
  await expectRefused(
    await edit((manifest) => void (manifest.files[6] = { ...manifest.files[6], observed_sha256: "0".repeat(64) })),
    "manifest_mismatch",
  );
  await expectRefused(
    await edit((manifest) => void (manifest.files[2] = { ...manifest.files[2], status: "pending" })),
    "manifest_mismatch",
  );

  // Pins for a different revision never accept this directory.
  const otherPins = { ...fixture.pins, revision: "f".repeat(40) };
  const gate = await requireVerifiedModelDirectory(await copy(), otherPins);
  assert.equal(gate.ok ? "" : gate.error, "manifest_mismatch");
});

test("a missing directory or a symlink to a verified directory is refused", async () => {
  const gone = await requireVerifiedModelDirectory(join(parent, "nowhere"), fixture.pins);
  assert.equal(gone.ok ? "" : gone.error, "directory_missing");
  const link = join(parent, "link-to-golden");
  await symlink(golden, link);
  const viaLink = await requireVerifiedModelDirectory(link, fixture.pins);
  assert.equal(viaLink.ok ? "" : viaLink.error, "directory_missing");
});

test("the trial window: 10 minutes at most, less when the 30-minute window is nearly over, none after it", async () => {
  const directory = await copy();
  const ledger = await readLedger(directory);
  assert.ok(ledger.ok);
  const opened = ledger.value.windows[0]?.opened_at_epoch_ms ?? 0;
  const late = await openTrialWindow(directory, opened + 25 * 60_000);
  assert.ok(late.ok);
  assert.equal(late.value.remainingMs, 5 * 60_000);
  assert.equal(late.value.trialDeadlineEpochMs, opened + TIME_LIMITS.windowMs);
  const afterClaim = await readLedger(directory);
  assert.ok(afterClaim.ok);
  assert.equal(afterClaim.value.windows[0]?.trial?.deadline_epoch_ms, opened + TIME_LIMITS.windowMs);

  const expired = await copy();
  const closed = await openTrialWindow(expired, opened + TIME_LIMITS.windowMs);
  assert.equal(closed.ok ? "" : closed.error, "window_expired");

  const noLedger = await copy();
  await rm(join(noLedger, "acquisition-ledger.json"));
  const missing = await openTrialWindow(noLedger, opened);
  assert.equal(missing.ok ? "" : missing.error, "ledger_missing");
  // the ledger is optional for loading: the loader gate only needs the manifest and the bytes
  assert.ok((await requireVerifiedModelDirectory(noLedger, fixture.pins)).ok);
});
