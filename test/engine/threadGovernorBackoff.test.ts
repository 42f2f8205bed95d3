// The thread governor's re-checks back off under lasting load (#36): each re-check of the other
// count that confirms the chosen one doubles the interval to the next, up to maxExploreBackoff
// times exploreEvery, so a loaded machine stops paying a slow 2-thread step pair every 24 steps;
// a machine whose load goes away is still noticed within two of those longest intervals. Without the
// option the interval stays fixed (test/engine/protocolAndGovernor.test.ts drives that one).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_THREAD_GOVERNOR, ThreadGovernor } from "../../src/model/engine/threadGovernor.ts";

const OPTIONS = { candidates: [2, 1], exploreEvery: 8, smoothing: 0.5, degradedFraction: 0.7 } as const;

/** A governor that has seen 2 threads collapse under load and chose 1 thread. */
function loaded(maxExploreBackoff?: number): ThreadGovernor {
  const g = new ThreadGovernor(maxExploreBackoff === undefined ? OPTIONS : { ...OPTIONS, maxExploreBackoff });
  for (const [threads, ms] of [
    [2, 400],
    [2, 65],
    [2, 1200],
    [1, 400],
    [1, 110],
  ] as const)
    g.record("decode", threads, 1, ms);
  assert.equal(g.best("decode"), 1);
  return g;
}

/** Steps (from 0) at which a 2-thread re-check starts while 2 threads stay slow. */
function recheckStarts(g: ThreadGovernor, steps: number): number[] {
  const starts: number[] = [];
  let previous = 1;
  for (let step = 0; step < steps; step++) {
    const threads = g.choose("decode");
    if (threads === 2 && previous !== 2) starts.push(step);
    previous = threads;
    g.record("decode", threads, 1, threads === 2 ? 1200 : 115);
  }
  return starts;
}

test("under lasting load each confirming re-check doubles the interval to the next, up to the cap; without the option it stays fixed", () => {
  const fixed = recheckStarts(loaded(), 400);
  const gaps = (starts: number[]) => starts.slice(1).map((s, i) => s - (starts[i] as number));
  assert.ok(
    gaps(fixed).every((gap) => gap === 8),
    `fixed interval: ${gaps(fixed).join(",")}`,
  );
  const backedOff = recheckStarts(loaded(4), 400);
  const backedOffGaps = gaps(backedOff);
  for (let i = 1; i < backedOffGaps.length; i++)
    assert.ok((backedOffGaps[i] as number) >= (backedOffGaps[i - 1] as number), `growing: ${backedOffGaps.join(",")}`);
  assert.ok(
    backedOffGaps.every((gap) => gap <= 32),
    `never longer than 4 x 8 steps: ${backedOffGaps.join(",")}`,
  );
  assert.deepEqual(backedOffGaps.slice(-3), [32, 32, 32], "the cap holds: re-checks continue at the longest interval");
  assert.ok(backedOff.length * 3 < fixed.length, `${backedOff.length} re-checks against ${fixed.length}`);
  assert.equal(DEFAULT_THREAD_GOVERNOR.maxExploreBackoff, 8, "the engine's governor backs off");
});

test("after backing off, a machine whose load goes away is noticed within two of the longest intervals, and the interval starts again", () => {
  const g = loaded(4);
  recheckStarts(g, 200);
  assert.equal(g.best("decode"), 1);
  let noticed: number | null = null;
  // Smoothing halves a slow rate per measured step, so the first re-check after the load is gone
  // may still find 2 threads behind: noticed within two of the longest intervals.
  for (let step = 0; step < 2 * 32 + 2 && noticed === null; step++) {
    const threads = g.choose("decode");
    g.record("decode", threads, 1, threads === 2 ? 65 : 110);
    if (g.best("decode") === 2) noticed = step;
  }
  assert.ok(noticed !== null, "2 threads win again within two re-checks at the longest interval (4 x 8 steps)");
  // Load returns: 2 threads collapse again, 1 thread is chosen, and re-checks begin at the base interval.
  let steps = 0;
  while (g.best("decode") !== 1 && steps++ < 10) g.record("decode", g.choose("decode"), 1, 1200);
  assert.equal(g.best("decode"), 1);
  const starts = recheckStarts(g, 40);
  assert.ok(
    starts.length >= 2 && (starts[1] as number) - (starts[0] as number) <= 16,
    `re-checks at ${starts.join(",")}`,
  );
});
