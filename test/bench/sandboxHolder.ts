// A helper process for the SIGKILL test (sandboxCaps.test.ts): starts one sandboxed run that
// sleeps, and waits for it. The test kills this process with SIGKILL mid-run, as a crash would.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolvePythonRuntime } from "../../src/bench/sandbox/pythonRuntime.ts";
import { createSandboxConfig, runInSandbox } from "../../src/bench/sandbox/sandbox.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/bench/sandbox/sandboxLimits.ts";

const py = resolvePythonRuntime();
if (!py.ok) throw new Error(py.message);
const sb = createSandboxConfig(py.value, DEFAULT_SANDBOX_LIMITS);
if (!sb.ok) throw new Error(sb.message);
// The test owns (and removes) the folder given as the argument.
const dir = join(process.argv[2] ?? "", "task");
mkdirSync(dir);
writeFileSync(join(dir, "sleep.py"), "import time\ntime.sleep(60)\n");
await runInSandbox(sb.value, { taskDir: dir, argv: ["python", "sleep.py"], timeoutMs: 60_000 });
