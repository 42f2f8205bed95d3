// tca lab: the Lab's harness commands. Thin: argument parsing and printing only.
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import type { SetExitCode } from "./index.ts";
import { BASELINE_PROPOSALS } from "../../lab/constants.ts";
import { runLab } from "../../lab/labRun.ts";
import { ScriptedSource } from "../../sources/scriptedSource.ts";
import { runAllChecks, type CheckRow } from "../../lab/checkRunner.ts";
import { writeJsonExclusive } from "../../evidence/evidenceFile.ts";
import { formatRunSummary } from "../../lab/runSummary.ts";

export function registerLabCommands(program: Command, setExitCode: SetExitCode): void {
  const lab = program.command("lab").description("Lab 16: the controlled tiny coding agent");

  lab
    .command("baseline")
    .description("run the six scripted baseline proposals in a fresh run directory (no model)")
    .option("--run <dir>", "a new run directory (absolute or relative; must not exist)")
    .option("--json", "print final.json instead of the summary")
    .action(async (options: { run?: string; json?: boolean }) => {
      const runDirectory = options.run ? resolve(options.run) : join(mkdtempSync(join(tmpdir(), "tca-baseline-")), "run");
      const cancel = new AbortController();
      const onSigint = (): void => cancel.abort();
      process.once("SIGINT", onSigint);
      try {
        const result = await runLab({ runDirectory, source: new ScriptedSource(BASELINE_PROPOSALS), kind: "scripted_baseline", cancellation: cancel.signal });
        if (!result.ok) {
          process.stderr.write(`tca lab baseline: ${result.error}: ${result.message}\n`);
          setExitCode(2);
          return;
        }
        process.stdout.write(options.json ? `${JSON.stringify(result.value.final, null, 2)}\n` : formatRunSummary(result.value.final, result.value.runDirectory));
        setExitCode(result.value.final.verified_success ? 0 : 1);
      } finally {
        process.removeListener("SIGINT", onSigint);
      }
    });

  lab
    .command("checks")
    .description("run every negative check of Part 7, each in its own fresh run directory")
    .option("--root <dir>", "a new directory to hold the check runs and checks.json (must not exist)")
    .option("--json", "print checks.json instead of the table")
    .action(async (options: { root?: string; json?: boolean }) => {
      const root = options.root ? resolve(options.root) : join(mkdtempSync(join(tmpdir(), "tca-checks-")), "checks");
      try {
        mkdirSync(root, { mode: 0o700 });
      } catch {
        process.stderr.write("tca lab checks: the --root directory must not exist yet\n");
        setExitCode(2);
        return;
      }
      const rows = await runAllChecks(root);
      const failed = rows.filter((row) => !row.passed);
      const report = { schema: "tca.checks/1", root, total: rows.length, passed: rows.length - failed.length, failed: failed.length, checks: rows };
      writeJsonExclusive(join(root, "checks.json"), report);
      process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatChecksTable(rows, join(root, "checks.json")));
      setExitCode(failed.length === 0 ? 0 : 1);
    });
}

function formatChecksTable(rows: readonly CheckRow[], reportPath: string): string {
  const header = ["case", "expected code", "observed code", "source/version unchanged", "result"];
  const body = rows.map((row) => [row.id, row.expected, row.observed ?? "(none)", row.unchanged, row.passed ? "ok" : "FAIL"]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? "").length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  const failed = rows.filter((row) => !row.passed);
  const lines = [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line), ""];
  for (const row of failed) lines.push(`FAIL ${row.id}: ${row.problems.join("; ") || "observed code differs"}`);
  lines.push(`${rows.length - failed.length} passed, ${failed.length} failed`, `checks: ${reportPath}`, "");
  return lines.join("\n");
}
