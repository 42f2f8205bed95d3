// The one way the project writes numbers for people (issue #28, item 15): the terminal, results.md
// and the HTML report (whose viewer, plain browser JavaScript, follows the same rules in
// src/report/viewer/common.js). Before this, '7151' stood next to '2,183', '2666 ms' next to
// '1m02s' and '60.5s', and '0.42 GiB' next to '0.05 GB'.
//
// - counts: en-US thousands separators in every locale ("7,151"), so tests can pin a line;
// - durations: under 1 s in ms ("850 ms"), under 60 s in seconds with one decimal ("12.3 s"),
//   then minutes and whole seconds ("1 min 02 s"), then hours and minutes ("1 h 05 min");
// - sizes: binary units only (B, KiB, MiB, GiB, TiB), two decimals from KiB up ("1.50 GiB");
// - rates: output tokens over the whole call's time, one decimal ("2.4 tok/s"), the same measure
//   for a live status line and a kept record.

/** "7,151": a whole number with thousands separators (fractions are rounded). */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return Math.round(n).toLocaleString("en-US");
}

/** "850 ms", "12.3 s", "1 min 02 s", "1 h 05 min". Negative or non-finite: as given. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return `${String(seconds)} s`;
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  // Rounded first, so 59.96 s is "1 min 00 s", never "60.0 s".
  const tenths = Math.round(seconds * 10);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
  const minutes = Math.round(seconds / 60);
  return `${formatCount(Math.floor(minutes / 60))} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** formatDuration of a time in milliseconds. */
export function formatMilliseconds(ms: number): string {
  return formatDuration(ms / 1000);
}

const BINARY_UNITS = ["KiB", "MiB", "GiB", "TiB"] as const;

/** "812 B", "12.00 KiB", "430.08 MiB", "1.50 GiB": the largest binary unit that keeps the number ≥ 1. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return `${String(bytes)} B`;
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < BINARY_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(2)} ${BINARY_UNITS[unit] ?? "TiB"}`;
}

/** "2.4 tok/s": tokens over seconds, null when there is no time to divide by. */
export function formatTokenRate(tokens: number, seconds: number): string | null {
  if (!(seconds > 0) || !Number.isFinite(tokens)) return null;
  return `${(tokens / seconds).toFixed(1)} tok/s`;
}
