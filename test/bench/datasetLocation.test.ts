// Where the benchmark looks for the data set by default: the fetched copy in the user's cache
// ($XDG_CACHE_HOME, else ~/.cache), and only when that does not exist, ../shared/quixbugs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  besideCheckoutDatasetDir,
  defaultDatasetDir,
  fetchedDatasetDir,
  loadDataset,
  projectCacheDir,
  QUIXBUGS_COMMIT,
} from "../../src/bench/dataset/dataset.ts";
import { PACKAGE_ROOT } from "../../src/recording/runtimeIdentity.ts";

test("the cache folder follows XDG_CACHE_HOME when it is absolute, else HOME/.cache", () => {
  assert.equal(projectCacheDir({ XDG_CACHE_HOME: "/x/cache", HOME: "/home/u" }), "/x/cache/tiny-coding-agent");
  assert.equal(
    projectCacheDir({ XDG_CACHE_HOME: "relative/cache", HOME: "/home/u" }),
    "/home/u/.cache/tiny-coding-agent",
  );
  assert.equal(projectCacheDir({ XDG_CACHE_HOME: "", HOME: "/home/u" }), "/home/u/.cache/tiny-coding-agent");
  assert.equal(fetchedDatasetDir({ XDG_CACHE_HOME: "/x" }), `/x/tiny-coding-agent/quixbugs-${QUIXBUGS_COMMIT}`);
});

test("the default data set is the fetched copy when it exists, else ../shared/quixbugs beside the checkout", () => {
  const cache = mkdtempSync(join(tmpdir(), "tca-cache-"));
  try {
    assert.equal(besideCheckoutDatasetDir(), resolve(PACKAGE_ROOT, "..", "shared", "quixbugs"));
    assert.equal(defaultDatasetDir({ XDG_CACHE_HOME: cache }), besideCheckoutDatasetDir());
    mkdirSync(fetchedDatasetDir({ XDG_CACHE_HOME: cache }), { recursive: true });
    assert.equal(defaultDatasetDir({ XDG_CACHE_HOME: cache }), fetchedDatasetDir({ XDG_CACHE_HOME: cache }));
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test("a missing data set folder is dataset_missing, and the message names it and the way to get it", () => {
  const missing = join(tmpdir(), "tca-no-such-dataset-folder");
  const result = loadDataset(missing);
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.error, "dataset_missing");
  assert.ok(result.message.includes(missing));
  assert.match(result.message, /fetch-dataset/);
});
