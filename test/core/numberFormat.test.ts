// The one number format (issue #28 item 15): counts with thousands separators, durations in one
// style, sizes in binary units, and the line-width helpers. Expected strings are written by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  formatBytes,
  formatCount,
  formatDuration,
  formatMilliseconds,
  formatTokenRate,
} from "../../src/core/numberFormat.ts";
import { overlongLines, wrapLine } from "../../src/core/textWidth.ts";

test("counts: en-US thousands separators, fractions rounded", () => {
  assert.equal(formatCount(7151), "7,151");
  assert.equal(formatCount(2183.4), "2,183");
  assert.equal(formatCount(999), "999");
  assert.equal(formatCount(1_234_567), "1,234,567");
  assert.equal(formatCount(Number.NaN), "NaN");
});

test("durations: ms under a second, one decimal under a minute, then min/s and h/min, rounded before choosing the unit", () => {
  assert.equal(formatDuration(0.85), "850 ms");
  assert.equal(formatMilliseconds(2666), "2.7 s");
  assert.equal(formatDuration(60.5), "1 min 01 s");
  assert.equal(formatDuration(59.96), "1 min 00 s");
  assert.equal(formatDuration(62), "1 min 02 s");
  assert.equal(formatDuration(3599.4), "59 min 59 s");
  assert.equal(formatDuration(3900), "1 h 05 min");
  assert.equal(formatDuration(0), "0 ms");
  assert.equal(formatDuration(-1), "-1 s");
});

test("sizes: binary units only, two decimals from KiB", () => {
  assert.equal(formatBytes(812), "812 B");
  assert.equal(formatBytes(12 * 1024), "12.00 KiB");
  assert.equal(formatBytes(0.42 * 2 ** 30), "430.08 MiB");
  assert.equal(formatBytes(1.5 * 2 ** 30), "1.50 GiB");
  assert.equal(formatBytes(3_000_000_000), "2.79 GiB");
  assert.equal(formatBytes(5 * 2 ** 40), "5.00 TiB");
  assert.equal(formatBytes(3 * 2 ** 50), "3072.00 TiB");
});

test("rates: tokens over seconds, one decimal; no time, no rate", () => {
  assert.equal(formatTokenRate(12, 5), "2.4 tok/s");
  assert.equal(formatTokenRate(12, 0), null);
});

test("wrapLine keeps each piece within the width, continues with the indent, and never cuts a long word", () => {
  const text = "one two three four five six seven eight nine ten eleven twelve";
  const lines = wrapLine(text, 20, "  ");
  assert.deepEqual(lines, ["one two three four", "  five six seven", "  eight nine ten", "  eleven twelve"]);
  assert.equal(lines.join(" ").replace(/ {3}/g, " ").replace(/\s+/g, " "), text);
  assert.deepEqual(wrapLine("short", 20), ["short"]);
  const path = "/a/very/long/path/that/does/not/fit/anywhere";
  assert.deepEqual(wrapLine(`see ${path} now`, 20, "  "), ["see", `  ${path}`, "  now"]);
  assert.deepEqual(overlongLines(`${"x".repeat(100)}\n${"é".repeat(100)}\n${"y".repeat(101)}`), ["y".repeat(101)]);
});
