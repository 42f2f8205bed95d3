// SHA-256 digests of a tree, each file's taken from a small cache while its stat is unchanged.
// bin/tca.js hashes src/ and lib/ (about 740 files) at every start to decide whether lib/ is a
// fresh build, and the run's evidence names those digests; read and hashed cold, that was about
// 20 ms of a 0.15 s start (#36). Here a file is read and hashed again only when its device,
// inode, size, mtime or ctime differ from those recorded beside its digest, as git's index does.
// A content change that keeps all five needs a clock set back by root (ctime cannot be set by
// a user): the same trust as the checkout itself, whose writer could rewrite lib/ and its stamp
// alike. A file changed less than SETTLED_MS ago is hashed every time and never cached, so a
// file system with coarse timestamps cannot hide a second edit within the same tick (git's
// "racily clean" entries). The cache is only an optimisation: a missing, unreadable, foreign or
// damaged cache file is ignored, and one that cannot be written (a read-only checkout) is not.
// Plain JavaScript, like compiledBuild.js, because bin/tca.js loads it before any transpiler.
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { listFiles, sha256Hex } from "./compiledBuild.js";

/** Inside the checkout's own (git-ignored) .cache/, one file per hashed tree. */
export const DIGEST_CACHE_DIRECTORY = ".cache/tca-tree-digests";
export const DIGEST_CACHE_SCHEMA = "tca.tree-digests/1";
/** A file whose mtime or ctime is younger than this is hashed every time and never cached. */
export const SETTLED_MS = 2000;

const DIGEST = /^[0-9a-f]{64}$/;

/** The cache file of root/directory (directory is "src", "lib" or "bin": a plain name). */
export function digestCachePath(root, directory) {
  return `${root}/${DIGEST_CACHE_DIRECTORY}/${directory}.json`;
}

function readCache(path) {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8"));
    if (parsed?.schema === DIGEST_CACHE_SCHEMA && parsed.files !== null && typeof parsed.files === "object")
      return parsed.files;
  } catch {
    // No cache, or not one of ours: every file is hashed.
  }
  return {};
}

/**
 * hashTree(root, directory)'s result (the same keys in the same order, the same digests), each
 * file hashed unless the cache holds its digest under its current stat. `nowMs` is the clock
 * that decides which files are settled (a test passes a later one).
 */
export function hashTreeCached(root, directory, nowMs = Date.now()) {
  const cachePath = digestCachePath(root, directory);
  const known = readCache(cachePath);
  const settledBefore = (BigInt(Math.floor(nowMs)) - BigInt(SETTLED_MS)) * 1_000_000n;
  const hashes = {};
  const kept = {};
  let changed = false;
  for (const path of listFiles(root, directory)) {
    // The stat before the read: a file changed in between is recorded under its old stat, so
    // the next start sees a new stat and reads it again.
    const stat = lstatSync(`${root}/${path}`, { bigint: true });
    const key = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    const entry = known[path];
    if (Array.isArray(entry) && entry.length === 2 && entry[0] === key && DIGEST.test(entry[1])) {
      hashes[path] = entry[1];
      kept[path] = entry;
      continue;
    }
    const digest = sha256Hex(readFileSync(`${root}/${path}`));
    hashes[path] = digest;
    if (stat.mtimeNs < settledBefore && stat.ctimeNs < settledBefore) {
      kept[path] = [key, digest];
      changed = true;
    } else if (entry !== undefined) changed = true;
  }
  if (!changed && Object.keys(known).length !== Object.keys(kept).length) changed = true;
  if (changed) writeCache(cachePath, kept);
  return hashes;
}

/** Written whole to a file of this process's and renamed over the cache: readers never see half. */
function writeCache(path, files) {
  const scratch = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    writeFileSync(scratch, JSON.stringify({ schema: DIGEST_CACHE_SCHEMA, files }));
    renameSync(scratch, path);
  } catch {
    // A read-only checkout, a full disk, a file where the folder should be: the next start
    // hashes again, nothing else changes.
    try {
      rmSync(scratch, { force: true });
    } catch {
      // Nothing was written.
    }
  }
}
