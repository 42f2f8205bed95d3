// The attack corpus of issue 23 against the checks verdict, kept as tests: a real checks root
// (every check of the spec's table, run by the project's runner, checks.json as the CLI writes
// it) is copied and forged; the re-derived verdict must not say that all checks passed, and
// neither may the report or submission.md. The untouched root still passes all 44.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deriveChecksVerdict, type ChecksVerdictKind } from "../../src/verdicts/checksVerdict.ts";
import { buildSubmission } from "../../src/verdicts/submission/writeSubmission.ts";
import { writeJsonExclusive } from "../../src/recording/evidenceFile.ts";
import { runAllChecks } from "../../src/lab/checkRunner.ts";
import { runScriptedBaseline } from "../../src/lab/scriptedBaseline.ts";
import { readChecksReport } from "../../src/report/checksReport.ts";
import { CHECK_TABLE } from "../../src/constants/checkTable.ts";
import { freshRoot } from "../lab/labRunTestSupport.ts";
import { editJson, editRecords, observationOf } from "./forgery.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import type { LabProblemCode } from "../../src/verdicts/labProblems.ts";
import { assertProblem } from "./labProblemAssert.ts";

const root = freshRoot("checks-attacks");
const checksRoot = join(root, "checks");
mkdirSync(checksRoot);
const rows = await runAllChecks(checksRoot);
writeJsonExclusive(join(checksRoot, "checks.json"), {
  schema: "tca.checks/1",
  total: rows.length,
  passed: rows.filter((r) => r.passed).length,
  failed: rows.filter((r) => !r.passed).length,
  process_watch: { processes_started: 0, threads_started: 0, native_addons_loaded: 0 },
  checks: rows,
});
const made = await runScriptedBaseline(join(root, "baseline"));
assert.ok(made.ok);
const baseline = made.value.runDirectory;
let copies = 0;
const forge = (): string => {
  const target = join(root, `forged-${++copies}`);
  cpSync(checksRoot, target, { recursive: true });
  return target;
};

function submissionWith(checks: string): string {
  const built = buildSubmission({
    baselineDirectory: baseline,
    modelDirectory: null,
    checksDirectory: checks,
    predictionsPath: null,
    blockedReason: null,
  });
  return built.ok ? built.value : `refused: ${built.error}`;
}

/** `code`: a problem of the verdict or of a row; null where only the headline says it (`mentions`). */
function assertNotAllPassed(
  checks: string,
  kind: ChecksVerdictKind,
  code: LabProblemCode | null,
  mentions?: RegExp,
): void {
  const verdict = deriveChecksVerdict(checks);
  assert.equal(verdict.kind, kind, JSON.stringify(verdict.problems.map(formatProblem)));
  if (code === null) assert.match(verdict.headline, mentions ?? /^$/);
  else assertProblem([...verdict.problems, ...verdict.rows.flatMap((row) => row.problems)], code, mentions);
  const report = readChecksReport(checks);
  assert.notEqual(report.verdict.tone, "success");
  assert.doesNotMatch(report.verdict.headline, /ALL \d+ CHECKS PASSED/);
  const markdown = submissionWith(checks);
  assert.doesNotMatch(markdown, /44 of 44 harness checks passed/);
  if (kind === "evidence_invalid") assert.equal(markdown, "refused: checks_invalid");
}

test("honest: the untouched checks root passes all 44 checks in the verdict, the report and submission.md", () => {
  const verdict = deriveChecksVerdict(checksRoot);
  assert.equal(verdict.kind, "all_passed", JSON.stringify(verdict.problems));
  assert.equal(verdict.total, CHECK_TABLE.length);
  assert.equal(verdict.headline, `NEGATIVE CHECKS · ALL ${CHECK_TABLE.length} CHECKS PASSED`);
  assert.ok(verdict.rows.every((row) => row.observed === row.expected));
  assert.equal(readChecksReport(checksRoot).verdict.tone, "success");
  assert.match(submissionWith(checksRoot), /44 of 44 harness checks passed/);
});

test("a check's observed code changed in checks.json is EVIDENCE INVALID (the code is re-derived from its run)", () => {
  const forged = forge();
  editJson(forged, "checks.json", (report) => {
    const row = (report.checks as Record<string, unknown>[]).find((item) => item.id === "import")!;
    row.observed = "forbidden_call_forged";
  });
  assertNotAllPassed(
    forged,
    "evidence_invalid",
    "check_row_differs",
    /import records observed "forbidden_call_forged", re-derived "forbidden_call"/,
  );
});

test("a check's expected code changed in checks.json (to match a wrong observation) is EVIDENCE INVALID", () => {
  const forged = forge();
  editJson(forged, "checks.json", (report) => {
    const row = (report.checks as Record<string, unknown>[]).find((item) => item.id === "power")!;
    row.expected = "unknown_action";
  });
  assertNotAllPassed(
    forged,
    "evidence_invalid",
    "check_row_differs",
    /power records expected "unknown_action", re-derived "forbidden_power"/,
  );
});

test("a check's run directory deleted is EVIDENCE INVALID, even with its row removed from checks.json", () => {
  const forged = forge();
  rmSync(join(forged, "stale_version"), { recursive: true });
  assertNotAllPassed(forged, "evidence_invalid", "check_directory_missing", /stale_version: its directory is missing/);
  const alsoRow = forge();
  rmSync(join(alsoRow, "stale_version"), { recursive: true });
  editJson(alsoRow, "checks.json", (report) => {
    report.checks = (report.checks as Record<string, unknown>[]).filter((item) => item.id !== "stale_version");
    report.total = 43;
    report.passed = 43;
  });
  assertNotAllPassed(alsoRow, "evidence_invalid", "check_directory_missing", /stale_version: its directory is missing/);
});

test("a check's run directory replaced by a link to a real run is EVIDENCE INVALID (never followed)", () => {
  const forged = forge();
  rmSync(join(forged, "call"), { recursive: true });
  symlinkSync(join(forged, "import"), join(forged, "call"));
  assertNotAllPassed(
    forged,
    "evidence_invalid",
    "check_directory_missing",
    /call: its directory is missing or not a directory \(symlink\)/,
  );
});

test("a check run's audit edited is EVIDENCE INVALID or a failed row, never a pass", () => {
  // The refusal's recorded code changed: the run is self-consistent, but the code is not the table's.
  const recoded = forge();
  editRecords(join(recoded, "import"), (records) => {
    const last = [...records].reverse().find((record) => record.type === "observation")!;
    observationOf(last).error = "forbidden_attribute";
  });
  assertNotAllPassed(
    recoded,
    "evidence_invalid",
    "check_row_differs",
    /import records observed "forbidden_call", re-derived "forbidden_attribute"/,
  );
  // A refused replace turned into an allowed one: the replayed authorizer disagrees.
  const allowed = forge();
  editRecords(join(allowed, "replace_before_read"), (records) => {
    records.find((record) => record.type === "authorization")!.data = { allowed: true };
  });
  assertNotAllPassed(
    allowed,
    "evidence_invalid",
    "check_run_invalid",
    /replace_before_read: its run is EVIDENCE INVALID/,
  );
});

test("a check row added that the spec's table does not have is EVIDENCE INVALID", () => {
  const forged = forge();
  editJson(forged, "checks.json", (report) => {
    (report.checks as unknown[]).push({ id: "made_up", expected: "x", observed: "x", unchanged: "yes", passed: true });
  });
  assertNotAllPassed(
    forged,
    "evidence_invalid",
    "check_unknown",
    /"made_up", which is not a check of the spec's table/,
  );
});

test("a process count of 5 in the checks run's process watch fails the checks (recorded, never a pass)", () => {
  const forged = forge();
  editJson(forged, "checks.json", (report) => {
    (report.process_watch as Record<string, unknown>).processes_started = 5;
  });
  assertNotAllPassed(forged, "failed", null, /PROCESSES STARTED/);
});

test("a checks.json nested 5,000 deep is EVIDENCE INVALID with its own code (json_too_deep), never a crash, in every consumer", () => {
  const forged = forge();
  writeFileSync(
    join(forged, "checks.json"),
    `{"schema":"tca.checks/1","checks":[],"x":${"[".repeat(5000)}${"]".repeat(5000)}}`,
  );
  assertNotAllPassed(forged, "evidence_invalid", "json_too_deep", /^json_too_deep: checks\.json: /);
});

test("checks.json of another schema, a row removed, or counts rewritten: each EVIDENCE INVALID with its code", () => {
  const other = forge();
  editJson(other, "checks.json", (report) => {
    report.schema = "tca.checks/2";
  });
  assertNotAllPassed(other, "evidence_invalid", "not_checks_report", /^not_checks_report: checks\.json: /);
  const noRow = forge();
  editJson(noRow, "checks.json", (report) => {
    report.checks = (report.checks as { id: string }[]).filter((row) => row.id !== "import");
  });
  assertNotAllPassed(
    noRow,
    "evidence_invalid",
    "check_row_missing",
    /^check_row_missing: checks\.json: has no row for import$/,
  );
  const counts = forge();
  editJson(counts, "checks.json", (report) => {
    report.total = 43;
  });
  assertNotAllPassed(
    counts,
    "evidence_invalid",
    "checks_count_differs",
    /^checks_count_differs: checks\.json: declares total 43, re-derived 44$/,
  );
});

test("a runner assertion recorded in checks.json fails its row (check_recorded_problem), never passes", () => {
  const forged = forge();
  editJson(forged, "checks.json", (report) => {
    const row = (report.checks as Record<string, unknown>[]).find((item) => item.id === "import")!;
    row.problems = ["the injected text never reached the request"];
  });
  assertNotAllPassed(
    forged,
    "evidence_invalid",
    "check_recorded_problem",
    /^check_recorded_problem: checks\.json: import: the injected text never reached the request$/,
  );
  const row = deriveChecksVerdict(forged).rows.find((item) => item.id === "import")!;
  assert.equal(row.passed, false);
});

test("a source-validator check whose read was not refused as workspace_conflict fails its row (check_outcome_differs)", () => {
  const forged = forge();
  editRecords(join(forged, "altered_signature"), (records) => {
    const last = [...records].reverse().find((record) => record.type === "observation")!;
    observationOf(last).error = "unknown_action";
  });
  assertNotAllPassed(
    forged,
    "evidence_invalid",
    "check_outcome_differs",
    /^check_outcome_differs: altered_signature\/audit\.jsonl: the read of the changed file was not refused as workspace_conflict$/,
  );
});
