// npm run bench:task-cost [-- --rounds N] [-- --program P] [-- --dataset DIR] [-- --before DIR]
// [-- --compare DIR] — what the harness costs per bench task (issue #36): one run_tests call
// (pytest in a fresh sandbox and folder, as the agent's tool runs it) and one trusted grade
// (public + held-out cases, one sandboxed run in two phases), on a QuixBugs program's reference
// fix, next to references: `python -c 0` and `pytest --version`, bare on the host and inside
// the same sandbox (there as every sandboxed Python starts: -B -s -S; pytest as run_tests starts it).
// --before DIR: a checkout of the tree as it was before #36 (git worktree add --detach DIR
// 5211dab^); its run_tests (plain `python -m pytest`, its sandbox) and its grade are timed by
// bench/taskCostPeer.ts, copied into DIR/bench/ and run there (DIR's own src/, its own Node
// process), in the same rounds: each round asks it once for each, in turn with the rows here.
// --compare DIR: the same for any other checkout, with that checkout's own runProgramTests.
// Without --before, a reference row runs plain `python -m pytest` in today's sandbox.
// Every round runs each row once, in an order rotated by one each round (interleaved, so a busy
// machine slows them all alike). Prints median and min–max of wall and CPU seconds; CPU is the
// run's cgroup count in the sandbox (all its processes; a grade: both phases), the children's
// user+sys on the host; beside it the calling Node process's own CPU (spawning, cgroups, the
// budget watch, parsing: host references include their /bin/sh). Asserts nothing about speed; warns when a run's result is not the expected one.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { defaultDatasetDir, findProgram, loadDataset, referenceFixSource } from "../src/bench/dataset/dataset.ts";
import { heldOutCases } from "../src/bench/grading/heldOutCases.ts";
import { publicCases } from "../src/bench/grading/publicCases.ts";
import { gradeProgram } from "../src/bench/grading/trustedGrader.ts";
import { ISOLATED_PYTHON_FLAGS, pytestSiteDirs, resolvePythonRuntime } from "../src/bench/sandbox/pythonRuntime.ts";
import { cpuAccounting, createSandboxConfig, runInSandbox } from "../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../src/bench/sandbox/sandboxLimits.ts";
import { pytestBootstrap, runProgramTests } from "../src/bench/agent/testRunner.ts";
import { testFilePath } from "../src/bench/dataset/dataset.ts";
import { createTaskFolder } from "../src/bench/dataset/taskFolder.ts";
import { median } from "../src/bench/results/summaryStatistics.ts";

function flagValue(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

const ROUNDS = Number(flagValue("--rounds") ?? "10");
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds takes a positive integer");
const datasetDir = resolve(flagValue("--dataset") ?? defaultDatasetDir());
const ds = loadDataset(datasetDir);
const py = resolvePythonRuntime();
if (!ds.ok || !py.ok) throw new Error(`bench setup: data set (${datasetDir}: pass --dataset DIR) or python missing`);
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
  /** CPU seconds of the Node process that made the call (this one, or the peer's), user + sys. */
  readonly node?: number;
}

const nodeCpuSince = (start: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
};

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
async function sandboxRun(argv: readonly string[], pytest = false): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), "tca-task-cost-"));
  try {
    const started = performance.now();
    const r = await runInSandbox(sandbox, { taskDir: dir, argv, pytest });
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

/** Plain `python -m pytest` (run_tests' argv before issue #36) in today's sandbox, pytest's packages bound. */
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
  let r: Awaited<ReturnType<typeof runInSandbox>>;
  try {
    r = await runInSandbox(sandbox, { taskDir: folder.dir, argv, pytest: true });
  } finally {
    folder.remove();
  }
  if (r.exitCode !== 0) console.log(`warning: plain pytest on ${program.name}'s fix exited ${r.exitCode}`);
  return { wall: (performance.now() - started) / 1000, cpu: r.cpuSeconds };
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

/** A bench/taskCostPeer.ts running in another checkout, answering one timed call per request. */
interface Peer {
  ask(what: "run_tests" | "grade"): Promise<Sample>;
  close(): void;
}

async function startPeer(dir: string, mode: "plain" | "tree"): Promise<Peer> {
  const root = resolve(dir);
  if (!existsSync(join(root, "src/bench/grading/trustedGrader.ts")))
    throw new Error(`${root} is not a checkout of this project`);
  if (!existsSync(join(root, "node_modules")))
    throw new Error(`${root} has no node_modules (ln -s it from this checkout)`);
  const copy = join(root, "bench", ".taskCostPeer.ts");
  copyFileSync(fileURLToPath(new URL("./taskCostPeer.ts", import.meta.url)), copy);
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ["--import", "tsx", copy, datasetDir, program.name, String(SEED), mode],
    { cwd: root, stdio: ["pipe", "pipe", "pipe"] },
  );
  child.stderr.on("data", (c: Buffer) => process.stderr.write(c));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const r = await lines.next();
    if (r.done === true) throw new Error(`the peer in ${root} ended`);
    return JSON.parse(String(r.value)) as Record<string, unknown>;
  };
  await next();
  return {
    async ask(what) {
      child.stdin.write(`${what}\n`);
      const a = await next();
      const expected = what === "run_tests" ? "passed" : "passed (";
      if (typeof a.outcome !== "string" || !a.outcome.startsWith(expected))
        console.log(`warning: ${what} in ${root}: ${String(a.outcome ?? a.error)}`);
      return { wall: Number(a.wall), cpu: typeof a.cpu === "number" ? a.cpu : null, node: Number(a.node) };
    },
    close() {
      child.stdin.end();
      rmSync(copy, { force: true });
    },
  };
}

const beforeDir = flagValue("--before");
const compareDir = flagValue("--compare");
const before = beforeDir !== undefined ? await startPeer(beforeDir, "plain") : undefined;
const compare = compareDir !== undefined ? await startPeer(compareDir, "tree") : undefined;

/** pytest started as run_tests starts it (-B -s -S, the bootstrap, pytest's packages bound). */
const pytestVersionArgv = [
  "python",
  ...ISOLATED_PYTHON_FLAGS,
  "-c",
  pytestBootstrap(pytestSiteDirs(py.value)),
  "--version",
];

const CASES: ReadonlyArray<{ readonly label: string; readonly run: () => Sample | Promise<Sample> }> = [
  { label: "host python -c 0", run: () => hostRun([py.value.executable, "-c", "0"]) },
  { label: "host python -m pytest --version", run: () => hostRun([py.value.executable, "-m", "pytest", "--version"]) },
  { label: "sandbox python -B -s -S -c 0", run: () => sandboxRun(["python", ...ISOLATED_PYTHON_FLAGS, "-c", "0"]) },
  { label: "sandbox pytest --version (run_tests' start)", run: () => sandboxRun(pytestVersionArgv, true) },
  { label: `run_tests (${program.name} fix)`, run: runTests },
  ...(before
    ? [{ label: "  before #36 (--before: its sandbox, python -m pytest)", run: () => before.ask("run_tests") }]
    : [{ label: "  python -m pytest, today's sandbox", run: plainPytest }]),
  ...(compare ? [{ label: "  --compare checkout's run_tests", run: () => compare.ask("run_tests") }] : []),
  { label: `trusted grade (${program.name} fix)`, run: grade },
  ...(before ? [{ label: "  before #36 (--before checkout)", run: () => before.ask("grade") }] : []),
  ...(compare ? [{ label: "  --compare checkout's grade", run: () => compare.ask("grade") }] : []),
];

const samples: Sample[][] = CASES.map(() => []);
for (let round = 0; round < ROUNDS; round += 1) {
  for (let k = 0; k < CASES.length; k += 1) {
    const i = (k + round) % CASES.length;
    const c = CASES[i];
    if (!c) continue;
    const start = process.cpuUsage();
    const sample = await c.run();
    samples[i]?.push({ ...sample, node: sample.node ?? nodeCpuSince(start) });
  }
}
before?.close();
compare?.close();

const s3 = (x: number): string => x.toFixed(3);
function spread(xs: readonly number[]): string {
  return `${s3(median(xs))} (${s3(Math.min(...xs))}–${s3(Math.max(...xs))})`;
}
console.log(
  `${ROUNDS} interleaved rounds (order rotated each round); program ${program.name}; python ${py.value.version}, ` +
    `pytest ${py.value.pytestVersion}; sandbox CPU count: ${cpuAccounting(sandbox) ? "cgroup" : "none"}` +
    (beforeDir !== undefined ? `; before #36: ${resolve(beforeDir)}` : "") +
    (compareDir !== undefined ? `; compare: ${resolve(compareDir)}` : ""),
);
const WIDTH = 56;
console.log(
  `${"".padEnd(WIDTH)} ${"wall s: median (min–max)".padEnd(26)} ${"cpu s: median (min–max)".padEnd(26)} Node's own cpu s`,
);
for (const [i, c] of CASES.entries()) {
  const xs = samples[i] ?? [];
  const cpus = xs.map((x) => x.cpu).filter((x): x is number => x !== null);
  const cpu = cpus.length === xs.length ? spread(cpus) : "n/a";
  const node = spread(xs.map((x) => x.node ?? 0));
  console.log(`${c.label.padEnd(WIDTH)} ${spread(xs.map((x) => x.wall)).padEnd(26)} ${cpu.padEnd(26)} ${node}`);
}
