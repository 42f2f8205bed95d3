// The verdict of a `tca lab checks` root, RE-DERIVED: every check of the spec's table
// (src/constants/checkTable.ts, never checks.json) is read from its own run directory through the Lab
// verdict, its observed code is read from that run's replayed audit (or the file it left), and only
// then is checks.json compared with what was re-derived. A missing run directory, a run whose
// evidence is invalid, or a checks.json that disagrees is EVIDENCE INVALID. Used by the report and
// by submission.md, so both say the same thing.
//
// Recorded, not re-derived: each check's description, the runner's extra assertions (a recorded
// problem only ever fails a row) and the process watch of the checks run (a non-zero count only
// ever fails the verdict).
import { labelledVerdict, NEGATIVE_CHECKS_SOURCE } from "../core/resultLabel.ts";
import { isRecord } from "../core/isRecord.ts";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { join } from "node:path";
import { decodeUtf8Strict, kindUnder, listDirectoryUnder, readFileUnder } from "../core/safeRead.ts";
import { parseToyMathSource } from "../expr/index.ts";
import { CHECK_TABLE, type CheckExpectation } from "../constants/checkTable.ts";
import { AUDIT_FILE_NAME } from "../recording/auditLog.ts";
import type { LabAuditRecord as AuditRecord } from "../recording/labAuditEvents.ts";
import { formatProblem } from "../recording/evidenceProblem.ts";
import { labProblem, type LabProblem } from "./labProblems.ts";
import { deriveRunVerdict, RUN_VERDICT_HEADLINES, type RunVerdict, type RunVerdictKind } from "./runVerdict.ts";

export const CHECKS_FILE = "checks.json";
const CHECKS_FILE_MAX_BYTES = 64 * 1024 * 1024;
const SOURCE_MAX_BYTES = 1024 * 1024;
const DESTINATION_FILE = "keep.txt";
const DESTINATION_TEXT = "pre-existing\n";

type Json = Readonly<Record<string, unknown>>;

export type ChecksVerdictKind = "all_passed" | "failed" | "incomplete" | "evidence_invalid";

export interface DerivedCheckRow {
  readonly id: string;
  /** Display text from checks.json (recorded, not re-derived); the id where none is recorded. */
  readonly description: string;
  /** From the spec's table in the source. */
  readonly expected: string;
  /** Re-derived from the check's own run directory (null: nothing to observe). */
  readonly observed: string | null;
  readonly unchanged: "yes" | "no" | "n/a";
  readonly passed: boolean;
  /** Why the row fails, coded (check_outcome_differs, check_recorded_problem, check_directory_missing). */
  readonly problems: readonly LabProblem[];
  /** The run directory's name under the checks root (null where the check makes no run). */
  readonly runDirectoryName: string | null;
  readonly runVerdict: RunVerdictKind | null;
  readonly stopReason: string | null;
}

export interface ChecksVerdict {
  readonly kind: ChecksVerdictKind;
  readonly headline: string;
  readonly rows: readonly DerivedCheckRow[];
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  /** Non-empty exactly when kind is evidence_invalid or incomplete; files named relative to the root. */
  readonly problems: readonly LabProblem[];
  /** The process watch of the checks run as recorded (recorded, not re-derived). */
  readonly processesStarted: number | null;
}

function readChecksFile(root: string): {
  readonly report: Json | null;
  readonly problem: LabProblem | null;
} {
  const refused = (code: LabProblem["code"], detail: string): { report: null; problem: LabProblem } => ({
    report: null,
    problem: labProblem(code, CHECKS_FILE, detail),
  });
  const bytes = readFileUnder(root, CHECKS_FILE, CHECKS_FILE_MAX_BYTES);
  if (!bytes.ok)
    return refused(
      bytes.error === "not_found" ? "file_missing" : "file_unreadable",
      `${bytes.error}: ${bytes.message}`,
    );
  const text = decodeUtf8Strict(bytes.value, CHECKS_FILE);
  if (!text.ok) return refused("not_utf8", `${text.error}: ${text.message}`);
  // Depth-checked before parsing (src/core/boundedJson): over-deep JSON is refused with its own code.
  const parsed = parseBoundedJson(text.value, CHECKS_FILE);
  if (!parsed.ok)
    return parsed.error === "json_too_deep"
      ? refused("json_too_deep", parsed.message)
      : refused("not_json", "not JSON");
  const value = parsed.value;
  if (!isRecord(value) || value.schema !== "tca.checks/1" || !Array.isArray(value.checks))
    return refused("not_checks_report", "not a tca.checks/1 report");
  return { report: value, problem: null };
}

function observation(record: AuditRecord): Json | null {
  return record.type === "observation" ? record.data.observation : null;
}

function committedAtOrAfter(records: readonly AuditRecord[], proposal: number): boolean {
  return records.some(
    (record) =>
      (record.type === "edit_committed" ||
        (record.type === "edit_reconciled" && record.data.outcome === "committed")) &&
      (record.proposal ?? 0) >= proposal,
  );
}

/** The observed code, re-derived from the run's own (verified) artifacts. */
function observe(
  check: CheckExpectation,
  runDirectory: string,
  verdict: RunVerdict,
  problems: LabProblem[],
): string | null {
  const outcome = (detail: string): number =>
    problems.push(labProblem("check_outcome_differs", `${check.id}/${AUDIT_FILE_NAME}`, detail));
  const records = verdict.records;
  switch (check.observe) {
    case "last_error": {
      const last = [...records].reverse().find((record) => record.type === "observation");
      const body = last === undefined ? null : observation(last);
      return body !== null && body.ok === false && typeof body.error === "string" ? body.error : null;
    }
    case "stop_reason":
      return verdict.recomputed.replay.stopReason;
    case "final_status":
      return verdict.facts.evaluation?.status ?? null;
    case "late_discarded": {
      const late = records.some(
        (record) => record.type === "late_proposal_discarded" && record.proposal === check.deniedProposal,
      );
      const validated = records.some(
        (record) => record.type === "validation" && record.proposal === check.deniedProposal,
      );
      return late && !validated ? "late_proposal_discarded" : null;
    }
    case "source_validator": {
      const last = [...records].reverse().find((record) => record.type === "observation");
      if (last === undefined || observation(last)?.error !== "workspace_conflict")
        outcome("the read of the changed file was not refused as workspace_conflict");
      const bytes = readFileUnder(runDirectory, "workspace/toy_math.py", SOURCE_MAX_BYTES);
      if (!bytes.ok) return null;
      const parsed = parseToyMathSource(bytes.value);
      return parsed.ok ? "accepted" : parsed.error;
    }
    case "no_change": {
      const receipt = records.find(
        (record) => record.type === "observation" && record.proposal === check.deniedProposal,
      );
      const body = receipt === undefined ? null : observation(receipt);
      if (verdict.kind !== "verified_success") outcome("the finish after the no_change must verify");
      return body?.status === "no_change" && body.version === body.old_version ? "no_change" : null;
    }
    case "destination_untouched":
      return null;
  }
}

function deriveRow(
  root: string,
  check: CheckExpectation,
  recorded: Json | undefined,
): { row: DerivedCheckRow; invalid: LabProblem | null } {
  const description = typeof recorded?.description === "string" ? recorded.description : check.id;
  // The runner's own assertions, as checks.json records them: a recorded problem only ever fails the row.
  const recordedProblems = (Array.isArray(recorded?.problems) ? recorded.problems.map(String) : []).map((text) =>
    labProblem("check_recorded_problem", CHECKS_FILE, `${check.id}: ${text}`),
  );
  const base = { id: check.id, description, expected: check.expected };
  const kind = kindUnder(root, check.id);
  if (!kind.ok || kind.value !== "directory") {
    const row: DerivedCheckRow = {
      ...base,
      observed: null,
      unchanged: "n/a",
      passed: false,
      problems: [labProblem("check_directory_missing", check.id, "its run directory is missing")],
      runDirectoryName: null,
      runVerdict: null,
      stopReason: null,
    };
    const found = kind.ok ? kind.value : kind.error;
    return {
      row,
      invalid: labProblem(
        "check_directory_missing",
        check.id,
        `its directory is missing or not a directory (${found})`,
      ),
    };
  }
  if (check.observe === "destination_untouched") {
    const names = listDirectoryUnder(root, check.id);
    const text = readFileUnder(root, join(check.id, DESTINATION_FILE), 1024);
    const untouched =
      names.ok &&
      names.value.join(",") === DESTINATION_FILE &&
      text.ok &&
      text.value.toString("utf8") === DESTINATION_TEXT;
    // The run was refused, so the destination holds only what was there before.
    const observed = untouched ? check.expected : null;
    const row: DerivedCheckRow = {
      ...base,
      observed,
      unchanged: untouched ? "yes" : "no",
      passed: untouched && recordedProblems.length === 0,
      problems: recordedProblems,
      runDirectoryName: check.id,
      runVerdict: null,
      stopReason: null,
    };
    return { row, invalid: null };
  }
  const runDirectory = join(root, check.id);
  const verdict = deriveRunVerdict(runDirectory);
  const problems = [...recordedProblems];
  const observed = observe(check, runDirectory, verdict, problems);
  const unchanged = !committedAtOrAfter(verdict.records, check.deniedProposal);
  const runOk = verdict.kind === "verified_success" || verdict.kind === "not_verified";
  if (check.observe === "source_validator" && verdict.kind === "verified_success")
    problems.push(labProblem("check_outcome_differs", `${check.id}/final.json`, "verified_success must be false"));
  const row: DerivedCheckRow = {
    ...base,
    observed,
    unchanged: unchanged ? "yes" : "no",
    passed: runOk && observed === check.expected && unchanged && problems.length === 0,
    problems,
    runDirectoryName: check.id,
    runVerdict: verdict.kind,
    stopReason: verdict.facts.stopReason,
  };
  const first = verdict.problems[0];
  const invalid = runOk
    ? null
    : labProblem(
        "check_run_invalid",
        check.id,
        `its run is ${RUN_VERDICT_HEADLINES[verdict.kind]}${first === undefined ? "" : `: ${formatProblem(first)}`}`,
      );
  return { row, invalid };
}

/** The recorded row must say what was re-derived: observed, expected, unchanged, passed. */
function compareRecorded(row: DerivedCheckRow, recorded: Json | undefined, problems: LabProblem[]): void {
  if (recorded === undefined)
    return void problems.push(labProblem("check_row_missing", CHECKS_FILE, `has no row for ${row.id}`));
  const fields: readonly [string, unknown][] = [
    ["expected", row.expected],
    ["observed", row.observed],
    ["unchanged", row.unchanged],
    ["passed", row.passed],
  ];
  for (const [key, value] of fields) {
    if (recorded[key] !== value)
      problems.push(
        labProblem(
          "check_row_differs",
          CHECKS_FILE,
          `${row.id} records ${key} ${JSON.stringify(recorded[key]) ?? "missing"}, re-derived ${JSON.stringify(value)}`,
        ),
      );
  }
}

function processCount(report: Json | null): number | null {
  const watch = report?.process_watch;
  if (!isRecord(watch)) return null;
  const counts = ["processes_started", "threads_started", "native_addons_loaded"].map((key) => watch[key]);
  return counts.every((count): count is number => Number.isSafeInteger(count) && (count as number) >= 0)
    ? counts.reduce((sum, count) => sum + count, 0)
    : null;
}

/** The verdict of the checks root `root`, re-derived check by check. */
export function deriveChecksVerdict(root: string): ChecksVerdict {
  const file = readChecksFile(root);
  const problems: LabProblem[] = file.problem === null ? [] : [file.problem];
  const recordedRows = new Map<string, Json>();
  for (const item of Array.isArray(file.report?.checks) ? file.report.checks : []) {
    if (isRecord(item) && typeof item.id === "string") recordedRows.set(item.id, item);
  }
  const rows: DerivedCheckRow[] = [];
  for (const check of CHECK_TABLE) {
    const { row, invalid } = deriveRow(root, check, recordedRows.get(check.id));
    if (invalid !== null) problems.push(invalid);
    if (file.report !== null) compareRecorded(row, recordedRows.get(check.id), problems);
    rows.push(row);
  }
  const known = new Set(CHECK_TABLE.map((check) => check.id));
  for (const id of recordedRows.keys())
    if (!known.has(id))
      problems.push(
        labProblem(
          "check_unknown",
          CHECKS_FILE,
          `lists ${JSON.stringify(id)}, which is not a check of the spec's table`,
        ),
      );
  const failed = rows.filter((row) => !row.passed).length;
  const passed = rows.length - failed;
  if (file.report !== null) {
    for (const [key, value] of [
      ["total", rows.length],
      ["passed", passed],
      ["failed", failed],
    ] as const) {
      if (file.report[key] !== value)
        problems.push(
          labProblem(
            "checks_count_differs",
            CHECKS_FILE,
            `declares ${key} ${JSON.stringify(file.report[key]) ?? "missing"}, re-derived ${value}`,
          ),
        );
    }
  }
  const processesStarted = processCount(file.report);
  const kind: ChecksVerdictKind =
    file.problem?.code === "file_missing" && problems.length === 1
      ? "incomplete"
      : problems.length > 0
        ? "evidence_invalid"
        : failed > 0 || processesStarted !== 0
          ? "failed"
          : "all_passed";
  // The source first, as on every result line: these are scripted checks, never a model's result.
  const headline = labelledVerdict(
    NEGATIVE_CHECKS_SOURCE,
    kind === "evidence_invalid"
      ? RUN_VERDICT_HEADLINES.evidence_invalid
      : kind === "incomplete"
        ? "INCOMPLETE CHECKS RUN"
        : kind === "failed"
          ? failed > 0
            ? `${failed} OF ${rows.length} CHECKS FAILED`
            : "PROCESSES STARTED DURING THE CHECKS"
          : `ALL ${rows.length} CHECKS PASSED`,
  );
  return { kind, headline, rows, total: rows.length, passed, failed, problems, processesStarted };
}
