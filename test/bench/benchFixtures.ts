// Shared setup for the benchmark tests: the project's own small data set in QuixBugs layout
// (test/fixtures/quixbugs-mini, present on every clone), the real Python interpreter and the
// real bubblewrap sandbox (tests never run anything unsandboxed). Tests of the real 40-program
// data set use realQuixBugs() from test/support/optionalResources.ts and skip when it is absent.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadDataset, type QuixDataset, type QuixProgram } from "../../src/bench/dataset/dataset.ts";
import { createSandboxConfig, type SandboxConfig } from "../../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "../../src/bench/sandbox/sandboxLimits.ts";
import { MINI_DATASET_DIR } from "../support/optionalResources.ts";
import { hostPythonRuntime } from "../support/systemPackages.ts";

export { MINI_DATASET_DIR };

let cached: { sandbox: SandboxConfig; dataset: QuixDataset } | undefined;

export function benchSetup(limits: Partial<SandboxLimits> = {}): { sandbox: SandboxConfig; dataset: QuixDataset } {
  if (!cached) {
    const py = hostPythonRuntime();
    if (!py.ok) throw new Error(`test setup: ${py.message}`);
    const sb = createSandboxConfig(py.value, DEFAULT_SANDBOX_LIMITS);
    if (!sb.ok) throw new Error(`test setup: ${sb.message}`);
    const ds = loadDataset(MINI_DATASET_DIR);
    if (!ds.ok) throw new Error(`test setup: ${ds.message}`);
    cached = { sandbox: sb.value, dataset: ds.value };
  }
  return { sandbox: { ...cached.sandbox, limits: { ...cached.sandbox.limits, ...limits } }, dataset: cached.dataset };
}

export function program(dataset: QuixDataset, name: string): QuixProgram {
  const p = dataset.programs.find((x) => x.name === name);
  if (!p) throw new Error(`no program ${name}`);
  return p;
}

export function referenceFix(dataset: QuixDataset, name: string): string {
  return readFileSync(join(dataset.root, "correct_python_programs", `${name}.py`), "utf8");
}

export function buggy(dataset: QuixDataset, name: string): string {
  return readFileSync(join(dataset.root, "python_programs", `${name}.py`), "utf8");
}
