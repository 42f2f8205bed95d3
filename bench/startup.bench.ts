// npm run bench:startup [-- --runs N] — wall time of whole `tca` calls as a user makes them
// (spawn to exit), median over N runs, for the compiled lib/ and for src/ through tsx
// (TCA_NO_COMPILED=1), plus bare node and the build-stamp check bin/tca.js does before running
// lib/. Prints figures; asserts nothing about speed. Run `npm run prepare` first, or the
// "compiled" rows measure the tsx fallback (the first line says which ran).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { compiledBuildStatus } from "../bin/compiledBuild.js";
import { median } from "../src/bench/results/summaryStatistics.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TCA = fileURLToPath(new URL("../bin/tca.js", import.meta.url));
const runsFlag = process.argv.indexOf("--runs");
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 15;
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("--runs takes a positive integer");

const EXPR_EVAL = ["expr", "eval", "--function", "total", "--expr", "unit * qty + fee", "--args", "2,3,1"];
// --help and --version are answered by bin/tca.js alone (no build, no tsx): measured both ways to
// show that; `help` and `expr eval` load the program, compiled or through tsx.
const CASES: ReadonlyArray<{ readonly label: string; readonly args: readonly string[] }> = [
  { label: "tca --help", args: ["--help"] },
  { label: "tca --version", args: ["--version"] },
  { label: "tca help", args: ["help"] },
  { label: "tca expr eval", args: EXPR_EVAL },
];

function wallSeconds(args: readonly string[], env: NodeJS.ProcessEnv): number[] {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const child = spawnSync(process.execPath, [...args], { env, encoding: "utf8" });
    times.push((performance.now() - started) / 1000);
    if (child.status !== 0) throw new Error(`${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  }
  return times;
}

function row(label: string, times: readonly number[]): void {
  const text = (value: number): string => value.toFixed(3);
  process.stdout.write(
    `${label.padEnd(32)} median ${text(median(times))} s   min ${text(Math.min(...times))} s   max ${text(Math.max(...times))} s\n`,
  );
}

const trace = spawnSync(process.execPath, [TCA, ...EXPR_EVAL], {
  env: { ...process.env, TCA_STARTUP_TRACE: "1" },
  encoding: "utf8",
});
process.stdout.write(`${RUNS} runs each; default path today: ${trace.stderr.trim()}\n`);
const compiledEnv = { ...process.env, TCA_NO_COMPILED: "", TCA_STARTUP_TRACE: "" };
const tsxEnv = { ...process.env, TCA_NO_COMPILED: "1", TCA_STARTUP_TRACE: "" };
row("node (empty program)", wallSeconds(["-e", "0"], compiledEnv));
for (const { label, args } of CASES) {
  row(`${label} (compiled)`, wallSeconds([TCA, ...args], compiledEnv));
  row(`${label} (tsx)`, wallSeconds([TCA, ...args], tsxEnv));
}

const checks: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  const started = performance.now();
  compiledBuildStatus(ROOT);
  checks.push((performance.now() - started) / 1000);
}
row("build-stamp check (in process)", checks);
const status = compiledBuildStatus(ROOT);
if (!status.fresh)
  process.stdout.write(`note: lib/ is not fresh (${status.reason}): the "compiled" rows ran src/ through tsx\n`);
