// npm run test:durations: the wrapper report, cgroup counter, /proc stat and TAP summary
// parsing, the table's order and totals, and the CPU wrapper counting a grandchild's CPU — one
// that was waited for, and one in a PID namespace that nobody outside waits for (what a test
// file's sandboxed runs are) — by cgroup, and by cutime where it must fall back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  formatDurations,
  parseChildrenCpu,
  parseCpuStat,
  parseTapSummary,
  parseWrapperReport,
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
  meter: "cgroup",
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
  assert.doesNotMatch(formatDurations(rows), /cutime/, "every row by cgroup: no note");
  const low: FileDuration = { ...file("test/e/low.test.ts", 2, 2), meter: "cutime" };
  const marked = formatDurations([...rows, low])
    .trimEnd()
    .split("\n");
  assert.match(marked.find((l) => l.startsWith("test/e/low")) ?? "", /2\/2 passed \(cutime\)$/);
  assert.match(marked.at(-1) ?? "", /^\(cutime\) 1 of 4 files counted by cutime .*PID namespace are not counted/);
});

test("the wrapper's report is read by its meter, and anything else is refused, never a 0 s row", () => {
  const v1 = { kind: "v1", usageUser: "2500000000\n", usageSys: "370000000\n" };
  assert.deepEqual(parseWrapperReport(JSON.stringify({ code: 0, signal: null, meter: "cgroup", cgroup: v1 })), {
    code: 0,
    signal: null,
    meter: "cgroup",
    cpu: { userSeconds: 2.5, systemSeconds: 0.37 },
  });
  const v2 = { kind: "v2", cpuStat: "usage_usec 3000000\nuser_usec 2000000\nsystem_usec 1000000\nnice_usec 0\n" };
  assert.deepEqual(parseWrapperReport(JSON.stringify({ code: 1, signal: null, meter: "cgroup", cgroup: v2 })).cpu, {
    userSeconds: 2,
    systemSeconds: 1,
  });
  assert.deepEqual(
    parseWrapperReport(JSON.stringify({ code: null, signal: "SIGKILL", meter: "cutime", stat: stat(250, 37) })),
    {
      code: null,
      signal: "SIGKILL",
      meter: "cutime",
      cpu: { userSeconds: 2.5, systemSeconds: 0.37 },
    },
  );
  const bad: [string, RegExp][] = [
    ["[]", /not an object/],
    [JSON.stringify({ signal: null, meter: "cutime", stat: stat(1, 1) }), /no exit code/],
    [JSON.stringify({ code: 0, signal: 9, meter: "cutime", stat: stat(1, 1) }), /bad signal/],
    [JSON.stringify({ code: 0, signal: null, meter: "wallclock" }), /no meter it knows/],
    [JSON.stringify({ code: 0, signal: null, meter: "cgroup", cgroup: { kind: "v3" } }), /no meter it knows/],
    [
      JSON.stringify({ code: 0, signal: null, meter: "cgroup", cgroup: { ...v1, usageSys: "-1" } }),
      /cpuacct\.usage_sys/,
    ],
    [
      JSON.stringify({ code: 0, signal: null, meter: "cgroup", cgroup: { ...v1, usageUser: "" } }),
      /cpuacct\.usage_user/,
    ],
  ];
  for (const [line, why] of bad) assert.throws(() => parseWrapperReport(line), why, line);
  assert.throws(() => parseCpuStat("usage_usec 5\nsystem_usec 1\n"), /cpu\.stat user_usec/);
  assert.throws(() => parseCpuStat("user_usec 5x\nsystem_usec 1\n"), /cpu\.stat user_usec/);
});

// The grandchild spins until it has used 0.3 s of its own CPU; its parent only waits for it.
const SPIN = "const t=process.cpuUsage();while(process.cpuUsage(t).user<300000);";
const MIDDLE = `const r=require("child_process").spawnSync(process.execPath,["-e",${JSON.stringify(SPIN)}]);process.exit(r.status===0?3:9)`;

function wrapped(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { status: number | null; report: ReturnType<typeof parseWrapperReport> } {
  const run = spawnSync(process.execPath, [WRAPPER, ...argv], {
    stdio: ["ignore", "ignore", "pipe", "pipe"],
    encoding: "utf8",
    env,
  });
  return { status: run.status, report: parseWrapperReport(String(run.output[3])) };
}

/** Whether this machine lets the wrapper make a group (a v1 cpuacct or v2 hierarchy it can write). */
const canMakeGroup = wrapped([process.execPath, "-e", "0"]).report.meter === "cgroup";

test("the CPU wrapper counts a grandchild's CPU and passes the child's exit code on, by either meter", (t) => {
  for (const meter of ["cgroup", "cutime"] as const) {
    if (meter === "cgroup" && !canMakeGroup) {
      t.diagnostic("no writable cgroup here: the cgroup meter is not exercised");
      continue;
    }
    const { status, report } = wrapped([process.execPath, "-e", MIDDLE], {
      ...process.env,
      TCA_DURATIONS_METER: meter === "cutime" ? "cutime" : "",
    });
    assert.equal(status, 3);
    assert.equal(report.code, 3);
    assert.equal(report.meter, meter);
    assert.ok(
      report.cpu.userSeconds >= 0.25,
      `${meter}: the grandchild's 0.3 s were not counted: ${JSON.stringify(report.cpu)}`,
    );
    assert.ok(
      report.cpu.userSeconds < 5,
      `${meter}: more than the child tree could have used: ${JSON.stringify(report.cpu)}`,
    );
  }
});

test("by cgroup, a spinning process in a PID namespace that nobody outside waits for is counted (bwrap's sandbox runs)", (t) => {
  const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((p) => existsSync(p));
  if (!canMakeGroup || bwrap === undefined) {
    t.skip(!canMakeGroup ? "no writable cgroup here" : "bwrap is not installed");
    return;
  }
  // As the sandbox runs a candidate: its own PID namespace, the spinner pid 1's child there.
  const argv = [
    bwrap,
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--unshare-pid",
    "--die-with-parent",
    process.execPath,
    "-e",
    MIDDLE,
  ];
  const cgroup = wrapped(argv).report;
  assert.equal(cgroup.meter, "cgroup");
  assert.ok(
    cgroup.cpu.userSeconds >= 0.25,
    `the namespaced spinner's 0.3 s were not counted: ${JSON.stringify(cgroup.cpu)}`,
  );
  // Why cutime is only the fallback (bwrap's behaviour, not ours, so reported, not asserted).
  const cutime = wrapped(argv, { ...process.env, TCA_DURATIONS_METER: "cutime" }).report;
  t.diagnostic(`the same run by cutime: ${cutime.cpu.userSeconds} s user (cgroup: ${cgroup.cpu.userSeconds} s)`);
});

test("the CPU wrapper refuses to run nothing", () => {
  const run = spawnSync(process.execPath, [WRAPPER], { encoding: "utf8" });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /^usage: /);
});
