// A record that drifts from the Lab audit's catalog is refused with its code by every reader of
// audit.jsonl: the one reader (readAuditLog), the run verdict, the Lab report, submission.md's run
// evidence and the checks' own audit reads. Each drift is made on a copy of a real run (runLab), the
// way a hand edit or an older tca would leave it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";
import { runLab } from "../../src/lab/labRun.ts";
import { ScriptedSource } from "../../src/sources/scriptedSource.ts";
import { OLD_AUDIT_FORMAT_DETAIL, readAuditLog, type AuditLogProblemCode } from "../../src/recording/auditLog.ts";
import { deriveRunVerdict } from "../../src/verdicts/runVerdict.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import { assertProblem } from "./labProblemAssert.ts";
import { readRunEvidence } from "../../src/verdicts/submission/runEvidence.ts";
import { readLabReport } from "../../src/report/labReport.ts";
import { freshRoot } from "../lab/labRunTestSupport.ts";
import { copyRun, editRecords, type Record_ } from "./forgery.ts";

const root = freshRoot("audit-drift");
const made = await runLab({
  runDirectory: join(root, "baseline"),
  source: new ScriptedSource(BASELINE_PROPOSALS),
  kind: "negative_check",
});
assert.ok(made.ok);
const baseline = made.value.runDirectory;

/** The stop record's line number in the honest run (1-based). */
function stopLine(records: readonly Record_[]): number {
  return records.findIndex((record) => record.type === "stop") + 1;
}

const DRIFTS: readonly {
  readonly name: string;
  readonly code: AuditLogProblemCode;
  readonly edit: (records: Record_[]) => Record_[] | void;
  /** The line the problem names: the stop record's, or the first. */
  readonly atStop: boolean;
}[] = [
  {
    name: "an unknown data field",
    code: "unknown_field",
    atStop: true,
    edit: (records) => {
      const stop = records.find((record) => record.type === "stop")!;
      stop.data = { ...stop.data, verified: true };
    },
  },
  {
    name: "a wrong type",
    code: "wrong_type",
    atStop: true,
    edit: (records) => {
      const stop = records.find((record) => record.type === "stop")!;
      stop.data = { ...stop.data, stop_reason: 7 };
    },
  },
  {
    name: "a missing field",
    code: "missing_field",
    atStop: true,
    edit: (records) => {
      const stop = records.find((record) => record.type === "stop")!;
      const { stop_reason: _dropped, ...rest } = stop.data;
      stop.data = rest;
    },
  },
  {
    name: "an unknown event",
    code: "unknown_event",
    atStop: true,
    edit: (records) => {
      records.find((record) => record.type === "stop")!.type = "stopped";
    },
  },
  {
    name: "a record of format 1 (tca.audit/1)",
    code: "old_format_version",
    atStop: false,
    edit: (records) =>
      records.map(({ format: _format, v: _v, ...rest }) => ({ schema: "tca.audit/1", ...rest }) as Record_),
  },
];

for (const drift of DRIFTS) {
  test(`${drift.name} is refused with ${drift.code} by every reader of the audit`, () => {
    const run = copyRun(baseline, join(root, drift.code));
    let line = 1;
    editRecords(run, (records) => {
      if (drift.atStop) line = stopLine(records);
      return drift.edit(records);
    });
    const printed = new RegExp(`^${drift.code}: audit\\.jsonl:${line}\\b`);

    const read = readAuditLog(run);
    assert.equal(read.ok, false);
    assert.ok(!read.ok);
    assert.equal(read.problem.code, drift.code);
    assert.equal(read.problem.file, "audit.jsonl");
    assert.equal(read.problem.line, line);

    const verdict = deriveRunVerdict(run);
    assert.equal(verdict.kind, "evidence_invalid");
    assertProblem(verdict.problems, drift.code, printed, "the verdict names the reader's code");
    assert.deepEqual(verdict.records, [], "no record of a refused audit is used");

    const report = readLabReport(run);
    assert.match(report.verdict.headline, /^[A-Z ()]+ · EVIDENCE INVALID$/);
    assert.ok(
      report.problems.some((problem) => printed.test(problem)),
      "the report prints the coded problem",
    );

    const evidence = readRunEvidence("baseline", run);
    assert.equal(!evidence.ok && evidence.error, "run_evidence_invalid");
    assert.ok(!evidence.ok && evidence.message.includes(`${drift.code}: audit.jsonl:${line}`));
  });
}

test("the format 1 refusal says what made the file and what to do", () => {
  const run = copyRun(baseline, join(root, "v1-message"));
  editRecords(run, (records) =>
    records.map(({ format: _format, v: _v, ...rest }) => ({ schema: "tca.audit/1", ...rest }) as Record_),
  );
  const read = readAuditLog(run);
  assert.ok(!read.ok);
  assert.equal(read.problem.detail, OLD_AUDIT_FORMAT_DETAIL);
  assert.match(read.problem.detail, /audit format 1/);
  assert.match(read.problem.detail, /made by an older tca/);
  assert.match(read.problem.detail, /rerun the run with this tca/);
  assert.ok(
    deriveRunVerdict(run)
      .problems.map(formatProblem)
      .includes(`old_format_version: audit.jsonl:1: ${OLD_AUDIT_FORMAT_DETAIL}`),
    "the verdict prints the whole message",
  );
});

test("the honest run the drifts are made from is read whole, and verifies", () => {
  const read = readAuditLog(baseline);
  assert.ok(read.ok);
  assert.ok(read.log.records.length > 10);
  assert.equal(deriveRunVerdict(baseline).kind, "verified_success");
});

const missingFiles = (run: string): string[] =>
  deriveRunVerdict(run)
    .problems.filter((problem) => problem.code === "file_missing")
    .map((problem) => problem.file);

test("a missing evidence file is the verdict's file_missing problem, which submission's run evidence decides on", () => {
  const noAudit = copyRun(baseline, join(root, "no-audit"));
  rmSync(join(noAudit, "audit.jsonl"));
  assert.deepEqual(missingFiles(noAudit), ["audit.jsonl"]);
  const noFinal = copyRun(baseline, join(root, "no-final"));
  rmSync(join(noFinal, "final.json"));
  assert.deepEqual(missingFiles(noFinal), ["final.json"]);
  const evidence = readRunEvidence("baseline", noFinal);
  assert.equal(!evidence.ok && evidence.error, "run_evidence_missing");
  assert.equal(
    !evidence.ok && evidence.message,
    "baseline run: file_missing: final.json: missing, although the audit records that the run finished",
  );
  const noManifest = copyRun(baseline, join(root, "no-manifest"));
  rmSync(join(noManifest, "manifest.json"));
  assert.deepEqual(missingFiles(noManifest), ["manifest.json"]);
  // A damaged audit is invalid evidence, not missing evidence.
  assert.deepEqual(missingFiles(join(root, "unknown_field")), []);
});
