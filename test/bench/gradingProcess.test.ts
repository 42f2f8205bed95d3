// The grading run's process structure (issue #24): the per-case CPU limit is enforced by the
// runner's supervisor, a process the candidate does not share, so a program cannot catch it, nor
// escape it by burning the CPU in a child process; and the supervisor's result channel cannot be
// opened from the candidate's process. Real sandbox, real trusted grader, the project's small
// data set (gcd: 6 public cases), a per-case limit lowered to 1 CPU-second to keep the tests short.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { gradeProgram } from "../../src/bench/grading/trustedGrader.ts";
import { benchSetup, program } from "./benchFixtures.ts";

const LIMIT_S = 1;

async function grade(source: string): Promise<Awaited<ReturnType<typeof gradeProgram>> & { wall: number }> {
  const { sandbox, dataset } = benchSetup({ caseCpuSeconds: LIMIT_S });
  const t = performance.now();
  const g = await gradeProgram(sandbox, dataset, program(dataset, "gcd"), source);
  return { ...g, wall: (performance.now() - t) / 1000 };
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

test("a program that catches every exception and spends 3x the per-case CPU limit in one case is graded timeout, within bounded wall time", async () => {
  const g = await grade(catchingBurner(3 * LIMIT_S));
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.equal(g.fixedPublic, false);
  assert.match(g.reason ?? "", /case 1: exceeded the per-case CPU time limit/);
  // Killed from outside after about 1 CPU-second, not after the 3 it wanted, nor at the 60 s wall.
  assert.ok(g.wall < 30, `took ${g.wall.toFixed(1)} s`);
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
  assert.ok(g.wall < 30, `took ${g.wall.toFixed(1)} s`);
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

test("a worker that exits while a child it left holds the result pipe open ends the run at once, not at the wall clock", async () => {
  const g = await grade(
    ["import os, time", "def gcd(a, b):", "    if os.fork() == 0:", "        time.sleep(120)", "    os._exit(0)"].join(
      "\n",
    ) + "\n",
  );
  assert.equal(g.fixedPublic, false);
  assert.notEqual(g.outcome, "timeout", g.reason ?? "");
  assert.ok(g.wall < 20, `took ${g.wall.toFixed(1)} s`);
});

test("CPU spent by a double-forked, setsid orphan while the function sleeps counts against the case (the supervisor is its subreaper)", async () => {
  const g = await grade(
    [
      "import math, os, time",
      "def gcd(a, b):",
      "    if os.fork() == 0:",
      "        os.setsid()",
      "        if os.fork() == 0:",
      "            end = time.process_time() + 5",
      "            while time.process_time() < end: pass",
      "        os._exit(0)",
      "    os.wait()",
      "    time.sleep(4)",
      "    return math.gcd(a, b)",
    ].join("\n") + "\n",
  );
  assert.equal(g.outcome, "timeout", g.reason ?? "");
  assert.match(g.reason ?? "", /case 1: exceeded the per-case CPU time limit/);
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
