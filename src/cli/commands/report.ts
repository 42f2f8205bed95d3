// tca report: writes the self-contained HTML report of a Lab run, a checks run or a QuixBugs
// bench run, or serves it on 127.0.0.1 with --open. Thin: parsing and printing only.
import { resolve } from "node:path";
import type { Command } from "commander";
import type { SetExitCode } from "./index.ts";
import { printCommandError, refusal } from "../commandError.ts";
import { existingParent } from "../pathArguments.ts";
import { buildReportWith, defaultReportPath, writeReportWith, type RunReaders } from "../../report/reportFile.ts";
import type { ReportDocument, Verdict } from "../../report/reportDocument.ts";
import { detectRunKind } from "../../report/runKind.ts";
import { modelCheckOfRun } from "../../verdicts/runVerdict.ts";

interface ReportFlags {
  out?: string;
  force?: boolean;
  open?: boolean;
  json?: boolean;
}

export function registerReportCommands(program: Command, setExitCode: SetExitCode): void {
  program
    .command("report")
    .description("write a self-contained HTML report of a run directory (Lab run, checks run or bench run)")
    .argument("<run-dir>", "the run directory (never written to)")
    .option("--out <file>", "the HTML file to write (default: <run-dir>.report.html next to the run directory)")
    .option("--force", "replace the output file if it exists")
    .option("--open", "serve the report on 127.0.0.1 and print its URL (writes a file only with --out); Ctrl-C stops")
    .option("--json", "print the report data (JSON) instead of writing HTML")
    .action(async (runDirectory: string, flags: ReportFlags) => {
      // A Lab run that claims a model has its model directory opened and re-hashed now (async),
      // so the page never calls a run a model trial on its labels alone.
      const kind = detectRunKind(resolve(runDirectory));
      const modelCheck = kind.ok && kind.value === "lab" ? await modelCheckOfRun(resolve(runDirectory)) : undefined;
      const checked = modelCheck === undefined ? {} : { modelCheck };
      // A Lab run's page needs the Lab run's reader only; any other kind (or none yet) every reader.
      const readers: RunReaders =
        kind.ok && kind.value === "lab"
          ? (await import("../../report/labRunReport.ts")).LAB_RUN_READERS
          : (await import("../../report/reportBuilder.ts")).ALL_RUN_READERS;
      if (flags.json) {
        const built = buildReportWith(readers, runDirectory, checked);
        if (!built.ok) return fail(setExitCode, built.error, built.message, { run: runDirectory });
        process.stdout.write(`${JSON.stringify(built.value.document, null, 2)}\n`);
        failIfInvalid(setExitCode, built.value.document);
        return;
      }
      if (flags.open) {
        let html: string;
        if (flags.out !== undefined) {
          const written = writeReportWith(readers, runDirectory, {
            ...checked,
            out: flags.out,
            force: flags.force === true,
          });
          if (!written.ok)
            return fail(setExitCode, written.error, written.message, { run: runDirectory, out: flags.out });
          process.stdout.write(`report: ${written.value.path}\n`);
          html = written.value.report.html;
        } else {
          const built = buildReportWith(readers, runDirectory, checked);
          if (!built.ok) return fail(setExitCode, built.error, built.message, { run: runDirectory });
          html = built.value.html;
        }
        // The HTTP server is loaded only for --open.
        const { serveReport } = await import("../../report/reportServer.ts");
        const served = await serveReport(html);
        if (!served.ok) return fail(setExitCode, served.error, served.message, { run: runDirectory });
        process.stdout.write(`serving the report at ${served.value.url}\nopen it in a browser; press Ctrl-C to stop\n`);
        await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
        await served.value.close();
        process.stdout.write("stopped\n");
        return;
      }
      const out = flags.out ?? defaultReportPath(runDirectory);
      // The one output rule: a missing parent folder is refused with its mkdir, before anything is read.
      const parent = flags.out === undefined ? null : existingParent("--out", resolve(flags.out));
      if (parent !== null && !parent.ok && parent.error === "path_not_found")
        return fail(
          setExitCode,
          "output_unwritable",
          parent.message.replace(`--out ${resolve(flags.out ?? "")}: `, ""),
          {
            run: runDirectory,
            out,
          },
        );
      const written = writeReportWith(readers, runDirectory, { ...checked, out, force: flags.force === true });
      if (!written.ok) return fail(setExitCode, written.error, written.message, { run: runDirectory, out });
      const document = written.value.report.document;
      // A bench run's page shows verify-run's recorded verification (a record); the terminal shows it too.
      let records = "";
      if (document.kind === "bench") {
        const [{ RECORDED_VERIFICATION_PREFIXES }, { RECORDED_REGENERATION_PREFIXES }] = await Promise.all([
          import("../../verdicts/recordedVerification.ts"),
          import("../../verdicts/benchRegenerationRecord.ts"),
        ]);
        const recordedLine = (prefixes: readonly string[]): string | undefined =>
          document.bench.verdict.details.find((line) => prefixes.some((prefix) => line.startsWith(prefix)));
        records = [recordedLine(RECORDED_VERIFICATION_PREFIXES), recordedLine(RECORDED_REGENERATION_PREFIXES)]
          .filter((line) => line !== undefined)
          .map((line) => `${line}\n`)
          .join("");
      }
      process.stdout.write(
        `${document.kind} run: ${verdictOf(document).headline}\n${records}report: ${written.value.path}\n`,
      );
      failIfInvalid(setExitCode, document);
    });
}

function verdictOf(document: ReportDocument): Verdict {
  return document.kind === "lab"
    ? document.lab.verdict
    : document.kind === "checks"
      ? document.checks.verdict
      : document.bench.verdict;
}

/** EVIDENCE INVALID is never a successful command: the report is written, the exit status says no. */
function failIfInvalid(setExitCode: SetExitCode, document: ReportDocument): void {
  const verdict = verdictOf(document);
  if (verdict.tone !== "invalid") return;
  printCommandError("evidence_invalid", invalidLine(document));
  setExitCode(1);
}

/**
 * The one line of an EVIDENCE INVALID report on stderr. A bench page's first line is its coded
 * cause (src/report/benchReport.ts), with the next command where it has one; the second line of a
 * bench page is verify-run's record, which is no cause.
 */
function invalidLine(document: ReportDocument): string {
  const details = verdictOf(document).details;
  if (document.kind === "bench") {
    const next = details.find((line) => line.startsWith("next step:"));
    return [details[0] ?? "the run's files disagree", next].filter((line) => line !== undefined).join("; ");
  }
  return details[1] ?? details[0] ?? "the evidence disagrees with its audit";
}

// The report builder's codes that are about the output file; every other refusal is about the run directory.
const OUTPUT_CODES: readonly string[] = ["output_exists", "output_unwritable", "output_inside_run_directory"];

/** The refusal, naming the path it is about (the builder's messages do not carry host paths). */
function fail(setExitCode: SetExitCode, code: string, message: string, paths: { run: string; out?: string }): void {
  const about =
    OUTPUT_CODES.includes(code) && paths.out !== undefined ? `--out ${resolve(paths.out)}` : resolve(paths.run);
  refusal(setExitCode, 2)(code, `${about}: ${message}`);
}
