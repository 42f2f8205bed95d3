// Issue #34: every limit that decides a grade is held on the candidate's own CPU time, counted
// by the kernel for the run's cgroup and read from outside the sandbox, or on a separate idle
// budget; the headline comes from the public cases alone, in a run of their own, and whatever the
// program does on a held-out case is a held-out result beside it. Attacks as a graded program
// would try them: a stopped supervisor, auto-reaped children, a sleep, a loop; each is graded
// twice and must get the very same grade both times. Real sandbox, real trusted grader, the
// project's small data set, budgets lowered (1 CPU-s per case, 3 CPU-s and 3 idle seconds per
// run) to keep the tests short.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { gradeDecisions, gradeProgram, type TrustedGrade } from "../../src/bench/grading/trustedGrader.ts";
import { heldOutCases } from "../../src/bench/grading/heldOutCases.ts";
import { cpuAccounting } from "../../src/bench/sandbox/sandbox.ts";
import { BudgetWatch } from "../../src/bench/grading/runBudget.ts";
import { benchSetup, program } from "./benchFixtures.ts";

const CASE_S = 1;
const RUN_S = 3;
const SEED = 12345;

function setup(): ReturnType<typeof benchSetup> {
  return benchSetup({ caseCpuSeconds: CASE_S, timeoutMs: RUN_S * 1000 });
}

async function grade(name: string, source: string, withHeldOut = false): Promise<TrustedGrade> {
  const { sandbox, dataset } = setup();
  const p = program(dataset, name);
  const heldOut = withHeldOut ? await heldOutCases(sandbox, dataset, p, SEED) : null;
  return gradeProgram(sandbox, dataset, p, source, { heldOut });
}

/** Everything a grade decides (its record without the time), twice over: identical both times. */
async function gradeTwice(name: string, source: string, withHeldOut = false): Promise<TrustedGrade> {
  const a = await grade(name, source, withHeldOut);
  const b = await grade(name, source, withHeldOut);
  assert.deepEqual(gradeDecisions(b), gradeDecisions(a));
  return a;
}

const lines = (...l: string[]): string => l.join("\n") + "\n";

test("this machine keeps each run's CPU time in a cgroup (cpuacct or cpu.stat), so the budgets are held from outside", () => {
  assert.equal(cpuAccounting(setup().sandbox), true);
});

test("a plain CPU loop is a timeout on its case, by the per-case CPU budget", async () => {
  const g = await gradeTwice("gcd", lines("def gcd(a, b):", "    while True:", "        pass"));
  assert.equal(g.outcome, "timeout");
  assert.equal(g.fixedPublic, false);
  assert.match(g.reason ?? "", /^public cases: case 1: exceeded the per-case CPU time limit \(1 CPU-s\)/);
  assert.equal(g.usage.public?.stop?.limit, "case_cpu");
  assert.ok((g.usage.public?.cpuSeconds ?? 0) < CASE_S + 1.5, `used ${String(g.usage.public?.cpuSeconds)} CPU-s`);
});

test("SIGSTOP of the supervisor, then 3x the per-case budget of CPU, then SIGCONT: still a timeout on that case", async () => {
  const g = await gradeTwice(
    "gcd",
    lines(
      "import math, os, signal, time",
      "FIRST = [True]",
      "def gcd(a, b):",
      "    if FIRST[0]:",
      "        FIRST[0] = False",
      "        os.kill(os.getppid(), signal.SIGSTOP)",
      `        end = time.process_time() + ${3 * CASE_S}`,
      "        while time.process_time() < end: pass",
      "        os.kill(os.getppid(), signal.SIGCONT)",
      "    return math.gcd(a, b)",
    ),
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /case 1: exceeded the per-case CPU time limit/);
});

test("SIGSTOP of the supervisor, then a sleep: bounded by the idle budget, a timeout", async () => {
  const g = await gradeTwice(
    "gcd",
    lines(
      "import os, signal, time",
      "def gcd(a, b):",
      "    os.kill(os.getppid(), signal.SIGSTOP)",
      "    time.sleep(600)",
    ),
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /case 1: waited past the run's idle limit \(3 s without computing\)/);
});

test("SIGCHLD ignored and many short-lived children, each under the budget: their CPU counts (auto-reaped)", async () => {
  const g = await gradeTwice(
    "gcd",
    lines(
      "import math, os, signal, time",
      "signal.signal(signal.SIGCHLD, signal.SIG_IGN)",
      "def gcd(a, b):",
      "    for _ in range(400):",
      "        if os.fork() == 0:",
      "            end = time.process_time() + 0.02",
      "            while time.process_time() < end: pass",
      "            os._exit(0)",
      "        time.sleep(0.03)",
      "    return math.gcd(a, b)",
    ),
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /case 1: exceeded the per-case CPU time limit/);
});

test("a long sleep is a timeout by the idle budget (never by the wall clock)", async () => {
  const g = await gradeTwice("gcd", lines("import time", "def gcd(a, b):", "    time.sleep(600)"));
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /case 1: waited past the run's idle limit/);
  assert.equal(g.usage.public?.stop?.limit, "idle");
});

test("cases each under the per-case budget, over the run's CPU budget together: a timeout by the run's budget", async () => {
  const g = await gradeTwice(
    "gcd",
    lines(
      "import math, time",
      "def gcd(a, b):",
      "    end = time.process_time() + 0.7",
      "    while time.process_time() < end: pass",
      "    return math.gcd(a, b)",
    ),
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /exceeded the run's CPU time limit \(3 CPU-s\)/);
});

// ---- the headline from the public cases alone ----

test("bitcount correct below 2**45 and looping above: fixed (public), held-out timeout beside it", async () => {
  const g = await gradeTwice(
    "bitcount",
    lines("def bitcount(n):", "    if n >= 2 ** 45:", "        while True: pass", "    return bin(n).count('1')"),
    true,
  );
  assert.equal(g.fixedPublic, true, g.reason ?? "");
  assert.equal(g.public.passed, g.public.total);
  assert.equal(g.outcome, "timeout");
  assert.equal(g.fixedWithHeldOut, false);
  assert.match(g.reason ?? "", /^held-out cases: held-out \d+: exceeded the per-case CPU time limit/);
});

test("a loop on the last held-out case only: fixed (public), held-out 49/50 with a timeout on case 50", async () => {
  const g = await gradeTwice(
    "bitcount",
    lines(
      "CALLS = [0]",
      "def bitcount(n):",
      "    CALLS[0] += 1",
      "    if CALLS[0] == 50:",
      "        while True: pass",
      "    return bin(n).count('1')",
    ),
    true,
  );
  assert.equal(g.fixedPublic, true, g.reason ?? "");
  assert.equal(g.heldOut?.total, 50);
  assert.equal(g.heldOut?.passed, 49);
  assert.match(g.reason ?? "", /^held-out cases: held-out 50: exceeded the per-case CPU time limit/);
});

test("os._exit on a held-out case: fixed (public), the held-out run ended without completing", async () => {
  const g = await gradeTwice(
    "bitcount",
    lines(
      "import os",
      "def bitcount(n):",
      "    if n >= 2 ** 40:",
      "        os._exit(0)",
      "    return bin(n).count('1')",
    ),
    true,
  );
  assert.equal(g.fixedPublic, true, g.reason ?? "");
  assert.equal(g.outcome, "failed");
  assert.match(g.reason ?? "", /^held-out cases: the run ended without completing/);
});

test("an exception on a held-out case: fixed (public), that case an error beside it", async () => {
  const g = await gradeTwice(
    "bitcount",
    lines("def bitcount(n):", "    if n >= 2 ** 40:", "        raise ValueError(n)", "    return bin(n).count('1')"),
    true,
  );
  assert.equal(g.fixedPublic, true, g.reason ?? "");
  assert.equal(g.outcome, "failed");
  assert.match(g.reason ?? "", /^held-out cases: held-out \d+: raised ValueError/);
});

test("control: the same program without the trap passes public and held-out", async () => {
  const g = await grade("bitcount", lines("def bitcount(n):", "    return bin(n).count('1')"), true);
  assert.equal(g.outcome, "passed", g.reason ?? "");
  assert.equal(g.fixedWithHeldOut, true);
});

test("a public-case failure is still the headline when held-out passes or is never reached", async () => {
  const g = await grade(
    "bitcount",
    lines("def bitcount(n):", "    if n == 255:", "        while True: pass", "    return bin(n).count('1')"),
    true,
  );
  assert.equal(g.fixedPublic, false);
  assert.equal(g.outcome, "timeout");
  assert.match(g.reason ?? "", /^public cases: case 4: exceeded the per-case CPU time limit/);
});

// ---- the watch itself, on made-up readings ----

test("the budget watch charges each case from the previous case's result line, and only whole lines with the next index count", () => {
  const w = new BudgetWatch({ caseCpuSeconds: 1, runCpuSeconds: 10, idleSeconds: 5 });
  w.onStdout(Buffer.from('{"i":0,"s":"ok","v":"x"}\n{"i":'), 300_000);
  w.onStdout(Buffer.from('5,"s":"ok"}\n{"i":1,'), 500_000); // case 5 is not the next: ignored
  assert.deepEqual(w.caseCpuSeconds, [0.3]);
  assert.equal(w.tick(1_200_000, 100), undefined); // case 1 from 0.3 s: 0.9 s used
  assert.equal(w.tick(1_400_000, 200), "case_cpu");
  assert.deepEqual(w.stop, { limit: "case_cpu", caseIndex: 1 });
});

test("the budget watch counts a window idle only when the run used under 1% of a core in it, and stops past the idle budget", () => {
  const w = new BudgetWatch({ caseCpuSeconds: 100, runCpuSeconds: 100, idleSeconds: 2 });
  let cpu = 0;
  // A loaded machine: 5% of a core per second is never idle.
  for (let s = 1; s <= 10; s++) {
    cpu += 50_000;
    assert.equal(w.tick(cpu, s * 1000), undefined);
  }
  assert.equal(w.idleSeconds, 0);
  // Asleep: 0.1% of a core.
  assert.equal(w.tick(cpu + 1000, 11_000), undefined);
  assert.equal(w.tick(cpu + 2000, 12_000), undefined);
  assert.equal(w.tick(cpu + 3000, 13_000), "idle");
  assert.equal(w.idleSeconds, 3);
});

test("the budget watch stops a run past its whole-run CPU budget", () => {
  const w = new BudgetWatch({ caseCpuSeconds: 2, runCpuSeconds: 3, idleSeconds: 5 });
  let cpu = 0;
  for (let i = 0; i < 3; i++) {
    cpu += 900_000;
    w.onStdout(Buffer.from(`{"i":${String(i)},"s":"ok","v":"1"}\n`), cpu);
    assert.equal(w.tick(cpu, 100 * (i + 1)), undefined);
  }
  assert.equal(w.tick(cpu + 400_000, 500), "run_cpu");
  assert.deepEqual(w.stop, { limit: "run_cpu", caseIndex: 3 });
});

// ---- the fallback where no cgroup CPU count is kept (rlimit-only, or no writable cpuacct) ----

test("fallback without a cgroup CPU count: the supervisor holds the per-case CPU limit from /proc, and a loop is still a timeout", async () => {
  // The fallback's wall clock is the test timeout, as before issue #34: 30 s here, not 3.
  const { sandbox: base, dataset } = benchSetup({ caseCpuSeconds: CASE_S, timeoutMs: 30_000 });
  const sandbox = { ...base, cgroups: { ...base.cgroups, cpuParent: undefined } };
  assert.equal(cpuAccounting(sandbox), false);
  const g = await gradeProgram(
    sandbox,
    dataset,
    program(dataset, "gcd"),
    lines("def gcd(a, b):", "    while True:", "        pass"),
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /^public cases: case 1: exceeded the per-case CPU time limit/);
  assert.equal(g.usage.public?.cpuSeconds, null);
  assert.equal(g.usage.public?.stop, null);
});
