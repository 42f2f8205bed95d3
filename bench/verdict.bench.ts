// npm run bench:verdict — how long the one verdict takes: the bench verdict over a 160-task run
// folder (40 programs x 4 conditions, 4 turns each, written by the bench's own writers) and the
// Lab verdict over a scripted baseline run. Prints figures (median and max of repeated runs,
// ajv schema compilation measured apart); asserts nothing about speed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { deriveBenchVerdict } from "../src/evidence/benchVerdict.ts";
import { deriveRunVerdict } from "../src/evidence/runVerdict.ts";
import { BASELINE_PROPOSALS } from "../src/spec/constants.ts";
import { runLab } from "../src/lab/labRun.ts";
import { ScriptedSource } from "../src/sources/scriptedSource.ts";
import { writeBenchRun } from "../test/evidence/benchRunFixture.ts";

const REPEATS = 9;
const root = mkdtempSync(join(tmpdir(), "tca-verdict-bench-"));

function figures(label: string, body: () => string): void {
  const times: number[] = [];
  let kind = "";
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    kind = body();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  process.stdout.write(`${label}: verdict ${kind}; median ${median.toFixed(1)} ms, max ${(times.at(-1) ?? 0).toFixed(1)} ms over ${REPEATS} runs\n`);
}

try {
  const bench = join(root, "bench-160");
  writeBenchRun(bench, { programs: 40, turns: 4 });
  const size = execFileSync("du", ["-sk", bench], { encoding: "utf8" }).split("\t")[0];
  const first = deriveBenchVerdict(bench);
  process.stdout.write(`bench run: ${first.tasks.length} tasks, ${first.filesChecked} files cross-checked, ${size} KiB on disk\n`);
  figures("bench verdict (160 tasks)", () => deriveBenchVerdict(bench).kind);

  const lab = await runLab({ runDirectory: join(root, "baseline"), source: new ScriptedSource(BASELINE_PROPOSALS), kind: "scripted_baseline" });
  if (!lab.ok) throw new Error(lab.message);
  const compileStarted = performance.now();
  const firstLab = deriveRunVerdict(lab.value.runDirectory);
  process.stdout.write(`lab verdict, first call (compiles the three JSON Schemas): ${(performance.now() - compileStarted).toFixed(1)} ms, ${firstLab.records.length} audit records\n`);
  figures("lab verdict (scripted baseline)", () => deriveRunVerdict(lab.value.runDirectory).kind);
} finally {
  rmSync(root, { recursive: true, force: true });
}
