// Limits of one sandboxed test run. The 60-second test timeout is the spec's (the only limit it
// sets); the resource limits are this project's choice (enough for pytest on QuixBugs, small enough that a
// runaway program cannot starve the host). Whole-run caps (memory, processes) are applied with
// a per-run cgroup; the tmpfs sizes by bubblewrap; the per-process ones with prlimit inside.
export interface SandboxLimits {
  /**
   * The spec's test timeout, milliseconds. A pytest run (the model's run_tests, feedback only)
   * is killed at it on the wall clock. A grading run counts it twice over, never on the wall
   * clock: as runCpu (CPU-seconds of the whole run) and as idle time (see gradingWallGuardMs).
   */
  readonly timeoutMs: number;
  /**
   * Grading runs with CPU accounting only: the wall clock after which a grading run is killed as
   * a stuck grader (never a verdict on the program: the grade says so). Far above the CPU and
   * idle budgets, so that no load a grade can still be made at reaches it first: 600 s is 10x
   * the 60 CPU-s budget, i.e. a run that gets a tenth of a core still ends by its CPU budget.
   */
  readonly gradingWallGuardMs: number;
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
   * alone). The project's choice, not the spec's: the slowest reference case, levenshtein's,
   * needs about 2.3 s; a case past this fails as a timeout at once instead of using up the
   * whole run's budget.
   */
  readonly caseCpuSeconds: number;
  /** Bytes of stdout and of stderr kept (the tail). */
  readonly outputMaxBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 60_000,
  gradingWallGuardMs: 600_000,
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
