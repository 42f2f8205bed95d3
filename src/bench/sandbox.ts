// The bubblewrap sandbox in which every program under test runs. Trusted core, hand-written
// on purpose: it is the one place that decides what untrusted Python can see and do.
//
// Inside: read-only binds of the system (/usr and the /bin,/lib,... links) and of the real
// Python prefix, a fresh writable task folder at /task, a private /tmp, no network and no
// other namespaces shared (--unshare-all), every capability dropped (as root without it,
// code inside could remount the read-only binds writable), a clean environment,
// --die-with-parent, and prlimit limits. Outside: the run is its own process group (and
// session), killed as a whole on timeout; optionally a pids cgroup caps the process count.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { err, ok, type Result } from "../lab/result.ts";
import type { BenchErrorCode } from "./errorCodes.ts";
import type { PythonRuntime } from "./pythonRuntime.ts";
import type { SandboxLimits } from "./sandboxLimits.ts";

/** Where the task folder appears inside the sandbox. */
export const SANDBOX_TASK_DIR = "/task";

export type ProcessLimitMechanism = "cgroup-v1-pids" | "rlimit-only";

export interface SandboxConfig {
  readonly bwrapPath: string;
  readonly prlimitPath: string;
  readonly python: PythonRuntime;
  readonly limits: SandboxLimits;
  readonly processLimit: ProcessLimitMechanism;
}

export interface SandboxRunRequest {
  /** Host path of the task folder; bound writable at /task. */
  readonly taskDir: string;
  /** Program and arguments inside the sandbox; argv[0] "python" means the resolved interpreter. */
  readonly argv: readonly string[];
  /** Overrides limits.timeoutMs (tests inject short timeouts; the agent's remaining time may be shorter). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface SandboxRunResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly elapsedMs: number;
  /** Host process group id of the run (killed as a whole on timeout). */
  readonly processGroupId: number;
  /** Random id set as SANDBOX_RUN_ID inside, so tests can prove no process survived. */
  readonly runId: string;
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

const CGROUP_V1_PIDS = "/sys/fs/cgroup/pids";

function cgroupV1PidsUsable(): boolean {
  const probe = join(CGROUP_V1_PIDS, `tca-probe-${randomBytes(6).toString("hex")}`);
  try {
    mkdirSync(probe);
    writeFileSync(join(probe, "pids.max"), "8");
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

/** Finds bwrap and prlimit and decides the process-limit mechanism. Does not run anything. */
export function createSandboxConfig(python: PythonRuntime, limits: SandboxLimits): Result<SandboxConfig, BenchErrorCode> {
  const bwrapPath = findOnPath("bwrap");
  if (!bwrapPath) {
    return err("sandbox_unavailable", "bubblewrap (bwrap) is not installed; install the 'bubblewrap' package. The benchmark never runs tests unsandboxed.");
  }
  const prlimitPath = findOnPath("prlimit");
  if (!prlimitPath || !prlimitPath.startsWith("/usr/")) {
    return err("sandbox_unavailable", "prlimit (util-linux) was not found under /usr; it applies the resource limits inside the sandbox");
  }
  if (!python.executable.startsWith(python.prefix + "/") && !python.executable.startsWith("/usr/")) {
    return err("sandbox_unavailable", "the Python interpreter does not live under its prefix or /usr");
  }
  return ok({ bwrapPath, prlimitPath, python, limits, processLimit: cgroupV1PidsUsable() ? "cgroup-v1-pids" : "rlimit-only" });
}

/** Read-only binds of the system directories, mirroring how this host lays them out. */
function systemBindArgs(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const top of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    if (!existsSync(top)) continue;
    const st = lstatSync(top);
    if (st.isSymbolicLink()) {
      args.push("--symlink", readlinkSync(top), top);
    } else if (st.isDirectory()) {
      args.push("--ro-bind", top, top);
    }
  }
  return args;
}

export function sandboxEnvironment(config: SandboxConfig, runId: string): Record<string, string> {
  return {
    PATH: `${config.python.prefix}/bin:/usr/bin:/bin`,
    HOME: SANDBOX_TASK_DIR,
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONHASHSEED: "0",
    PYTHONNOUSERSITE: "1",
    // Auto-loaded plugins cost about 0.85 s per run and are host state the tests must not see.
    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1",
    SANDBOX_RUN_ID: runId,
  };
}

export function bwrapArguments(config: SandboxConfig, taskDir: string, argv: readonly string[], runId: string): string[] {
  const args = [
    "--unshare-all",
    "--cap-drop", "ALL",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    ...systemBindArgs(),
  ];
  if (!config.python.prefix.startsWith("/usr/") && config.python.prefix !== "/usr") {
    args.push("--ro-bind", config.python.prefix, config.python.prefix);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", taskDir, SANDBOX_TASK_DIR, "--chdir", SANDBOX_TASK_DIR);
  for (const [key, value] of Object.entries(sandboxEnvironment(config, runId))) {
    args.push("--setenv", key, value);
  }
  const l = config.limits;
  const program = argv[0] === "python" ? config.python.executable : (argv[0] ?? "");
  args.push(
    "--",
    config.prlimitPath,
    `--cpu=${l.cpuSeconds}`,
    `--as=${l.addressSpaceBytes}`,
    `--nproc=${l.maxProcesses}`,
    `--fsize=${l.fileSizeBytes}`,
    `--nofile=${l.openFiles}`,
    "--",
    program,
    ...argv.slice(1),
  );
  return args;
}

/** Keeps the last `max` bytes of a stream. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.max && this.chunks.length > 1) {
      const first = this.chunks.shift();
      if (first) this.size -= first.length;
    }
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString("utf8");
  }
}

function createPidsCgroup(config: SandboxConfig, runId: string): string | undefined {
  if (config.processLimit !== "cgroup-v1-pids") return undefined;
  const dir = join(CGROUP_V1_PIDS, `tca-${runId}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, "pids.max"), String(config.limits.maxProcesses));
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * Empties and removes a run's cgroup. When bwrap exits, the PID namespace is torn down
 * asynchronously, so members can linger for a moment: kill whatever is left, wait until the
 * cgroup is empty (bounded), then remove it. Resolving only afterwards also means no process of
 * the run outlives runInSandbox.
 */
async function drainAndRemoveCgroup(dir: string | undefined): Promise<void> {
  if (!dir) return;
  for (let attempt = 0; attempt < 500; attempt++) {
    let members: number[];
    try {
      members = readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter((l) => l !== "").map(Number);
    } catch {
      return;
    }
    if (members.length === 0) {
      try {
        rmdirSync(dir);
      } catch {
        // Still busy: try again below.
        await new Promise((r) => setTimeout(r, 10));
        continue;
      }
      return;
    }
    for (const pid of members) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs argv inside a fresh sandbox bound to taskDir. Never runs anything unsandboxed. */
export function runInSandbox(config: SandboxConfig, request: SandboxRunRequest): Promise<SandboxRunResult> {
  const runId = randomBytes(8).toString("hex");
  const timeoutMs = request.timeoutMs ?? config.limits.timeoutMs;
  if (!statSync(request.taskDir).isDirectory()) {
    throw new Error("task folder missing");
  }
  const bwrapArgs = bwrapArguments(config, request.taskDir, request.argv, runId);
  const cgroup = createPidsCgroup(config, runId);
  // With a cgroup, a tiny shell joins it first and then becomes bwrap, so every process of
  // the run is counted from the start.
  const [command, args] = cgroup
    ? ["/bin/sh", ["-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup, config.bwrapPath, ...bwrapArgs]]
    : [config.bwrapPath, bwrapArgs];
  const started = performance.now();
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { detached: true, stdio: ["ignore", "pipe", "pipe"], env: {} });
    const pgid = child.pid ?? -1;
    const stdout = new TailBuffer(config.limits.outputMaxBytes);
    const stderr = new TailBuffer(config.limits.outputMaxBytes);
    child.stdout.on("data", (c: Buffer) => stdout.push(c));
    child.stderr.on("data", (c: Buffer) => stderr.push(c));
    let timedOut = false;
    let aborted = false;
    const killGroup = (): void => {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    request.signal?.addEventListener("abort", onAbort, { once: true });
    if (request.signal?.aborted) onAbort();
    let spawnError: string | undefined;
    child.on("error", (e) => {
      spawnError = e.message;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
      // Whatever is left of the group (nothing, normally: the pid namespace dies with bwrap).
      killGroup();
      void drainAndRemoveCgroup(cgroup).then(() => resolvePromise({
        exitCode: code,
        signal: signal ?? null,
        timedOut,
        aborted,
        stdout: stdout.text(),
        stderr: spawnError ? `${stderr.text()}\n${spawnError}` : stderr.text(),
        elapsedMs: performance.now() - started,
        processGroupId: pgid,
        runId,
      }));
    });
  });
}

/** Whether a quick bwrap invocation works at all (used by the self-test for a clear message). */
export function bwrapStarts(config: SandboxConfig): boolean {
  const r = spawnSync(config.bwrapPath, ["--unshare-all", "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr", ...systemBindArgs().slice(3), "--", "/usr/bin/true"], { timeout: 30_000 });
  return r.status === 0;
}
