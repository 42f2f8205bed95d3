// A helper process for the descriptor test (sandboxCaps.test.ts): it is started with extra
// descriptors it inherits without close-on-exec (as a careless parent would leave them), runs one
// sandboxed program that lists its open descriptors, and prints that list.
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
writeFileSync(
  join(dir, "fds.py"),
  "import os\nfds = sorted(int(n) for n in os.listdir('/proc/self/fd'))\nprint(' '.join(map(str, fds)))\n",
);
const r = await runInSandbox(sb.value, { taskDir: dir, argv: ["python", "fds.py"], timeoutMs: 30_000 });
process.stdout.write(r.stdout);
