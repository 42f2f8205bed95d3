// The start-up trace's CPU marks. With TCA_STARTUP_TRACE=1 (which also makes bin/tca.js say which
// code path ran), a Lab run writes this process's CPU time (user+system, process.cpuUsage) to stderr
// when it records run_started and run_finished, so `npm run bench:startup` can tell the CPU spent
// outside the run itself (start-up, the verdict, the summary) from the CPU the six proposals cost.
// Only stderr: never the audit, the run's files or anything a model sees. Ground floor.

/** The two moments of a Lab run the trace marks. */
export type CpuMark = "run_started" | "run_finished";

const PREFIX = "tca: start-up: cpu-s at ";
const MARK_LINE = /^tca: start-up: cpu-s at (run_started|run_finished) (\d+\.\d{6})$/;

/** Whether this process traces its start-up (bin/tca.js reads the same variable). */
export function startupTraceOn(env: NodeJS.ProcessEnv = process.env): boolean {
  return env["TCA_STARTUP_TRACE"] === "1";
}

/** The trace line for `mark` at `cpuSeconds` of this process's CPU. */
export function cpuMarkLine(mark: CpuMark, cpuSeconds: number): string {
  return `${PREFIX}${mark} ${cpuSeconds.toFixed(6)}\n`;
}

/** Writes the mark to stderr when the trace is on; otherwise does nothing (and reads no clock). */
export function traceCpuMark(mark: CpuMark): void {
  if (!startupTraceOn()) return;
  const { user, system } = process.cpuUsage();
  process.stderr.write(cpuMarkLine(mark, (user + system) / 1e6));
}

/** The marks found in a process's stderr, in order; every other line is ignored. */
export function parseCpuMarks(stderr: string): { readonly mark: CpuMark; readonly cpuSeconds: number }[] {
  const marks: { mark: CpuMark; cpuSeconds: number }[] = [];
  for (const line of stderr.split("\n")) {
    const found = MARK_LINE.exec(line);
    if (found !== null) marks.push({ mark: found[1] as CpuMark, cpuSeconds: Number(found[2]) });
  }
  return marks;
}
