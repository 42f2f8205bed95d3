// npm run test:durations: the /proc stat and TAP summary parsing, the table's order and totals,
// and the CPU wrapper counting a grandchild's CPU (what a test file's sandboxed runs are).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  formatDurations,
  parseChildrenCpu,
  parseTapSummary,
  sortByCpu,
  type FileDuration,
} from "../../scripts/testDurationsReport.ts";

const WRAPPER = fileURLToPath(new URL("../../scripts/cpuOfChildren.mjs", import.meta.url));

// A real line's shape (52 fields); the name holds a space and a ")" to show fields are counted after the last one.
const stat = (cutime: number, cstime: number, name = "node"): string =>
  `4242 (${name}) S 1 4242 4242 0 -1 4194304 1234 5678 0 0 17 3 ${cutime} ${cstime} 20 0 11 0 998877 1234567 8901 ` +
  "18446744073709551615 1 1 0 0 0 0 0 16781312 134234626 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

test("parseChildrenCpu reads cutime and cstime (fields 16 and 17) in seconds, whatever the command name holds", () => {
  assert.deepEqual(parseChildrenCpu(stat(250, 37)), { userSeconds: 2.5, systemSeconds: 0.37 });
  assert.deepEqual(parseChildrenCpu(stat(1, 0, "a b) (c")), { userSeconds: 0.01, systemSeconds: 0 });
});

test("parseChildrenCpu refuses a line that is not a stat line", () => {
  assert.throws(() => parseChildrenCpu("4242 node S 1"), /no command name/);
  assert.throws(() => parseChildrenCpu("4242 (node) S 1 2 3"), /not counts/);
  assert.throws(() => parseChildrenCpu(stat(-1, 0)), /not counts/);
});

const TAP = `TAP version 13
# Subtest: one
ok 1 - one
# Subtest: two
not ok 2 - two
1..2
# tests 4
# suites 0
# pass 1
# fail 1
# cancelled 0
# skipped 2
# todo 0
# duration_ms 123.4
`;

test("parseTapSummary reads the runner's closing counts, and says null when there are none", () => {
  assert.deepEqual(parseTapSummary(TAP), { tests: 4, pass: 1, fail: 1, skipped: 2, todo: 0, cancelled: 0 });
  assert.equal(parseTapSummary("TAP version 13\nok 1 - one\n"), null);
  assert.equal(parseTapSummary("# tests 1\n# pass 1\n"), null, "no fail line: a cut-off run");
  // A test's own output that looks like a count (indented, or mid-run) is not the summary.
  assert.deepEqual(parseTapSummary(`    # tests 99\n${TAP}`)?.tests, 4);
});

const file = (name: string, cpu: number, wall: number, fail = 0): FileDuration => ({
  file: name,
  wallSeconds: wall,
  cpu: { userSeconds: cpu * 0.75, systemSeconds: cpu * 0.25 },
  counts: { tests: 2, pass: 2 - fail, fail, skipped: 0, todo: 0, cancelled: 0 },
  exitCode: fail > 0 ? 1 : 0,
});

test("the table puts the most CPU first (ties by wall, then name) and ends with the totals", () => {
  const rows = [
    file("test/a/quick.test.ts", 1, 2),
    file("test/b/slow.test.ts", 8, 5, 1),
    file("test/c/tie.test.ts", 1, 3),
  ];
  assert.deepEqual(
    sortByCpu(rows).map((d) => d.file),
    ["test/b/slow.test.ts", "test/c/tie.test.ts", "test/a/quick.test.ts"],
  );
  const lines = formatDurations(rows).trimEnd().split("\n");
  assert.equal(lines.length, 5);
  assert.match(lines[0] ?? "", /^file\s+CPU s\s+user s\s+sys s\s+wall s\s+tests$/);
  assert.match(lines[1] ?? "", /^test\/b\/slow\.test\.ts\s+8\.00\s+6\.00\s+2\.00\s+5\.00\s+1\/2 passed, 1 failed$/);
  assert.match(lines[4] ?? "", /^total\s+10\.00\s+7\.50\s+2\.50\s+10\.00\s+5\/6 passed in 3 files$/);
  const cut: FileDuration = { ...file("test/d/cut.test.ts", 0.5, 1), counts: null, exitCode: null };
  assert.match(formatDurations([cut]), /no summary \(exit signal\)/);
});

test("the CPU wrapper counts a grandchild's CPU and passes the child's exit code on", () => {
  // The grandchild spins until it has used 0.3 s of its own CPU; its parent only waits for it.
  const spin = "const t=process.cpuUsage();while(process.cpuUsage(t).user<300000);";
  const middle = `const r=require("child_process").spawnSync(process.execPath,["-e",${JSON.stringify(spin)}]);process.exit(r.status===0?3:9)`;
  const run = spawnSync(process.execPath, [WRAPPER, process.execPath, "-e", middle], {
    stdio: ["ignore", "ignore", "pipe", "pipe"],
    encoding: "utf8",
  });
  assert.equal(run.status, 3);
  const report = JSON.parse(String(run.output[3])) as { code: number; stat: string };
  assert.equal(report.code, 3);
  const cpu = parseChildrenCpu(report.stat);
  assert.ok(cpu.userSeconds >= 0.25, `the grandchild's 0.3 s were not counted: ${JSON.stringify(cpu)}`);
});

test("the CPU wrapper refuses to run nothing", () => {
  const run = spawnSync(process.execPath, [WRAPPER], { encoding: "utf8" });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /^usage: /);
});
