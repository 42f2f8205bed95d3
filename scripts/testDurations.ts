// npm run test:durations [-- [--jobs N] [files...]] — runs each test file on its own, as
// `npm run test:unit` runs it (`node --import ./test/support/compiledSourceLoader.mjs --test
// --test-reporter=tap <file>`: src/ from the build `pretest:durations` has just made), and prints
// per-file CPU and wall time, slowest CPU first, with the pass/fail counts. Default: every
// test/*/*.test.ts, one at a time.
//
// CPU is counted by scripts/cpuOfChildren.mjs, a wrapper around each file's test runner that
// starts the runner in a CPU accounting group of its own (cgroup v1 cpuacct or v2), so that
// every descendant is counted: the runner, the file's process, the CLIs it spawns and their
// sandboxed Python runs, which live in a PID namespace whose processes are never waited for by
// anyone outside it, so cutime cannot see them. Where no group can be made, the wrapper falls
// back to cutime + cstime of /proc/self/stat (10 ms ticks, waited-for descendants only) and the
// table marks those rows. Linux only. --jobs runs files side by side: each file's CPU stays its
// own (one group each), its wall time then includes waiting for the CPU. The exit code is 1 if
// any file failed.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  formatDurations,
  parseTapSummary,
  parseWrapperReport,
  type FileDuration,
  type WrapperReport,
} from "./testDurationsReport.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRAPPER = join(ROOT, "scripts", "cpuOfChildren.mjs");
/** The suite's own loader (package.json's test:unit), so a file's figures are what the suite pays for it. */
const TEST_LOADER = join(ROOT, "test", "support", "compiledSourceLoader.mjs");

function usage(message: string): never {
  process.stderr.write(
    `test:durations: usage_error: ${message}\nusage: npm run test:durations -- [--jobs N] [files...]\n`,
  );
  process.exit(2);
}

const args = process.argv.slice(2);
let jobs = 1;
const files: string[] = [];
for (let i = 0; i < args.length; i += 1) {
  const arg = args[i] as string;
  if (arg === "--jobs") {
    jobs = Number(args[(i += 1)]);
    if (!Number.isInteger(jobs) || jobs < 1) usage("--jobs takes a positive integer");
  } else if (arg.startsWith("-")) usage(`unknown option ${arg}`);
  else files.push(arg);
}
if (files.length === 0) {
  const test = join(ROOT, "test");
  for (const folder of readdirSync(test, { withFileTypes: true }).filter((e) => e.isDirectory()))
    for (const name of readdirSync(join(test, folder.name)).sort())
      if (name.endsWith(".test.ts")) files.push(`test/${folder.name}/${name}`);
}

function runFile(file: string): Promise<FileDuration> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [WRAPPER, process.execPath, "--import", pathToFileURL(TEST_LOADER).href, "--test", "--test-reporter=tap", file],
      { stdio: ["ignore", "pipe", "pipe", "pipe"] },
    );
    let tap = "";
    let err = "";
    let report = "";
    child.stdout?.setEncoding("utf8").on("data", (text: string) => (tap += text));
    child.stderr?.setEncoding("utf8").on("data", (text: string) => (err += text));
    const fd3 = child.stdio[3];
    if (fd3 && "setEncoding" in fd3) fd3.setEncoding("utf8").on("data", (text: string) => (report += text));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallSeconds = (performance.now() - started) / 1000;
      let line: WrapperReport;
      try {
        line = parseWrapperReport(report);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        reject(new Error(`${file}: the CPU wrapper's report is unreadable (${why}; exit ${code}): ${err.slice(-400)}`));
        return;
      }
      const counts = parseTapSummary(tap);
      if (line.code !== 0 || counts === null || counts.fail > 0)
        process.stderr.write(`--- ${file} failed:\n${tap.slice(-3000)}${err.slice(-1500)}\n`);
      resolve({
        file: relative(ROOT, join(ROOT, file)),
        wallSeconds,
        cpu: line.cpu,
        meter: line.meter,
        counts,
        exitCode: line.code,
      });
    });
  });
}

const results: FileDuration[] = [];
const queue = [...files];
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const done = await runFile(file);
      results.push(done);
      process.stderr.write(
        `${done.file}: ${(done.cpu.userSeconds + done.cpu.systemSeconds).toFixed(2)} CPU s, ${done.wallSeconds.toFixed(2)} s\n`,
      );
    }
  }),
);
process.stdout.write(formatDurations(results));
process.exitCode = results.every((d) => d.exitCode === 0 && d.counts !== null && d.counts.fail === 0) ? 0 : 1;
