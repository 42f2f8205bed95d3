// npm run bench:task-cost [-- --rounds N] [-- --program P] [-- --dataset DIR] — what the harness
// costs per bench task (issue #36): one run_tests call (pytest in a fresh sandbox and folder, as
// the agent's tool runs it) and one trusted grade (public + held-out cases), on a QuixBugs
// program's reference fix, and run_tests as it ran before #36 (plain `python -m pytest`), next to
// references: `python -c 0` and `python -m pytest --version`,
// bare on the host and inside the same sandbox. Every round runs each case once, in turn
// (interleaved, so a busy machine slows them all alike). Prints median and min–max of wall and
// CPU seconds; CPU is the run's cgroup count in the sandbox (all its processes), the children's
// user+sys on the host. Asserts nothing about speed; warns when a run's result is not the expected one.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultDatasetDir, findProgram, loadDataset, referenceFixSource } from "../src/bench/dataset/dataset.ts";
import { heldOutCases } from "../src/bench/grading/heldOutCases.ts";
import { publicCases } from "../src/bench/grading/publicCases.ts";
import { gradeProgram } from "../src/bench/grading/trustedGrader.ts";
import { resolvePythonRuntime } from "../src/bench/sandbox/pythonRuntime.ts";
import { cpuAccounting, createSandboxConfig, runInSandbox } from "../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../src/bench/sandbox/sandboxLimits.ts";
import { runProgramTests } from "../src/bench/agent/testRunner.ts";
import { testFilePath } from "../src/bench/dataset/dataset.ts";
import { createTaskFolder } from "../src/bench/dataset/taskFolder.ts";
import { median } from "../src/bench/results/summaryStatistics.ts";

function flagValue(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

const ROUNDS = Number(flagValue("--rounds") ?? "10");
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds takes a positive integer");
const ds = loadDataset(flagValue("--dataset") ?? defaultDatasetDir());
const py = resolvePythonRuntime();
if (!ds.ok || !py.ok) throw new Error("bench setup: data set or python missing");
const found = findProgram(ds.value, flagValue("--program") ?? "lis");
if (!found.ok) throw new Error(found.message);
const sb = createSandboxConfig(py.value, DEFAULT_SANDBOX_LIMITS);
if (!sb.ok) throw new Error(sb.message);
const sandbox = sb.value;
const dataset = ds.value;
const program = found.value;
const fix = referenceFixSource(dataset, program.name);
const SEED = 20261201;

interface Sample {
  readonly wall: number;
  readonly cpu: number | null;
}

/** Host run: wall from here, CPU as the shell's `times` reports its children (user + sys). */
function hostRun(argv: readonly string[]): Sample {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  const started = performance.now();
  const r = spawnSync("/bin/sh", ["-c", `${quoted} >/dev/null 2>&1; s=$?; times; exit $s`], { encoding: "utf8" });
  const wall = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}`);
  const children = r.stdout.trim().split("\n").pop() ?? "";
  const secs = [...children.matchAll(/(\d+)m([0-9.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { wall, cpu: secs.length === 2 ? (secs[0] ?? 0) + (secs[1] ?? 0) : null };
}

/** Sandboxed reference run in an empty read-only folder (the sandbox's own start-up included). */
async function sandboxRun(argv: readonly string[]): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), "tca-task-cost-"));
  try {
    const started = performance.now();
    const r = await runInSandbox(sandbox, { taskDir: dir, argv });
    const wall = (performance.now() - started) / 1000;
    if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${r.exitCode} in the sandbox: ${r.stderr}`);
    return { wall, cpu: r.cpuSeconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runTests(): Promise<Sample> {
  const started = performance.now();
  const r = await runProgramTests(sandbox, dataset, program, fix);
  const wall = (performance.now() - started) / 1000;
  if (r.outcome !== "passed") console.log(`warning: run_tests on ${program.name}'s fix: ${r.outcome} (${r.summary})`);
  return { wall, cpu: r.cpuSeconds };
}

/** run_tests as it ran before issue #36 (plain `python -m pytest`), same sandbox, same fresh folder. */
async function plainPytest(): Promise<Sample> {
  const argv = [
    "python",
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "--tb=short",
    "--color=no",
    testFilePath(program.name),
  ];
  const started = performance.now();
  const folder = createTaskFolder(dataset, program, fix);
  try {
    const r = await runInSandbox(sandbox, { taskDir: folder.dir, argv });
    if (r.exitCode !== 0) console.log(`warning: plain pytest on ${program.name}'s fix exited ${r.exitCode}`);
    return { wall: (performance.now() - started) / 1000, cpu: r.cpuSeconds };
  } finally {
    folder.remove();
  }
}

// The grader's one-off work per program (public cases, reference on held-out inputs) is cached
// per process, as in a bench run; done here once, before the rounds.
await publicCases(sandbox, dataset, program, false);
const heldOut = await heldOutCases(sandbox, dataset, program, SEED);

async function grade(): Promise<Sample> {
  const started = performance.now();
  const g = await gradeProgram(sandbox, dataset, program, fix, { heldOut });
  const wall = (performance.now() - started) / 1000;
  if (g.outcome !== "passed") console.log(`warning: grade of ${program.name}'s fix: ${g.outcome} (${g.summary})`);
  const parts = [g.usage.public?.cpuSeconds, g.usage.heldOut?.cpuSeconds];
  const cpu = parts.some((c) => c === null) ? null : parts.reduce<number>((a, c) => a + (c ?? 0), 0);
  return { wall, cpu };
}

const CASES: ReadonlyArray<{ readonly label: string; readonly run: () => Sample | Promise<Sample> }> = [
  { label: "host python -c 0", run: () => hostRun([py.value.executable, "-c", "0"]) },
  { label: "host python -m pytest --version", run: () => hostRun([py.value.executable, "-m", "pytest", "--version"]) },
  { label: "sandbox python -c 0", run: () => sandboxRun(["python", "-c", "0"]) },
  { label: "sandbox python -m pytest --version", run: () => sandboxRun(["python", "-m", "pytest", "--version"]) },
  { label: `run_tests (${program.name} fix)`, run: runTests },
  { label: "  same, as before #36 (python -m pytest)", run: plainPytest },
  { label: `trusted grade (${program.name} fix)`, run: grade },
];

const samples: Sample[][] = CASES.map(() => []);
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [i, c] of CASES.entries()) samples[i]?.push(await c.run());
}

const s3 = (x: number): string => x.toFixed(3);
function spread(xs: readonly number[]): string {
  return `${s3(median(xs))} (${s3(Math.min(...xs))}–${s3(Math.max(...xs))})`;
}
console.log(
  `${ROUNDS} interleaved rounds; program ${program.name}; python ${py.value.version}, pytest ${py.value.pytestVersion}; ` +
    `sandbox CPU count: ${cpuAccounting(sandbox) ? "cgroup" : "none"}`,
);
console.log(`${"".padEnd(42)} ${"wall s: median (min–max)".padEnd(26)} cpu s: median (min–max)`);
for (const [i, c] of CASES.entries()) {
  const xs = samples[i] ?? [];
  const cpus = xs.map((x) => x.cpu).filter((x): x is number => x !== null);
  const cpu = cpus.length === xs.length ? spread(cpus) : "n/a";
  console.log(`${c.label.padEnd(42)} ${spread(xs.map((x) => x.wall)).padEnd(26)} ${cpu}`);
}
