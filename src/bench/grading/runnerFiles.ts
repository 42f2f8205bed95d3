// The trusted runner's files (static Python owned by this project, beside this module) as they
// are placed in a task folder, and how the sandbox starts it.
import { readFileSync } from "node:fs";
import type { TaskFile } from "../dataset/dataset.ts";
import { ISOLATED_PYTHON_FLAGS } from "../sandbox/pythonRuntime.ts";

const RUNNER = "trusted_runner.py";
/** Only `prepare` mode needs these; they never enter a sandbox that runs a candidate. */
const PREPARE_ONLY = ["json_test_templates.py", "handwritten_cases.py"];

let loaded: Map<string, Buffer> | undefined;

function load(name: string): Buffer {
  loaded ??= new Map();
  let bytes = loaded.get(name);
  if (!bytes) {
    bytes = readFileSync(new URL(`./${name}`, import.meta.url));
    loaded.set(name, bytes);
  }
  return bytes;
}

export function trustedRunnerFiles(prepare: boolean): TaskFile[] {
  return [RUNNER, ...(prepare ? PREPARE_ONLY : [])].map((name) => ({ path: name, content: load(name) }));
}

/**
 * ISOLATED_PYTHON_FLAGS (`-B -s -S`): no site-packages on sys.path, so only the standard library
 * is importable by the program under test (numpy, present in this machine's interpreter beside
 * pytest, is not: `import numpy` raises ModuleNotFoundError, so no numpy value reaches a
 * comparison; docs: "numpy"). The job file is read-only beside the runner.
 */
export const TRUSTED_RUNNER_ARGV: readonly string[] = ["python", ...ISOLATED_PYTHON_FLAGS, RUNNER, "job.json"];

/** Most bytes of result lines read from one run (more means a failed grade, never a cut). */
export const RESULT_CHANNEL_MAX_BYTES = 16 * 1024 * 1024;
