// `tca engine info` through the real bin/tca.js: a table for people, and with --json one JSON
// object naming the binary the engine
// will load and the hashes of exactly that binary's files; a bad TCA_ENGINE_BINARY or a forced
// native binary with no verified build is refused in the one error form, with nothing on stdout.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { hashPrebuiltFiles, nativeBuildStatus } from "../../src/model/engine/engineBinary.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));

function engineInfo(binary: string, json = true): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TCA, "engine", "info", ...(json ? ["--json"] : [])],
      { env: { ...process.env, TCA_ENGINE_BINARY: binary } },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

test("engine info with TCA_ENGINE_BINARY=prebuilt: the prebuilt binary, its files' hashes, and the native build's state", async () => {
  const { code, stdout, stderr } = await engineInfo("prebuilt");
  assert.equal(code, 0, stderr);
  const lines = stdout.trim().split("\n");
  assert.equal(lines.length, 1);
  const info = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
  assert.equal(info["binary"], "prebuilt");
  assert.equal(info["requested"], "prebuilt");
  assert.equal(info["build_type"], "prebuilt");
  const prebuilt = hashPrebuiltFiles();
  assert.ok(
    Object.keys(prebuilt).some((name) => name.endsWith(".node")),
    "the prebuilt package is installed",
  );
  assert.deepEqual(info["files_sha256"], prebuilt);
  const native = nativeBuildStatus();
  assert.deepEqual(info["native_build"], { present: native.present, verified: native.verified, reason: native.reason });
});

test("engine info with TCA_ENGINE_BINARY=native: the verified build's hashes, or engine_unavailable when there is none", async () => {
  const { code, stdout, stderr } = await engineInfo("native");
  const native = nativeBuildStatus();
  if (native.verified) {
    assert.equal(code, 0, stderr);
    const info = JSON.parse(stdout) as Record<string, unknown>;
    assert.equal(info["binary"], "native");
    assert.equal(info["build_type"], "localBuild");
    assert.deepEqual(info["files_sha256"], native.files);
  } else {
    // CI never builds: forcing native there must refuse, never fall back to the prebuilt binary.
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.match(
      stderr,
      /^tca engine info: engine_unavailable: no verified native build \(.+\); run tca engine build\n$/,
    );
  }
});

test("engine info with an unknown TCA_ENGINE_BINARY is input_invalid, nothing on stdout", async () => {
  const { code, stdout, stderr } = await engineInfo("fastest");
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(stderr, "tca engine info: input_invalid: TCA_ENGINE_BINARY must be auto, prebuilt or native\n");
});

test("engine info without --json: a table within 100 columns with the same facts as the JSON", async () => {
  const human = await engineInfo("prebuilt", false);
  assert.equal(human.code, 0, human.stderr);
  const json = JSON.parse((await engineInfo("prebuilt")).stdout) as {
    files_sha256: Record<string, string>;
    system_info: string;
  };
  assert.match(human.stdout, /^binary: +prebuilt \(requested: prebuilt; build type prebuilt\)$/m);
  assert.deepEqual(
    human.stdout.split("\n").filter((line) => [...line].length > 100),
    [],
  );
  // Every file and its hash, and every system-info flag, are in the table.
  for (const [name, hash] of Object.entries(json.files_sha256))
    assert.match(human.stdout, new RegExp(`${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s+${hash}`));
  for (const flag of json.system_info
    .split("|")
    .map((f) => f.trim())
    .filter((f) => f !== ""))
    assert.ok(human.stdout.includes(flag), flag);
  assert.throws(() => JSON.parse(human.stdout));
});
