// Builds the report of a run directory from the readers of the kinds of run it is given, and
// writes it. The run directory is evidence and is never written: the default output lies next to
// it (<run dir>.report.html), and an --out path inside the run directory is refused. An existing
// output file is replaced only with force. reportBuilder.ts gives every kind's reader;
// labRunReport.ts the Lab run's alone, so `tca report` on a Lab run loads nothing of the bench (#36).
import { closeSync, constants, openSync, realpathSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname, relative, resolve, isAbsolute, basename, join } from "node:path";
import { randomBytes } from "node:crypto";
import { err, ok, type Result } from "../core/result.ts";
import type { ReportErrorCode } from "./errorCodes.ts";
import { existsAtAll } from "./evidenceFiles.ts";
import { renderReportHtml } from "./htmlPage.ts";
import { REPORT_DOCUMENT_SCHEMA, type ReportBody, type ReportDocument } from "./reportDocument.ts";
import { detectRunKind, type RunKind } from "./runKind.ts";
import { defaultReportPath } from "./reportPath.ts";
import type { ModelCheck } from "../verdicts/modelTrialCheck.ts";

export const REPORT_GENERATOR = "tiny-coding-agent tca report";

export interface BuiltReport {
  readonly document: ReportDocument;
  readonly html: string;
}

export interface BuildOptions {
  /** Injected for reproducible tests; default: the current time. */
  readonly now?: () => Date;
  /** A Lab run's model directory as opened now (modelCheckOfRun); absent: the model is not checked. */
  readonly modelCheck?: ModelCheck;
}

/** What reads one kind of run (its real directory) into the report's body. */
export type RunReader = (directory: string, options: BuildOptions) => ReportBody;

/** The readers a build may use, by kind; a kind without one is refused, never read by another. */
export type RunReaders = Readonly<Partial<Record<RunKind, RunReader>>>;

export function buildReportDocumentWith(
  readers: RunReaders,
  runDirectory: string,
  options: BuildOptions = {},
): Result<ReportDocument, ReportErrorCode> {
  // The path the user names may be a symlink to the run directory; files inside it are never followed.
  const directory = realOrResolved(runDirectory);
  const kind = detectRunKind(directory);
  if (!kind.ok) return kind;
  const read = readers[kind.value];
  // Only where the caller chose its readers by a kind detected earlier and the folder changed since.
  if (read === undefined)
    return err(
      "unknown_run_kind",
      `the run directory now holds a ${kind.value} run, not the kind it held a moment ago`,
    );
  return ok({
    schema: REPORT_DOCUMENT_SCHEMA,
    generator: REPORT_GENERATOR,
    generatedAt: (options.now ?? (() => new Date()))().toISOString(),
    ...read(directory, options),
  });
}

export function buildReportWith(
  readers: RunReaders,
  runDirectory: string,
  options: BuildOptions = {},
): Result<BuiltReport, ReportErrorCode> {
  const document = buildReportDocumentWith(readers, runDirectory, options);
  if (!document.ok) return document;
  return ok({ document: document.value, html: renderReportHtml(document.value) });
}

export { defaultReportPath };

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** True when `path` is the run directory or inside it (after resolving symlinks of the existing parts). */
export function isInsideDirectory(path: string, directory: string): boolean {
  const parent = realOrResolved(dirname(resolve(path)));
  const target = join(parent, basename(resolve(path)));
  const root = realOrResolved(directory);
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

export interface WriteOptions extends BuildOptions {
  readonly out?: string;
  readonly force?: boolean;
}

/** Builds the report and writes it (atomically: a temporary file, then a rename). */
export function writeReportWith(
  readers: RunReaders,
  runDirectory: string,
  options: WriteOptions = {},
): Result<{ path: string; report: BuiltReport }, ReportErrorCode> {
  const out = resolve(options.out ?? defaultReportPath(runDirectory));
  if (isInsideDirectory(out, runDirectory)) {
    return err(
      "output_inside_run_directory",
      "the run directory is evidence: write the report outside it (the default is <run dir>.report.html next to it)",
    );
  }
  if (existsAtAll(out) && options.force !== true)
    return err("output_exists", "the output file exists; pass --force to replace it");
  const built = buildReportWith(readers, runDirectory, options);
  if (!built.ok) return built;
  const temporary = join(dirname(out), `.${basename(out)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fd = openSync(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      writeSync(fd, built.value.html);
    } finally {
      closeSync(fd);
    }
    if (existsAtAll(out) && options.force !== true) {
      unlinkSync(temporary);
      return err("output_exists", "the output file appeared while the report was built; pass --force to replace it");
    }
    renameSync(temporary, out);
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was created
    }
    return err("output_unwritable", "cannot write the report file there");
  }
  return ok({ path: out, report: built.value });
}
