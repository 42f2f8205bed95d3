// How the trusted runner starts (issue #36): from bytecode compiled once per process outside the
// sandbox, read-only in the task folder beside its source; the garbage collector kept off the
// runner's own objects, on for the candidate's. The grade must read exactly as from the source:
// the same result lines for the same job, and nothing a candidate writes can replace what runs.
// Real sandbox, real trusted grader, the project's small data set.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { supportFiles, targetPath } from "../../src/bench/dataset/dataset.ts";
import { writeTaskFiles } from "../../src/bench/dataset/taskFolder.ts";
import { publicCases } from "../../src/bench/grading/publicCases.ts";
import { trustedRunnerBytecode, trustedRunnerStart } from "../../src/bench/grading/runnerFiles.ts";
import { gradeProgram } from "../../src/bench/grading/trustedGrader.ts";
import { ISOLATED_PYTHON_FLAGS } from "../../src/bench/sandbox/pythonRuntime.ts";
import { runInSandbox } from "../../src/bench/sandbox/sandbox.ts";
import { benchSetup, buggy, program, referenceFix } from "./benchFixtures.ts";

test("the runner starts from its bytecode, beside its source; the bytecode is this interpreter's", () => {
  const { sandbox } = benchSetup();
  const start = trustedRunnerStart(sandbox.python, false);
  assert.deepEqual(start.argv, ["python", ...ISOLATED_PYTHON_FLAGS, "trusted_runner.pyc", "job.json"]);
  assert.deepEqual(
    start.files.map((f) => f.path),
    ["trusted_runner.py", "trusted_runner.pyc"],
  );
  const magic = spawnSync(sandbox.python.executable, [
    "-I",
    "-c",
    "import importlib.util, sys; sys.stdout.buffer.write(importlib.util.MAGIC_NUMBER)",
  ]).stdout;
  assert.deepEqual(trustedRunnerBytecode(sandbox.python)?.subarray(0, 4), magic);
  assert.deepEqual(
    trustedRunnerStart(sandbox.python, true).files.map((f) => f.path),
    ["trusted_runner.py", "json_test_templates.py", "handwritten_cases.py", "trusted_runner.pyc"],
  );
});

test("where the bytecode cannot be made, the runner starts from its source, as before", () => {
  const { sandbox } = benchSetup();
  const broken = { ...sandbox.python, executable: "/nonexistent/python3" };
  assert.equal(trustedRunnerBytecode(broken), null);
  const start = trustedRunnerStart(broken, false);
  assert.deepEqual(start.argv, ["python", ...ISOLATED_PYTHON_FLAGS, "trusted_runner.py", "job.json"]);
  assert.deepEqual(
    start.files.map((f) => f.path),
    ["trusted_runner.py"],
  );
});

test("the same job gives the same result lines from the bytecode as from the source (a fix, a buggy program, a broken file)", async () => {
  const { sandbox, dataset } = benchSetup();
  const gcd = program(dataset, "gcd");
  const cases = await publicCases(sandbox, dataset, gcd, false);
  assert.ok(cases.ok);
  const start = trustedRunnerStart(sandbox.python, false);
  const helpers = supportFiles(dataset, gcd).filter((f) => f.path.endsWith("/node.py"));
  const job = { mode: "run", program: "gcd", cases: cases.value.cases.map((c) => c.input), caseCpuSeconds: 0 };
  for (const source of [referenceFix(dataset, "gcd"), buggy(dataset, "gcd"), "def gcd(a, b)\n"]) {
    const outer = mkdtempSync(join(tmpdir(), "tca-grading-start-"));
    try {
      writeTaskFiles(outer, [
        ...start.files,
        ...helpers,
        { path: targetPath("gcd"), content: Buffer.from(source) },
        { path: "job.json", content: Buffer.from(JSON.stringify(job)) },
      ]);
      const fromBytecode = await runInSandbox(sandbox, { taskDir: outer, argv: start.argv });
      const fromSource = await runInSandbox(sandbox, {
        taskDir: outer,
        argv: ["python", ...ISOLATED_PYTHON_FLAGS, "trusted_runner.py", "job.json"],
      });
      assert.equal(fromBytecode.exitCode, 0, fromBytecode.stderr);
      assert.equal(fromBytecode.stdout, fromSource.stdout);
      assert.match(fromBytecode.stdout, /\{"done":true\}\n$/);
      assert.equal(fromBytecode.stderr, fromSource.stderr);
    } finally {
      rmSync(outer, { recursive: true, force: true });
    }
  }
});

test("a program cannot replace the runner or plant bytecode for it, for its imports or for itself: every write fails, and it is graded as it answers", async () => {
  const { sandbox, dataset } = benchSetup();
  const attack = [
    "import json, math, os, sys",
    "targets = ['/task/trusted_runner.pyc', '/task/trusted_runner.py',",
    "           '/task/__pycache__/trusted_runner.cpython-311.pyc',",
    "           '/task/python_programs/__pycache__/gcd.cpython-311.pyc',",
    "           os.path.join(os.path.dirname(json.__file__), '__pycache__', 'decoder.cpython-311.pyc')]",
    "written = []",
    "for t in targets:",
    "    try:",
    "        os.makedirs(os.path.dirname(t), exist_ok=True)",
    "        with open(t, 'ab') as f:",
    "            f.write(b'planted')",
    "        written.append(t)",
    "    except OSError:",
    "        pass",
    "os.write(2, ('WRITTEN %r ARGV0 %s\\n' % (written, sys.argv[0])).encode())",
    "def gcd(a, b):",
    "    return math.gcd(a, b)",
  ].join("\n");
  const g = await gradeProgram(sandbox, dataset, program(dataset, "gcd"), `${attack}\n`);
  assert.match(g.output, /WRITTEN \[\] ARGV0 trusted_runner\.pyc/);
  assert.equal(g.outcome, "passed", g.reason ?? "");
});

test("the candidate runs under the runner with the collector on, with the default thresholds", async () => {
  const { sandbox, dataset } = benchSetup();
  const report = [
    "import gc, math, os",
    "os.write(2, ('GC-AT-IMPORT %r\\n' % ((gc.isenabled(), gc.get_threshold()),)).encode())",
    "def gcd(a, b):",
    "    os.write(2, ('GC-IN-CALL %r\\n' % ((gc.isenabled(), gc.get_threshold()),)).encode())",
    "    return math.gcd(a, b)",
  ].join("\n");
  const g = await gradeProgram(sandbox, dataset, program(dataset, "gcd"), `${report}\n`);
  assert.equal(g.outcome, "passed", g.reason ?? "");
  assert.match(g.output, /GC-AT-IMPORT \(True, \(700, 10, 10\)\)/);
  assert.match(g.output, /GC-IN-CALL \(True, \(700, 10, 10\)\)/);
  assert.doesNotMatch(g.output, /GC-IN-CALL \(False/);
});
