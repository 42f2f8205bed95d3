// Before any benchmark work, prove the sandbox holds: a probe program inside it tries to open
// a network connection, write outside its task folder or into it (read-only), read a file
// placed next to the task folder on the host, ptrace the sandbox's init, and reports its
// capabilities, environment and the sizes of its writable tmpfs. Every attempt must fail and
// every cap must be in place (the whole-run memory and process caps need a per-run cgroup; the
// rlimit-only fallback must be chosen explicitly with TCA_SANDBOX_ALLOW_RLIMIT_ONLY=1). If
// bwrap is missing or any check fails, the benchmark stops with a clear error naming the check.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { bwrapStarts, runInSandbox, sandboxEnvironment, type SandboxConfig } from "./sandbox.ts";

/** The probe: each check prints "name=blocked" or "name=ESCAPED:<detail>". Static text, trusted. */
export const ESCAPE_PROBE_PY = `import os, socket, sys
def attempt(name, fn):
    try:
        fn()
        print(name + "=ESCAPED")
    except Exception as e:
        print(name + "=blocked:" + type(e).__name__)
def net_tcp():
    s = socket.create_connection(("1.1.1.1", 53), timeout=2); s.close()
def net_loopback_listen_then_host():
    # Loopback exists only inside the new network namespace; reaching a host service fails.
    s = socket.create_connection(("127.0.0.1", int(sys.argv[3])), timeout=2); s.close()
def write_usr():
    open("/usr/tca-escape-probe", "w").write("x")
def write_prefix():
    open(os.path.join(sys.prefix, "tca-escape-probe"), "w").write("x")
def write_host_path():
    open(sys.argv[1] + ".written-from-sandbox", "w").write("x")
def read_host_file():
    open(sys.argv[1]).read()
def read_host_home():
    open(sys.argv[2]).read()
def write_task():
    open("/task/tca-escape-probe", "w").write("x")
def ptrace_init():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, 1, 0, 0) == 0:  # PTRACE_ATTACH to the sandbox's init
        return
    raise PermissionError("errno %d" % ctypes.get_errno())
def raw_call(nr_x64, nr_arm64, *args):
    # A raw syscall by this machine's number (elsewhere nothing to try: no seccomp table either).
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    nr = {"x86_64": nr_x64, "aarch64": nr_arm64}.get(os.uname().machine)
    if nr is None:
        raise PermissionError("unknown machine")
    if libc.syscall(nr, *args) >= 0:
        return
    raise PermissionError("errno %d" % ctypes.get_errno())
def pidfd_getfd_init():
    # A copy of init's stdout (Node's end of the run's output) past the processes' own.
    import ctypes
    pidfd = ctypes.CDLL(None, use_errno=True).syscall(434, 1, 0)
    if pidfd < 0:
        raise PermissionError("no pidfd")
    raw_call(438, 438, pidfd, 1, 0)
def tmpfs_size(path, limit):
    st = os.statvfs(path)
    if st.f_blocks * st.f_frsize <= limit:
        raise PermissionError("capped")
def cap_check():
    caps = [l for l in open("/proc/self/status") if l.startswith("CapEff:")][0].split()[1]
    if int(caps, 16) != 0:
        return
    raise PermissionError("no capabilities")
attempt("net_tcp", net_tcp)
attempt("net_host_loopback", net_loopback_listen_then_host)
attempt("write_usr", write_usr)
attempt("write_python_prefix", write_prefix)
attempt("write_host_path", write_host_path)
attempt("read_host_file", read_host_file)
attempt("read_host_home", read_host_home)
attempt("capabilities", cap_check)
attempt("write_task", write_task)
attempt("ptrace_init", ptrace_init)
attempt("pidfd_getfd_init", pidfd_getfd_init)
attempt("keyring", lambda: raw_call(248, 217, b"user", b"tca-escape-probe", b"x", 1, -3))
attempt("posix_mqueue", lambda: raw_call(240, 180, b"tca-escape-probe", os.O_CREAT | os.O_RDWR, 0o600, None))
attempt("tmp_size", lambda: tmpfs_size("/tmp", int(sys.argv[4])))
attempt("shm_size", lambda: tmpfs_size("/dev/shm", int(sys.argv[5])))
print("env=" + ",".join(sorted(os.environ)))
`;

export interface ProbeReport {
  readonly checks: Readonly<Record<string, string>>;
  readonly envKeys: readonly string[];
  readonly escaped: readonly string[];
}

export function parseProbeOutput(stdout: string): ProbeReport {
  const checks: Record<string, string> = {};
  let envKeys: string[] = [];
  for (const line of stdout.split("\n")) {
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === "env") envKeys = value.split(",").filter((k) => k !== "");
    else checks[key] = value;
  }
  const escaped = Object.entries(checks)
    .filter(([, v]) => !v.startsWith("blocked"))
    .map(([k]) => k);
  return { checks, envKeys, escaped };
}

export interface ProbeTargets {
  /** A host file outside the task folder (must be unreadable, and no file may appear next to it). */
  readonly hostFile: string;
  /** A file in the host user's home (must be unreadable). */
  readonly homeFile: string;
  /** A TCP port listening on the host's loopback (must be unreachable). */
  readonly hostPort: number;
}

/** Runs the probe in a fresh task folder and reports what happened. */
export async function runEscapeProbe(
  config: SandboxConfig,
  targets: ProbeTargets,
): Promise<ProbeReport & { exitCode: number | null; stderr: string }> {
  const work = mkdtempSync(join(tmpdir(), "tca-probe-"));
  try {
    const taskDir = join(work, "task");
    mkdirSync(taskDir);
    writeFileSync(join(taskDir, "probe.py"), ESCAPE_PROBE_PY);
    const result = await runInSandbox(config, {
      taskDir,
      argv: [
        "python",
        "probe.py",
        targets.hostFile,
        targets.homeFile,
        String(targets.hostPort),
        String(config.limits.tmpBytes),
        String(config.limits.shmBytes),
      ],
      timeoutMs: 30_000,
    });
    return { ...parseProbeOutput(result.stdout), exitCode: result.exitCode, stderr: result.stderr };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export const EXPECTED_CHECKS = [
  "net_tcp",
  "net_host_loopback",
  "write_usr",
  "write_python_prefix",
  "write_host_path",
  "read_host_file",
  "read_host_home",
  "capabilities",
  "write_task",
  "ptrace_init",
  "pidfd_getfd_init",
  "keyring",
  "posix_mqueue",
  "tmp_size",
  "shm_size",
];

/** The explicit opt-in to run without whole-run caps (documented fallback; recorded as rlimit-only). */
export const ALLOW_RLIMIT_ONLY_ENV = "TCA_SANDBOX_ALLOW_RLIMIT_ONLY";

/** Caps that cannot be applied on this machine, named (empty when all can). */
export function missingCaps(config: SandboxConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  const missing: string[] = [];
  if (config.processLimit === "rlimit-only" && env[ALLOW_RLIMIT_ONLY_ENV] !== "1") {
    missing.push(
      `whole-run memory and process caps (${config.cgroups.reason ?? "no usable cgroup"}; set ${ALLOW_RLIMIT_ONLY_ENV}=1 to run with per-process rlimits only)`,
    );
  }
  if (!config.seccomp) missing.push(`the ptrace filter (no seccomp syscall table for ${process.arch})`);
  return missing;
}

/** The self-test run before verify-dataset and every benchmark. */
export async function sandboxSelfTest(config: SandboxConfig): Promise<Result<ProbeReport, BenchErrorCode>> {
  const missing = missingCaps(config);
  if (missing.length > 0) {
    return err("sandbox_self_test_failed", `a sandbox cap cannot be applied here: ${missing.join("; ")}`);
  }
  if (!bwrapStarts(config)) {
    return err(
      "sandbox_self_test_failed",
      "bubblewrap is installed but cannot create a sandbox here (user namespaces disabled, or not allowed in this container)",
    );
  }
  const work = mkdtempSync(join(tmpdir(), "tca-selftest-"));
  try {
    const hostFile = join(work, "host-secret.txt");
    writeFileSync(hostFile, "secret");
    // The self-test does not touch the real home; the escape tests do (test/bench).
    const report = await runEscapeProbe(config, { hostFile, homeFile: hostFile, hostPort: 9 });
    const missing = EXPECTED_CHECKS.filter((c) => !(c in report.checks));
    if (missing.length > 0) {
      return err("sandbox_self_test_failed", `the sandbox probe did not run (missing checks: ${missing.join(", ")})`);
    }
    if (report.escaped.length > 0) {
      return err("sandbox_self_test_failed", `the sandbox let the probe through: ${report.escaped.join(", ")}`);
    }
    const allowed = new Set([...Object.keys(sandboxEnvironment(config, "x")), "PWD", "SHLVL", "_", "LC_CTYPE"]);
    const extra = report.envKeys.filter((k) => !allowed.has(k));
    if (extra.length > 0) {
      return err("sandbox_self_test_failed", `the sandbox environment is not clean: ${extra.join(", ")}`);
    }
    return ok(report);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
