// The pure half of `npm run test:durations`: reads what one test file's run left (the CPU
// wrapper's report: its own cgroup's counters, or where it could make none the children's CPU
// from /proc/<pid>/stat; the pass/fail counts from the TAP reporter's summary) and formats the
// per-file table, slowest CPU first. scripts/testDurations.ts runs the files.
import { isRecord } from "../src/core/isRecord.ts";

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

/** How a file's CPU was counted: its own cgroup (every descendant), or cutime (only those waited for). */
export type CpuMeter = "cgroup" | "cutime";

export interface WrapperReport {
  readonly code: number | null;
  readonly signal: string | null;
  readonly meter: CpuMeter;
  readonly cpu: ChildrenCpu;
}

const NANOSECONDS = 1e9;
const MICROSECONDS = 1e6;

function counter(text: unknown, what: string): number {
  // Digits only: Number("") is 0, and an empty read must not pass as no CPU.
  const value = typeof text === "string" && /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`not a cgroup counter: ${what}`);
  return value;
}

/** user_usec and system_usec of a cgroup v2 cpu.stat ("usage_usec N\nuser_usec N\n…"). */
export function parseCpuStat(text: string): ChildrenCpu {
  const field = (name: string): number => {
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    return counter(line?.slice(name.length + 1), `cpu.stat ${name}`);
  };
  return { userSeconds: field("user_usec") / MICROSECONDS, systemSeconds: field("system_usec") / MICROSECONDS };
}

/**
 * The wrapper's fd-3 line (scripts/cpuOfChildren.mjs): the child's exit, and its CPU by the
 * meter the wrapper could use. Throws on anything else, so a broken wrapper is never a 0 s row.
 */
export function parseWrapperReport(line: string): WrapperReport {
  const report: unknown = JSON.parse(line);
  if (!isRecord(report)) throw new Error("the CPU wrapper's report is not an object");
  const code = report["code"];
  const signal = report["signal"];
  if (!(code === null || (typeof code === "number" && Number.isInteger(code))))
    throw new Error("the CPU wrapper's report has no exit code");
  if (!(signal === null || typeof signal === "string")) throw new Error("the CPU wrapper's report has a bad signal");
  if (report["meter"] === "cutime" && typeof report["stat"] === "string")
    return { code, signal, meter: "cutime", cpu: parseChildrenCpu(report["stat"]) };
  const group = report["cgroup"];
  if (report["meter"] === "cgroup" && isRecord(group)) {
    if (group["kind"] === "v1")
      return {
        code,
        signal,
        meter: "cgroup",
        cpu: {
          userSeconds: counter(group["usageUser"], "cpuacct.usage_user") / NANOSECONDS,
          systemSeconds: counter(group["usageSys"], "cpuacct.usage_sys") / NANOSECONDS,
        },
      };
    if (group["kind"] === "v2" && typeof group["cpuStat"] === "string")
      return { code, signal, meter: "cgroup", cpu: parseCpuStat(group["cpuStat"]) };
  }
  throw new Error("the CPU wrapper's report names no meter it knows");
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
  readonly meter: CpuMeter;
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

/** The table: one row per file, then the totals; a file counted by cutime is marked, and why. */
export function formatDurations(durations: readonly FileDuration[]): string {
  const rows = sortByCpu(durations);
  const byCutime = rows.filter((d) => d.meter === "cutime").length;
  const width = Math.max("file".length, "total".length, ...rows.map((d) => d.file.length));
  const seconds = (value: number): string => value.toFixed(2).padStart(9);
  const header = `${"file".padEnd(width)} ${"CPU s".padStart(9)} ${"user s".padStart(9)} ${"sys s".padStart(9)} ${"wall s".padStart(9)}  tests`;
  const lines = rows.map(
    (d) =>
      `${d.file.padEnd(width)} ${seconds(cpuOf(d))} ${seconds(d.cpu.userSeconds)} ${seconds(d.cpu.systemSeconds)} ${seconds(d.wallSeconds)}  ${countsText(d)}${d.meter === "cutime" ? " (cutime)" : ""}`,
  );
  const sum = (pick: (d: FileDuration) => number): number => rows.reduce((total, d) => total + pick(d), 0);
  const tests = sum((d) => d.counts?.tests ?? 0);
  const passed = sum((d) => d.counts?.pass ?? 0);
  const total = `${"total".padEnd(width)} ${seconds(sum(cpuOf))} ${seconds(sum((d) => d.cpu.userSeconds))} ${seconds(sum((d) => d.cpu.systemSeconds))} ${seconds(sum((d) => d.wallSeconds))}  ${passed}/${tests} passed in ${rows.length} files`;
  const note =
    byCutime === 0
      ? []
      : [
          `(cutime) ${byCutime} of ${rows.length} files counted by cutime (no cgroup could be made): ` +
            "processes in a sandbox's PID namespace are not counted, so these figures are low",
        ];
  return `${[header, ...lines, total, ...note].join("\n")}\n`;
}
