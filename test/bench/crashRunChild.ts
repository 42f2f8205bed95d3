// Child process for the kill-anywhere resume test (not a test file itself). Runs a small
// benchmark on the mini data set against the parent's scripted server; at the named step's n-th
// occurrence the hook announces itself on stdout and stops there (a file write half done blocks
// the whole process; a model call or grading run in flight is left running), and the parent
// SIGKILLs this process on that line, so the kill lands exactly at the step with no timing
// involved. Step "none" runs (or, with resume=1, resumes) to the end; step "count" runs to the end
// and prints how often each step came, with its details, so the parent can spread its kills over
// the whole run.
//   node --import tsx test/bench/crashRunChild.ts <outDir> <endpoint> <step|none> <n> <resume 0|1>
import { writeSync } from "node:fs";
import { runBenchmark, type BenchRunStep } from "../../src/bench/benchmarkRun.ts";
import type { StepHook } from "../../src/core/stepHook.ts";
import { OpenAiCompatibleClient } from "../../src/sources/openaiCompatibleClient.ts";
import { benchSetup } from "./benchFixtures.ts";

const [outDir, endpoint, step, nth, resume] = process.argv.slice(2);
if (
  outDir === undefined ||
  endpoint === undefined ||
  step === undefined ||
  nth === undefined ||
  (resume !== "0" && resume !== "1")
) {
  process.stderr.write("usage: crashRunChild.ts <outDir> <endpoint> <step|none> <n> <resume 0|1>\n");
  process.exit(2);
}

let hits = 0;
const seen: { point: BenchRunStep; detail: string }[] = [];
const hook: StepHook<BenchRunStep> = (point, detail) => {
  if (step === "count") {
    seen.push({ point, detail });
    return;
  }
  if (point !== step || ++hits !== Number(nth)) return;
  writeSync(1, `ready:${point}:${hits}:${detail}\n`);
  if (point === "modelCall" || point === "grading") return new Promise<void>(() => undefined);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
};

const { sandbox, dataset } = benchSetup();
const backend = new OpenAiCompatibleClient({ endpoint, model: "scripted" });
const modelDescription = { ...(await backend.describe(AbortSignal.timeout(5000))), label: "scripted" };
const r = await runBenchmark({
  dataset,
  sandbox,
  backend,
  modelDescription,
  modelName: "scripted",
  conditions: ["A", "D"],
  programs: ["gcd", "pascal"],
  outDir,
  jobs: 1,
  resume: resume === "1",
  testTimeoutMs: 60_000,
  includeSlow: false,
  environment: { note: "kill-anywhere test" },
  ...(step === "none" ? {} : { hook }),
});
if (step === "count") writeSync(1, `steps:${JSON.stringify(seen)}\n`);
writeSync(1, `done:${r.ok ? "ok" : r.error}:${hits}\n`);
process.exit(r.ok ? 0 : 1);
