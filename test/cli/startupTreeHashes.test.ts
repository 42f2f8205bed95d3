// Start-up hashes each of the checkout's trees once per process (bin/treeHashOnce.js): the
// freshness check in bin/tca.js, runningCode's proof and harnessHashes share one pass. These
// tests hold the memo to hashTree's digests, show that it keeps the first reading (which is why
// only start-up uses it), that a tree it could not read is not remembered, and that the build
// check judges a build alike with and without it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BUNDLED_PACKAGES,
  COMPILE_SCRIPT,
  compiledBuildStatus,
  hashTree,
  sha256Hex,
  STAMP_NAME,
  STAMP_SCHEMA,
} from "../../bin/compiledBuild.js";
import { hashTreeOnce } from "../../bin/treeHashOnce.js";
import { harnessHashes, PACKAGE_ROOT } from "../../src/recording/runtimeIdentity.ts";

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "tca-tree-hash-"));
}

function write(root: string, path: string, text: string): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

test("hashTreeOnce gives hashTree's digests, then the same digests again after an edit (hashTree sees the edit)", () => {
  const root = scratch();
  try {
    write(root, "src/a.ts", "export const a = 1;\n");
    write(root, "src/deep/b.ts", "export const b = 2;\n");
    const first = hashTreeOnce(root, "src");
    assert.deepEqual({ ...first }, hashTree(root, "src"));
    assert.deepEqual(Object.keys(first), ["src/a.ts", "src/deep/b.ts"]);
    write(root, "src/a.ts", "export const a = 3;\n");
    write(root, "src/c.ts", "export const c = 4;\n");
    assert.equal(hashTreeOnce(root, "src"), first);
    assert.equal(hashTreeOnce(`${root}/`, "src"), first, "the same tree however the root is spelled");
    const now = hashTree(root, "src");
    assert.notEqual(now["src/a.ts"], first["src/a.ts"]);
    assert.ok("src/c.ts" in now && !("src/c.ts" in first));
    assert.ok(Object.isFrozen(first), "callers share the digests, so none may change them");
    assert.throws(() => {
      (first as Record<string, string>)["src/a.ts"] = "0";
    }, TypeError);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a tree that cannot be read throws and is not remembered: the next call reads it", () => {
  const root = scratch();
  try {
    assert.throws(() => hashTreeOnce(root, "lib"), { code: "ENOENT" });
    write(root, "lib/a.js", "export const a = 1;\n");
    assert.deepEqual({ ...hashTreeOnce(root, "lib") }, hashTree(root, "lib"));
    assert.equal(Object.keys(hashTreeOnce(root, "lib")).length, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("compiledBuildStatus judges a build alike with hashTree and with the memo (the stamp inside lib/ left out of a copy), bundled packages included", () => {
  const root = scratch();
  try {
    write(root, COMPILE_SCRIPT, "// recipe\n");
    write(root, "src/a.ts", "export const a = 1;\n");
    write(root, "lib/a.js", "export const a = 1;\n");
    // The bundled packages as installed: a package.json of their own in this root's node_modules.
    const bundled: Record<string, { package_json_sha256: string }> = {};
    for (const name of BUNDLED_PACKAGES) {
      write(root, `node_modules/${name}/package.json`, `{"name":"${name}","version":"0.0.1"}`);
      bundled[name] = { package_json_sha256: sha256Hex(readFileSync(join(root, `node_modules/${name}/package.json`))) };
    }
    const stamp = {
      schema: STAMP_SCHEMA,
      compiler: { script_sha256: sha256Hex(readFileSync(join(root, COMPILE_SCRIPT))) },
      bundled,
      sources: hashTree(root, "src"),
      outputs: hashTree(root, "lib"),
    };
    write(root, `lib/${STAMP_NAME}`, JSON.stringify(stamp));
    assert.deepEqual(compiledBuildStatus(root), { fresh: true });
    assert.deepEqual(compiledBuildStatus(root, hashTreeOnce), { fresh: true });
    // The memo's lib/ digests still list the stamp: the check removed it from its own copy only.
    assert.ok(`lib/${STAMP_NAME}` in hashTreeOnce(root, "lib"));
    assert.deepEqual(compiledBuildStatus(root, hashTreeOnce), { fresh: true });
    // Another installed version of a bundled package: lib/ holds the old one, so it is stale.
    for (const name of BUNDLED_PACKAGES) {
      const manifest = join(root, `node_modules/${name}/package.json`);
      const bytes = readFileSync(manifest);
      write(root, `node_modules/${name}/package.json`, `{"name":"${name}","version":"0.0.2"}`);
      const stale = { fresh: false, reason: `the installed ${name} package changed since the build` };
      assert.deepEqual(compiledBuildStatus(root), stale);
      assert.deepEqual(compiledBuildStatus(root, hashTreeOnce), stale);
      rmSync(manifest);
      assert.deepEqual(compiledBuildStatus(root), stale, "not installed at all");
      writeFileSync(manifest, bytes);
    }
    assert.deepEqual(compiledBuildStatus(root), { fresh: true });

    const other = scratch();
    try {
      write(other, COMPILE_SCRIPT, "// recipe\n");
      for (const name of BUNDLED_PACKAGES)
        write(other, `node_modules/${name}/package.json`, `{"name":"${name}","version":"0.0.1"}`);
      write(other, "src/a.ts", "export const a = 2;\n");
      write(other, "lib/a.js", "export const a = 1;\n");
      write(other, `lib/${STAMP_NAME}`, JSON.stringify(stamp));
      const stale = { fresh: false, reason: "src/ changed since the build" };
      assert.deepEqual(compiledBuildStatus(other), stale);
      assert.deepEqual(compiledBuildStatus(other, hashTreeOnce), stale);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("harnessHashes lists the checkout's src/ and bin/ digests as the memo read them, plus the package files", () => {
  const { files } = harnessHashes();
  const src = hashTreeOnce(PACKAGE_ROOT, "src");
  const bin = hashTreeOnce(PACKAGE_ROOT, "bin");
  assert.deepEqual(
    Object.keys(files).sort(),
    [...Object.keys(src), ...Object.keys(bin), "package-lock.json", "package.json"].sort(),
  );
  for (const [path, digest] of Object.entries({ ...src, ...bin })) assert.equal(files[path], digest, path);
  assert.equal(files["package.json"], sha256Hex(readFileSync(join(PACKAGE_ROOT, "package.json"))));
});
