// Whole-run caps, tried as an attacker would: memory spread over several children, tmpfs and
// /dev/shm fillers, a /task filler, a fork bomb, a ptrace of the sandbox's init. Each run ends
// within its limit, the limit reached is recorded, and no process or cgroup of the run is left.
// Also: groups left by a SIGKILLed owner are removed at the next start, and the self-test names
// every cap it cannot apply.
import { test } from "node:test";
import { sandboxPackages } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInSandbox, type SandboxConfig, type SandboxRunResult } from "../../src/bench/sandbox/sandbox.ts";
import { cleanupStaleCgroups, processStartTime } from "../../src/bench/sandbox/sandboxCgroups.ts";
import { missingCaps, sandboxSelfTest } from "../../src/bench/sandbox/sandboxSelfTest.ts";
import { seccompFilterBytes } from "../../src/bench/sandbox/seccompFilter.ts";
import { benchSetup } from "./benchFixtures.ts";

const MiB = 1024 * 1024;

async function runScript(sandbox: SandboxConfig, script: string, timeoutMs = 30_000): Promise<SandboxRunResult> {
  const outer = mkdtempSync(join(tmpdir(), "tca-caps-"));
  try {
    const dir = join(outer, "task");
    mkdirSync(dir);
    writeFileSync(join(dir, "attack.py"), script);
    return await runInSandbox(sandbox, { taskDir: dir, argv: ["python", "attack.py"], timeoutMs });
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
}

/** Nothing of the run survives it: no process carrying its marker, no group named after it. */
function assertNothingLeft(sandbox: SandboxConfig, r: SandboxRunResult): void {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "latin1");
    } catch {
      continue;
    }
    assert.ok(!environ.includes(`SANDBOX_RUN_ID=${r.runId}`), `process ${entry} of the run survived`);
  }
  for (const parent of [sandbox.cgroups.memoryParent, sandbox.cgroups.pidsParent]) {
    if (parent)
      assert.deepEqual(
        readdirSync(parent).filter((e) => e.endsWith(`-${r.runId}`)),
        [],
      );
  }
}

test("this machine applies every cap (the self-test would refuse otherwise)", { skip: sandboxPackages().skip }, () => {
  const { sandbox } = benchSetup();
  assert.deepEqual(missingCaps(sandbox), []);
  assert.notEqual(sandbox.processLimit, "rlimit-only");
});

test(
  "a memory hog spread over three children is stopped by the run's memory cap, and it is recorded",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox: base } = benchSetup();
    const sandbox = { ...base, limits: { ...base.limits, memoryBytes: 256 * MiB } };
    // Each child stays under the per-process address-space limit; together they exceed the cap.
    const r = await runScript(
      sandbox,
      [
        "import os, time",
        "kids = []",
        "for i in range(3):",
        "    pid = os.fork()",
        "    if pid == 0:",
        "        b = bytearray(150 * 1024 * 1024)",
        "        for j in range(0, len(b), 4096): b[j] = 1",
        "        time.sleep(20); os._exit(0)",
        "    kids.append(pid)",
        "for pid in kids: os.waitpid(pid, 0)",
        "print('all children ended', flush=True)",
      ].join("\n"),
    );
    assert.equal(r.timedOut, false);
    assert.ok(r.limitsHit.includes("memory"), JSON.stringify(r.limitsHit));
    assert.ok((r.peakMemoryBytes ?? 0) <= 256 * MiB + MiB, String(r.peakMemoryBytes));
    assertNothingLeft(sandbox, r);
  },
);

test(
  "/tmp and /dev/shm fillers stop at their tmpfs size; /task cannot be written at all",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox: base } = benchSetup();
    const sandbox = { ...base, limits: { ...base.limits, tmpBytes: 8 * MiB, shmBytes: 4 * MiB } };
    const r = await runScript(
      sandbox,
      [
        "import errno",
        "def fill(d):",
        "    total = 0",
        "    try:",
        "        for i in range(1000):",
        "            with open('%s/f%d' % (d, i), 'wb') as f:",
        "                for k in range(8):",
        "                    f.write(b'x' * (1024 * 1024)); f.flush(); total += 1024 * 1024",
        "    except OSError as e:",
        "        return total, errno.errorcode.get(e.errno, str(e.errno))",
        "    return total, 'none'",
        "for d in ['/tmp', '/dev/shm', '/task']:",
        "    total, code = fill(d)",
        "    print(d, total, code, flush=True)",
      ].join("\n"),
    );
    const lines = new Map(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => {
          const [d, total, code] = l.split(" ");
          return [d ?? "", { total: Number(total), code }];
        }),
    );
    assert.equal(lines.get("/tmp")?.code, "ENOSPC");
    assert.ok((lines.get("/tmp")?.total ?? Infinity) <= 8 * MiB);
    assert.equal(lines.get("/dev/shm")?.code, "ENOSPC");
    assert.ok((lines.get("/dev/shm")?.total ?? Infinity) <= 4 * MiB);
    assert.deepEqual(lines.get("/task"), { total: 0, code: "EROFS" });
    assertNothingLeft(sandbox, r);
  },
);

test("a fork bomb stops at the run's process cap, and it is recorded", { skip: sandboxPackages().skip }, async () => {
  const { sandbox } = benchSetup();
  const r = await runScript(
    sandbox,
    "import os, time\nn = 0\nfor i in range(500):\n    try:\n        if os.fork() == 0:\n            time.sleep(5); os._exit(0)\n        n += 1\n    except OSError:\n        break\nprint('forked', n, flush=True)\nos._exit(0)\n",
    20_000,
  );
  const n = Number(/forked (\d+)/.exec(r.stdout)?.[1] ?? "-1");
  assert.ok(n >= 0 && n < sandbox.limits.maxProcesses, `forked ${n}`);
  assert.ok(r.limitsHit.includes("pids"));
  assertNothingLeft(sandbox, r);
});

test(
  "ptrace of the sandbox's init is refused at once (the run does not stall until the timeout)",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox } = benchSetup();
    const r = await runScript(
      sandbox,
      [
        "import ctypes, os",
        "libc = ctypes.CDLL(None, use_errno=True)",
        "rc = libc.ptrace(16, 1, 0, 0)", // PTRACE_ATTACH
        "print('attach', rc, ctypes.get_errno(), flush=True)",
        "rc = libc.ptrace(0, 0, 0, 0)", // PTRACE_TRACEME
        "print('traceme', rc, ctypes.get_errno(), flush=True)",
      ].join("\n"),
      20_000,
    );
    assert.equal(r.timedOut, false);
    assert.match(r.stdout, /^attach -1 1$/m); // EPERM
    assert.match(r.stdout, /^traceme -1 1$/m);
    assertNothingLeft(sandbox, r);
  },
);

test(
  "the other ways out of a run's processes are refused with EPERM: another process's descriptors (pidfd_getfd on init), kernel keyrings, POSIX message queues",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox } = benchSetup();
    // Each of these kept something past the candidate's processes or reached past the supervisor:
    // init's descriptors include Node's result channel; a key in the user keyring of the uid the
    // runs share outlives the run; a message queue outlives the processes of a grade's first phase.
    const r = await runScript(
      sandbox,
      [
        "import ctypes, os",
        "libc = ctypes.CDLL(None, use_errno=True)",
        "x64 = os.uname().machine == 'x86_64'",
        "def call(name, nr, *args):",
        "    ctypes.set_errno(0)",
        "    rc = libc.syscall(nr, *args)",
        "    print(name, -1 if rc < 0 else 'ok', ctypes.get_errno() if rc < 0 else 0, flush=True)",
        "pidfd = libc.syscall(434, 1, 0)", // pidfd_open(init): allowed, harmless on its own
        "print('pidfd_open', 'ok' if pidfd >= 0 else ctypes.get_errno(), flush=True)",
        "call('pidfd_getfd', 438, pidfd, 1, 0)",
        "call('add_key', 248 if x64 else 217, b'user', b'tca-probe', b'x', 1, -3)", // session keyring
        "call('request_key', 249 if x64 else 218, b'user', b'tca-probe', None, 0)",
        "call('keyctl', 250 if x64 else 219, 0, -3, 0)", // KEYCTL_GET_KEYRING_ID
        "call('mq_open', 240 if x64 else 180, b'tca-probe', os.O_CREAT | os.O_RDWR, 0o600, None)",
      ].join("\n"),
      20_000,
    );
    assert.equal(r.timedOut, false);
    assert.match(r.stdout, /^pidfd_open ok$/m);
    for (const name of ["pidfd_getfd", "add_key", "request_key", "keyctl", "mq_open"])
      assert.match(r.stdout, new RegExp(`^${name} -1 1$`, "m"), `${name} refused with EPERM\n${r.stdout}`);
    assertNothingLeft(sandbox, r);
  },
);

test("the seccomp filter is well-formed classic BPF for each supported machine, and absent elsewhere", () => {
  for (const machine of ["x64", "arm64"]) {
    const bytes = seccompFilterBytes(machine);
    assert.ok(bytes);
    assert.equal(bytes.length % 8, 0);
    // The last two instructions return ALLOW, then ERRNO(EPERM).
    assert.equal(bytes.readUInt16LE(bytes.length - 16), 0x06);
    assert.equal(bytes.readUInt32LE(bytes.length - 12), 0x7fff0000);
    assert.equal(bytes.readUInt32LE(bytes.length - 4), 0x00050001);
  }
  assert.equal(seccompFilterBytes("riscv64"), undefined);
});

test(
  "the self-test refuses, naming the cap, when the run caps or the ptrace filter cannot be applied",
  { skip: sandboxPackages().skip },
  async () => {
    const { sandbox } = benchSetup();
    const noCgroups: SandboxConfig = {
      ...sandbox,
      processLimit: "rlimit-only",
      cgroups: {
        mechanism: "none",
        memoryParent: undefined,
        pidsParent: undefined,
        reason: "no writable memory and pids cgroup",
      },
    };
    const r1 = await sandboxSelfTest(noCgroups);
    assert.equal(r1.ok, false);
    assert.equal(r1.ok ? "" : r1.error, "sandbox_self_test_failed");
    assert.match(r1.ok ? "" : r1.message, /whole-run memory and process caps/);
    assert.deepEqual(missingCaps(noCgroups, { TCA_SANDBOX_ALLOW_RLIMIT_ONLY: "1" }), []);
    const r2 = await sandboxSelfTest({ ...sandbox, seccomp: undefined });
    assert.equal(r2.ok, false);
    assert.match(r2.ok ? "" : r2.message, /ptrace filter/);
  },
);

test(
  "groups left behind by an owner that was SIGKILLed are removed (their processes killed) at the next start",
  { skip: sandboxPackages().skip },
  async (t) => {
    const { sandbox } = benchSetup();
    const parent = sandbox.cgroups.pidsParent;
    if (!parent || !sandbox.cgroups.memoryParent) {
      t.skip("no cgroups on this machine");
      return;
    }
    // An owner that is surely gone: a process that has already exited.
    const owner = spawn("/bin/true");
    const ownerPid = owner.pid ?? 0;
    const ownerStart = processStartTime(ownerPid) ?? "1";
    await new Promise((r) => owner.on("exit", r));
    const stale = join(parent, `tca-${ownerPid}-${ownerStart}-deadbeefdeadbeef`);
    mkdirSync(stale);
    const sleeper = spawn("/bin/sleep", ["60"], { stdio: "ignore" });
    const exited = new Promise((r) => sleeper.on("exit", r));
    writeFileSync(join(stale, "cgroup.procs"), String(sleeper.pid));
    // A live owner's group (this process) is left alone.
    const live = join(parent, `tca-${process.pid}-${processStartTime(process.pid) ?? "0"}-livelivelivelive`);
    mkdirSync(live);
    try {
      const removed = cleanupStaleCgroups(sandbox.cgroups);
      // A concurrent sandbox start in another test file may have removed it first: either way it is gone.
      assert.ok(removed.includes(stale) || !existsSync(stale), "the stale group was not removed");
      assert.equal(existsSync(stale), false);
      await exited;
      assert.equal(sleeper.killed || sleeper.exitCode !== null || sleeper.signalCode !== null, true);
      assert.equal(existsSync(live), true);
    } finally {
      sleeper.kill("SIGKILL");
      for (const dir of [live, stale]) {
        try {
          rmdirSync(dir);
        } catch {
          // Already removed.
        }
      }
    }
  },
);

test(
  "a harness SIGKILLed mid-run leaves its run's groups behind; the next start removes them",
  { skip: sandboxPackages().skip },
  async (t) => {
    const { sandbox } = benchSetup();
    const parents = [sandbox.cgroups.memoryParent, sandbox.cgroups.pidsParent].filter(
      (p): p is string => p !== undefined,
    );
    if (parents.length === 0) {
      t.skip("no cgroups on this machine");
      return;
    }
    const outer = mkdtempSync(join(tmpdir(), "tca-holder-"));
    const holder = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "sandboxHolder.ts"), outer], {
      stdio: "ignore",
    });
    const exited = new Promise((r) => holder.on("exit", r));
    const groupsOf = (pid: number): string[] =>
      parents.flatMap((p) =>
        readdirSync(p)
          .filter((e) => e.startsWith(`tca-${pid}-`))
          .map((e) => join(p, e)),
      );
    try {
      // Wait (bounded) until the holder's run is inside its groups.
      let groups: string[] = [];
      for (let i = 0; i < 600 && groups.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        groups = groupsOf(holder.pid ?? 0).filter((g) => readFileSync(join(g, "cgroup.procs"), "utf8").trim() !== "");
      }
      assert.ok(groups.length > 0, "the holder's run never started");
      holder.kill("SIGKILL");
      await exited;
      // The run died with its parent (--die-with-parent), but its harness did not remove its
      // groups. Another test file's sandbox start, running at the same time, may already have
      // removed them (the same cleanup this test calls); so: every group that is still there is
      // removed by this call, and none of the holder's groups is left afterwards.
      await new Promise((r) => setTimeout(r, 200));
      const left = groupsOf(holder.pid ?? 0);
      const removed = cleanupStaleCgroups(sandbox.cgroups);
      for (const g of left) assert.ok(removed.includes(g) || !existsSync(g), `${g} was left behind`);
      for (const g of groups) assert.equal(existsSync(g), false, `${g} was not removed`);
    } finally {
      holder.kill("SIGKILL");
      rmSync(outer, { recursive: true, force: true });
    }
  },
);

test(
  "no descriptor a parent leaked enters the sandbox: only stdio is open there",
  { skip: sandboxPackages().skip },
  async () => {
    const outer = mkdtempSync(join(tmpdir(), "tca-fdprobe-"));
    try {
      // fds 3, 4 and 5 of the helper are inherited pipes without close-on-exec.
      const helper = spawn(
        process.execPath,
        ["--import", "tsx", join(import.meta.dirname, "sandboxFdProbe.ts"), outer],
        { stdio: ["ignore", "pipe", "inherit", "pipe", "pipe", "pipe"] },
      );
      let out = "";
      helper.stdout?.on("data", (c: Buffer) => (out += c.toString("utf8")));
      await new Promise((r) => helper.on("exit", r));
      // 0-2 are stdio; the one more is the directory listing's own descriptor.
      const fds = out.trim().split(" ").map(Number);
      assert.equal(fds.length, 4, out);
      assert.deepEqual(fds.slice(0, 3), [0, 1, 2]);
    } finally {
      rmSync(outer, { recursive: true, force: true });
    }
  },
);
