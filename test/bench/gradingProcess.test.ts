// The grading run's process structure (issue #24): the per-case CPU limit is enforced outside the
// candidate's process (from Node on the run's cgroup CPU count since issue #34; by the runner's
// supervisor where no such count is kept), so a program cannot catch it, nor escape it by burning
// the CPU in a child process or an orphan; and the supervisor's result channel cannot be opened
// from the candidate's process. Every bound here is on CPU time or an event, never on wall time,
// so the tests hold at any load. Real sandbox, real trusted grader, the project's small
// data set (gcd: 6 public cases), a per-case limit lowered to 1 CPU-second to keep the tests short.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { gradeProgram, type TrustedGrade } from "../../src/bench/grading/trustedGrader.ts";
import { benchSetup, program } from "./benchFixtures.ts";

const LIMIT_S = 1;

async function grade(source: string): Promise<TrustedGrade> {
  const { sandbox, dataset } = benchSetup({ caseCpuSeconds: LIMIT_S });
  return gradeProgram(sandbox, dataset, program(dataset, "gcd"), source);
}

/**
 * CPU-seconds of the public run, from its cgroup (gradingLimits.test.ts asserts this machine
 * keeps that count). The bounds below are on CPU time, never on wall time: at any load a run
 * uses the same CPU before its budget stops it, while its wall time grows with the load.
 */
function cpuUsed(g: TrustedGrade): number {
  const cpu = g.usage.public?.cpuSeconds;
  assert.ok(typeof cpu === "number", "the run's CPU time is kept");
  return cpu;
}

/** A right gcd that first spends `seconds` of CPU in its first call, catching every exception. */
function catchingBurner(seconds: number): string {
  return (
    [
      "import math, time",
      "FIRST = [True]",
      "def gcd(a, b):",
      "    if FIRST[0]:",
      "        FIRST[0] = False",
      `        end = time.process_time() + ${seconds}`,
      "        while time.process_time() < end:",
      "            try:",
      "                while time.process_time() < end:",
      "                    pass",
      "            except BaseException:",
      "                pass",
      "    return math.gcd(a, b)",
    ].join("\n") + "\n"
  );
}

test("a program that catches every exception and spends 3x the per-case CPU limit in one case is graded timeout, stopped at the limit's CPU time", async () => {
  const g = await grade(catchingBurner(3 * LIMIT_S));
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.equal(g.fixedPublic, false);
  assert.match(g.reason ?? "", /case 1: exceeded the per-case CPU time limit/);
  // Killed from outside after about 1 CPU-second, not after the 3 it wanted.
  assert.equal(g.usage.public?.stop?.limit, "case_cpu");
  assert.ok(cpuUsed(g) < 3 * LIMIT_S, `used ${cpuUsed(g).toFixed(2)} CPU-s`);
});

test("control: the same program spending a fifth of the limit passes (the supervisor does not fire early)", async () => {
  const g = await grade(catchingBurner(LIMIT_S / 5));
  assert.equal(g.outcome, "passed", g.reason ?? "");
});

test("CPU spent in a child process while the function waits counts against the case", async () => {
  const g = await grade(
    [
      "import math, subprocess, sys",
      "BURN = 'import time\\nend = time.process_time() + 4\\nwhile time.process_time() < end: pass'",
      "def gcd(a, b):",
      "    subprocess.run([sys.executable, '-c', BURN])",
      "    return math.gcd(a, b)",
    ].join("\n") + "\n",
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /case 1: exceeded the per-case CPU time limit/);
  assert.ok(cpuUsed(g) < 4, `used ${cpuUsed(g).toFixed(2)} CPU-s: stopped before the child's 4`);
});

test("CPU spent in a thread counts against the case", async () => {
  const g = await grade(
    [
      "import math, threading, time",
      "def burn():",
      "    end = time.process_time() + 4",
      "    while time.process_time() < end: pass",
      "def gcd(a, b):",
      "    t = threading.Thread(target=burn); t.start(); t.join()",
      "    return math.gcd(a, b)",
    ].join("\n") + "\n",
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
});

test("the supervisor's result channel cannot be opened from the candidate's process (/proc/<ppid>/fd, /proc/<ppid>/mem)", async () => {
  // Writes a passing line for each of the 6 public cases and the completion marker into every
  // descriptor of the parent it can open, then exits. If one opened, the grade would pass.
  const g = await grade(
    [
      "import json, os",
      "lines = ''.join(json.dumps({'i': i, 's': 'ok', 'v': '[\"n\",\"1\"]'}) + '\\n' for i in range(6)) + '{\"done\":true}\\n'",
      "opened = []",
      "for fd in range(0, 12):",
      "    try:",
      "        with open('/proc/%d/fd/%d' % (os.getppid(), fd), 'w') as f:",
      "            f.write(lines)",
      "        opened.append(fd)",
      "    except OSError:",
      "        pass",
      "try:",
      "    open('/proc/%d/mem' % os.getppid(), 'r+b').close()",
      "    opened.append('mem')",
      "except OSError:",
      "    pass",
      "os.write(2, ('opened: %r\\n' % opened).encode())",
      "os._exit(0)",
      "def gcd(a, b):",
      "    return 1",
    ].join("\n") + "\n",
  );
  assert.match(g.output, /opened: \[\]/);
  assert.equal(g.fixedPublic, false);
  assert.equal(g.outcome, "error");
});

test("a worker that kills its supervisor never passes", async () => {
  const g = await grade(
    "import math, os, signal\nos.kill(os.getppid(), signal.SIGKILL)\ndef gcd(a, b):\n    return math.gcd(a, b)\n",
  );
  assert.notEqual(g.outcome, "passed");
  assert.equal(g.fixedPublic, false);
});

test("a worker that exits while a child it left holds the result pipe open ends the run at once, not at the idle budget", async () => {
  const g = await grade(
    ["import os, time", "def gcd(a, b):", "    if os.fork() == 0:", "        time.sleep(120)", "    os._exit(0)"].join(
      "\n",
    ) + "\n",
  );
  assert.equal(g.fixedPublic, false);
  assert.notEqual(g.outcome, "timeout", g.reason ?? "");
  // Ended by the worker's exit (no budget stopped it), not by the idle budget the sleeping child
  // would otherwise have run into: idle time is counted in 1 s windows, the same at any load.
  assert.equal(g.usage.public?.stop ?? null, null);
  assert.ok((g.usage.public?.idleSeconds ?? Infinity) < 5, `idle ${String(g.usage.public?.idleSeconds)} s`);
});

test("CPU spent by a double-forked, setsid orphan while the function waits for it counts against the case (the supervisor is its subreaper)", async () => {
  // Event-based, not wall-based: the function returns only when the orphan has burnt its 5
  // CPU-s (the orphan's end closes the pipe's last write end), so if the orphan's CPU were not
  // counted the case would pass at any load; counted, the case stops at 1 CPU-s at any load.
  const g = await grade(
    [
      "import math, os, time",
      "def gcd(a, b):",
      "    r, w = os.pipe()",
      "    if os.fork() == 0:",
      "        os.setsid()",
      "        if os.fork() == 0:",
      "            os.close(r)",
      "            end = time.process_time() + 5",
      "            while time.process_time() < end: pass",
      "        os._exit(0)",
      "    os.close(w)",
      "    os.wait()",
      "    os.read(r, 1)",
      "    return math.gcd(a, b)",
    ].join("\n") + "\n",
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /case 1: exceeded the per-case CPU time limit/);
  assert.equal(g.usage.public?.stop?.limit, "case_cpu");
  assert.ok(cpuUsed(g) < 5, `used ${cpuUsed(g).toFixed(2)} CPU-s: stopped before the orphan's 5`);
});

test("the limit is per case: half the limit in each of the 6 cases (3x the limit in all) passes", async () => {
  const g = await grade(
    [
      "import math, time",
      "def gcd(a, b):",
      `    end = time.process_time() + ${LIMIT_S / 2}`,
      "    while time.process_time() < end: pass",
      "    return math.gcd(a, b)",
    ].join("\n") + "\n",
  );
  assert.equal(g.outcome, "passed", g.reason ?? "");
});
