// Everything a benchmark command needs before it may run a single test: the data set, the
// real Python interpreter, a sandbox configuration, and a passing sandbox self-test.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../core/result.ts";
import { loadDataset, type QuixDataset } from "./dataset/dataset.ts";
import { unknownPrograms, unknownProgramsMessage } from "./dataset/programNames.ts";
import type { BenchErrorCode } from "./errorCodes.ts";
import { resolvePythonRuntime } from "./sandbox/pythonRuntime.ts";
import { createSandboxConfig, type SandboxConfig } from "./sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./sandbox/sandboxLimits.ts";
import { sandboxSelfTest } from "./sandbox/sandboxSelfTest.ts";
import { HELD_OUT_CASES_PER_PROGRAM, processHeldOutSeed } from "./grading/heldOutCases.ts";
import { GRADER_ID } from "./grading/trustedGrader.ts";
import { readTasksetIdentity } from "./tasksets/makeTaskset.ts";

export interface BenchEnvironment {
  readonly dataset: QuixDataset;
  readonly sandbox: SandboxConfig;
  /** Facts recorded in run manifests. */
  readonly facts: Readonly<Record<string, unknown>>;
}

/** The upstream commit named in the data set's SOURCE.md, when there is one. */
export function datasetSourceCommit(root: string): string | null {
  const path = join(root, "SOURCE.md");
  if (!existsSync(path)) return null;
  return /\b([0-9a-f]{40})\b/.exec(readFileSync(path, "utf8"))?.[1] ?? null;
}

/**
 * `programs`: the names --programs gave, when it did. One the data set lacks is refused as soon
 * as the data set is read, before the interpreter probe and the sandbox self-test (seconds of
 * sandboxed processes for a typo) and before the caller writes anything.
 */
export async function prepareBenchEnvironment(
  datasetDir: string,
  limits: Partial<SandboxLimits> = {},
  programs?: readonly string[],
): Promise<Result<BenchEnvironment, BenchErrorCode>> {
  const dataset = loadDataset(datasetDir);
  if (!dataset.ok) return dataset;
  const unknown = unknownPrograms(programs, dataset.value);
  if (unknown.length > 0) return err("unknown_program", unknownProgramsMessage(unknown, dataset.value));
  const python = resolvePythonRuntime();
  if (!python.ok) return python;
  const sandbox = createSandboxConfig(python.value, { ...DEFAULT_SANDBOX_LIMITS, ...limits });
  if (!sandbox.ok) return sandbox;
  const selfTest = await sandboxSelfTest(sandbox.value);
  if (!selfTest.ok) return err(selfTest.error, selfTest.message);
  const commit = datasetSourceCommit(dataset.value.root);
  // A set made by make-taskset is named by its seed and manifest hash, so runs on QuixBugs and
  // on generated sets can be told apart in run.json, results.md and compare.
  const taskset = readTasksetIdentity(dataset.value.root);
  const source = taskset
    ? `generated task set seed ${taskset.seed} (taskset.json sha256 ${taskset.manifestSha256.slice(0, 12)}), from QuixBugs`
    : commit
      ? `jkoppel/QuixBugs@${commit}`
      : "QuixBugs (no SOURCE.md commit)";
  return ok({
    dataset: dataset.value,
    sandbox: sandbox.value,
    facts: {
      datasetSource: source,
      ...(taskset ? { taskset } : {}),
      datasetPrograms: dataset.value.programs.length,
      pythonVersion: python.value.version,
      pytestVersion: python.value.pytestVersion,
      processLimit: sandbox.value.processLimit,
      grader: GRADER_ID,
      heldOutSeed: processHeldOutSeed(),
      heldOutCasesPerProgram: HELD_OUT_CASES_PER_PROGRAM,
      sandboxLimits: sandbox.value.limits,
      sandboxSelfTest: "passed",
    },
  });
}
