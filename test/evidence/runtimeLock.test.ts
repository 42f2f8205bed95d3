import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRuntimeLock } from "../../src/model/engine/runtimeLock.ts";

function fakeRoot(installed: Record<string, { version: string; integrity?: string }>): string {
  const root = mkdtempSync(join(tmpdir(), "tca-lock-"));
  const packages = {
    "": { name: "x", version: "1.0.0" },
    "node_modules/a": { version: "1.0.0", integrity: "sha512-A" },
    "node_modules/b": { version: "2.0.0", integrity: "sha512-B", dev: true },
    "node_modules/c": { version: "3.0.0", integrity: "sha512-C", optional: true },
  };
  writeFileSync(join(root, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages }));
  const hidden: Record<string, unknown> = {};
  for (const [name, info] of Object.entries(installed)) {
    mkdirSync(join(root, "node_modules", name), { recursive: true });
    writeFileSync(join(root, "node_modules", name, "package.json"), JSON.stringify({ name, version: info.version }));
    hidden[`node_modules/${name}`] = { version: info.version, integrity: info.integrity };
  }
  writeFileSync(join(root, "node_modules", ".package-lock.json"), JSON.stringify({ packages: hidden }));
  return root;
}

test("a tree that matches the lockfile has no mismatches; an absent optional package is fine", () => {
  const root = fakeRoot({
    a: { version: "1.0.0", integrity: "sha512-A" },
    b: { version: "2.0.0", integrity: "sha512-B" },
  });
  try {
    const lock = buildRuntimeLock(root);
    assert.deepEqual(lock.mismatches, []);
    assert.deepEqual(
      lock.packages.map((p) => [p.path, p.status]),
      [
        ["node_modules/a", "installed"],
        ["node_modules/b", "installed"],
        ["node_modules/c", "absent_optional"],
      ],
    );
    assert.match(lock.lockfile_sha256, /^[0-9a-f]{64}$/);
  } finally {
    rmSync(root, { recursive: true });
  }
});

test("missing, other-version and other-integrity packages are mismatches", () => {
  const root = fakeRoot({
    b: { version: "2.0.1", integrity: "sha512-B" },
    c: { version: "3.0.0", integrity: "sha512-other" },
  });
  try {
    const lock = buildRuntimeLock(root);
    assert.deepEqual([...lock.mismatches].sort(), [
      "node_modules/a: missing",
      "node_modules/b: version_mismatch",
      "node_modules/c: integrity_mismatch",
    ]);
  } finally {
    rmSync(root, { recursive: true });
  }
});

test("without npm's record of the installed tree, or without the engine binaries it needs, the lock does not pass", () => {
  const root = fakeRoot({
    a: { version: "1.0.0", integrity: "sha512-A" },
    b: { version: "2.0.0", integrity: "sha512-B" },
  });
  try {
    rmSync(join(root, "node_modules", ".package-lock.json"));
    assert.deepEqual(buildRuntimeLock(root).mismatches, ["node_modules/.package-lock.json: missing (run npm ci)"]);
    const lockfile = { lockfileVersion: 3, packages: { "": {}, "node_modules/node-llama-cpp": { version: "3.22.1" } } };
    writeFileSync(join(root, "package-lock.json"), JSON.stringify(lockfile));
    mkdirSync(join(root, "node_modules", "node-llama-cpp"), { recursive: true });
    writeFileSync(join(root, "node_modules", "node-llama-cpp", "package.json"), JSON.stringify({ version: "3.22.1" }));
    writeFileSync(join(root, "node_modules", ".package-lock.json"), JSON.stringify({ packages: {} }));
    assert.match(buildRuntimeLock(root).mismatches.join("\n"), /no prebuilt engine binaries/);
  } finally {
    rmSync(root, { recursive: true });
  }
});

test("this checkout's installed tree agrees with its lockfile", () => {
  const lock = buildRuntimeLock(process.cwd());
  assert.deepEqual(lock.mismatches, []);
  assert.ok(lock.packages.some((p) => p.path === "node_modules/node-llama-cpp" && p.status === "installed"));
});
