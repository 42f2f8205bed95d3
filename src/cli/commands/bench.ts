// tca bench quixbugs … (issue 8): verify-dataset, compare, merge, and the other commands'
// registration (run: benchRun.ts; fetch-dataset, make-taskset, verify-run: their own files).
// Argument parsing and printing only; the work is in src/bench/.
import { labelledVerdict } from "../../core/resultLabel.ts";
import { benchResultSource, tasksFixedPhrase } from "../../bench/results/resultsSummary.ts";
import type { Command } from "commander";
import { join, resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import { firstUnusable, inputDirectory, outputFolder } from "../pathArguments.ts";
import { registerFetchDatasetCommand } from "./benchFetchDataset.ts";
import { registerMakeTasksetCommand } from "./benchMakeTaskset.ts";
import { prepareBenchEnvironment } from "../../bench/benchEnvironment.ts";
import { reportCommand, tcaCommand } from "../invocation.ts";
import { exitOnInterrupt, holdRunFolder } from "../interruption.ts";
import { defaultJobs } from "../../core/concurrency.ts";
import { defaultDatasetDir } from "../../bench/dataset/dataset.ts";
import {
  comparisonJson,
  compareRuns,
  parseReference,
  renderComparison,
  restrictToCommonTasks,
} from "../../bench/runs/runComparison.ts";
import { PUBLISHED } from "../../bench/runs/publishedResults.ts";
import { RUN_FILES } from "../../bench/runs/runDirectory.ts";
import { mergeInputs } from "../../bench/runs/runMerge.ts";
import { mergeInputOf, registerVerifyRunCommand, verifiedRuns } from "./benchVerify.ts";
import { recordedVerificationLine } from "../../verdicts/recordedVerification.ts";
import { formatVerifyTable, verifyDataset } from "../../bench/grading/verifyDataset.ts";
import { fail, positiveInt, programList, type VerifyFlags } from "./benchOptions.ts";
import { registerRunCommand } from "./benchRun.ts";
import { datasetCheckStartLine } from "../../bench/benchRunSetup.ts";
import { MAX_COLUMNS, wrapLine } from "../../core/textWidth.ts";

export function registerBenchCommands(program: Command, setExitCode: SetExitCode): void {
  const bench = program.command("bench").description("benchmarks");
  const quix = bench
    .command("quixbugs")
    .description("the controlled-agent benchmark on QuixBugs (40 Python programs, conditions A-D, sandboxed tests)");

  registerFetchDatasetCommand(quix, setExitCode);
  registerMakeTasksetCommand(quix, setExitCode);

  quix
    .command("verify-dataset")
    .description("in the sandbox: every buggy program must fail its tests and every reference fix must pass")
    .option(
      "--dataset <dir>",
      "QuixBugs folder (default: the one fetch-dataset verified into your cache, else ../shared/quixbugs next to the repository)",
    )
    .option("--json", "print one JSON document")
    .option("--jobs <n>", "tests run in parallel (default: core count, at most 8)")
    .option("--include-slow", "also run knapsack's --runslow case (over 9 minutes)")
    .option("--test-timeout <seconds>", "per-run timeout", "60")
    .option("--programs <list>", "comma-separated subset")
    .action(async (flags: VerifyFlags) => {
      const json = flags.json === true;
      const jobs = positiveInt(flags.jobs, defaultJobs());
      const timeout = positiveInt(flags.testTimeout, 60);
      if (jobs === undefined || timeout === undefined)
        return fail(setExitCode, "invalid_option", "--jobs and --test-timeout take positive integers", json);
      const programs = programList(flags.programs);
      const env = await prepareBenchEnvironment(
        flags.dataset ?? defaultDatasetDir(),
        { timeoutMs: timeout * 1000 },
        programs,
      );
      if (!env.ok) return fail(setExitCode, env.error, env.message, json);
      const tty = process.stderr.isTTY && !json;
      if (!json)
        process.stderr.write(
          `${wrapLine(datasetCheckStartLine({ root: env.value.dataset.root, programs: programs?.length ?? env.value.dataset.programs.length, jobs, testTimeoutS: timeout }), MAX_COLUMNS, "  ").join("\n")}\n`,
        );
      // Ctrl-C: nothing is written, so nothing to keep; the line says so and how to run it again.
      const uninstall = exitOnInterrupt({
        command: "bench quixbugs verify-dataset",
        partial: () => null,
        rerun: tcaCommand(process.argv.slice(2)),
      });
      const report = await verifyDataset(env.value.sandbox, env.value.dataset, {
        jobs,
        includeSlow: flags.includeSlow === true,
        ...(programs ? { programs } : {}),
        onRecord: (r, done, total) => {
          if (tty) process.stderr.write(`\r${done}/${total} ${r.program.padEnd(28)}`);
          else if (!json)
            process.stderr.write(`${done}/${total} ${r.program} buggy=${r.buggy.outcome} fixed=${r.fixed.outcome}\n`);
        },
      });
      if (tty) process.stderr.write("\n");
      uninstall();
      process.stdout.write(json ? JSON.stringify(report, null, 2) + "\n" : formatVerifyTable(report) + "\n");
      setExitCode(report.ok ? 0 : 1);
    });

  registerRunCommand(quix, setExitCode);

  quix
    .command("compare")
    .description(
      "put several runs side by side (fixed rate with 95% interval, false fixed, claims); --reference published adds the document's numbers",
    )
    .argument("[runs...]", "run directories")
    .option(
      "--reference <which>",
      "published: the benchmark document's tables beside the runs (alone when no run is given)",
    )
    .option(
      "--all-tasks",
      "runs over different tasks: compare each run over all its tasks (default: only the tasks every run has)",
    )
    .option("--json", "print JSON")
    .action((runs: string[], flags: { json?: boolean; reference?: string; allTasks?: boolean }) => {
      const reference = parseReference(flags.reference);
      if (!reference.ok) return fail(setExitCode, reference.error, reference.message, flags.json === true);
      if (runs.length === 0 && reference.value === null)
        return fail(
          setExitCode,
          "invalid_option",
          "compare needs at least one run directory (or --reference published)",
          flags.json === true,
        );
      const badRun = firstUnusable(runs.map((run) => inputDirectory("run", resolve(run))));
      if (badRun !== null) return fail(setExitCode, badRun.error, badRun.message, flags.json === true);
      // Through the bench verdict: an EVIDENCE INVALID run is refused; the table comes from its one read.
      const gate = runs.length === 0 ? { ok: true as const, value: [] } : verifiedRuns(runs);
      if (!gate.ok) return fail(setExitCode, gate.error, gate.message, flags.json === true);
      const scoped = restrictToCommonTasks(
        gate.value.map((run) => ({
          dir: run.dir,
          manifest: run.manifest,
          tasks: run.verdict.tasks,
          recordedVerification: recordedVerificationLine(run.verdict.recordedVerification, run.dir, "compare"),
        })),
        flags.allTasks === true,
      );
      const compared = compareRuns(scoped.runs);
      // The warning goes to stderr too, so --json (whose shape stays) and a piped table both carry it.
      if (scoped.warning !== null) process.stderr.write(`warning: ${scoped.warning}\n`);
      const json =
        reference.value === "published"
          ? { ...comparisonJson(compared), published: PUBLISHED }
          : comparisonJson(compared);
      process.stdout.write(
        flags.json ? JSON.stringify(json, null, 2) + "\n" : renderComparison(compared, reference.value, scoped.warning),
      );
    });

  quix
    .command("merge")
    .description("join the shards of one benchmark into one run directory")
    .requiredOption("--out <dir>", "new run directory")
    .argument("<runs...>", "shard run directories")
    .action((runs: string[], flags: { out: string }) => {
      const badPath = firstUnusable([
        ...runs.map((run) => inputDirectory("run", resolve(run))),
        outputFolder("--out", resolve(flags.out)),
      ]);
      if (badPath !== null) return fail(setExitCode, badPath.error, badPath.message, false);
      const gate = verifiedRuns(runs);
      if (!gate.ok) return fail(setExitCode, gate.error, gate.message, false);
      // The merged folder has one writer, as every run folder (a second merge or a run there is refused).
      const held = holdRunFolder("bench quixbugs merge", resolve(flags.out), { create: true });
      if (!held.ok) return fail(setExitCode, held.error, held.message, false);
      const r = mergeInputs(gate.value.map(mergeInputOf), resolve(flags.out));
      held.value.release();
      if (!r.ok) return fail(setExitCode, r.error, r.message, false);
      // Each shard's verification.json is a record merge neither re-grades nor copies.
      for (const run of gate.value)
        process.stdout.write(`${recordedVerificationLine(run.verdict.recordedVerification, run.dir, "merge")}\n`);
      if (r.value.duplicates.length > 0)
        process.stderr.write(`tasks present in more than one run (first kept): ${r.value.duplicates.join(", ")}\n`);
      // The merged result first, its source named before the numbers (src/core/resultLabel.ts).
      process.stdout.write(
        `merged: ${labelledVerdict(benchResultSource(r.value.manifest.model), tasksFixedPhrase(r.value.results))}\nresults: ${join(resolve(flags.out), RUN_FILES.resultsMd)}\n`,
      );
      process.stdout.write(`next step: ${reportCommand(resolve(flags.out))}\n`);
    });

  registerVerifyRunCommand(quix, setExitCode);
}
