// tca lab checks: every negative check of Part 7, each in its own run directory under a new
// root, watched for processes, then checks.json and the verdict re-derived from the runs.
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import type { CheckRow } from "../../lab/checkRunner.ts";
import { refusal } from "../commandError.ts";
import { newOutput } from "../pathArguments.ts";
import { exitOnInterrupt } from "../interruption.ts";
import { formatChecksTable } from "../checksTable.ts";
import { reportCommand, tcaCommand } from "../invocation.ts";
import { watchProcesses } from "../../lab/processWatch.ts";
import { harnessHashes } from "../../recording/runtimeIdentity.ts";
import { writeJsonExclusive } from "../../recording/evidenceFile.ts";
import { deriveChecksVerdict } from "../../verdicts/checksVerdict.ts";
import { checkRunDestination } from "../../workspace/index.ts";
import { LAB_REFUSED, runErrorMessage } from "./labRefusals.ts";

/** Options as commander parses them for `tca lab checks` (src/cli/commands/lab.ts registers them). */
export interface LabChecksOptions {
  root?: string;
  json?: boolean;
}

export async function runLabChecks(options: LabChecksOptions, setExitCode: SetExitCode): Promise<void> {
  const refuse = refusal(setExitCode, LAB_REFUSED);
  const root = options.root ? resolve(options.root) : join(mkdtempSync(join(tmpdir(), "tca-checks-")), "checks");
  const checkedRoot = newOutput("--root", root, "choose a new path with --root DIR");
  if (!checkedRoot.ok) {
    return refuse(checkedRoot.error, checkedRoot.message);
  }
  // Every check is a run folder under the root, so the root's place obeys the run rule: inside a
  // repository or another run, each check would be refused; say so once, before anything is made.
  const placed = await checkRunDestination(root);
  if (!placed.ok && (placed.error === "run_inside_repository" || placed.error === "run_inside_run"))
    return refuse(placed.error, runErrorMessage(placed.error, placed.message, root, "--root"));
  try {
    mkdirSync(root, { mode: 0o700 });
  } catch {
    return refuse(
      existsSync(root) ? "output_exists" : "usage_error",
      `--root ${root} could not be created: it must not exist yet, and its parent must be a folder`,
    );
  }
  // Ctrl-C: the partial root goes (a root without checks.json would block a rerun and read as
  // unknown_run_kind), and the line says how to run them again.
  const uninstall = exitOnInterrupt({
    command: "lab checks",
    partial: () => root,
    rerun: tcaCommand(process.argv.slice(2)),
  });
  // No check may start a process (no model is ever invoked by a check); the count is recorded.
  const watch = watchProcesses();
  let rows: CheckRow[];
  try {
    const { runAllChecks } = await import("../../lab/checkRunner.ts");
    rows = await runAllChecks(root);
  } finally {
    watch.stop();
    uninstall();
  }
  const failed = rows.filter((row) => !row.passed);
  const report = {
    schema: "tca.checks/1",
    root,
    harness_sha256: harnessHashes().aggregate_sha256,
    total: rows.length,
    passed: rows.length - failed.length,
    failed: failed.length,
    process_watch: watch.report(),
    checks: rows,
  };
  writeJsonExclusive(join(root, "checks.json"), report);
  const started =
    report.process_watch.processes_started +
    report.process_watch.threads_started +
    report.process_watch.native_addons_loaded;
  // What `tca report` and `tca lab submission` will say: every row re-derived from its run directory.
  const derived = deriveChecksVerdict(root);
  process.stdout.write(
    options.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : `${formatChecksTable(rows, join(root, "checks.json"))}processes, threads or native addons ` +
          `started during the checks: ${started}\nre-derived from the run directories: ${derived.headline}\n` +
          // Commands are never wrapped, so no comment follows them: a long path stays one line.
          `next step: ${reportCommand(root)}\n` +
          `then:      ${tcaCommand(["model", "plan"])}\n`,
  );
  setExitCode(failed.length === 0 && started === 0 && derived.kind === "all_passed" ? 0 : 1);
}
