// The stat-validated digest cache behind start-up's tree hashes (bin/treeDigestCache.js): it must
// give hashTree's digests, take a digest from the cache only while the file's stat is the one
// recorded, never cache a file changed within SETTLED_MS, and survive a missing, damaged,
// foreign or unwritable cache. `nowMs` stands in for a later clock, so files written here count
// as settled without waiting.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashTree, sha256Hex } from "../../bin/compiledBuild.js";
import { DIGEST_CACHE_SCHEMA, digestCachePath, hashTreeCached, SETTLED_MS } from "../../bin/treeDigestCache.js";

const LATER = (): number => Date.now() + 10 * SETTLED_MS;

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), "tca-digest-cache-"));
  mkdirSync(join(root, "src", "core"), { recursive: true });
  writeFileSync(join(root, "src", "core", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "src", "b.ts"), "export const b = 2;\n");
  return root;
}

interface CacheFile {
  schema: string;
  files: Record<string, [string, string]>;
}
const readCache = (root: string): CacheFile =>
  JSON.parse(readFileSync(digestCachePath(root, "src"), "utf8")) as CacheFile;

test("the digests are hashTree's, the same keys in the same order, and settled files are recorded with their stat", () => {
  const root = checkout();
  try {
    const first = hashTreeCached(root, "src", LATER());
    assert.deepEqual(Object.entries(first), Object.entries(hashTree(root, "src")));
    const cache = readCache(root);
    assert.equal(cache.schema, DIGEST_CACHE_SCHEMA);
    assert.deepEqual(Object.keys(cache.files), ["src/b.ts", "src/core/a.ts"]);
    assert.equal(cache.files["src/b.ts"]?.[1], sha256Hex(Buffer.from("export const b = 2;\n")));
    assert.deepEqual(hashTreeCached(root, "src", LATER()), first);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a digest comes from the cache only under the stat it was recorded with: any change of the file reads it again", () => {
  const root = checkout();
  try {
    const file = join(root, "src", "b.ts");
    // A whole second, which utimes sets exactly (a fraction would be rounded to microseconds).
    const second = new Date(Math.floor(Date.now() / 1000) * 1000);
    utimesSync(file, second, second);
    hashTreeCached(root, "src", LATER());
    // A forged digest under the file's own stat is believed (the cache is trusted as the
    // checkout is, see the module's header), which shows the cache is what answered ...
    const forged = "0".repeat(64);
    const cache = readCache(root);
    const entry = cache.files["src/b.ts"];
    assert.ok(entry !== undefined);
    cache.files["src/b.ts"] = [entry[0], forged];
    writeFileSync(digestCachePath(root, "src"), JSON.stringify(cache));
    assert.equal(hashTreeCached(root, "src", LATER())["src/b.ts"], forged);
    // ... and an edit of the same size with its mtime put back still changes the ctime: read again.
    const before = statSync(file, { bigint: true });
    writeFileSync(file, "export const b = 3;\n");
    utimesSync(file, second, second);
    const after = statSync(file, { bigint: true });
    assert.deepEqual([after.size, after.mtimeNs, after.ino], [before.size, before.mtimeNs, before.ino]);
    assert.notEqual(after.ctimeNs, before.ctimeNs);
    assert.equal(hashTreeCached(root, "src", LATER())["src/b.ts"], sha256Hex(Buffer.from("export const b = 3;\n")));
    // A file replaced by another (a new inode), same bytes' length and times: read again.
    writeFileSync(join(root, "src", "b.tmp"), "export const b = 4;\n");
    rmSync(file);
    writeFileSync(file, readFileSync(join(root, "src", "b.tmp")));
    rmSync(join(root, "src", "b.tmp"));
    assert.equal(hashTreeCached(root, "src", LATER())["src/b.ts"], sha256Hex(Buffer.from("export const b = 4;\n")));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a file changed within SETTLED_MS is hashed every time and never cached (a coarse clock cannot hide a second edit)", () => {
  const root = checkout();
  try {
    // With the real clock the files written just now are young: digests right, nothing cached.
    assert.deepEqual(hashTreeCached(root, "src"), hashTree(root, "src"));
    assert.throws(() => readFileSync(digestCachePath(root, "src")), { code: "ENOENT" });
    // Settled, then edited: the young file leaves the cache, the settled one stays.
    hashTreeCached(root, "src", LATER());
    writeFileSync(join(root, "src", "b.ts"), "export const b = 5;\n");
    assert.equal(hashTreeCached(root, "src")["src/b.ts"], sha256Hex(Buffer.from("export const b = 5;\n")));
    assert.deepEqual(Object.keys(readCache(root).files), ["src/core/a.ts"]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("added and removed files are seen, and a removed file leaves the cache", () => {
  const root = checkout();
  try {
    hashTreeCached(root, "src", LATER());
    writeFileSync(join(root, "src", "c.ts"), "export const c = 3;\n");
    rmSync(join(root, "src", "core", "a.ts"));
    const now = hashTreeCached(root, "src", LATER());
    assert.deepEqual(Object.keys(now), ["src/b.ts", "src/c.ts"]);
    assert.deepEqual(now, hashTree(root, "src"));
    assert.deepEqual(Object.keys(readCache(root).files), ["src/b.ts", "src/c.ts"]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a damaged, foreign or malformed cache is ignored and rewritten; an unwritable one changes nothing but speed", () => {
  const root = checkout();
  try {
    const truth = hashTree(root, "src");
    const path = digestCachePath(root, "src");
    mkdirSync(join(path, ".."), { recursive: true });
    const key = (file: string): string => {
      const s = statSync(join(root, file), { bigint: true });
      return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    };
    for (const damaged of [
      "{not json",
      JSON.stringify({ schema: "tca.tree-digests/0", files: { "src/b.ts": [key("src/b.ts"), "1".repeat(64)] } }),
      JSON.stringify({ schema: DIGEST_CACHE_SCHEMA, files: null }),
      JSON.stringify({ schema: DIGEST_CACHE_SCHEMA, files: { "src/b.ts": [key("src/b.ts"), "not a digest"] } }),
      JSON.stringify({ schema: DIGEST_CACHE_SCHEMA, files: { "src/b.ts": [key("src/b.ts"), "1".repeat(64), "x"] } }),
      JSON.stringify({ schema: DIGEST_CACHE_SCHEMA, files: { "src/b.ts": "1".repeat(64) } }),
    ]) {
      writeFileSync(path, damaged);
      assert.deepEqual(hashTreeCached(root, "src", LATER()), truth, damaged);
      assert.equal(readCache(root).schema, DIGEST_CACHE_SCHEMA, damaged);
    }
    // The cache's folder taken by a file: no cache can be written, the digests are still right.
    rmSync(join(root, ".cache"), { recursive: true, force: true });
    writeFileSync(join(root, ".cache"), "a file, not a folder\n");
    assert.deepEqual(hashTreeCached(root, "src", LATER()), truth);
    assert.deepEqual(hashTreeCached(root, "src", LATER()), truth);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
