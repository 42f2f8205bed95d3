// npm run bench:grading [-- --dataset DIR] — grading time per task, the pytest grade (what
// grading was before issue #12, and what run_tests still runs for the model) against the
// trusted grader (public cases + held-out cases), on each program's reference fix, one at a
// time. Prints the median and total over the programs; asserts nothing about speed. The trusted
// grader's one-off work per program (reading the public cases, running the reference fix on the
// held-out inputs) is cached per run and is reported separately.
import { defaultDatasetDir, loadDataset, referenceFixSource } from "../src/bench/dataset/dataset.ts";
import { heldOutCases } from "../src/bench/grading/heldOutCases.ts";
import { publicCases } from "../src/bench/grading/publicCases.ts";
import { gradeProgram } from "../src/bench/grading/trustedGrader.ts";
import { resolvePythonRuntime } from "../src/bench/sandbox/pythonRuntime.ts";
import { createSandboxConfig } from "../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../src/bench/sandbox/sandboxLimits.ts";
import { runProgramTests } from "../src/bench/agent/testRunner.ts";
import { median } from "../src/bench/results/summaryStatistics.ts";

const flag = process.argv.indexOf("--dataset");
const ds = loadDataset(flag > 0 ? (process.argv[flag + 1] ?? "") : defaultDatasetDir());
const py = resolvePythonRuntime();
if (!ds.ok || !py.ok) throw new Error("bench setup: data set or python missing");
const sb = createSandboxConfig(py.value, DEFAULT_SANDBOX_LIMITS);
if (!sb.ok) throw new Error(sb.message);
const sandbox = sb.value;
const dataset = ds.value;
const SEED = 20261201;

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

const pytest: number[] = [];
const trusted: number[] = [];
const setup: number[] = [];
let heldOutPrograms = 0;
for (const program of dataset.programs) {
  const fix = referenceFixSource(dataset, program.name);
  let t = performance.now();
  const p = await runProgramTests(sandbox, dataset, program, fix);
  pytest.push((performance.now() - t) / 1000);
  t = performance.now();
  await publicCases(sandbox, dataset, program, false);
  const heldOut = await heldOutCases(sandbox, dataset, program, SEED);
  setup.push((performance.now() - t) / 1000);
  if (heldOut) heldOutPrograms++;
  t = performance.now();
  const g = await gradeProgram(sandbox, dataset, program, fix, { heldOut });
  trusted.push((performance.now() - t) / 1000);
  if (p.outcome !== "passed" || g.outcome !== "passed")
    console.log(`warning: ${program.name}: pytest ${p.outcome}, trusted ${g.outcome}`);
}
const f = (x: number): string => `${x.toFixed(3)} s`;
console.log(`programs: ${dataset.programs.length} (held-out generation for ${heldOutPrograms})`);
console.log(`pytest grade (before):          median ${f(median(pytest))}, total ${f(sum(pytest))}`);
console.log(`trusted grade (public+held-out): median ${f(median(trusted))}, total ${f(sum(trusted))}`);
console.log(
  `trusted one-off per program (cases + reference on held-out inputs): median ${f(median(setup))}, total ${f(sum(setup))}`,
);
