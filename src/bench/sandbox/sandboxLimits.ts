// Limits of one sandboxed test run. The 60-second wall-clock timeout is the spec's; the
// resource limits are this project's choice (enough for pytest on QuixBugs, small enough that a
// runaway program cannot starve the host). Whole-run caps (memory, processes) are applied with
// a per-run cgroup; the tmpfs sizes by bubblewrap; the per-process ones with prlimit inside.
export interface SandboxLimits {
  /** Wall-clock limit of one run, after which the whole process group is killed. */
  readonly timeoutMs: number;
  /** RLIMIT_CPU, seconds of CPU time. */
  readonly cpuSeconds: number;
  /** RLIMIT_AS, bytes of address space per process. */
  readonly addressSpaceBytes: number;
  /** Processes of the whole run (cgroup pids.max); also RLIMIT_NPROC (which Linux does not enforce for uid 0). */
  readonly maxProcesses: number;
  /** Memory of the whole run, every process and the tmpfs pages it wrote (cgroup memory limit, no swap). */
  readonly memoryBytes: number;
  /** Size of the private /tmp (tmpfs). */
  readonly tmpBytes: number;
  /** Size of the private /dev/shm (tmpfs). */
  readonly shmBytes: number;
  /** RLIMIT_FSIZE, largest file a process may write. */
  readonly fileSizeBytes: number;
  /** RLIMIT_NOFILE. */
  readonly openFiles: number;
  /**
   * CPU seconds one graded case may take (trusted runner only; pytest runs have the wall limit
   * alone). The slowest reference case, levenshtein's, needs about 2.3 s; a case past this
   * fails as a timeout at once instead of holding the run for the whole wall-clock limit.
   */
  readonly caseCpuSeconds: number;
  /** Bytes of stdout and of stderr kept (the tail). */
  readonly outputMaxBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 60_000,
  cpuSeconds: 90,
  addressSpaceBytes: 2 * 1024 * 1024 * 1024,
  maxProcesses: 64,
  memoryBytes: 1024 * 1024 * 1024,
  tmpBytes: 64 * 1024 * 1024,
  shmBytes: 16 * 1024 * 1024,
  fileSizeBytes: 16 * 1024 * 1024,
  openFiles: 256,
  caseCpuSeconds: 15,
  outputMaxBytes: 256 * 1024,
};
