// Reads a checks run directory (checks.json plus one run directory per check) into the data of
// its report: the table of negative checks with expected and observed codes, failures first.
import { join } from "node:path";
import { baseName, isDirectoryUnder, isJsonObject, numberField, readJsonObject, stringField, type JsonObject } from "./evidenceFiles.ts";
import { readLabReport } from "./labReport.ts";
import { EVIDENCE_INVALID_HEADLINE } from "./labVerdict.ts";
import type { CheckRowView, ChecksReportData, Verdict } from "./reportDocument.ts";

export const CHECKS_FILE = "checks.json";

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  return JSON.stringify(value);
}

function checkRow(root: string, value: JsonObject): CheckRowView {
  const runPath = stringField(value, "runDirectory");
  // Only a run directory inside this checks root is read; the recorded path may be from another machine.
  const name = runPath === null ? null : baseName(runPath);
  // A link named like a run is not followed: only a real directory inside the root is read.
  const local = name === null || name === "" || name === "." || name === ".." || !isDirectoryUnder(root, name) ? null : join(root, name);
  const full = local !== null ? readLabReport(local, { includeRequests: false }) : null;
  // The nested view shows the verdict and timeline; the manifest and final.json stay in the run's own report.
  const run = full === null ? null : { ...full, manifest: null, final: null };
  return {
    id: text(value.id),
    description: text(value.description),
    expected: text(value.expected),
    observed: text(value.observed),
    unchanged: text(value.unchanged),
    stopReason: value.stopReason === null || value.stopReason === undefined ? "none" : text(value.stopReason),
    passed: value.passed === true,
    problems: Array.isArray(value.problems) ? value.problems.map(text) : [],
    runDirectoryName: name,
    run,
  };
}

export function readChecksReport(root: string): ChecksReportData {
  const problems: string[] = [];
  const read = readJsonObject(root, CHECKS_FILE);
  const report = read.ok ? read.value : null;
  if (!read.ok) problems.push(`${CHECKS_FILE}: ${read.error} (${read.message})`);
  if (report !== null && report.schema !== "tca.checks/1") problems.push(`${CHECKS_FILE}: unexpected schema ${JSON.stringify(report.schema)}`);
  const rows = Array.isArray(report?.checks) ? report.checks.filter(isJsonObject).map((row) => checkRow(root, row)) : [];
  // Failures first; otherwise the order checks.json gives.
  const ordered = [...rows.filter((row) => !row.passed), ...rows.filter((row) => row.passed)];
  const failed = rows.filter((row) => !row.passed).length;
  const declaredFailed = numberField(report, "failed");
  if (declaredFailed !== null && declaredFailed !== failed) problems.push(`${CHECKS_FILE} declares ${declaredFailed} failed checks but its rows show ${failed}`);
  return {
    directoryName: baseName(root),
    verdict: checksVerdict(rows.length, failed, report !== null, rows.filter((row) => row.run?.verdict.tone === "invalid").map((row) => row.id)),
    total: rows.length,
    passed: rows.length - failed,
    failed,
    checks: ordered,
    problems,
  };
}

export function checksVerdict(total: number, failed: number, readable: boolean, invalidRuns: readonly string[] = []): Verdict {
  if (invalidRuns.length > 0) {
    return { headline: EVIDENCE_INVALID_HEADLINE, tone: "invalid", details: [`the evidence of ${invalidRuns.length} check run(s) is damaged or disagrees with its audit: ${invalidRuns.join(", ")}`] };
  }
  if (!readable) return { headline: "INCOMPLETE CHECKS RUN", tone: "incomplete", details: [`${CHECKS_FILE} is missing or unreadable`] };
  if (total === 0) return { headline: "NO CHECKS RECORDED", tone: "incomplete", details: [`${CHECKS_FILE} lists no checks`] };
  if (failed > 0) return { headline: `${failed} OF ${total} CHECKS FAILED`, tone: "failure", details: ["failed checks are listed first"] };
  return { headline: `ALL ${total} CHECKS PASSED`, tone: "success", details: ["every negative check observed its expected code"] };
}
