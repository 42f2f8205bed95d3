// The fast version of npm run bench:determinism (issue #34: a grade is a function of the program
// alone): two programs of the bench's set, each graded twice, once on the machine as it is and
// once while this process keeps busy loops running (one per core, bench/loadLevels.ts, ended by
// pid), and what the grade decides (gradeDecisions: outcome, reason, every count, every case's
// status, public and held-out) must be identical. The mini data set, budgets lowered (1 CPU-s per
// case, 3 CPU-s and 3 idle seconds per run) so that each grade ends by a budget in seconds.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { cpuHogs } from "../../bench/loadLevels.ts";
import { heldOutCases } from "../../src/bench/grading/heldOutCases.ts";
import { CASE_STATUS, gradeDecisions, gradeProgram, type TrustedGrade } from "../../src/bench/grading/trustedGrader.ts";
import { benchSetup, buggy, program } from "./benchFixtures.ts";

const SEED = 20_341;

async function grade(name: string, source: string): Promise<TrustedGrade> {
  const { sandbox, dataset } = benchSetup({ caseCpuSeconds: 1, timeoutMs: 3000 });
  const p = program(dataset, name);
  return gradeProgram(sandbox, dataset, p, source, { heldOut: await heldOutCases(sandbox, dataset, p, SEED) });
}

async function underHogs<T>(work: () => Promise<T>): Promise<T> {
  const stop = await cpuHogs(availableParallelism()).start();
  try {
    return await work();
  } finally {
    await stop();
  }
}

const SUBJECTS: ReadonlyArray<{ readonly label: string; readonly program: string; readonly source: () => string }> = [
  // The mini set's buggy bitcount (`n >> 1`, never assigned): loops on every public case but 0.
  { label: "bitcount's looping bug", program: "bitcount", source: () => buggy(benchSetup().dataset, "bitcount") },
  {
    label: "a held-out hang (bitcount correct below 2**45, looping above)",
    program: "bitcount",
    source: () =>
      readFileSync(new URL("../fixtures/determinism/bitcount__loops_above_2_45.py", import.meta.url), "utf8"),
  },
];

for (const s of SUBJECTS) {
  test(`${s.label}: the same grade on the machine as it is and under ${String(availableParallelism())} self-started busy loops`, async () => {
    const calm = await grade(s.program, s.source());
    const loaded = await underHogs(() => grade(s.program, s.source()));
    assert.deepEqual(gradeDecisions(loaded), gradeDecisions(calm));
    // Each run ended by a CPU budget, counted the same under load: never the wall clock.
    assert.notEqual(calm.outcome, "passed");
    assert.ok(
      calm.public.statuses.includes(CASE_STATUS.timeout) || calm.heldOut?.statuses.includes(CASE_STATUS.timeout),
    );
    assert.ok(!/wall-clock guard/.test(loaded.reason ?? ""), loaded.reason ?? "");
  });
}

test("gradeDecisions sees each case's status: a grade whose statuses differ is a disagreement", async () => {
  // The control that the comparison above can fail: the same program, one case's status changed.
  const g = await grade("bitcount", SUBJECTS[0]?.source() ?? "");
  const first = g.public.statuses[0] === CASE_STATUS.passed ? CASE_STATUS.failed : CASE_STATUS.passed;
  const changed: TrustedGrade = { ...g, public: { ...g.public, statuses: first + g.public.statuses.slice(1) } };
  assert.notDeepEqual(gradeDecisions(changed), gradeDecisions(g));
  assert.equal(g.public.statuses.length, g.public.total);
});
