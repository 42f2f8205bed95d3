// The sandbox holds: escape attempts from a program under test fail and are reported, a
// non-terminating run is killed with its whole process group, limits apply, and a missing
// bwrap stops everything with a clear error instead of running unsandboxed.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { createSandboxConfig, runInSandbox } from "../../src/bench/sandbox/sandbox.ts";
import { EXPECTED_CHECKS, runEscapeProbe, sandboxSelfTest } from "../../src/bench/sandbox/sandboxSelfTest.ts";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/bench/sandbox/sandboxLimits.ts";
import { runProgramTests } from "../../src/bench/agent/testRunner.ts";
import { benchSetup, program } from "./benchFixtures.ts";

function tempTask(files: Record<string, string>): { dir: string; outer: string } {
  const outer = mkdtempSync(join(tmpdir(), "tca-sbtest-"));
  const dir = join(outer, "task");
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, outer };
}

/** Host processes whose environment carries the run's marker (none may survive a run). */
function processesWithMarker(runId: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(`SANDBOX_RUN_ID=${runId}`))
        found.push(Number(entry));
    } catch {
      // The process ended or is not readable.
    }
  }
  return found;
}

test("the sandbox self-test passes here", async () => {
  const { sandbox } = benchSetup();
  const r = await sandboxSelfTest(sandbox);
  assert.equal(r.ok, true, r.ok ? "" : r.message);
});

test("escape attempts (network, host loopback, writes outside and into /task, host file, host home, ptrace of init) all fail, tmpfs sizes are capped", async () => {
  const { sandbox } = benchSetup();
  const homeDir = mkdtempSync(join(homedir(), ".tca-escape-test-"));
  const homeFile = join(homeDir, "secret.txt");
  writeFileSync(homeFile, "home secret");
  const outside = mkdtempSync(join(tmpdir(), "tca-outside-"));
  const hostFile = join(outside, "host.txt");
  writeFileSync(hostFile, "host secret");
  const listener = createServer((s) => s.end("reached"));
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  try {
    const report = await runEscapeProbe(sandbox, {
      hostFile,
      homeFile,
      hostPort: (listener.address() as AddressInfo).port,
    });
    assert.deepEqual(report.escaped, []);
    for (const check of EXPECTED_CHECKS) {
      assert.match(report.checks[check] ?? "missing", /^blocked:/, check);
    }
    assert.equal(existsSync(`${hostFile}.written-from-sandbox`), false);
  } finally {
    listener.close();
    rmSync(homeDir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test("a program under test that tries to escape at import time: every attempt fails, and the test run reports it", async () => {
  const { sandbox, dataset } = benchSetup();
  const outside = mkdtempSync(join(tmpdir(), "tca-outside-"));
  const marker = join(outside, "escaped.txt");
  const homeDir = mkdtempSync(join(homedir(), ".tca-escape-test-"));
  writeFileSync(join(homeDir, "secret.txt"), "home secret");
  const evil = [
    "import os, socket",
    "r = []",
    "def t(name, fn):",
    "    try:",
    "        fn(); r.append(name + ':ESCAPED')",
    "    except Exception as e:",
    "        r.append(name + ':blocked')",
    "t('socket', lambda: socket.create_connection(('93.184.216.34', 80), timeout=2))",
    `t('write_outside', lambda: open(${JSON.stringify(marker)}, 'w').write('x'))`,
    `t('read_home', lambda: open(${JSON.stringify(join(homeDir, "secret.txt"))}).read())`,
    `t('list_home', lambda: os.listdir(${JSON.stringify(homeDir)}))`,
    "raise RuntimeError('ESCAPE-REPORT ' + ' '.join(r))",
    "",
  ].join("\n");
  try {
    const result = await runProgramTests(sandbox, dataset, program(dataset, "gcd"), evil);
    assert.equal(result.outcome, "error");
    const line = /RuntimeError: ESCAPE-REPORT ([^\n]*)/.exec(result.output)?.[1] ?? "";
    assert.deepEqual(line.trim().split(" "), [
      "socket:blocked",
      "write_outside:blocked",
      "read_home:blocked",
      "list_home:blocked",
    ]);
    assert.equal(existsSync(marker), false);
  } finally {
    rmSync(outside, { recursive: true, force: true });
    rmSync(homeDir, { recursive: true, force: true });
  }
});

test("a non-terminating run is killed on timeout with its whole process group, children included", async () => {
  const { sandbox } = benchSetup();
  const { dir, outer } = tempTask({
    "loop.py":
      "import os, time\nif os.fork() == 0:\n    while True: time.sleep(0.05)\nprint('started', flush=True)\nwhile True: pass\n",
  });
  try {
    const r = await runInSandbox(sandbox, { taskDir: dir, argv: ["python", "loop.py"], timeoutMs: 1500 });
    assert.equal(r.timedOut, true);
    assert.match(r.stdout, /started/);
    assert.throws(() => process.kill(-r.processGroupId, 0), { code: "ESRCH" });
    assert.deepEqual(processesWithMarker(r.runId), []);
    // The run's cgroups, where there are any, are drained and removed before the run returns.
    for (const parent of [sandbox.cgroups.memoryParent, sandbox.cgroups.pidsParent]) {
      if (parent)
        assert.deepEqual(
          readdirSync(parent).filter((e) => e.endsWith(`-${r.runId}`)),
          [],
        );
    }
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
});

test("memory and file-size limits apply inside the sandbox", async () => {
  const { sandbox } = benchSetup();
  const { dir, outer } = tempTask({
    "limits.py": [
      "try:",
      "    b = bytearray(3 * 1024 * 1024 * 1024); print('mem:allowed')",
      "except MemoryError:",
      "    print('mem:blocked')",
      "try:",
      "    open('/tmp/big.bin', 'wb').write(b'x' * (32 * 1024 * 1024)); print('fsize:allowed')",
      "except OSError:",
      "    print('fsize:blocked')",
      "",
    ].join("\n"),
  });
  try {
    const r = await runInSandbox(sandbox, { taskDir: dir, argv: ["python", "limits.py"], timeoutMs: 30_000 });
    assert.match(r.stdout, /mem:blocked/);
    assert.match(r.stdout, /fsize:blocked/);
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
});

test("the process limit holds against a fork bomb (pids cgroup where available)", async (t) => {
  const { sandbox } = benchSetup();
  if (sandbox.processLimit === "rlimit-only") {
    t.skip("no writable pids cgroup here: only RLIMIT_NPROC, which Linux does not enforce for uid 0");
    return;
  }
  const { dir, outer } = tempTask({
    "bomb.py":
      "import os, time\nn = 0\nfor i in range(200):\n    try:\n        if os.fork() == 0:\n            time.sleep(5); os._exit(0)\n        n += 1\n    except OSError:\n        break\nprint('forked', n, flush=True)\nos._exit(0)\n",
  });
  try {
    const r = await runInSandbox(sandbox, { taskDir: dir, argv: ["python", "bomb.py"], timeoutMs: 20_000 });
    const n = Number(/forked (\d+)/.exec(r.stdout)?.[1] ?? "-1");
    assert.ok(n >= 0 && n < DEFAULT_SANDBOX_LIMITS.maxProcesses, `forked ${n}`);
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
});

test("without bwrap on PATH the sandbox refuses to start (never runs unsandboxed)", () => {
  const { sandbox } = benchSetup();
  const saved = process.env.PATH;
  process.env.PATH = "/nonexistent";
  try {
    const r = createSandboxConfig(sandbox.python, DEFAULT_SANDBOX_LIMITS);
    assert.equal(r.ok, false);
    assert.equal(r.ok ? "" : r.error, "sandbox_unavailable");
  } finally {
    process.env.PATH = saved;
  }
});

test("a sandbox whose bwrap cannot start fails the self-test with a clear code", async () => {
  const { sandbox } = benchSetup();
  const r = await sandboxSelfTest({ ...sandbox, bwrapPath: "/usr/bin/false" });
  assert.equal(r.ok, false);
  assert.equal(r.ok ? "" : r.error, "sandbox_self_test_failed");
});
