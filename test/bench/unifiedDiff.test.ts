// The final diff against git's own: for each pair, `git diff --no-index` on the same two files
// gives the expected hunks (function context after "@@" dropped), so no expected text here is
// produced by the code under test. The end-of-file newline change is among them.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addedLines, diffLines, unifiedDiff } from "../../src/bench/results/unifiedDiff.ts";

const dir = mkdtempSync(join(tmpdir(), "tca-diff-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** git's hunks for before -> after, from the first "@@" line, with the function context cut. */
function gitHunks(before: string, after: string): string {
  writeFileSync(join(dir, "before"), before);
  writeFileSync(join(dir, "after"), after);
  const r = spawnSync("git", ["diff", "--no-index", "--no-color", "--no-ext-diff", "-U3", "before", "after"], {
    cwd: dir,
    encoding: "utf8",
  });
  assert.ok(r.status === 1 || r.status === 0, r.stderr);
  const lines = r.stdout.split("\n");
  const first = lines.findIndex((l) => l.startsWith("@@ "));
  return first < 0
    ? ""
    : lines
        .slice(first)
        .map((l) => (l.startsWith("@@ ") ? l.replace(/^(@@ [^@]+ @@).*$/, "$1") : l))
        .join("\n");
}

function ourHunks(before: string, after: string): string {
  const patch = unifiedDiff("python_programs/p.py", before, after);
  const lines = patch.split("\n");
  assert.deepEqual(lines.slice(0, 2), ["--- a/python_programs/p.py", "+++ b/python_programs/p.py"]);
  return lines.slice(2).join("\n");
}

const BITCOUNT =
  'def bitcount(n):\n    count = 0\n    while n:\n        n ^= n - 1\n        count += 1\n    return count\n\n"""\nBitcount\nbitcount\n\nInput:\n    n: a nonnegative int\n"""\n';

const PAIRS: Readonly<Record<string, readonly [string, string]>> = {
  "one changed line": [BITCOUNT, BITCOUNT.replace("n ^= n - 1", "n &= n - 1")],
  "the end-of-file newline removed": [BITCOUNT, BITCOUNT.replace(/\n$/, "")],
  "the end-of-file newline added": ["x = 1\ny = 2", "x = 1\ny = 2\n"],
  "a change and the newline removed, as in the document's recorded run": [
    BITCOUNT,
    BITCOUNT.replace("n ^= n - 1", "n &= n - 1").replace(/\n$/, ""),
  ],
  "two hunks far apart": ["a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nK\nl\n"],
  "a file from nothing": ["", "new\n"],
  "everything removed": ["old\nlines\n", ""],
  "lines deleted at the start": ["# header\n# more\ndef f():\n    return 1\n", "def f():\n    return 1\n"],
};

for (const [name, [before, after]] of Object.entries(PAIRS)) {
  test(`the diff is git's: ${name}`, () => {
    assert.equal(ourHunks(before, after), gitHunks(before, after));
  });
}

test("the end-of-file newline change is shown, never an empty diff", () => {
  const patch = unifiedDiff("p.py", "x\n", "x");
  assert.match(patch, /\\ No newline at end of file\n$/);
  assert.equal(unifiedDiff("p.py", "x\n", "x\n"), "");
});

test("diffLines and addedLines: the report's and the special-casing check's view of the same diff", () => {
  assert.deepEqual(diffLines("a\nb\nc\n", "a\nB\nc\n"), [
    { kind: " ", text: "a" },
    { kind: "-", text: "b" },
    { kind: "+", text: "B" },
    { kind: " ", text: "c" },
  ]);
  assert.deepEqual(addedLines("def f(a):\n    return a\n", "def f(a):\n    if a == 7: return 1\n    return a\n"), [
    "    if a == 7: return 1",
  ]);
  assert.deepEqual(diffLines("", ""), []);
});
