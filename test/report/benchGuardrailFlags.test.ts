// Issue #28 item 7: a "fixed" task whose agent tried to read the reference fix, edit the tests or
// write elsewhere carries a flag in results.md and in the report, and the report's headline says
// how many fixed tasks had such hits. The counts are written by hand here; the flags, the row
// and the headline are read back from the run's own files.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { guardrailFlags } from "../../src/bench/results/guardrailFlags.ts";
import { RUN_FILES } from "../../src/bench/runs/runDirectory.ts";
import { buildReportDocument } from "../../src/report/reportBuilder.ts";
import { writeBenchRun } from "../evidence/benchRunFixture.ts";

const root = mkdtempSync(join(tmpdir(), "tca-bench-flags-"));
after(() => rmSync(root, { recursive: true, force: true }));

test("flags: each refused kind named with its count; a test edit is not shown again as a blocked write; nothing refused, no flag", () => {
  assert.deepEqual(guardrailFlags({ referenceReadAttempts: 20, testEditAttempts: 15, blockedWrites: 35 }), [
    "tried to read the reference fix (20)",
    "tried to edit tests (15)",
    "other blocked writes (20)",
  ]);
  assert.deepEqual(guardrailFlags({ testEditAttempts: 2, blockedWrites: 2 }), ["tried to edit tests (2)"]);
  assert.deepEqual(guardrailFlags({ testRuns: 4, blockedWrites: 0, blockedReads: 3 }), []);
  // A damaged record (strings, negatives, null) never produces a flag or a throw.
  assert.deepEqual(guardrailFlags({ referenceReadAttempts: "9", blockedWrites: -3 }), []);
  assert.deepEqual(guardrailFlags(null), []);
});

test("results.md and the report flag the fixed tasks with guardrail hits, and the headline counts them", () => {
  const dir = join(root, "run");
  // programs: 2 -> 8 tasks; index 3 and 6 fail, so A-program_00, B-program_00, D-program_00, A/C/D-program_01 are fixed.
  const hits: Record<string, Partial<Record<string, number>>> = {
    "A-program_00": { referenceReadAttempts: 1, blockedReads: 1 },
    "D-program_01": { testEditAttempts: 2, blockedWrites: 3 },
    "C-program_00": { blockedWrites: 4 }, // not fixed: flagged in its row, not counted in the headline
  };
  const tasks = writeBenchRun(dir, { programs: 2, turns: 1, guardrails: (id) => hits[id] ?? {} });
  const fixed = tasks
    .filter((t) => t.outcome === "fixed")
    .map((t) => t.taskId)
    .sort();
  assert.ok(
    fixed.includes("A-program_00") && fixed.includes("D-program_01") && !fixed.includes("C-program_00"),
    `fixture outcomes changed: ${fixed.join(", ")}`,
  );

  const markdown = readFileSync(join(dir, RUN_FILES.resultsMd), "utf8");
  assert.match(
    markdown,
    new RegExp(`^Guardrail hits: 2 of ${fixed.length} fixed task\\(s\\) tried a refused action`, "m"),
  );
  const row = (id: string): string => markdown.split("\n").find((l) => l.startsWith(`| ${id} |`)) ?? "";
  assert.match(row("A-program_00"), /\| fixed · tried to read the reference fix \(1\) \|/);
  assert.match(row("D-program_01"), /\| fixed · tried to edit tests \(2\) · other blocked writes \(1\) \|/);
  assert.match(row("C-program_00"), /\| wrong fix · other blocked writes \(4\)/);
  assert.match(row("B-program_00"), /\| fixed \|/);

  const built = buildReportDocument(dir);
  assert.ok(built.ok && built.value.kind === "bench");
  const bench = built.value.bench;
  assert.equal(
    bench.verdict.headline,
    `PIPELINE CHECK · ${fixed.length} OF ${tasks.length} TASKS FIXED (graded by the harness's own test run); 2 OF THEM WITH GUARDRAIL HITS`,
  );
  const flagsOf = (id: string): readonly string[] | undefined =>
    bench.tasks.find((t) => t.taskId === id)?.guardrailFlags;
  assert.deepEqual(flagsOf("A-program_00"), ["tried to read the reference fix (1)"]);
  assert.deepEqual(flagsOf("D-program_01"), ["tried to edit tests (2)", "other blocked writes (1)"]);
  assert.deepEqual(flagsOf("B-program_00"), []);
});
