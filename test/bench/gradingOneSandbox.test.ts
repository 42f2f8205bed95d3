// Issue #36: a grade runs its public and its held-out cases in one sandbox, one phase after the
// other (trustedGrader.ts runBothPhases, trusted_runner.py supervise), and each phase must be
// what a run of its own was (issue #34): nothing the public phase leaves behind (a file on a
// writable mount, a process, a System V object) reaches the held-out phase, no line the
// candidate writes moves the boundary between them, the held-out phase has budgets of its own,
// and wherever the one sandbox cannot be what the two were, the held-out cases get a sandbox of
// their own, as before. Real sandbox, real trusted grader, the project's small data set, budgets
// lowered as in gradingLimits.test.ts (1 CPU-s per case, 3 CPU-s and 3 idle seconds per run).
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { test as unitTest } from "node:test";
import { gradeDecisions, gradeProgram, type TrustedGrade } from "../../src/bench/grading/trustedGrader.ts";
import { heldOutCases } from "../../src/bench/grading/heldOutCases.ts";
import { BudgetWatch, phaseLines } from "../../src/bench/grading/runBudget.ts";
import { benchSetup, program } from "./benchFixtures.ts";

const CASE_S = 1;
const RUN_S = 3;
const SEED = 12345;

async function grade(source: string): Promise<TrustedGrade> {
  const { sandbox, dataset } = benchSetup({ caseCpuSeconds: CASE_S, timeoutMs: RUN_S * 1000 });
  const p = program(dataset, "bitcount");
  return gradeProgram(sandbox, dataset, p, source, { heldOut: await heldOutCases(sandbox, dataset, p, SEED) });
}

const lines = (...l: string[]): string => l.join("\n") + "\n";

/** Python: the pids other than this process and its ancestors (a process some earlier code left). */
const OTHERS = [
  "def others():",
  "    keep, p = set(), os.getpid()",
  "    while p > 0:",
  "        keep.add(p)",
  "        with open('/proc/%d/stat' % p) as f:",
  "            p = int(f.read().rsplit(')', 1)[1].split()[1])",
  "    return [int(x) for x in os.listdir('/proc') if x.isdigit() and int(x) not in keep]",
];

/** Python: true on the last public case of bitcount's mini set, the public phase's sixth call. */
const LAST_PUBLIC = [
  "CALLS = [0]",
  "def last_public(n):",
  "    CALLS[0] += 1",
  "    return CALLS[0] == 6 and n == 12345",
];

test("control: a correct program passes public and held-out in one sandbox run, each phase counted on its own", async () => {
  const g = await grade(lines("def bitcount(n):", "    return bin(n).count('1')"));
  assert.equal(g.outcome, "passed", g.reason ?? "");
  assert.equal(g.fixedWithHeldOut, true);
  assert.equal(g.usage.runs, 1);
  assert.equal(g.usage.public?.caseCpuSeconds.length, g.public.total);
  assert.equal(g.usage.heldOut?.caseCpuSeconds.length, g.heldOut?.total);
  assert.ok((g.usage.heldOut?.cpuSeconds ?? -1) >= 0);
  assert.equal(g.exitCode, 0);
});

test("files the public phase left on /tmp, /dev/shm, /dev, /root and / are gone when the held-out phase imports the program", async () => {
  const g = await grade(
    lines(
      "import os",
      "MARKS = ['/tmp/mark', '/tmp/d/e/mark', '/dev/shm/mark', '/dev/mark', '/root/mark', '/mark']",
      "SEEN = [m for m in MARKS + ['/tmp/d', '/tmp/link'] if os.path.lexists(m)]",
      "os.makedirs('/tmp/d/e', exist_ok=True)",
      "for m in MARKS:",
      "    with open(m, 'w') as f:",
      "        f.write('public')",
      "if not os.path.lexists('/tmp/link'):",
      "    os.symlink('/task', '/tmp/link')",
      "def bitcount(n):",
      "    return bin(n).count('1') + len(SEEN)",
    ),
  );
  assert.equal(g.outcome, "passed", g.reason ?? "");
  assert.equal(g.fixedWithHeldOut, true);
  assert.equal(g.usage.runs, 1);
});

test("processes the public phase left (double-forked, setsid, one asleep, one spinning) are gone before the held-out phase, and their CPU is not its", async () => {
  const g = await grade(
    lines(
      "import os, time",
      ...OTHERS,
      "LEFT = others()",
      ...LAST_PUBLIC,
      "def orphan(spin):",
      "    if os.fork() == 0:",
      "        os.setsid()",
      "        if os.fork() == 0:",
      "            while spin: pass",
      "            time.sleep(600)",
      "        os._exit(0)",
      "    os.wait()",
      "def bitcount(n):",
      "    if last_public(n):",
      "        orphan(True)",
      "        orphan(False)",
      "    return bin(n).count('1') + len(LEFT)",
    ),
  );
  assert.equal(g.outcome, "passed", g.reason ?? "");
  assert.equal(g.usage.runs, 1);
  assert.ok(
    (g.usage.heldOut?.cpuSeconds ?? CASE_S) < CASE_S / 2,
    `held-out used ${String(g.usage.heldOut?.cpuSeconds)} CPU-s`,
  );
  assert.equal(g.usage.heldOut?.stop, null);
});

test("what the supervisor does not put back (a System V segment) sends the held-out cases to a sandbox of their own, which finds nothing", async () => {
  const g = await grade(
    lines(
      "import ctypes",
      "libc = ctypes.CDLL(None, use_errno=True)",
      "FOUND = libc.shmget(0x7ca36, 4096, 0) >= 0",
      ...LAST_PUBLIC,
      "def bitcount(n):",
      "    if last_public(n):",
      "        assert libc.shmget(0x7ca36, 4096, 0o1000 | 0o600) >= 0",
      "    return bin(n).count('1') + FOUND",
    ),
  );
  assert.equal(g.outcome, "passed", g.reason ?? "");
  assert.equal(g.usage.runs, 2);
  assert.match(
    g.output,
    /^trusted runner: held-out cases in a sandbox of their own: the supervisor's own state changed$/m,
  );
});

/** A program that writes `line` on each of its imports (public and held-out), as `how` says, and is otherwise correct. */
function writer(how: "print" | "pipe" | "pid1", line: string): string {
  const write = {
    // print: the program's own output (its stdout is the run's stderr).
    print: ["print(LINE, flush=True)"],
    // pipe: the worker's result pipe to the supervisor, found among its descriptors.
    pipe: [
      "import stat",
      "for fd in range(3, 64):",
      "    try:",
      "        if stat.S_ISFIFO(os.fstat(fd).st_mode):",
      "            os.write(fd, (LINE + '\\n').encode())",
      "    except OSError:",
      "        pass",
    ],
    // pid1: straight to Node's channel, a copy of bwrap's pid 1's stdout (pidfd_getfd).
    pid1: [
      "import ctypes, sys",
      "libc = ctypes.CDLL(None, use_errno=True)",
      "pidfd = libc.syscall(434, 1, 0)",
      "fd = libc.syscall(438, pidfd, 1, 0) if pidfd >= 0 else -1",
      "if fd >= 0:",
      "    os.write(fd, (LINE + '\\n').encode())",
      "    print('WROTE-TO-NODE', file=sys.stderr, flush=True)",
    ],
  }[how];
  return lines(
    "import os",
    `LINE = ${JSON.stringify(line)}`,
    ...write,
    "def bitcount(n):",
    "    return bin(n).count('1')",
  );
}

const FORGED = [
  phaseLines("0".repeat(32)).ready,
  phaseLines("0".repeat(32)).start,
  JSON.stringify({ phase: "ready", key: "f".repeat(32) }),
];

for (const how of ["print", "pipe", "pid1"] as const) {
  test(`forged phase lines (${how}) are whatever another line written the same way is: the phase does not move`, async () => {
    for (const forged of FORGED) {
      const g = await grade(writer(how, forged));
      const plain = await grade(writer(how, JSON.stringify({ phase: "none" })));
      assert.deepEqual(gradeDecisions(g), gradeDecisions(plain));
      assert.equal(g.usage.runs, plain.usage.runs);
      const reached = how === "pipe" || (how === "pid1" && g.output.includes("WROTE-TO-NODE"));
      if (reached) {
        // In the result channel: a line of unknown shape, as it was when each phase had a run of its own.
        assert.equal(g.outcome, "failed");
        assert.equal(g.reason, "the result channel held a result line of unknown shape");
      } else {
        assert.equal(g.outcome, "passed", g.reason ?? "");
        assert.equal(g.usage.runs, 1);
      }
    }
  });
}

test("a loop on held-out cases only: the public headline stands, the held-out phase stops at its own per-case budget", async () => {
  const g = await grade(
    lines("def bitcount(n):", "    if n >= 2 ** 45:", "        while True: pass", "    return bin(n).count('1')"),
  );
  assert.equal(g.fixedPublic, true, g.reason ?? "");
  assert.equal(g.public.passed, g.public.total);
  assert.equal(g.outcome, "timeout");
  assert.match(g.reason ?? "", /^held-out cases: held-out \d+: exceeded the per-case CPU time limit \(1 CPU-s\)/);
  assert.equal(g.usage.runs, 1);
  assert.equal(g.usage.public?.stop, null);
  assert.equal(g.usage.heldOut?.stop?.limit, "case_cpu");
  assert.ok(
    (g.usage.heldOut?.cpuSeconds ?? 0) < CASE_S + 1.5,
    `held-out used ${String(g.usage.heldOut?.cpuSeconds)} CPU-s`,
  );
});

test("held-out cases each under the per-case budget, over the run's together: stopped by the held-out phase's own run budget", async () => {
  const g = await grade(
    lines(
      "import time",
      "def bitcount(n):",
      "    if n >= 2 ** 45:",
      "        end = time.process_time() + 0.4",
      "        while time.process_time() < end: pass",
      "    return bin(n).count('1')",
    ),
  );
  assert.equal(g.fixedPublic, true, g.reason ?? "");
  assert.equal(g.outcome, "timeout");
  assert.match(g.reason ?? "", /^held-out cases: .*exceeded the run's CPU time limit \(3 CPU-s\)/);
  assert.equal(g.usage.runs, 1);
  assert.equal(g.usage.heldOut?.stop?.limit, "run_cpu");
});

test("os._exit on a held-out case: the public headline stands, the held-out phase ended without completing, as its run did", async () => {
  const g = await grade(
    lines(
      "import os",
      "def bitcount(n):",
      "    if n >= 2 ** 40:",
      "        os._exit(0)",
      "    return bin(n).count('1')",
    ),
  );
  assert.equal(g.fixedPublic, true, g.reason ?? "");
  assert.equal(g.outcome, "failed");
  assert.match(g.reason ?? "", /^held-out cases: the run ended without completing \(exit 0\)/);
  assert.equal(g.usage.runs, 1);
});

test("a public case past its budget: the held-out cases are still graded, in a sandbox of their own", async () => {
  const g = await grade(
    lines("def bitcount(n):", "    if n == 255:", "        while True: pass", "    return bin(n).count('1')"),
  );
  assert.equal(g.fixedPublic, false);
  assert.equal(g.outcome, "timeout");
  assert.match(g.reason ?? "", /^public cases: case 4: exceeded the per-case CPU time limit/);
  assert.equal(g.usage.runs, 2);
  assert.equal(g.usage.public?.stop?.limit, "case_cpu");
  assert.equal(g.heldOut?.total, 50);
  assert.equal(g.heldOut?.passed, g.heldOut?.total);
});

// ---- the watch itself, on made-up readings ----

unitTest(
  "the held-out phase's start line restarts the case clock, the run's CPU budget, the idle count and the numbering",
  () => {
    const key = "a".repeat(32);
    const w = new BudgetWatch(
      { caseCpuSeconds: 1, runCpuSeconds: 2, idleSeconds: 5 },
      { key, input: Buffer.from("job") },
    );
    const { ready, start } = phaseLines(key);
    assert.equal(w.stdin?.first.toString(), key);
    w.onStdout(Buffer.from('{"i":0,"s":"ok","v":"x"}\n{"done":true}\n'), 300_000, 100);
    assert.equal(w.stdin?.next(), undefined); // not before the ready line
    w.onStdout(Buffer.from(`\n${ready}\n`), 1_500_000, 200);
    assert.equal(w.stdin?.next()?.toString(), "job");
    assert.equal(w.stdin?.next(), undefined); // once
    assert.equal(w.heldOutStart, undefined);
    w.onStdout(Buffer.from(`${start}\n`), 1_600_000, 300);
    assert.deepEqual(w.heldOutStart, { cpuMicros: 1_600_000, wallMs: 300 });
    // 1.6 CPU-s used by the run so far; the held-out phase's own budgets count from here.
    assert.equal(w.tick(2_500_000, 400), undefined);
    w.onStdout(Buffer.from('{"i":0,"s":"ok","v":"y"}\n'), 2_550_000, 450);
    w.onStdout(Buffer.from('{"i":1,"s":"ok","v":"z"}\n'), 3_400_000, 480);
    assert.deepEqual(w.caseCpuSeconds, [0.3]);
    assert.deepEqual(w.heldOutCaseCpuSeconds, [0.95, 0.85]);
    assert.equal(w.tick(3_500_000, 500), undefined); // 1.9 CPU-s since the held-out start
    assert.equal(w.tick(3_700_000, 600), "run_cpu"); // 2.1
    assert.deepEqual(w.stop, { limit: "run_cpu", caseIndex: 2 });
    assert.equal(w.stopPhase, 1);
  },
);

unitTest(
  "no held-out phase without the run's own ready line right before its start line, and no input after a stop",
  () => {
    const key = "b".repeat(32);
    const other = phaseLines("c".repeat(32));
    const { ready, start } = phaseLines(key);
    // Another key's lines, a start line without a ready line, a ready line inside a longer line.
    const w = new BudgetWatch(
      { caseCpuSeconds: 1, runCpuSeconds: 10, idleSeconds: 5 },
      { key, input: Buffer.from("job") },
    );
    w.onStdout(Buffer.from(`${other.ready}\n${other.start}\n${start}\n${ready}x\n`), 100_000, 10);
    assert.equal(w.stdin?.next(), undefined);
    assert.equal(w.heldOutStart, undefined);
    // The ready line, then anything but the start line: the run has no held-out phase.
    w.onStdout(Buffer.from(`${ready}\n{"i":0,"s":"ok","v":"x"}\n${start}\n`), 200_000, 20);
    assert.equal(w.heldOutStart, undefined);
    assert.equal(w.stdin?.next(), undefined);
    // Stopped in the public phase: the held-out job is never written.
    const s = new BudgetWatch(
      { caseCpuSeconds: 1, runCpuSeconds: 10, idleSeconds: 5 },
      { key, input: Buffer.from("job") },
    );
    assert.equal(s.tick(1_100_000, 30), "case_cpu");
    s.onStdout(Buffer.from(`${ready}\n`), 1_200_000, 40);
    assert.equal(s.stdin?.next(), undefined);
    assert.equal(s.stopPhase, 0);
  },
);
