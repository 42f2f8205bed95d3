// Reads a checks root (one run directory per check, plus checks.json) into the data of its
// report. The verdict and every row are the evidence room's deriveChecksVerdict: re-derived from
// each check's own run directory against the spec's table; checks.json is only compared with it.
// Failures first.
import { join } from "node:path";
import { formatProblem } from "../recording/evidenceProblem.ts";
import { deriveChecksVerdict, type ChecksVerdict, type DerivedCheckRow } from "../verdicts/checksVerdict.ts";
import { baseName } from "./evidenceFiles.ts";
import { readLabReport } from "./labReport.ts";
import type { CheckRowView, ChecksReportData, Verdict, VerdictTone } from "./reportDocument.ts";

export { CHECKS_FILE } from "../verdicts/checksVerdict.ts";

function checkRow(root: string, row: DerivedCheckRow): CheckRowView {
  const full =
    row.runVerdict === null || row.runDirectoryName === null
      ? null
      : readLabReport(join(root, row.runDirectoryName), { includeRequests: false });
  // The nested view shows the verdict and timeline; the manifest and final.json stay in the run's own report.
  const run = full === null ? null : { ...full, manifest: null, final: null };
  return {
    id: row.id,
    description: row.description,
    expected: row.expected,
    observed: row.observed ?? "",
    unchanged: row.unchanged,
    stopReason: row.stopReason ?? "none",
    passed: row.passed,
    problems: row.problems.map(formatProblem),
    runDirectoryName: row.runDirectoryName,
    run,
  };
}

const TONES: Readonly<Record<ChecksVerdict["kind"], VerdictTone>> = {
  all_passed: "success",
  failed: "failure",
  incomplete: "incomplete",
  evidence_invalid: "invalid",
};

export function checksVerdict(verdict: ChecksVerdict): Verdict {
  const details =
    verdict.kind === "all_passed"
      ? ["every check of the spec's table was re-derived from its own run directory and observed its expected code"]
      : verdict.kind === "failed"
        ? verdict.failed > 0
          ? ["failed checks are listed first"]
          : [
              `checks.json records ${String(verdict.processesStarted)} processes, threads or native addons started (recorded, not re-derived)`,
            ]
        : verdict.problems.map(formatProblem);
  return {
    headline: verdict.headline,
    tone: TONES[verdict.kind],
    details: [...details, "recorded, not re-derived: descriptions, the runner's extra assertions, the process watch"],
  };
}

export function readChecksReport(root: string): ChecksReportData {
  const verdict = deriveChecksVerdict(root);
  const rows = verdict.rows.map((row) => checkRow(root, row));
  return {
    directoryName: baseName(root),
    verdict: checksVerdict(verdict),
    total: verdict.total,
    passed: verdict.passed,
    failed: verdict.failed,
    checks: [...rows.filter((row) => !row.passed), ...rows.filter((row) => row.passed)],
    problems: verdict.problems.map(formatProblem),
  };
}
