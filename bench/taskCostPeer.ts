// The measuring end of `npm run bench:task-cost -- --before DIR` (issue #36): started by the
// bench inside another checkout (a copy of this file is put in DIR/bench/ and run there, so every
// import below is that checkout's own src/), it times one run_tests call or one trusted grade per
// line it reads on stdin ("run_tests" | "grade") and answers one JSON line: {wall, cpu, outcome,
// node} (node: this process's own CPU seconds during the call).
// Written against what both the pre-#36 tree and today's tree export under the same names, so it
// runs unchanged in either. run_tests, mode "plain": what the pre-#36 runProgramTests did, step
// for step (a fresh task folder, runInSandbox on `python -m pytest ...` with no other option),
// because that function did not yet return the run's CPU; the argv is the one its
// pytestArguments built. Mode "tree": the checkout's own runProgramTests (one that returns it).
import { createInterface } from "node:readline";
import { findProgram, loadDataset, referenceFixSource, testFilePath } from "../src/bench/dataset/dataset.ts";
import { createTaskFolder } from "../src/bench/dataset/taskFolder.ts";
import { runProgramTests } from "../src/bench/agent/testRunner.ts";
import { heldOutCases } from "../src/bench/grading/heldOutCases.ts";
import { publicCases } from "../src/bench/grading/publicCases.ts";
import { gradeProgram } from "../src/bench/grading/trustedGrader.ts";
import { resolvePythonRuntime } from "../src/bench/sandbox/pythonRuntime.ts";
import { createSandboxConfig, runInSandbox } from "../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../src/bench/sandbox/sandboxLimits.ts";

const [datasetDir, programName, seedText, mode] = process.argv.slice(2);
const ds = loadDataset(datasetDir ?? "");
const py = resolvePythonRuntime();
if (!ds.ok || !py.ok) throw new Error("peer setup: data set or python missing");
const found = findProgram(ds.value, programName ?? "");
if (!found.ok) throw new Error(found.message);
const sb = createSandboxConfig(py.value, DEFAULT_SANDBOX_LIMITS);
if (!sb.ok) throw new Error(sb.message);
const sandbox = sb.value;
const dataset = ds.value;
const program = found.value;
const fix = referenceFixSource(dataset, program.name);

// The grader's one-off work per program, cached per process as in a bench run (as the bench does).
await publicCases(sandbox, dataset, program, false);
const heldOut = await heldOutCases(sandbox, dataset, program, Number(seedText));

/** The pre-#36 pytestArguments(program, false). */
const PLAIN_PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short", "--color=no"];

async function runTests(): Promise<{ wall: number; cpu: number | null; outcome: string }> {
  const started = performance.now();
  if (mode === "tree") {
    const t = await runProgramTests(sandbox, dataset, program, fix);
    return { wall: (performance.now() - started) / 1000, cpu: t.cpuSeconds ?? null, outcome: t.outcome };
  }
  const folder = createTaskFolder(dataset, program, fix);
  let r: Awaited<ReturnType<typeof runInSandbox>>;
  try {
    r = await runInSandbox(sandbox, { taskDir: folder.dir, argv: [...PLAIN_PYTEST, testFilePath(program.name)] });
  } finally {
    folder.remove();
  }
  // The wall clock as runProgramTests' caller sees it: the folder removed too.
  return {
    wall: (performance.now() - started) / 1000,
    cpu: r.cpuSeconds,
    outcome: r.exitCode === 0 ? "passed" : `exit ${r.exitCode}`,
  };
}

async function grade(): Promise<{ wall: number; cpu: number | null; outcome: string }> {
  const started = performance.now();
  const g = await gradeProgram(sandbox, dataset, program, fix, { heldOut });
  const wall = (performance.now() - started) / 1000;
  const parts = [g.usage.public?.cpuSeconds, g.usage.heldOut?.cpuSeconds];
  const cpu = parts.some((c) => c === null) ? null : parts.reduce<number>((a, c) => a + (c ?? 0), 0);
  return { wall, cpu, outcome: `${g.outcome} (${g.summary})` };
}

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const start = process.cpuUsage();
  const answer = line === "run_tests" ? await runTests() : line === "grade" ? await grade() : { error: line };
  const used = process.cpuUsage(start);
  process.stdout.write(`${JSON.stringify({ ...answer, node: (used.user + used.system) / 1e6 })}\n`);
}
