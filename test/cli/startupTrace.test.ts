// The start-up trace's CPU marks (src/core/startupTrace.ts): `npm run bench:startup` reads them to
// tell a Lab run's CPU outside run_started → run_finished from the run's own. They are stderr only,
// only under TCA_STARTUP_TRACE=1, and never reach the run's evidence.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuMarkLine, parseCpuMarks, startupTraceOn } from "../../src/core/startupTrace.ts";

const BIN = new URL("../../bin/tca.js", import.meta.url).pathname;

test("a mark line reads back as its mark and CPU seconds; other lines and malformed marks are ignored", () => {
  const stderr = [
    "tca: start-up: compiled lib/",
    cpuMarkLine("run_started", 0.1234567).trimEnd(),
    "tca: start-up: cpu-s at run_started 12",
    "tca: start-up: cpu-s at proposal_1 0.200000",
    "  tca: start-up: cpu-s at run_finished 0.300000",
    cpuMarkLine("run_finished", 0.25).trimEnd(),
    "",
  ].join("\n");
  assert.equal(cpuMarkLine("run_started", 0.1234567), "tca: start-up: cpu-s at run_started 0.123457\n");
  assert.deepEqual(parseCpuMarks(stderr), [
    { mark: "run_started", cpuSeconds: 0.123457 },
    { mark: "run_finished", cpuSeconds: 0.25 },
  ]);
  assert.deepEqual(parseCpuMarks(""), []);
  assert.equal(startupTraceOn({ TCA_STARTUP_TRACE: "1" }), true);
  for (const value of [undefined, "", "0", "true"])
    assert.equal(startupTraceOn(value === undefined ? {} : { TCA_STARTUP_TRACE: value }), false, String(value));
});

/** Every file of a run directory, as text (the audit, manifest, final.json, the workspace). */
function runFilesText(directory: string): string {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .map((name) => join(directory, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, "utf8"))
    .join("\n");
}

test("tca lab baseline under TCA_STARTUP_TRACE=1 marks run_started then run_finished on stderr, and only there", (t) => {
  const root = mkdtempSync(join(tmpdir(), "tca-startup-trace-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const { TCA_STARTUP_TRACE: _outer, ...env } = process.env;
  const traced = spawnSync(process.execPath, [BIN, "lab", "baseline", "--run", join(root, "traced")], {
    encoding: "utf8",
    env: { ...env, TCA_STARTUP_TRACE: "1" },
  });
  assert.equal(traced.status, 0, traced.stderr);
  const marks = parseCpuMarks(traced.stderr);
  assert.deepEqual(
    marks.map((m) => m.mark),
    ["run_started", "run_finished"],
    traced.stderr,
  );
  const [started, finished] = marks;
  assert.ok(started !== undefined && finished !== undefined);
  assert.ok(started.cpuSeconds > 0 && started.cpuSeconds <= finished.cpuSeconds, traced.stderr);
  // The path line first (bin/tca.js), then the marks: nothing else on stderr.
  assert.match(traced.stderr, /^tca: start-up: (compiled lib\/|src\/ through tsx \([^)]*\))\n/);
  assert.equal(traced.stderr.split("\n").filter((line) => line !== "").length, 3, traced.stderr);
  assert.doesNotMatch(runFilesText(join(root, "traced")), /cpu-s|start-up/);

  const plain = spawnSync(process.execPath, [BIN, "lab", "baseline", "--run", join(root, "plain")], {
    encoding: "utf8",
    env,
  });
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(plain.stderr, "");
  assert.equal(plain.stdout.split("\n")[0], traced.stdout.split("\n")[0]);
});
