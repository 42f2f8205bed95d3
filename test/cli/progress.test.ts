// The stderr status line: rewritten in place on a terminal, throttled; nothing at all when the
// stream is not a terminal or with --json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { megabytes, statusLine } from "../../src/cli/progress.ts";

function fakeStream(isTTY: boolean, columns = 80): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = { isTTY, columns, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

test("on a terminal: one line rewritten in place, at most once per interval, cleared at the end", () => {
  let now = 0;
  const { stream, written } = fakeStream(true, 30);
  const line = statusLine({ stream, intervalMs: 200, now: () => now });
  line.update("fetch: 1 MB");
  now = 100;
  line.update("fetch: 2 MB"); // within the interval: dropped
  now = 250;
  line.update("fetch: 3 MB and a long tail that does not fit the terminal");
  line.done("done: 3 MB");
  assert.deepEqual(written, [
    "\r\x1b[2Kfetch: 1 MB",
    `\r\x1b[2K${"fetch: 3 MB and a long tail that does not fit the terminal".slice(0, 29)}`,
    "\r\x1b[2K",
    "done: 3 MB\n",
  ]);
});

test("not a terminal, or --json: nothing is written", () => {
  for (const [isTTY, json] of [
    [false, false],
    [true, true],
  ] as const) {
    const { stream, written } = fakeStream(isTTY);
    const line = statusLine({ stream, json, now: () => 1000 });
    line.update("x");
    line.done("y");
    assert.deepEqual(written, []);
  }
});

test("megabytes: one decimal, SI megabytes", () => {
  assert.equal(megabytes(0), "0.0 MB");
  assert.equal(megabytes(1_250_000), "1.3 MB");
});

test("a terminal that reports no width (0, as under script(1)) is taken as 80 columns", () => {
  const { stream, written } = fakeStream(true, 0);
  const line = statusLine({ stream, intervalMs: 0, now: () => 0 });
  const text = "x".repeat(100);
  line.update(text);
  assert.deepEqual(written, [`\r\x1b[2K${"x".repeat(79)}`]);
});
