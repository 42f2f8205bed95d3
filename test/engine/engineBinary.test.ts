// Engine binary selection (issue 18): TCA_ENGINE_BINARY=auto|prebuilt|native, the fallback to the
// prebuilt binary when no verified native build exists, and what the runtime lock records.
// Builds are fake folders in a temporary package root; hashes are computed here independently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  currentEngineBinarySelection,
  getLlamaBinaryOptions,
  nativeBuildStatus,
  parseEngineBinaryRequest,
  selectEngineBinary,
} from "../../src/model/engine/engineBinary.ts";
import { missingBuildTools } from "../../src/model/engine/nativeBuild.ts";
import { buildRuntimeLock } from "../../src/model/engine/runtimeLock.ts";
import { LlamaEngine } from "../../src/model/engine/llamaEngine.ts";
import { workerEnvironment } from "../../src/model/worker/supervisor.ts";

const sha = (text: string): string => createHash("sha256").update(text).digest("hex");
const ADDON = "fake addon bytes";
const LIB = "fake libggml bytes";

function fakeRoot(options: { build?: boolean; record?: unknown }): string {
  const root = mkdtempSync(join(tmpdir(), "tca-engine-bin-"));
  writeFileSync(
    join(root, "package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, packages: { "": { name: "x", version: "1.0.0" } } }),
  );
  mkdirSync(join(root, "node_modules"), { recursive: true });
  writeFileSync(join(root, "node_modules", ".package-lock.json"), JSON.stringify({ packages: {} }));
  if (options.build === true) {
    const release = join(
      root,
      "node_modules",
      "node-llama-cpp",
      "llama",
      "localBuilds",
      `${process.platform}-${process.arch}`,
      "Release",
    );
    mkdirSync(release, { recursive: true });
    writeFileSync(join(release, "llama-addon.node"), ADDON);
    writeFileSync(join(release, "libggml.so"), LIB);
  }
  if (options.record !== undefined) {
    mkdirSync(join(root, ".cache", "engine-native"), { recursive: true });
    writeFileSync(
      join(root, ".cache", "engine-native", "verified.json"),
      typeof options.record === "string" ? options.record : JSON.stringify(options.record),
    );
  }
  return root;
}

const goodRecord = (
  files: Record<string, string> = { "libggml.so": sha(LIB), "llama-addon.node": sha(ADDON) },
): Record<string, unknown> => ({
  schema: "tca.engine-native/1",
  verified_at: "2026-12-01T00:00:00.000Z",
  build_seconds: 600,
  llama_cpp_release: "ggml-org/llama.cpp@v0.4.0",
  system_info: "CPU : AVX2 = 1",
  files,
});

function withRoot(options: { build?: boolean; record?: unknown }, body: (root: string) => void): void {
  const root = fakeRoot(options);
  try {
    body(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test("TCA_ENGINE_BINARY: unset or empty is auto; only the three exact words are accepted", () => {
  assert.deepEqual(parseEngineBinaryRequest(undefined), { ok: true, value: "auto" });
  assert.deepEqual(parseEngineBinaryRequest(""), { ok: true, value: "auto" });
  for (const v of ["auto", "prebuilt", "native"]) assert.deepEqual(parseEngineBinaryRequest(v), { ok: true, value: v });
  for (const bad of ["NATIVE", " native", "native ", "yes", "1", "prebuilt,native", "../native"]) {
    const parsed = parseEngineBinaryRequest(bad);
    assert.equal(parsed.ok, false, bad);
    if (!parsed.ok) assert.equal(parsed.error, "input_invalid");
  }
});

test("no native build: auto falls back to prebuilt, native is refused, prebuilt is prebuilt", () => {
  withRoot({}, (root) => {
    const status = nativeBuildStatus(root);
    assert.equal(status.present, false);
    assert.equal(status.verified, false);
    const auto = currentEngineBinarySelection({}, root);
    assert.ok(auto.ok);
    if (auto.ok) {
      assert.equal(auto.value.binary, "prebuilt");
      assert.equal(auto.value.nativeFiles, null);
      assert.match(auto.value.reason, /no verified native build/);
    }
    const native = currentEngineBinarySelection({ TCA_ENGINE_BINARY: "native" }, root);
    assert.equal(native.ok, false);
    if (!native.ok) assert.equal(native.error, "engine_unavailable");
    const prebuilt = currentEngineBinarySelection({ TCA_ENGINE_BINARY: "prebuilt" }, root);
    assert.ok(prebuilt.ok && prebuilt.value.binary === "prebuilt");
    const bad = currentEngineBinarySelection({ TCA_ENGINE_BINARY: "fast" }, root);
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.equal(bad.error, "input_invalid");
  });
});

test("a build that was never verified is not used, even when it is present", () => {
  withRoot({ build: true }, (root) => {
    const status = nativeBuildStatus(root);
    assert.equal(status.present, true);
    assert.equal(status.verified, false);
    assert.deepEqual(status.files, { "libggml.so": sha(LIB), "llama-addon.node": sha(ADDON) });
    const auto = currentEngineBinarySelection({}, root);
    assert.ok(auto.ok && auto.value.binary === "prebuilt");
    assert.equal(currentEngineBinarySelection({ TCA_ENGINE_BINARY: "native" }, root).ok, false);
  });
});

test("a verified build is preferred by auto and used by native, with its file hashes recorded", () => {
  withRoot({ build: true, record: goodRecord() }, (root) => {
    assert.equal(nativeBuildStatus(root).verified, true);
    for (const env of [{}, { TCA_ENGINE_BINARY: "auto" }, { TCA_ENGINE_BINARY: "native" }]) {
      const selected = currentEngineBinarySelection(env, root);
      assert.ok(selected.ok);
      if (selected.ok) {
        assert.equal(selected.value.binary, "native");
        assert.deepEqual(selected.value.nativeFiles, { "libggml.so": sha(LIB), "llama-addon.node": sha(ADDON) });
      }
    }
    const forced = currentEngineBinarySelection({ TCA_ENGINE_BINARY: "prebuilt" }, root);
    assert.ok(forced.ok && forced.value.binary === "prebuilt" && forced.value.nativeFiles === null);
  });
});

test("attacks on the verification: changed file, extra file, wrong hashes, malformed record", () => {
  const cases: Array<{ name: string; record: unknown; after?: (root: string) => void }> = [
    {
      name: "addon replaced after verification",
      record: goodRecord(),
      after: (root) =>
        writeFileSync(
          join(
            root,
            "node_modules/node-llama-cpp/llama/localBuilds",
            `${process.platform}-${process.arch}`,
            "Release",
            "llama-addon.node",
          ),
          "evil",
        ),
    },
    {
      name: "extra library added",
      record: goodRecord(),
      after: (root) =>
        writeFileSync(
          join(
            root,
            "node_modules/node-llama-cpp/llama/localBuilds",
            `${process.platform}-${process.arch}`,
            "Release",
            "libextra.so",
          ),
          "x",
        ),
    },
    {
      name: "record of other hashes",
      record: goodRecord({ "libggml.so": sha("other"), "llama-addon.node": sha(ADDON) }),
    },
    { name: "record missing a file", record: goodRecord({ "llama-addon.node": sha(ADDON) }) },
    { name: "not JSON", record: "{not json" },
    { name: "wrong schema", record: { ...goodRecord(), schema: "tca.engine-native/2" } },
    { name: "hash not hex", record: goodRecord({ "libggml.so": "../../etc/passwd", "llama-addon.node": sha(ADDON) }) },
    { name: "files is an array", record: { ...goodRecord(), files: [sha(LIB)] } },
    { name: "build_seconds a string", record: { ...goodRecord(), build_seconds: "600" } },
  ];
  for (const c of cases) {
    withRoot({ build: true, record: c.record }, (root) => {
      c.after?.(root);
      const status = nativeBuildStatus(root);
      assert.equal(status.verified, false, c.name);
      assert.notEqual(status.reason, null, c.name);
      const auto = currentEngineBinarySelection({}, root);
      assert.ok(auto.ok && auto.value.binary === "prebuilt", c.name);
      assert.equal(currentEngineBinarySelection({ TCA_ENGINE_BINARY: "native" }, root).ok, false, c.name);
    });
  }
});

test("selectEngineBinary is a pure decision over the status", () => {
  const verified = { present: true, verified: true, reason: null, files: { "a.node": sha("a") } };
  const unverified = { present: true, verified: false, reason: "the native build was never verified", files: {} };
  assert.deepEqual(selectEngineBinary("auto", verified), {
    ok: true,
    value: {
      requested: "auto",
      binary: "native",
      reason: "a verified native build is present",
      nativeFiles: { "a.node": sha("a") },
    },
  });
  const fallback = selectEngineBinary("auto", unverified);
  assert.ok(fallback.ok && fallback.value.binary === "prebuilt" && fallback.value.reason.includes("never verified"));
  const refused = selectEngineBinary("native", unverified);
  assert.ok(!refused.ok && refused.error === "engine_unavailable" && refused.message.includes("tca engine build"));
  assert.ok(selectEngineBinary("prebuilt", verified).ok);
});

test("getLlama options: prebuilt names a build folder that never exists, native forbids prebuilt binaries", () => {
  const prebuilt = getLlamaBinaryOptions("prebuilt");
  assert.equal(prebuilt.usePrebuiltBinaries, true);
  assert.ok(Object.keys(prebuilt.cmakeOptions).length > 0);
  assert.equal(prebuilt.expectedBuildType, "prebuilt");
  const native = getLlamaBinaryOptions("native");
  assert.equal(native.usePrebuiltBinaries, false);
  assert.deepEqual(native.cmakeOptions, {});
  assert.equal(native.expectedBuildType, "localBuild");
});

test("the runtime lock records which binary the engine loads", () => {
  const saved = process.env["TCA_ENGINE_BINARY"];
  try {
    delete process.env["TCA_ENGINE_BINARY"];
    withRoot({ build: true, record: goodRecord() }, (root) => {
      const lock = buildRuntimeLock(root);
      assert.deepEqual(lock.engine_binary, {
        binary: "native",
        requested: "auto",
        reason: "a verified native build is present",
        native_files: { "libggml.so": sha(LIB), "llama-addon.node": sha(ADDON) },
      });
    });
    withRoot({ build: true }, (root) => {
      const lock = buildRuntimeLock(root);
      assert.ok(
        "binary" in lock.engine_binary &&
          lock.engine_binary.binary === "prebuilt" &&
          lock.engine_binary.native_files === null,
      );
    });
    process.env["TCA_ENGINE_BINARY"] = "native";
    withRoot({}, (root) => {
      const lock = buildRuntimeLock(root);
      assert.ok("error" in lock.engine_binary && lock.engine_binary.error === "engine_unavailable");
    });
  } finally {
    if (saved === undefined) delete process.env["TCA_ENGINE_BINARY"];
    else process.env["TCA_ENGINE_BINARY"] = saved;
  }
});

test("the engine refuses to load on a bad TCA_ENGINE_BINARY, before touching llama.cpp", async () => {
  const saved = process.env["TCA_ENGINE_BINARY"];
  try {
    process.env["TCA_ENGINE_BINARY"] = "turbo";
    const loaded = await LlamaEngine.load({ ggufPath: "/nonexistent.gguf", vocabularySize: 10 });
    assert.equal(loaded.ok, false);
    if (!loaded.ok) assert.equal(loaded.error, "engine_unavailable");
  } finally {
    if (saved === undefined) delete process.env["TCA_ENGINE_BINARY"];
    else process.env["TCA_ENGINE_BINARY"] = saved;
  }
});

test("build tools: an empty PATH misses all three; executables are found; a non-executable file is not", () => {
  assert.deepEqual(missingBuildTools(""), ["cmake", "C++ compiler", "C compiler"]);
  assert.deepEqual(missingBuildTools(undefined), ["cmake", "C++ compiler", "C compiler"]);
  const dir = mkdtempSync(join(tmpdir(), "tca-tools-"));
  try {
    for (const name of ["cmake", "g++", "cc"]) {
      writeFileSync(join(dir, name), "#!/bin/sh\n");
      chmodSync(join(dir, name), 0o755);
    }
    assert.deepEqual(missingBuildTools(dir), []);
    chmodSync(join(dir, "cmake"), 0o644);
    assert.deepEqual(missingBuildTools(dir), ["cmake"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the worker gets TCA_ENGINE_BINARY and the OpenMP wait settings, and still no credentials", () => {
  const env = workerEnvironment({
    PATH: "/usr/bin",
    TCA_ENGINE_BINARY: "native",
    OMP_WAIT_POLICY: "active",
    GOMP_SPINCOUNT: "1000",
    AWS_SECRET_ACCESS_KEY: "secret",
    NODE_OPTIONS: "--require /tmp/evil.js",
    LD_PRELOAD: "/tmp/evil.so",
    OMP_NUM_THREADS: "64",
  });
  assert.equal(env["TCA_ENGINE_BINARY"], "native");
  assert.equal(env["OMP_WAIT_POLICY"], "active");
  assert.equal(env["GOMP_SPINCOUNT"], "1000");
  for (const key of ["AWS_SECRET_ACCESS_KEY", "NODE_OPTIONS", "LD_PRELOAD", "OMP_NUM_THREADS"])
    assert.equal(env[key], undefined, key);
});
