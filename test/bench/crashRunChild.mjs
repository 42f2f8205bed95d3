// Child process for the kill-anywhere resume test (not a test file itself), for the steps where
// the kill must be a real SIGKILL: a file write or a line half done, which in-process code could
// never leave behind. It runs the test's small benchmark (the run options, the sandbox config and
// the data set come from the parent as one JSON file, so both run exactly the same benchmark)
// against the parent's scripted server; at the named step's n-th occurrence the hook says so on
// stdout and blocks the whole process there, and the parent SIGKILLs it on that line, so the kill
// lands exactly at the step with no timing involved. Plain JavaScript on the compiled lib/
// (test/support/projectModules.mjs), so a start costs no tsx loader.
//   node test/bench/crashRunChild.mjs <run.json from the parent> <outDir> <endpoint> <step> <n>
import { readFileSync, writeSync } from "node:fs";
import { compiled } from "../support/projectModules.mjs";

const [runFile, outDir, endpoint, step, nth] = process.argv.slice(2);
if (
  runFile === undefined ||
  outDir === undefined ||
  endpoint === undefined ||
  step === undefined ||
  !(Number(nth) >= 1)
) {
  process.stderr.write("usage: crashRunChild.mjs <run.json> <outDir> <endpoint> <step> <n>\n");
  process.exit(2);
}

const { runBenchmark } = compiled
  ? await import("../../lib/bench/benchmarkRun.js")
  : await import("../../src/bench/benchmarkRun.ts");
const { OpenAiCompatibleClient } = compiled
  ? await import("../../lib/sources/openaiCompatibleClient.js")
  : await import("../../src/sources/openaiCompatibleClient.ts");
const { options, sandbox, dataset } = JSON.parse(readFileSync(runFile, "utf8"));
let hits = 0;
const hook = (point, detail) => {
  if (point !== step || ++hits !== Number(nth)) return;
  writeSync(1, `ready:${point}:${hits}:${detail}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
};
const backend = new OpenAiCompatibleClient({ endpoint, model: options.modelName });
const r = await runBenchmark({
  ...options,
  dataset,
  sandbox: { ...sandbox, seccomp: sandbox.seccomp === null ? undefined : Buffer.from(sandbox.seccomp, "base64") },
  backend,
  outDir,
  resume: false,
  hook,
});
writeSync(1, `done:${r.ok ? "ok" : r.error}:${hits}\n`);
process.exit(r.ok ? 0 : 1);
