// The report's verdict carries the claim breakdown per condition (the document's false-"fixed"
// analysis), computed by the bench's own conditionFindings over the run's tasks.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildReport } from "../../src/report/reportBuilder.ts";
import { writeBenchRun } from "../evidence/benchRunFixture.ts";

const root = mkdtempSync(join(tmpdir(), "tca-bench-claims-"));
after(() => rmSync(root, { recursive: true, force: true }));

test("the verdict names, per condition, the claims, the false-fixed split and the claims without a passing run", () => {
  const dir = join(root, "run");
  const tasks = writeBenchRun(dir, { programs: 3, turns: 1 });
  const built = buildReport(dir);
  assert.ok(built.ok);
  const details = built.value.document.kind === "bench" ? built.value.document.bench.verdict.details : [];
  const c = tasks.filter((t) => t.condition === "C");
  const line = details.find((d) => d.startsWith("C · agent with test feedback: claimed"));
  assert.equal(
    line,
    `C · agent with test feedback: claimed "done" ${c.length}; false "fixed" (claimed, tests fail) ${c.filter((t) => t.falseFixed).length}; claimed, tests pass, held-out fail 0; without a passing run: (a) final change, not re-run 0, (b) stopped after a failing run 0, (c) never ran the tests 0; refused stop attempts 0`,
  );
  assert.equal(details.filter((d) => / refused stop attempts \d+$/.test(d)).length, 4);
});
