// The bubblewrap sandbox in which every program under test runs. Trusted core, hand-written
// on purpose: it is the one place that decides what untrusted Python can see and do.
//
// Inside: read-only binds of the system (/usr and the /bin,/lib,... links) and of the real
// Python prefix, the task folder READ-ONLY at /task (tests, data, runner and the file under
// test alike: nothing a program writes can change what is graded), size-capped tmpfs at /tmp
// and /dev/shm (the only writable places), no network and no other namespaces shared
// (--unshare-all), every capability dropped (as root without it, code inside could remount the
// read-only binds writable), a seccomp filter refusing ptrace, a clean environment,
// --die-with-parent, and prlimit limits. Outside: the run is its own process group (and
// session), killed as a whole on timeout, inside its own memory + pids cgroup (sandboxCgroups.ts)
// so that the memory and process caps hold for the whole run.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readlinkSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { pytestSiteDirs, type PythonRuntime } from "./pythonRuntime.ts";
import type { SandboxLimits } from "./sandboxLimits.ts";
import {
  cleanupStaleCgroups,
  createRunCgroups,
  detectCgroupSupport,
  drainAndRemoveCgroups,
  readCgroupCpuMicros,
  readCgroupReport,
  type CgroupSupport,
  type RunCgroups,
} from "./sandboxCgroups.ts";
import { seccompFilterBytes } from "./seccompFilter.ts";

/** Where the task folder appears inside the sandbox. */
export const SANDBOX_TASK_DIR = "/task";
/** The file descriptor on which bwrap reads the seccomp filter. */
const SECCOMP_FD = 3;

/** How the whole-run caps are applied: per-run cgroups, or (fallback) per-process rlimits only. */
export type ProcessLimitMechanism = "cgroup-v1" | "cgroup-v2" | "rlimit-only";

export interface SandboxConfig {
  readonly bwrapPath: string;
  readonly prlimitPath: string;
  readonly python: PythonRuntime;
  readonly limits: SandboxLimits;
  readonly processLimit: ProcessLimitMechanism;
  readonly cgroups: CgroupSupport;
  /** The compiled seccomp filter (undefined on a machine without a known syscall table). */
  readonly seccomp: Buffer | undefined;
}

export interface SandboxRunRequest {
  /** Host path of the task folder; bound read-only at /task. */
  readonly taskDir: string;
  /** Bytes of stdout kept (the head, for result channels); default limits.outputMaxBytes (the tail). */
  readonly stdoutHeadBytes?: number;
  /** Program and arguments inside the sandbox; argv[0] "python" means the resolved interpreter. */
  readonly argv: readonly string[];
  /** Bind pytest's own packages back into the masked site-packages (a pytest run; never a grading run). */
  readonly pytest?: boolean;
  /** Overrides limits.timeoutMs (tests inject short timeouts; the agent's remaining time may be shorter). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * Budgets measured on the run's CPU time from its cgroup (see RunWatch); used only where the
   * sandbox keeps that count (cpuAccounting(config)), otherwise ignored.
   */
  readonly watch?: RunWatch;
}

/**
 * Watches a run from outside it, on the run's CPU time as the kernel counts it for the run's
 * cgroup (every process, exited ones included). Nothing inside the sandbox can stop or slow
 * this (it runs in this Node process); a stop it asks for SIGKILLs the run's process group.
 */
export interface RunWatch {
  /** Each stdout chunk, with the run's CPU time (microseconds) and wall time (ms) when it arrived. */
  onStdout(chunk: Buffer, cpuMicros: number, wallMs?: number): void;
  /** Every WATCH_INTERVAL_MS: a reason string stops the run (recorded as stoppedBy). */
  tick(cpuMicros: number, wallMs: number): string | undefined;
  /**
   * What the run reads on its stdin, where the watch feeds it (else stdin is /dev/null, as for
   * every other run): `first` written as the run starts, then, once, the bytes `next` returns
   * after a stdout chunk (asked after each), after which stdin is closed. Node's end of a stdio
   * pipe is a socket, so nothing inside can reopen it through /proc to write into it.
   */
  readonly stdin?: { readonly first: Buffer; next(): Buffer | undefined } | undefined;
}

/** How often a RunWatch is asked (wall clock; what it decides on is CPU time). */
export const WATCH_INTERVAL_MS = 25;

/** Whether runs in this sandbox keep a CPU-time count from their cgroup (cpu.stat / cpuacct.usage). */
export function cpuAccounting(config: SandboxConfig): boolean {
  return config.cgroups.mechanism !== "none" && config.cgroups.cpuParent !== undefined;
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
  /** stdout went past what is kept (stdoutHeadBytes mode: the rest was dropped). */
  readonly stdoutTruncated: boolean;
  /** Whole-run caps that were reached (from the run's cgroups), and the run's memory peak. */
  readonly limitsHit: readonly ("memory" | "pids")[];
  readonly peakMemoryBytes: number | null;
  /** CPU time of the whole run in seconds, from its cgroup (null where none is kept). */
  readonly cpuSeconds: number | null;
  /** What the request's RunWatch stopped the run for (null when it did not). */
  readonly stoppedBy: string | null;
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds bwrap and prlimit, decides the cap mechanism (and removes the groups that SIGKILLed
 * earlier runs left behind). Does not run anything; the self-test decides whether it may run.
 */
export function createSandboxConfig(
  python: PythonRuntime,
  limits: SandboxLimits,
): Result<SandboxConfig, BenchErrorCode> {
  const bwrapPath = findOnPath("bwrap");
  if (!bwrapPath) {
    return err(
      "sandbox_unavailable",
      "bubblewrap (bwrap) is not installed; install the 'bubblewrap' package. The benchmark never runs tests unsandboxed.",
    );
  }
  const prlimitPath = findOnPath("prlimit");
  if (!prlimitPath || !prlimitPath.startsWith("/usr/")) {
    return err(
      "sandbox_unavailable",
      "prlimit (util-linux) was not found under /usr; it applies the resource limits inside the sandbox",
    );
  }
  if (!python.executable.startsWith(python.prefix + "/") && !python.executable.startsWith("/usr/")) {
    return err("sandbox_unavailable", "the Python interpreter does not live under its prefix or /usr");
  }
  const cgroups = detectCgroupSupport();
  if (cgroups.mechanism !== "none") cleanupStaleCgroups(cgroups);
  const processLimit: ProcessLimitMechanism = cgroups.mechanism === "none" ? "rlimit-only" : cgroups.mechanism;
  return ok({ bwrapPath, prlimitPath, python, limits, processLimit, cgroups, seccomp: seccompFilterBytes() });
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

export function bwrapArguments(
  config: SandboxConfig,
  taskDir: string,
  argv: readonly string[],
  runId: string,
  pytest = false,
): string[] {
  const args = [
    "--unshare-all",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    ...systemBindArgs(),
  ];
  if (!config.python.prefix.startsWith("/usr/") && config.python.prefix !== "/usr") {
    args.push("--ro-bind", config.python.prefix, config.python.prefix);
  }
  args.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(config.limits.shmBytes),
    "--tmpfs",
    "/dev/shm",
    "--size",
    String(config.limits.tmpBytes),
    "--tmpfs",
    "/tmp",
    "--ro-bind",
    taskDir,
    SANDBOX_TASK_DIR,
    "--chdir",
    SANDBOX_TASK_DIR,
  );
  // The site-packages folder(s) pytest lives in are masked by an empty read-only tmpfs in every
  // run, so a program that puts them back on sys.path still finds nothing there (numpy
  // included); a pytest run gets pytest's own packages bound back at their own paths, so its
  // tracebacks and sys.path read as before.
  const siteDirs = pytestSiteDirs(config.python);
  for (const dir of siteDirs) args.push("--size", String(64 * 1024), "--tmpfs", dir);
  if (pytest) for (const path of config.python.pytestPaths) args.push("--ro-bind", path, path);
  for (const dir of siteDirs) args.push("--remount-ro", dir);
  if (config.seccomp) args.push("--seccomp", String(SECCOMP_FD));
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

/** Keeps the first `max` bytes of a stream (a result channel: a cut tail is detected). */
class HeadBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    const room = this.max - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** Keeps the last `max` bytes of a stream. */
class TailBuffer {
  truncated = false;
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.max) this.truncated = true;
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

/**
 * A tiny shell starts every run: it closes every file descriptor it inherited beyond stdio and
 * the seccomp pipe (a parent may leak descriptors without close-on-exec, and bwrap passes them
 * all into the sandbox), joins the run's groups, so that every process of the run is counted
 * from the start (the group's memory includes the tmpfs pages the run writes), and then becomes
 * bwrap. bash, for multi-digit descriptors; without it, /bin/sh only joins the groups.
 */
function launcherCommand(
  groups: RunCgroups | undefined,
  keepSeccompFd: boolean,
  bwrapPath: string,
  bwrapArgs: readonly string[],
): [string, string[]] {
  const dirs = groups?.dirs ?? [];
  const joins = dirs.map((_, i) => `echo $$ > "$${i + 1}/cgroup.procs" && `).join("");
  const keep = keepSeccompFd ? `0|1|2|${SECCOMP_FD}` : "0|1|2";
  const bash = existsSync("/bin/bash");
  const close = bash
    ? `for f in /proc/$$/fd/*; do n=\${f##*/}; case $n in ${keep}) ;; *) eval "exec $n>&-" 2>/dev/null ;; esac; done; `
    : "";
  // --norc: bash reads ~/.bashrc even non-interactively when its stdin is a socket (it takes
  // that for rshd), and a run whose watch feeds its stdin gets Node's end of a socket pair there.
  return [
    bash ? "/bin/bash" : "/bin/sh",
    [
      ...(bash ? ["--norc"] : []),
      "-c",
      `${close}${joins}shift ${dirs.length} && exec "$@"`,
      "launcher",
      ...dirs,
      bwrapPath,
      ...bwrapArgs,
    ],
  ];
}

/** Runs argv inside a fresh sandbox bound to taskDir. Never runs anything unsandboxed. */
export function runInSandbox(config: SandboxConfig, request: SandboxRunRequest): Promise<SandboxRunResult> {
  const runId = randomBytes(8).toString("hex");
  const timeoutMs = request.timeoutMs ?? config.limits.timeoutMs;
  if (!statSync(request.taskDir).isDirectory()) {
    throw new Error("task folder missing");
  }
  const bwrapArgs = bwrapArguments(config, request.taskDir, request.argv, runId, request.pytest ?? false);
  const cgroups =
    config.cgroups.mechanism === "none"
      ? undefined
      : createRunCgroups(config.cgroups, runId, {
          memoryBytes: config.limits.memoryBytes,
          maxProcesses: config.limits.maxProcesses,
        });
  if (config.cgroups.mechanism !== "none" && !cgroups) {
    // The caps were promised by the self-test; a run without them never starts.
    throw new Error("the run's cgroup could not be created");
  }
  const [command, args] = launcherCommand(cgroups, config.seccomp !== undefined, config.bwrapPath, bwrapArgs);
  const started = performance.now();
  return new Promise((resolvePromise) => {
    const watch = request.watch && cgroups?.cpuFile ? request.watch : undefined;
    const feed = watch?.stdin;
    const child = spawn(command, args, {
      detached: true,
      stdio: [feed ? "pipe" : "ignore", "pipe", "pipe", config.seccomp ? "pipe" : "ignore"],
      env: {},
    });
    const stdin = feed ? child.stdin : null;
    let fed = false;
    if (stdin && feed) {
      stdin.on("error", () => undefined); // the run ended before reading it: its result says so
      stdin.write(feed.first);
    }
    const seccompPipe = child.stdio[SECCOMP_FD];
    if (config.seccomp && seccompPipe && "end" in seccompPipe) {
      seccompPipe.on("error", () => undefined); // bwrap failed before reading it: reported below
      seccompPipe.end(config.seccomp);
    }
    const pgid = child.pid ?? -1;
    const stdout =
      request.stdoutHeadBytes !== undefined
        ? new HeadBuffer(request.stdoutHeadBytes)
        : new TailBuffer(config.limits.outputMaxBytes);
    const stderr = new TailBuffer(config.limits.outputMaxBytes);
    const cpuNow = (): number => readCgroupCpuMicros(cgroups) ?? 0;
    let stoppedBy: string | null = null;
    child.stdout?.on("data", (c: Buffer) => {
      stdout.push(c);
      watch?.onStdout(c, cpuNow(), performance.now() - started);
      if (stdin && feed && !fed) {
        const more = feed.next();
        if (more) {
          fed = true;
          stdin.end(more);
        }
      }
    });
    child.stderr?.on("data", (c: Buffer) => stderr.push(c));
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
    const watcher = watch
      ? setInterval(() => {
          if (stoppedBy !== null || timedOut || aborted) return;
          const why = watch.tick(cpuNow(), performance.now() - started);
          if (why !== undefined) {
            stoppedBy = why;
            killGroup();
          }
        }, WATCH_INTERVAL_MS)
      : undefined;
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
      if (watcher) clearInterval(watcher);
      request.signal?.removeEventListener("abort", onAbort);
      stdin?.destroy();
      // Whatever is left of the group (nothing, normally: the pid namespace dies with bwrap).
      killGroup();
      const report = cgroups ? readCgroupReport(cgroups) : { limitsHit: [], peakMemoryBytes: null };
      const cpuMicros = readCgroupCpuMicros(cgroups);
      void drainAndRemoveCgroups(cgroups).then(() =>
        resolvePromise({
          exitCode: code,
          signal: signal ?? null,
          timedOut,
          aborted,
          stdout: stdout.text(),
          stderr: spawnError ? `${stderr.text()}\n${spawnError}` : stderr.text(),
          elapsedMs: performance.now() - started,
          processGroupId: pgid,
          runId,
          stdoutTruncated: stdout.truncated,
          limitsHit: report.limitsHit,
          peakMemoryBytes: report.peakMemoryBytes,
          cpuSeconds: cpuMicros === undefined ? null : cpuMicros / 1e6,
          stoppedBy,
        }),
      );
    });
  });
}

/** Whether a quick bwrap invocation works at all (used by the self-test for a clear message). */
export function bwrapStarts(config: SandboxConfig): boolean {
  const r = spawnSync(
    config.bwrapPath,
    [
      "--unshare-all",
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/usr",
      "/usr",
      ...systemBindArgs().slice(3),
      "--",
      "/usr/bin/true",
    ],
    { timeout: 30_000 },
  );
  return r.status === 0;
}
