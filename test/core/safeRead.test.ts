// The no-link, no-FIFO reader: every attack on a run folder's paths, built by the test.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  decodeUtf8Strict,
  kindUnder,
  listDirectoryUnder,
  readFileUnder,
  readRegularFile,
  readTextUnder,
  relativeComponents,
} from "../../src/core/safeRead.ts";

const root = mkdtempSync(join(tmpdir(), "tca-safe-read-"));
after(() => rmSync(root, { recursive: true, force: true }));

const run = join(root, "run");
const outside = join(root, "outside");
mkdirSync(join(run, "diffs"), { recursive: true });
mkdirSync(outside);
writeFileSync(join(run, "diffs", "A-gcd.diff"), "--- a\n+++ b\n");
writeFileSync(join(outside, "secret.txt"), "host secret\n");

function errorOf<T>(result: { ok: true; value: T } | { ok: false; error: string }): string {
  return result.ok ? "read" : result.error;
}

test("a regular file under the root is read; relative paths with '..', '.', '' or a leading '/' are refused", () => {
  const read = readTextUnder(run, "diffs/A-gcd.diff", 1024);
  assert.deepEqual(read, { ok: true, value: "--- a\n+++ b\n" });
  for (const bad of [
    "../outside/secret.txt",
    "diffs/../../outside/secret.txt",
    "./diffs/A-gcd.diff",
    "/etc/passwd",
    "diffs//A-gcd.diff",
    "",
    "diffs\\A-gcd.diff",
  ]) {
    assert.equal(errorOf(readFileUnder(run, bad, 1024)), "path_invalid", bad);
  }
  assert.equal(relativeComponents("a/b/c")?.length, 3);
});

test("a symlinked directory in the middle of the path is never followed (diffs -> outside)", () => {
  const linked = join(root, "linked-run");
  mkdirSync(linked);
  symlinkSync(outside, join(linked, "diffs"));
  assert.equal(errorOf(readFileUnder(linked, "diffs/secret.txt", 1024)), "symlink_refused");
  assert.equal(errorOf(kindUnder(linked, "diffs/secret.txt")), "symlink_refused");
  assert.deepEqual(kindUnder(linked, "diffs"), { ok: true, value: "symlink" });
  assert.equal(errorOf(listDirectoryUnder(linked, "diffs")), "symlink_refused");
});

test("a symlinked last component, even to a file inside the root, is refused", () => {
  symlinkSync(join(run, "diffs", "A-gcd.diff"), join(run, "diffs", "B-gcd.diff"));
  symlinkSync(join(outside, "secret.txt"), join(run, "diffs", "C-gcd.diff"));
  assert.equal(errorOf(readFileUnder(run, "diffs/B-gcd.diff", 1024)), "symlink_refused");
  assert.equal(errorOf(readFileUnder(run, "diffs/C-gcd.diff", 1024)), "symlink_refused");
});

test("a FIFO is refused at once (no writer ever opens it), and so is a directory or a device", () => {
  execFileSync("mkfifo", [join(run, "diffs", "fifo.diff")]);
  // A blocking open would hang here forever (nothing ever opens the FIFO for writing); the CLI
  // test bounds the same case with a child-process timeout (test/report/reportCli.test.ts).
  assert.equal(errorOf(readFileUnder(run, "diffs/fifo.diff", 1024)), "not_regular_file");
  assert.equal(errorOf(readRegularFile(join(run, "diffs", "fifo.diff"), 1024)), "not_regular_file");
  assert.equal(errorOf(readFileUnder(run, "diffs", 1024)), "not_regular_file");
  assert.equal(errorOf(readRegularFile("/dev/null", 1024)), "not_regular_file");
});

test("missing files, files too large, and a path through a file are typed errors", () => {
  assert.equal(errorOf(readFileUnder(run, "diffs/none.diff", 1024)), "not_found");
  assert.equal(errorOf(readFileUnder(run, "diffs/A-gcd.diff", 4)), "too_large");
  assert.equal(errorOf(readFileUnder(run, "diffs/A-gcd.diff/more", 1024)), "not_a_directory");
  assert.equal(errorOf(readFileUnder(join(root, "no-run"), "x", 1024)), "not_found");
  const prefix = readRegularFile(join(run, "diffs", "A-gcd.diff"), 4, { prefixOnly: true });
  assert.deepEqual(prefix.ok ? prefix.value.toString() : prefix.error, "--- ");
});

test("strict UTF-8: an invalid sequence is an error, never a replacement character", () => {
  assert.equal(errorOf(decodeUtf8Strict(Buffer.from([0x61, 0xff, 0x62]), "x")), "invalid_utf8");
  assert.equal(errorOf(decodeUtf8Strict(Buffer.from([0xe2, 0x82]), "x")), "invalid_utf8");
  assert.deepEqual(decodeUtf8Strict(Buffer.from("h\u00e9llo \u2713", "utf8"), "x"), {
    ok: true,
    value: "h\u00e9llo \u2713",
  });
  writeFileSync(join(run, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  assert.equal(errorOf(readTextUnder(run, "latin1.txt", 1024)), "invalid_utf8");
});

test("directory listings are sorted and refuse links", () => {
  const listed = listDirectoryUnder(run, "");
  assert.ok(listed.ok);
  assert.deepEqual(listed.value, [...listed.value].sort());
  assert.ok(listed.value.includes("diffs"));
});
