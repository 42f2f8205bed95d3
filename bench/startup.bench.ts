// npm run bench:startup [-- --rounds N] — whole `tca` calls as a user makes them (spawn to exit):
// bare node, `tca --version`, `tca expr eval`, `tca lab baseline` (a fresh run directory each
// time) and `tca report` on a baseline run. The cases run in interleaved rounds (each round runs
// every case once, in a rotated order), so the load of a shared machine falls on all of them
// alike; each row gives the median with the interquartile range and min–max of the child's CPU
// time (user+sys, the kernel's account of the waited-for child: its rusage from wait4, through
// python3, to the microsecond; without python3, /proc/self/stat in 10 ms ticks, Linux only, which
// against bare node's 0.05 s moves a ratio by a fifth) and of its wall time, and the CPU median as
// a multiple of bare node's in the same rounds. For lab baseline it also reads, from each run's audit.jsonl, how far into the process
// run_started was written and how long the six proposals took after it (t_ms is the process's
// monotonic clock), and, from the CPU marks the run writes to stderr under TCA_STARTUP_TRACE=1
// (src/core/startupTrace.ts), its CPU outside the run (process start to run_started, and
// run_finished to exit: start-up, the verdict, the summary) as a multiple of bare node's, the
// figure issue #36 bounds. Prints figures; asserts nothing about speed. Run `npm run prepare` first, or
// the rows measure src/ through tsx (the first line says which path ran).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compiledBuildStatus } from "../bin/compiledBuild.js";
import { median } from "../src/bench/results/summaryStatistics.ts";
import { parseCpuMarks } from "../src/core/startupTrace.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TCA = fileURLToPath(new URL("../bin/tca.js", import.meta.url));
const roundsFlag = process.argv.indexOf("--rounds");
const ROUNDS = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : 9;
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds takes a positive integer");

const scratch = mkdtempSync(join(tmpdir(), "tca-startup-bench-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const env = { ...process.env, TCA_STARTUP_TRACE: "" };

/** This process's waited-for children's CPU seconds (utime+stime), or null off Linux. */
function childrenCpuSeconds(): number | null {
  let stat: string;
  try {
    stat = readFileSync("/proc/self/stat", "utf8");
  } catch {
    return null;
  }
  // Fields after the parenthesised command name; cutime and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}
const CLOCK_TICKS = ((): number => {
  const ticks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout);
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/**
 * Runs argv as a child and prints, as JSON, its exit status, its own rusage CPU seconds (user+sys,
 * from wait4: the kernel's exact account, where /proc/self/stat rounds to ticks), its wall seconds
 * and its stderr. Python, because node gives no child's rusage.
 */
const WAIT4 = `import json, os, subprocess, sys, time
started = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
wall = time.monotonic() - started
child.returncode = os.waitstatus_to_exitcode(status)
json.dump({"status": child.returncode, "cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "stderr": err.decode("utf-8", "replace")}, sys.stdout)
`;
const PRECISE = spawnSync("python3", ["-c", WAIT4, process.execPath, "-e", "0"], { encoding: "utf8" }).status === 0;

interface Sample {
  readonly cpu: number | null;
  readonly wall: number;
  /** The child's stderr (the CPU marks of a traced lab run). */
  readonly stderr: string;
}

function runOnce(args: readonly string[], childEnv: NodeJS.ProcessEnv = env): Sample {
  if (PRECISE) {
    const measured = spawnSync("python3", ["-c", WAIT4, process.execPath, ...args], {
      env: childEnv,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const sample = JSON.parse(measured.stdout) as { status: number; cpu: number; wall: number; stderr: string };
    if (sample.status !== 0) throw new Error(`${args.join(" ")} exited ${sample.status}: ${sample.stderr}`);
    return { cpu: sample.cpu, wall: sample.wall, stderr: sample.stderr };
  }
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const child = spawnSync(process.execPath, [...args], {
    env: childEnv,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const wall = (performance.now() - started) / 1000;
  const cpuAfter = childrenCpuSeconds();
  if (child.status !== 0) throw new Error(`${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  return { cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore, wall, stderr: child.stderr };
}

// The run the report rows read: made once, before the rounds, by the same tca.
const reportedRun = join(scratch, "reported-baseline");
runOnce([TCA, "lab", "baseline", "--run", reportedRun]);

let baselineCount = 0;
const baselineRuns: string[] = [];
// Traced: its CPU marks say how much of its CPU the run itself took (writing them costs two lines).
const tracedEnv = { ...process.env, TCA_STARTUP_TRACE: "1" };
const CASES: ReadonlyArray<{
  readonly label: string;
  readonly args: () => readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}> = [
  { label: "node -e 0", args: () => ["-e", "0"] },
  { label: "tca --version", args: () => [TCA, "--version"] },
  {
    label: "tca expr eval",
    args: () => [TCA, "expr", "eval", "--function", "total", "--expr", "unit * qty + fee", "--args", "2,3,1"],
  },
  {
    label: "tca lab baseline",
    args: () => {
      const run = join(scratch, `baseline-${(baselineCount += 1)}`);
      baselineRuns.push(run);
      return [TCA, "lab", "baseline", "--run", run];
    },
    env: tracedEnv,
  },
  {
    label: "tca report (baseline run)",
    args: () => [TCA, "report", reportedRun, "--out", join(scratch, "report.html"), "--force"],
  },
];

const trace = spawnSync(
  process.execPath,
  [TCA, "expr", "eval", "--function", "total", "--expr", "1", "--args", "0,0,0"],
  {
    env: { ...process.env, TCA_STARTUP_TRACE: "1" },
    encoding: "utf8",
  },
);
process.stdout.write(
  `${ROUNDS} interleaved rounds; path: ${trace.stderr.trim()}; CPU ${PRECISE ? "from wait4's rusage (python3)" : "from /proc/self/stat (10 ms ticks; no python3)"}\n`,
);

const samples = new Map<string, Sample[]>(CASES.map(({ label }) => [label, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (let index = 0; index < CASES.length; index += 1) {
    const { label, args, env: caseEnv } = CASES[(index + round) % CASES.length]!;
    samples.get(label)!.push(runOnce(args(), caseEnv));
  }
}

/** The q-quantile by linear interpolation between order statistics. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

function spread(values: readonly number[]): string {
  const s = (value: number): string => value.toFixed(3);
  return `${s(median(values))} s (IQR ${s(quantile(values, 0.25))}–${s(quantile(values, 0.75))}, min–max ${s(Math.min(...values))}–${s(Math.max(...values))})`;
}

const nodeCpu = samples
  .get("node -e 0")!
  .map((sample) => sample.cpu)
  .filter((cpu): cpu is number => cpu !== null);
for (const { label } of CASES) {
  const rows = samples.get(label)!;
  const cpu = rows.map((sample) => sample.cpu).filter((value): value is number => value !== null);
  const ratio = cpu.length > 0 && nodeCpu.length > 0 ? ` = ${(median(cpu) / median(nodeCpu)).toFixed(1)}× node` : "";
  process.stdout.write(`${label}\n  cpu  ${cpu.length > 0 ? spread(cpu) : "n/a (no /proc)"}${ratio}\n`);
  process.stdout.write(`  wall ${spread(rows.map((sample) => sample.wall))}\n`);
}

// Where a baseline's wall time goes: before run_started, and from there to its last event.
const beforeStart: number[] = [];
const proposals: number[] = [];
for (const run of baselineRuns) {
  const times = readFileSync(join(run, "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { t_ms: number }).t_ms / 1000);
  beforeStart.push(times[0]!);
  proposals.push(times[times.length - 1]! - times[0]!);
}
process.stdout.write(`tca lab baseline, from its audit.jsonl\n  process start → run_started ${spread(beforeStart)}\n`);
process.stdout.write(`  run_started → last event     ${spread(proposals)}\n`);

// The figure: the baseline's CPU outside run_started → run_finished (the six proposals,
// the final evaluation and final.json), from the child's whole CPU less the span its marks give.
const outside: number[] = [];
const inside: number[] = [];
for (const sample of samples.get("tca lab baseline")!) {
  const marks = parseCpuMarks(sample.stderr);
  const started = marks.find((m) => m.mark === "run_started");
  const finished = marks.find((m) => m.mark === "run_finished");
  if (started === undefined || finished === undefined || sample.cpu === null) continue;
  inside.push(finished.cpuSeconds - started.cpuSeconds);
  outside.push(sample.cpu - (finished.cpuSeconds - started.cpuSeconds));
}
const cpuSpread = (values: readonly number[]): string => spread(values).replace(/ s \(/, " CPU-s (");
if (outside.length > 0 && nodeCpu.length > 0) {
  process.stdout.write(
    `tca lab baseline outside proposals: ${cpuSpread(outside)} = ${(median(outside) / median(nodeCpu)).toFixed(1)}× node\n` +
      `  its run_started → run_finished: ${cpuSpread(inside)}\n`,
  );
} else process.stdout.write("tca lab baseline outside proposals: n/a (no CPU marks on stderr, or no /proc)\n");

const status = compiledBuildStatus(ROOT);
if (!status.fresh) process.stdout.write(`note: lib/ is not fresh (${status.reason}): the rows ran src/ through tsx\n`);
