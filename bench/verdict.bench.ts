// npm run bench:verdict — how long the one verdict takes: the bench verdict over a 160-task run
// folder (40 programs x 4 conditions, 4 turns each, written by the bench's own writers) and the
// Lab verdict over a scripted baseline run; and verify-run (the re-grade, through the CLI, a fresh
// process each time) on a real run made by runBenchmark with the scripted server, against the
// grading time the run itself recorded. Prints figures (median and max of repeated runs, ajv
// schema compilation measured apart); asserts nothing about speed.
// TCA_VERIFY_BENCH_DATASET=<QuixBugs folder> re-grades a run of all its programs (condition A)
// instead of the mini data set's 4 programs x 4 conditions.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { deriveBenchVerdict } from "../src/verdicts/benchVerdict.ts";
import { deriveRunVerdict } from "../src/verdicts/runVerdict.ts";
import { BASELINE_PROPOSALS } from "../src/constants/labConstants.ts";
import { runLab } from "../src/lab/labRun.ts";
import { ScriptedSource } from "../src/sources/scriptedSource.ts";
import { writeBenchRun } from "../test/evidence/benchRunFixture.ts";
import { realBenchRun } from "../test/evidence/regradeRunFixture.ts";
import { benchSetup, MINI_DATASET_DIR } from "../test/bench/benchFixtures.ts";
import { loadDataset } from "../src/bench/dataset/dataset.ts";
import type { ConditionId } from "../src/bench/agent/conditions.ts";

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
  process.stdout.write(
    `${label}: verdict ${kind}; median ${median.toFixed(1)} ms, max ${(times.at(-1) ?? 0).toFixed(1)} ms over ${REPEATS} runs\n`,
  );
}

const TCA = fileURLToPath(new URL("../bin/tca.js", import.meta.url));
const REGRADE_REPEATS = 3;

/** verify-run on a real run: wall time and summed per-task grading time, against the run's own. */
async function verifyRunFigures(): Promise<void> {
  const realDir = process.env.TCA_VERIFY_BENCH_DATASET;
  const real = realDir === undefined ? null : loadDataset(realDir);
  if (real !== null && !real.ok) throw new Error(real.message);
  const dataset = real?.value ?? benchSetup().dataset;
  const datasetDir = realDir ?? MINI_DATASET_DIR;
  // bitcount's buggy program loops until the per-case limit on every case: left out of the mini figure.
  const programs = real ? dataset.programs.map((p) => p.name) : ["gcd", "is_palindrome", "linked_list_sum", "pascal"];
  const conditions: ConditionId[] = real ? ["A"] : ["A", "B", "C", "D"];
  const started = performance.now();
  const dir = await realBenchRun(root, "regrade", { programs, conditions, dataset, jobs: 2 });
  const runSeconds = (performance.now() - started) / 1000;
  const walls: number[] = [];
  const regradeWalls: number[] = [];
  const graderSums: number[] = [];
  let recorded = 0;
  let tasks = 0;
  for (let i = 0; i < REGRADE_REPEATS; i++) {
    const cliStarted = performance.now();
    const out = JSON.parse(
      execFileSync(
        process.execPath,
        [TCA, "bench", "quixbugs", "verify-run", dir, "--dataset", datasetDir, "--jobs", "2", "--json"],
        { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      ),
    ) as {
      ok: boolean;
      seconds: number;
      recordedGradingSeconds: number;
      entries: { seconds: number }[];
    };
    if (!out.ok) throw new Error("verify-run disagreed with an honest run");
    walls.push((performance.now() - cliStarted) / 1000);
    regradeWalls.push(out.seconds);
    graderSums.push(out.entries.reduce((sum, entry) => sum + entry.seconds, 0));
    recorded = out.recordedGradingSeconds;
    tasks = out.entries.length;
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const spread = (xs: number[]): string => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  process.stdout.write(
    `verify-run (${tasks} tasks, ${real ? "QuixBugs" : "mini data set"}, --jobs 2, ${REGRADE_REPEATS} runs): the run took ${runSeconds.toFixed(1)} s wall with ${recorded.toFixed(1)} s of grading recorded\n`,
  );
  process.stdout.write(
    `  verify-run wall (CLI, start-up and sandbox self-test included): median ${median(walls).toFixed(1)} s (${spread(walls)}); the re-grade alone ${median(regradeWalls).toFixed(1)} s (${spread(regradeWalls)})\n`,
  );
  process.stdout.write(
    `  re-grading time summed over tasks: median ${median(graderSums).toFixed(1)} s (${spread(graderSums)}); ${(median(graderSums) / Math.max(recorded, 1e-9)).toFixed(2)}x the run's recorded grading\n`,
  );
}

try {
  const bench = join(root, "bench-160");
  writeBenchRun(bench, { programs: 40, turns: 4 });
  const size = execFileSync("du", ["-sk", bench], { encoding: "utf8" }).split("\t")[0];
  const first = deriveBenchVerdict(bench);
  process.stdout.write(
    `bench run: ${first.tasks.length} tasks, ${first.filesChecked} files cross-checked, ${size} KiB on disk\n`,
  );
  figures("bench verdict (160 tasks)", () => deriveBenchVerdict(bench).kind);

  const lab = await runLab({
    runDirectory: join(root, "baseline"),
    source: new ScriptedSource(BASELINE_PROPOSALS),
    kind: "scripted_baseline",
  });
  if (!lab.ok) throw new Error(lab.message);
  const compileStarted = performance.now();
  const firstLab = deriveRunVerdict(lab.value.runDirectory);
  process.stdout.write(
    `lab verdict, first call (compiles the three JSON Schemas): ${(performance.now() - compileStarted).toFixed(1)} ms, ${firstLab.records.length} audit records\n`,
  );
  figures("lab verdict (scripted baseline)", () => deriveRunVerdict(lab.value.runDirectory).kind);

  await verifyRunFigures();
} finally {
  rmSync(root, { recursive: true, force: true });
}
