// The trusted runner's files (static Python owned by this project, beside this module) as they
// are placed in a task folder, and how the sandbox starts it.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { TaskFile } from "../dataset/dataset.ts";
import { ISOLATED_PYTHON_FLAGS, type PythonRuntime } from "../sandbox/pythonRuntime.ts";

const RUNNER = "trusted_runner.py";
const RUNNER_BYTECODE = "trusted_runner.pyc";
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

// The runner's source compiled by the interpreter that runs it: a .pyc as `python file.pyc`
// runs it (magic number, a header Python skips there, the marshalled code object), named
// trusted_runner.py in its code so that its tracebacks read as before. -I: no environment, no
// user site, and neither the working folder nor a script folder on sys.path.
const COMPILE = [
  "import importlib.util, marshal, sys",
  "source = sys.stdin.buffer.read()",
  `code = compile(source, ${JSON.stringify(RUNNER)}, "exec", dont_inherit=True)`,
  "sys.stdout.buffer.write(importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code))",
].join("\n");

const compiled = new Map<string, Buffer | null>();

/**
 * The runner's bytecode for this interpreter, compiled once per process on the host from the
 * project's own source (never from anything a candidate wrote); null where that failed (the
 * runner then starts from its source, as before issue #36). Compiling its 800 lines took about
 * 6 ms of CPU in every sandboxed run (a main script's bytecode is never cached by Python).
 */
export function trustedRunnerBytecode(python: PythonRuntime): Buffer | null {
  const known = compiled.get(python.executable);
  if (known !== undefined) return known;
  const r = spawnSync(python.executable, ["-I", "-S", "-B", "-c", COMPILE], {
    input: load(RUNNER),
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const ok = !r.error && r.status === 0 && r.stdout.length > 16;
  const bytes = ok ? r.stdout : null;
  compiled.set(python.executable, bytes);
  return bytes;
}

export interface TrustedRunnerStart {
  /** The runner's files for the task folder (its source always, beside its bytecode when there is one). */
  readonly files: TaskFile[];
  /** How the sandbox starts it on job.json. */
  readonly argv: readonly string[];
}

/**
 * The runner started from bytecode compiled outside the sandbox, read-only in the task folder
 * like everything there (the candidate can neither write nor replace it); its source lies beside
 * it as before (an `import trusted_runner` finds the source, and tracebacks show its lines).
 * ISOLATED_PYTHON_FLAGS (`-B -s -S`): no site-packages on sys.path, so only the standard library
 * is importable by the program under test (numpy, present in this machine's interpreter beside
 * pytest, is not: `import numpy` raises ModuleNotFoundError, so no numpy value reaches a
 * comparison; docs: "numpy"). The job file is read-only beside the runner.
 */
export function trustedRunnerStart(python: PythonRuntime, prepare: boolean): TrustedRunnerStart {
  const files = [RUNNER, ...(prepare ? PREPARE_ONLY : [])].map((name) => ({ path: name, content: load(name) }));
  const bytecode = trustedRunnerBytecode(python);
  if (bytecode === null) return { files, argv: ["python", ...ISOLATED_PYTHON_FLAGS, RUNNER, "job.json"] };
  return {
    files: [...files, { path: RUNNER_BYTECODE, content: bytecode }],
    argv: ["python", ...ISOLATED_PYTHON_FLAGS, RUNNER_BYTECODE, "job.json"],
  };
}

/** Most bytes of result lines read from one run (more means a failed grade, never a cut). */
export const RESULT_CHANNEL_MAX_BYTES = 16 * 1024 * 1024;
