// The pure half of `npm run test:durations`: reads what one test file's run left (the children's
// CPU from /proc/<pid>/stat, the pass/fail counts from the TAP reporter's summary) and formats
// the per-file table, slowest CPU first. scripts/testDurations.ts runs the files.

/** USER_HZ: Linux reports /proc times in these ticks per second on every architecture it runs here. */
export const CLOCK_TICKS_PER_SECOND = 100;

export interface ChildrenCpu {
  /** Seconds of user CPU of the reaped descendants (cutime). */
  readonly userSeconds: number;
  /** Seconds of system CPU of the reaped descendants (cstime). */
  readonly systemSeconds: number;
}

/**
 * cutime and cstime of a /proc/<pid>/stat line. The second field (the command name) is in
 * parentheses and may itself hold spaces and parentheses, so fields are counted after the last ")".
 */
export function parseChildrenCpu(stat: string): ChildrenCpu {
  const close = stat.lastIndexOf(")");
  if (close < 0) throw new Error("not a /proc stat line: no command name");
  const fields = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // After the name: state is field 3, so field k is fields[k - 3]; cutime is 16, cstime 17.
  const cutime = Number(fields[13]);
  const cstime = Number(fields[14]);
  if (!Number.isInteger(cutime) || !Number.isInteger(cstime) || cutime < 0 || cstime < 0)
    throw new Error("not a /proc stat line: cutime/cstime are not counts");
  return { userSeconds: cutime / CLOCK_TICKS_PER_SECOND, systemSeconds: cstime / CLOCK_TICKS_PER_SECOND };
}

export interface TapCounts {
  readonly tests: number;
  readonly pass: number;
  readonly fail: number;
  readonly skipped: number;
  readonly todo: number;
  readonly cancelled: number;
}

/** The summary node's TAP reporter ends with ("# tests 3", "# pass 2", …); null if it is not there. */
export function parseTapSummary(tap: string): TapCounts | null {
  const read = (name: string): number | null => {
    const all = [...tap.matchAll(new RegExp(`^# ${name} (\\d+)$`, "gm"))];
    const last = all.at(-1);
    return last === undefined ? null : Number(last[1]);
  };
  const tests = read("tests");
  const pass = read("pass");
  const fail = read("fail");
  if (tests === null || pass === null || fail === null) return null;
  return {
    tests,
    pass,
    fail,
    skipped: read("skipped") ?? 0,
    todo: read("todo") ?? 0,
    cancelled: read("cancelled") ?? 0,
  };
}

export interface FileDuration {
  readonly file: string;
  readonly wallSeconds: number;
  readonly cpu: ChildrenCpu;
  readonly counts: TapCounts | null;
  readonly exitCode: number | null;
}

const cpuOf = (d: FileDuration): number => d.cpu.userSeconds + d.cpu.systemSeconds;

/** Slowest CPU first; equal CPU by wall, then by name, so the order is stable. */
export function sortByCpu(durations: readonly FileDuration[]): FileDuration[] {
  return [...durations].sort(
    (a, b) => cpuOf(b) - cpuOf(a) || b.wallSeconds - a.wallSeconds || a.file.localeCompare(b.file),
  );
}

function countsText(d: FileDuration): string {
  if (d.counts === null) return `no summary (exit ${d.exitCode ?? "signal"})`;
  const c = d.counts;
  const extra = [
    c.fail > 0 ? `${c.fail} failed` : "",
    c.skipped > 0 ? `${c.skipped} skipped` : "",
    c.todo > 0 ? `${c.todo} todo` : "",
    c.cancelled > 0 ? `${c.cancelled} cancelled` : "",
  ].filter((s) => s !== "");
  return `${c.pass}/${c.tests} passed${extra.length > 0 ? `, ${extra.join(", ")}` : ""}`;
}

/** The table: one row per file, then the totals. */
export function formatDurations(durations: readonly FileDuration[]): string {
  const rows = sortByCpu(durations);
  const width = Math.max("file".length, "total".length, ...rows.map((d) => d.file.length));
  const seconds = (value: number): string => value.toFixed(2).padStart(9);
  const header = `${"file".padEnd(width)} ${"CPU s".padStart(9)} ${"user s".padStart(9)} ${"sys s".padStart(9)} ${"wall s".padStart(9)}  tests`;
  const lines = rows.map(
    (d) =>
      `${d.file.padEnd(width)} ${seconds(cpuOf(d))} ${seconds(d.cpu.userSeconds)} ${seconds(d.cpu.systemSeconds)} ${seconds(d.wallSeconds)}  ${countsText(d)}`,
  );
  const sum = (pick: (d: FileDuration) => number): number => rows.reduce((total, d) => total + pick(d), 0);
  const tests = sum((d) => d.counts?.tests ?? 0);
  const passed = sum((d) => d.counts?.pass ?? 0);
  const total = `${"total".padEnd(width)} ${seconds(sum(cpuOf))} ${seconds(sum((d) => d.cpu.userSeconds))} ${seconds(sum((d) => d.cpu.systemSeconds))} ${seconds(sum((d) => d.wallSeconds))}  ${passed}/${tests} passed in ${rows.length} files`;
  return `${[header, ...lines, total].join("\n")}\n`;
}
