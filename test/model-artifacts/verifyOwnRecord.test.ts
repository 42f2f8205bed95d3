// Issue 28, item 8: `tca model verify` on a synthetic or rehearsal checkpoint checks it against
// its own record (synthetic-manifest.json), says so, and agrees with what `tca lab model` loads
// through (openCheckpointDirectory): a folder one accepts the other accepts, and one byte
// changed is refused by both.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeTestCheckpoint } from "../../src/model/synthetic/makeTestCheckpoint.ts";
import { makeRehearsalCheckpoint } from "../../src/model/rehearsal/makeRehearsalCheckpoint.ts";
import { openCheckpointDirectory } from "../../src/model/loader/checkpointDirectory.ts";

const BIN = new URL("../../bin/tca.js", import.meta.url).pathname;
const verify = (directory: string) =>
  spawnSync(process.execPath, [BIN, "model", "verify", "--directory", directory], { encoding: "utf8" });

let root: string;
let tiny: string;
let rehearsal: string;

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "tca-verify-own-"));
  tiny = path.join(root, "tiny");
  rehearsal = path.join(root, "rehearsal");
  assert.ok((await makeTestCheckpoint({ directory: tiny, size: "tiny", seed: 3 })).ok);
  assert.ok((await makeRehearsalCheckpoint({ directory: rehearsal })).ok);
});

after(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

test("a synthetic checkpoint is verified against its own record, labelled as not the pinned model, exit 0", async () => {
  const run = verify(tiny);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const lines = run.stdout.trimEnd().split("\n");
  assert.equal(
    lines[0],
    "synthetic checkpoint (tiny, seed 3), not the pinned model: checked against its own record (synthetic-manifest.json), not the pinned sizes",
  );
  assert.match(run.stdout, /^file\s+recorded bytes\s+observed bytes\s+identity\s+status$/m);
  const recorded = JSON.parse(await readFile(path.join(tiny, "synthetic-manifest.json"), "utf8")) as {
    files: Record<string, { bytes: number }>;
  };
  const weights = recorded.files["model.safetensors"]?.bytes ?? -1;
  const bytes = weights.toLocaleString("en-US");
  assert.match(run.stdout, new RegExp(`^model\\.safetensors\\s+${bytes}\\s+${bytes}\\s+sha256\\s+ok$`, "m"));
  assert.match(
    lines.at(-1) ?? "",
    /^verified against its own record: synthetic checkpoint \(tiny, seed 3\), not the pinned model; .*PIPELINE CHECK, never a model result\)$/,
  );
  assert.doesNotMatch(run.stdout, /NOT verified|size_mismatch|988,097,824/);
  // The loader `tca lab model` goes through accepts the same folder.
  assert.equal((await openCheckpointDirectory(tiny)).ok, true);
});

test("a rehearsal checkpoint is named as such and verified against its own record", () => {
  const run = verify(rehearsal);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^rehearsal checkpoint, not the pinned model: checked against its own record/);
  assert.match(
    run.stdout,
    /verified against its own record: rehearsal checkpoint, not the pinned model; .*REHEARSAL run, never a model result\)\n$/,
  );
});

test("one changed byte: model verify says NOT verified against its own record, exit 1, and lab model's loader refuses it too", async () => {
  const copy = path.join(root, "tampered");
  assert.ok((await makeTestCheckpoint({ directory: copy, size: "tiny", seed: 3 })).ok);
  const config = path.join(copy, "generation_config.json");
  const bytes = await readFile(config);
  bytes[bytes.length - 2] = (bytes[bytes.length - 2] ?? 0) ^ 0x01;
  await writeFile(config, bytes);
  await writeFile(path.join(copy, "notes.txt"), "x");
  const run = verify(copy);
  assert.equal(run.status, 1);
  assert.match(run.stdout, /^generation_config\.json\s+[\d,]+\s+[\d,]+\s+sha256\s+model_not_verified$/m);
  assert.match(run.stdout, /^NOT verified against its own record \(2 problems\):$/m);
  assert.match(run.stdout, /^ {2}unexpected_file: unexpected file in model directory: notes\.txt$/m);
  assert.match(run.stdout, /^ {2}model_not_verified: generation_config\.json does not match the synthetic manifest$/m);
  const loader = await openCheckpointDirectory(copy);
  assert.equal(loader.ok, false);
  assert.ok(!loader.ok && loader.error === "unexpected_file");
});

test("a synthetic manifest that does not parse is NOT verified, not mistaken for the pinned model", async () => {
  const broken = path.join(root, "broken");
  assert.ok((await makeTestCheckpoint({ directory: broken, size: "tiny", seed: 4 })).ok);
  await writeFile(path.join(broken, "synthetic-manifest.json"), "{");
  const run = verify(broken);
  assert.equal(run.status, 1);
  assert.match(run.stdout, /^synthetic checkpoint, not the pinned model/);
  assert.match(run.stdout, /^ {2}checkpoint_invalid: synthetic manifest is not JSON$/m);
});
