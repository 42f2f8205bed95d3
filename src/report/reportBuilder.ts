// The report of any run directory: a Lab run, a checks run or a QuixBugs bench run, each read by
// its own reader (reportFile.ts builds and writes; labRunReport.ts reads a Lab run).
import type { Result } from "../core/result.ts";
import type { ReportErrorCode } from "./errorCodes.ts";
import { readBenchReport } from "./benchReport.ts";
import { readChecksReport } from "./checksReport.ts";
import { readLabRunBody } from "./labRunReport.ts";
import type { ReportDocument } from "./reportDocument.ts";
import {
  buildReportDocumentWith,
  buildReportWith,
  writeReportWith,
  type BuildOptions,
  type BuiltReport,
  type RunReaders,
  type WriteOptions,
} from "./reportFile.ts";

export {
  defaultReportPath,
  isInsideDirectory,
  REPORT_GENERATOR,
  type BuildOptions,
  type BuiltReport,
  type WriteOptions,
} from "./reportFile.ts";

/** Every kind of run a report is made of, each by its own reader. */
export const ALL_RUN_READERS: RunReaders = {
  lab: readLabRunBody,
  checks: (directory) => ({ kind: "checks", checks: readChecksReport(directory) }),
  bench: (directory) => ({ kind: "bench", bench: readBenchReport(directory) }),
};

export function buildReportDocument(
  runDirectory: string,
  options: BuildOptions = {},
): Result<ReportDocument, ReportErrorCode> {
  return buildReportDocumentWith(ALL_RUN_READERS, runDirectory, options);
}

export function buildReport(runDirectory: string, options: BuildOptions = {}): Result<BuiltReport, ReportErrorCode> {
  return buildReportWith(ALL_RUN_READERS, runDirectory, options);
}

/** Builds the report and writes it (atomically: a temporary file, then a rename). */
export function writeReport(
  runDirectory: string,
  options: WriteOptions = {},
): Result<{ path: string; report: BuiltReport }, ReportErrorCode> {
  return writeReportWith(ALL_RUN_READERS, runDirectory, options);
}
