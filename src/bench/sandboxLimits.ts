// Limits of one sandboxed test run. The 60-second wall-clock timeout is the spec's; the
// resource limits are this project's choice (enough for pytest on QuixBugs, small enough that a
// runaway program cannot starve the host) and are applied with prlimit inside the sandbox.
export interface SandboxLimits {
  /** Wall-clock limit of one run, after which the whole process group is killed. */
  readonly timeoutMs: number;
  /** RLIMIT_CPU, seconds of CPU time. */
  readonly cpuSeconds: number;
  /** RLIMIT_AS, bytes of address space per process. */
  readonly addressSpaceBytes: number;
  /** RLIMIT_NPROC (not enforced by Linux for uid 0; the cgroup pids limit covers that case). */
  readonly maxProcesses: number;
  /** RLIMIT_FSIZE, largest file a process may write. */
  readonly fileSizeBytes: number;
  /** RLIMIT_NOFILE. */
  readonly openFiles: number;
  /** Bytes of stdout and of stderr kept (the tail). */
  readonly outputMaxBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 60_000,
  cpuSeconds: 90,
  addressSpaceBytes: 2 * 1024 * 1024 * 1024,
  maxProcesses: 64,
  fileSizeBytes: 16 * 1024 * 1024,
  openFiles: 256,
  outputMaxBytes: 256 * 1024,
};
