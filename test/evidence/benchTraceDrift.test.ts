// Trace records that drift from the trace's catalog (src/bench/agent/traceEvents.ts and
// src/bench/runs/traceResultEvents.ts), each refused by the one trace reader with its code: the bench
// verdict is EVIDENCE INVALID with that code, the report lists the problem as printed, and the CLI's
// gate (verify-run, merge, compare) refuses the run naming it. A trace of format 1 is one problem.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deriveBenchVerdict } from "../../src/verdicts/benchVerdict.ts";
import { verifiedRuns } from "../../src/cli/commands/benchVerify.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import type { BenchProblemCode } from "../../src/verdicts/benchProblems.ts";
import { writeBenchRun } from "./benchRunFixture.ts";
import { modelRequestData } from "../bench/traceFixtures.ts";
import { assertBenchEvidenceInvalid, copyRun } from "./benchEvidenceAttack.ts";

const root = mkdtempSync(join(tmpdir(), "tca-bench-drift-"));
after(() => rmSync(root, { recursive: true, force: true }));
const honest = join(root, "honest");
writeBenchRun(honest, { programs: 1, turns: 1 });
const TRACE = "traces/A-program_00.ndjson";

type Line = Record<string, unknown> & { data: Record<string, unknown> };

/** A copy of the honest run whose trace line `index` (0-based) is edited. */
function drifted(name: string, index: number, edit: (record: Line) => Record<string, unknown>): string {
  const dir = copyRun(honest, root, name);
  const lines = readFileSync(join(dir, TRACE), "utf8").trimEnd().split("\n");
  lines[index] = JSON.stringify(edit(JSON.parse(lines[index]!) as Line));
  writeFileSync(join(dir, TRACE), lines.join("\n") + "\n");
  return dir;
}

test("the honest fixture's traces are read without a problem (each case below fails for its one edit)", () => {
  assert.deepEqual(deriveBenchVerdict(honest).problems.map(formatProblem), []);
  const second = JSON.parse(readFileSync(join(honest, TRACE), "utf8").split("\n")[1]!) as Line;
  assert.equal(second.type, "model_request");
  assert.deepEqual(second.data, modelRequestData(2));
});

const cases: readonly [string, number, (record: Line) => Record<string, unknown>, BenchProblemCode, RegExp][] = [
  [
    "unknown-field",
    1,
    (r) => ({ ...r, data: { ...r.data, hidden: true } }),
    "unknown_field",
    /traces\/A-program_00\.ndjson:2 \(model_request\): data has an unknown field "hidden"/,
  ],
  [
    "wrong-type",
    1,
    (r) => ({ ...r, data: { ...r.data, messages: "2" } }),
    "wrong_type",
    /traces\/A-program_00\.ndjson:2 \(model_request\): data\.messages must be integer/,
  ],
  [
    "missing-field",
    1,
    (r) => ({ ...r, data: {} }),
    "missing_field",
    /traces\/A-program_00\.ndjson:2 \(model_request\): data lacks "messages"/,
  ],
  [
    "unknown-event",
    1,
    (r) => ({ ...r, type: "model_thought" }),
    "unknown_event",
    /traces\/A-program_00\.ndjson:2: unknown event type "model_thought"/,
  ],
  [
    "envelope-field",
    1,
    (r) => ({ ...r, turn: 1 }),
    "bad_envelope",
    /traces\/A-program_00\.ndjson:2: unknown envelope field "turn"/,
  ],
  [
    "wrong-format",
    1,
    (r) => ({ ...r, format: "tca.audit" }),
    "wrong_format",
    /traces\/A-program_00\.ndjson:2: the record is not of tca\.trace/,
  ],
  [
    "grade-drift",
    -3,
    (r) => ({ ...r, data: { ...r.data, counts: { passed: -1, failed: 0, errors: 0, skipped: 0 } } }),
    "wrong_type",
    /traces\/A-program_00\.ndjson:\d+ \(grade\): data\.counts\.passed must be >= 0/,
  ],
];

for (const [name, index, edit, code, mentions] of cases)
  test(`a trace record with a drift (${name}) is refused as ${code}: verdict, report and CLI`, () => {
    const lines = readFileSync(join(honest, TRACE), "utf8").trimEnd().split("\n");
    const dir = drifted(name, index < 0 ? lines.length + index : index, edit);
    assertBenchEvidenceInvalid(dir, mentions, code);
    const gate = verifiedRuns([dir]);
    assert.ok(!gate.ok && gate.error === "evidence_invalid");
    assert.match(gate.message, new RegExp(`${code}: ${mentions.source}`));
  });

test("a trace of format 1 is one old_format_version problem, naming the version and what to do", () => {
  const dir = copyRun(honest, root, "v1-trace");
  // The trace as tca wrote it before format 2: { v: 1, event, t, ...fields }.
  const v1 = readFileSync(join(dir, TRACE), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => {
      const r = JSON.parse(line) as Line;
      return JSON.stringify({ v: 1, event: r.type, t: r.t_ms, ...r.data });
    });
  writeFileSync(join(dir, TRACE), v1.join("\n") + "\n");
  assertBenchEvidenceInvalid(
    dir,
    /traces\/A-program_00\.ndjson:1: a record of tca\.trace version 1: made by an older tca; rerun the run/,
    "old_format_version",
  );
  const ofTrace = deriveBenchVerdict(dir).problems.filter((p) => p.file === TRACE);
  // One problem for the file, then what its missing records imply (no task_start, no task_end, ...).
  assert.deepEqual(
    ofTrace.filter((p) => p.code === "old_format_version").map((p) => p.line),
    [1],
  );
  assert.ok(ofTrace.some((p) => p.code === "trace_start_missing"));
});
