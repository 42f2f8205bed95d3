// The bench report's verdict box is short (the headline, then a few lines), and the claim
// breakdown per condition (the document's false-"fixed" analysis) is a table below it, computed by
// the bench's own conditionFindings over the verified task records. A condition that cannot run the
// tests (A one-shot, B) has no test-related count at all: its cells are null ("—" on the page),
// never "never ran the tests 3"; only D, which refuses stops, has a refused-stop count.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildReport } from "../../src/report/reportBuilder.ts";
import type { BenchReportData } from "../../src/report/reportDocument.ts";
import { writeBenchRun } from "../evidence/benchRunFixture.ts";

const root = mkdtempSync(join(tmpdir(), "tca-bench-claims-"));
after(() => rmSync(root, { recursive: true, force: true }));

function benchOf(dir: string): BenchReportData {
  const built = buildReport(dir);
  assert.ok(built.ok);
  assert.equal(built.value.document.kind, "bench");
  if (built.value.document.kind !== "bench") throw new Error("not a bench report");
  return built.value.document.bench;
}

test("the verdict box: the headline and four lines at most, no claim sentences; the fixed count per condition on one line", () => {
  const dir = join(root, "run");
  const tasks = writeBenchRun(dir, { programs: 3, turns: 1 });
  const bench = benchOf(dir);
  assert.ok(
    bench.verdict.details.length <= 4,
    `${bench.verdict.details.length} lines: ${bench.verdict.details.join(" | ")}`,
  );
  for (const line of bench.verdict.details) {
    assert.doesNotMatch(line, /never ran the tests|final change, not re-run|stopped after a failing run/);
    assert.ok(line.length <= 200, `a short line: ${line}`);
  }
  const perCondition = ["A", "B", "C", "D"]
    .map((c) => {
      const of = tasks.filter((t) => t.condition === c);
      return `${c} ${of.filter((t) => t.outcome === "fixed").length} of ${of.length}`;
    })
    .join(" · ");
  assert.ok(bench.verdict.details.includes(`fixed per condition: ${perCondition}`), bench.verdict.details.join("\n"));
  assert.ok(
    bench.verdict.details.some((line) =>
      line.startsWith(`false "fixed" (claimed, tests fail) in all: ${tasks.filter((t) => t.falseFixed).length};`),
    ),
  );
});

test("the claims table: counts per condition from the task records; A and B have no test-related count, only D a refused-stop count", () => {
  const dir = join(root, "claims");
  const tasks = writeBenchRun(dir, {
    programs: 3,
    turns: 1,
    guardrails: (taskId) => (taskId.startsWith("D-") ? { refusedStopAttempts: 2 } : {}),
  });
  const bench = benchOf(dir);
  assert.deepEqual(
    bench.claims.map((c) => c.condition),
    ["A", "B", "C", "D"],
  );
  for (const row of bench.claims) {
    const of = tasks.filter((t) => t.condition === row.condition);
    assert.equal(row.claimed, of.filter((t) => t.claimedFixed).length, row.condition);
    assert.equal(row.claimedTestsFail, of.filter((t) => t.falseFixed).length, row.condition);
    const testCounts = [
      row.verified,
      row.finalChangeNotRerun,
      row.afterFailingRun,
      row.neverRanTests,
      row.unverifiedFalse,
    ];
    if (row.condition === "A" || row.condition === "B")
      assert.deepEqual(testCounts, [null, null, null, null, null], `${row.condition} runs no tests`);
    else
      assert.ok(
        testCounts.every((n) => typeof n === "number"),
        `${row.condition} runs the tests`,
      );
    assert.equal(row.refusedStopAttempts, row.condition === "D" ? 2 * of.length : null, row.condition);
  }
  // The guardrail table follows the same rule: A has no tools, B no test runs, only D refused stops.
  const guardrails = new Map(bench.guardrailTable.map((row) => [row.condition, row.cells]));
  const column = (name: string): number => bench.guardrailHeaders.indexOf(name);
  assert.ok(guardrails.get("A")?.every((cell) => cell === "—"));
  assert.equal(guardrails.get("B")?.[column("test runs")], "—");
  assert.equal(guardrails.get("B")?.[column("blocked writes")], "0");
  assert.equal(guardrails.get("C")?.[column("test runs")], String(tasks.filter((t) => t.condition === "C").length));
  assert.equal(guardrails.get("C")?.[column("refused stop attempts")], "—");
  assert.equal(guardrails.get("D")?.[column("refused stop attempts")], String(2 * 3));
});
