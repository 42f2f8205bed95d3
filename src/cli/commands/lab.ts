// tca lab: the Lab's harness commands. Thin: argument parsing and printing only. What only one
// subcommand needs (the checks, the model trial and its model files, the submission, readline) is
// imported in that subcommand's action, so `lab baseline` does not load the model side (#36).
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import type { SetExitCode } from "./index.ts";
import type { CheckRow } from "../../lab/checkRunner.ts";
import type { runModelTrial } from "../../lab/modelTrial.ts";
import { printCommandError, refusal } from "../commandError.ts";
import { fileAbove, inputFile, newOutput, repositoryAbove, unusedPath } from "../pathArguments.ts";
import { modelDirectoryArgument, submissionPathProblem } from "../labPathArguments.ts";
import { CANCELLED_EXIT_CODE, cancellingNotice, exitOnInterrupt } from "../interruption.ts";
import { runScriptedBaseline } from "../../lab/scriptedBaseline.ts";
import { watchProcesses } from "../../lab/processWatch.ts";
import { harnessHashes } from "../../recording/runtimeIdentity.ts";
import { formatChecksTable } from "../checksTable.ts";
import { watchRunProgress } from "../runProgress.ts";
import type { ProgressNotice } from "../liveGeneration.ts";
import { writeJsonExclusive } from "../../recording/evidenceFile.ts";
import { formatRunSummary, type NextStep } from "../../lab/runSummary.ts";
import { deriveRunVerdict, modelCheckOfRun } from "../../verdicts/runVerdict.ts";
import { deriveChecksVerdict } from "../../verdicts/checksVerdict.ts";
import { registerLabVerifyCommand } from "./labVerify.ts";
import { parseAnswers, predictionsPath, recordPredictions } from "../../recording/predictions.ts";
import { PREDICTION_QUESTIONS } from "../../constants/labConstants.ts";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { checkRunDestination } from "../../workspace/index.ts";
import { readPredictions } from "../../recording/predictions.ts";
import { reportCommand, tcaCommand } from "../invocation.ts";
import {
  blockedSubmissionCommand,
  continueAcquireCommand,
  defaultSubmissionPath,
  submissionOutArguments,
} from "../downloadHints.ts";

/** The Lab's exit status for a refused invocation (nothing was run). */
const LAB_REFUSED = 2;

export function registerLabCommands(program: Command, setExitCode: SetExitCode): void {
  const refuse = refusal(setExitCode, LAB_REFUSED);
  const lab = program.command("lab").description("Lab 16: the controlled tiny coding agent");
  registerLabTrialCommands(lab, setExitCode);
  registerLabVerifyCommand(lab, setExitCode);

  lab
    .command("baseline")
    .description("run the six scripted baseline proposals in a fresh run directory (no model)")
    .option("--run <dir>", "a new run directory (absolute or relative; must not exist)")
    .option("--json", "print final.json instead of the summary")
    .action(async (options: { run?: string; json?: boolean }) => {
      const runDirectory = options.run
        ? resolve(options.run)
        : join(mkdtempSync(join(tmpdir(), "tca-baseline-")), "run");
      const cancel = new AbortController();
      const onSigint = (): void => cancel.abort();
      process.once("SIGINT", onSigint);
      try {
        const result = await runScriptedBaseline(runDirectory, cancel.signal);
        if (!result.ok) {
          return refuse(result.error, runErrorMessage(result.error, result.message, runDirectory));
        }
        // The exit status follows the verdict derived from the audit, never final.json alone; the
        // summary shows that same verdict (derived once).
        const verdict = deriveRunVerdict(result.value.runDirectory);
        process.stdout.write(
          options.json
            ? `${JSON.stringify(result.value.final, null, 2)}\n`
            : formatRunSummary(result.value.final, result.value.runDirectory, {
                nextSteps: baselineNextSteps(result.value.runDirectory),
                verdict,
              }),
        );
        setExitCode(verdict.kind === "verified_success" ? 0 : 1);
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
    });
}

export function registerLabTrialCommands(lab: Command, setExitCode: SetExitCode): void {
  const refuse = refusal(setExitCode, LAB_REFUSED);
  lab
    .command("model")
    .description("one model trial in a fresh run directory, with the local model as proposal source")
    .requiredOption("--run <dir>", "a new run directory (must not exist; never a copy of a baseline run)")
    .requiredOption(
      "--model-directory <dir>",
      "a verified model directory (tca model acquire/verify) or a synthetic checkpoint",
    )
    .option("--yes", "authorize the run without the interactive confirmation")
    .option("--predictions <file>", "predictions file (default: predictions.json in the model directory)")
    .option("--without-predictions", "run without recorded predictions (recorded as such)")
    .option(
      "--extension <change>",
      "a further trial after the first one in the ledger: the declared change (required for every later trial)",
    )
    .option("--baseline <dir>", "the `tca lab baseline` run that verified this harness (recorded before loading)")
    .option("--checks <dir>", "the `tca lab checks` root that verified this harness (recorded before loading)")
    .option(
      "--unverified-harness",
      "run even though the --baseline/--checks evidence does not verify (recorded in the manifest)",
    )
    .action(
      async (options: {
        run: string;
        modelDirectory: string;
        yes?: boolean;
        predictions?: string;
        withoutPredictions?: boolean;
        extension?: string;
        baseline?: string;
        checks?: string;
        unverifiedHarness?: boolean;
      }) => {
        const runDirectory = resolve(options.run);
        const modelDirectory = resolve(options.modelDirectory);
        // The most specific cause first: a missing model directory is named before anything about
        // the predictions that would live beside it.
        const checkedModel = modelDirectoryArgument(modelDirectory);
        if (!checkedModel.ok) {
          return refuse(checkedModel.error, checkedModel.message);
        }
        // The one output rule, as lab baseline says it: --run makes one folder, never its parents.
        if (!existsSync(dirname(runDirectory)))
          return refuse(
            "run_directory_rejected",
            runErrorMessage("run_parent_invalid", "the parent of the run directory does not exist", runDirectory),
          );
        // A download that failed or was cut off is the most likely reason a newcomer has no verified
        // model: name it and the way on, before predictions or the lockfile are asked about.
        const { describeUnfinishedDownload, findUnfinishedDownload } =
          await import("../../model/artifacts/unfinishedDownload.ts");
        const { PINNED_FILES } = await import("../../model/pins.ts");
        const unfinished = await findUnfinishedDownload(modelDirectory, PINNED_FILES, Date.now(), {
          hash: false,
        }).catch(() => null);
        if (unfinished !== null) {
          return refuse(
            "model_directory_rejected",
            `model_not_verified: --model-directory ${modelDirectory} holds ${describeUnfinishedDownload(unfinished, PINNED_FILES)}; ` +
              `continue it with ${continueAcquireCommand(modelDirectory)}, or without access to the model hub finish the Lab with ` +
              blockedSubmissionCommand({
                baseline: options.baseline === undefined ? undefined : resolve(options.baseline),
                checks: options.checks === undefined ? undefined : resolve(options.checks),
                modelDirectory,
                predictions: options.predictions === undefined ? undefined : resolve(options.predictions),
              }),
          );
        }
        if (options.predictions) {
          const given = inputFile("--predictions", resolve(options.predictions));
          if (!given.ok) {
            return refuse(given.error, given.message);
          }
        }
        const predictionsFile = options.predictions ? resolve(options.predictions) : predictionsPath(modelDirectory);
        let predictions: Parameters<typeof runModelTrial>[0]["predictions"] = null;
        if (options.withoutPredictions) predictions = "without_predictions";
        else {
          const read = readPredictions(predictionsFile);
          if (read.ok) predictions = { record: read.value, path: predictionsFile };
        }
        let runConsent: "interactive_confirmation" | "yes_flag" | null = options.yes ? "yes_flag" : null;
        if (runConsent === null && predictions !== null && process.stdin.isTTY) {
          const { createInterface } = await import("node:readline/promises");
          const prompt = createInterface({ input: process.stdin, output: process.stdout });
          const what = options.extension
            ? `one EXTENSION trial (declared change: ${options.extension})`
            : "one model trial";
          const answer = await prompt.question(
            `Run ${what} in the new run directory ${runDirectory}?\n` +
              "This authorizes edits to the two expressions of that new toy workspace " +
              "only: no other file, no data disclosure, no package installation, no shell.\n" +
              "Resources (estimates, the same for the trial and every extension): at most 10 minutes (less if the 30-minute window has less left), " +
              "several GB of memory for the F32 model, CPU only with 2 threads. [y/N] ",
          );
          prompt.close();
          if (/^(y|yes)$/i.test(answer.trim())) runConsent = "interactive_confirmation";
        }
        const cancel = new AbortController();
        // Loading the full-size model takes seconds and each generation tens of them: say so on a terminal.
        const progress = watchRunProgress(runDirectory);
        // Ctrl-C is acknowledged at once; the load (worker killed) or generation stops within the
        // supervisor's 2-second grace, and the run is recorded with stop reason cancelled.
        const onSigint = (): void => {
          progress.stop();
          process.stderr.write(
            cancellingNotice("lab model", "the model is stopped; the run is kept and recorded as cancelled"),
          );
          cancel.abort();
        };
        process.once("SIGINT", onSigint);
        try {
          const { runModelTrial: runTrial } = await import("../../lab/modelTrial.ts");
          const trial = await runTrial({
            runDirectory,
            modelDirectory,
            runConsent,
            predictions,
            cancellation: cancel.signal,
            extension: options.extension ?? null,
            baselineDirectory: options.baseline ? resolve(options.baseline) : null,
            checksDirectory: options.checks ? resolve(options.checks) : null,
            unverifiedHarness: options.unverifiedHarness === true,
            // Tokens so far and tok/s on the status line; asked of the worker only when a terminal shows them.
            ...(progress.active ? { onGenerationProgress: (notice: ProgressNotice) => progress.progress(notice) } : {}),
          });
          progress.stop();
          if (!trial.ok) {
            // The one refusal whose way on is a command: say it as one that runs from here.
            const message =
              trial.error === "predictions_missing" && options.predictions === undefined
                ? `record your predictions first: ${tcaCommand(["lab", "predict", "--model-directory", modelDirectory])}, or pass --without-predictions`
                : trial.error === "run_not_authorized" && process.stdin.isTTY !== true
                  ? "not on a terminal, so the opt-in question cannot be asked: add --yes to authorize " +
                    "this one trial (edits to the two expressions of the new toy workspace only)"
                  : runErrorMessage(trial.error, trial.message, runDirectory);
            return refuse(trial.error, message);
          }
          const ran = trial.value.run;
          const cancelled = ran.final.stop_reason === "cancelled";
          // The model directory is opened again now, so the summary's label is the re-derived one
          // ("MODEL TRIAL · Qwen/…" only for the verified pinned model), as `tca report` will say.
          const modelCheck = await modelCheckOfRun(ran.runDirectory);
          const verdict = deriveRunVerdict(ran.runDirectory, modelCheck === undefined ? {} : { modelCheck });
          process.stdout.write(
            formatRunSummary(ran.final, ran.runDirectory, {
              verdict,
              ...(cancelled ? {} : { nextSteps: modelNextSteps(ran.runDirectory, options.baseline, options.checks) }),
            }),
          );
          if (trial.value.run.final.stop_reason === "cancelled") {
            printCommandError(
              "cancelled",
              `stopped by Ctrl-C; the run is recorded as cancelled in ${trial.value.run.runDirectory} (a trial needs a new --run)`,
            );
            setExitCode(CANCELLED_EXIT_CODE);
            return;
          }
          setExitCode(
            trial.value.run.final.stop_reason === "harness_error" || verdict.kind === "evidence_invalid" ? 1 : 0,
          );
        } finally {
          progress.stop();
          process.removeListener("SIGINT", onSigint);
        }
      },
    );

  lab
    .command("predict")
    .description("record your answers to the five prediction questions of Part 1, before any trial")
    .option("--model-directory <dir>", "record them beside this model directory's acquisition ledger")
    .option("--predictions <file>", "or record them in this new file")
    .option(
      "--answers <file>",
      "a JSON file with five answers (array, or object keyed 1-5) instead of the interactive prompt",
    )
    .action(async (options: { modelDirectory?: string; predictions?: string; answers?: string }) => {
      let path: string;
      if (options.predictions) {
        const out = newOutput(
          "--predictions",
          resolve(options.predictions),
          "choose a new file with --predictions FILE",
        );
        if (!out.ok) return refuse(out.error === "output_exists" ? "predictions_exist" : out.error, out.message);
        path = out.value;
      } else if (options.modelDirectory) {
        const directory = modelDirectoryArgument(resolve(options.modelDirectory));
        if (!directory.ok) return refuse(directory.error, directory.message);
        path = predictionsPath(directory.value);
      } else {
        return refuse("usage_error", "give --model-directory DIR or --predictions FILE");
      }
      const answersFile = options.answers ? inputFile("--answers", resolve(options.answers)) : null;
      if (answersFile !== null && !answersFile.ok) return refuse(answersFile.error, answersFile.message);
      let answers: { answer: string; answeredAt: Date }[];
      let form: "interactive" | "answers_file";
      if (answersFile !== null) {
        const parsed = parseAnswers(readFileSync(answersFile.value, "utf8"));
        if (!parsed.ok) {
          return refuse(parsed.error, `${answersFile.value}: ${parsed.message}`);
        }
        const now = new Date();
        answers = parsed.value.map((answer) => ({ answer, answeredAt: now }));
        form = "answers_file";
      } else {
        // Lines are read through the async iterator so piped answers are queued, not lost.
        const { createInterface } = await import("node:readline/promises");
        const prompt = createInterface({ input: process.stdin, terminal: false });
        const lines = prompt[Symbol.asyncIterator]();
        answers = [];
        try {
          for (const [i, question] of PREDICTION_QUESTIONS.entries()) {
            let answer = "";
            while (answer.trim() === "") {
              process.stdout.write(`${i + 1}. ${question}\n> `);
              const next = await lines.next();
              if (next.done === true) {
                process.stderr.write("\n");
                return refuse(
                  "input_incomplete",
                  "input ended before all five answers were given; nothing was recorded",
                );
              }
              answer = String(next.value);
            }
            answers.push({ answer: answer.trim(), answeredAt: new Date() });
          }
        } finally {
          prompt.close();
        }
        form = "interactive";
      }
      const recorded = recordPredictions(path, answers, form);
      if (!recorded.ok) {
        return refuse(recorded.error, `${path}: ${recorded.message}`);
      }
      process.stdout.write(`predictions recorded: ${path} (${recorded.value.recorded_at})\n`);
    });

  lab
    .command("submission")
    .description("write submission.md from the evidence of a baseline run and a model run")
    .requiredOption("--baseline <dir>", "the `tca lab baseline` run directory")
    .option("--model <dir>", "the `tca lab model` run directory of the trial (omit if the model stage was not run)")
    .option(
      "--extension <dir>",
      "a `tca lab model --extension` run (repeat for each; every trial of the ledger must be given)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--blocked <reason>", "say why the model stage could not run")
    .option("--checks <dir>", "the `tca lab checks` root (holds checks.json)")
    .option("--predictions <file>", "predictions file, if not recorded in the model run")
    .option(
      "--out <file>",
      "where to write submission.md (must not exist; default: submission.md beside the baseline run folder)",
    )
    .action(
      async (options: {
        baseline: string;
        model?: string;
        extension: string[];
        blocked?: string;
        checks?: string;
        predictions?: string;
        out?: string;
      }) => {
        // --blocked says no trial could run: a trial given beside it would be dropped or contradicted.
        if (options.blocked !== undefined && (options.model !== undefined || options.extension.length > 0))
          return refuse(
            "usage_error",
            `--blocked says the model stage could not run, but ${options.model !== undefined ? `--model ${resolve(options.model)}` : "--extension"} ` +
              `gives a trial: give --model (and --extension) for a trial that ran, or --blocked REASON alone`,
          );
        // Beside the runs, never into the current directory (often the git checkout) unless asked.
        const pathProblem = submissionPathProblem({
          baseline: resolve(options.baseline),
          model: options.model ? resolve(options.model) : null,
          extensions: options.extension.map((directory) => resolve(directory)),
          checks: options.checks ? resolve(options.checks) : null,
          predictions: options.predictions ? resolve(options.predictions) : null,
        });
        if (pathProblem !== null) return refuse(pathProblem.error, pathProblem.message);
        const checkedOut = newOutput(
          "--out",
          resolve(options.out ?? defaultSubmissionPath(resolve(options.baseline))),
          "choose another path with --out FILE",
        );
        if (!checkedOut.ok) return refuse(checkedOut.error, checkedOut.message);
        const out = checkedOut.value;
        const { buildSubmissionCheckingModels } = await import("../../verdicts/submission/writeSubmission.ts");
        const built = await buildSubmissionCheckingModels({
          baselineDirectory: resolve(options.baseline),
          modelDirectory: options.model ? resolve(options.model) : null,
          checksDirectory: options.checks ? resolve(options.checks) : null,
          predictionsPath: options.predictions ? resolve(options.predictions) : null,
          blockedReason: options.blocked ?? null,
          extensionDirectories: options.extension.map((directory) => resolve(directory)),
        });
        if (!built.ok) return refuse(built.error, built.message);
        writeFileSync(out, built.value, { flag: "wx", mode: 0o600 });
        process.stdout.write(`submission written: ${out}\n`);
      },
    );
}

/**
 * The run directory's refusals come from the workspace layer without the path (what a model may
 * see never holds host paths); the person at the terminal gets the path and what to do. Missing
 * parents are not created: `--run` stays one new owner-only folder (src/workspace/runDirectory.ts).
 */
export function runErrorMessage(code: string, message: string, runDirectory: string, flag = "--run"): string {
  if (code === "run_inside_repository") {
    // Evidence is never committed with the code by accident: the way out is a folder beside the
    // repository, named so that the printed command is not refused (unusedPath).
    const repository = repositoryAbove(dirname(runDirectory));
    if (repository !== null) {
      const runs = `${repository}-runs`;
      const suggested = unusedPath(join(runs, basename(runDirectory)));
      const mkdir = existsSync(runs) ? "" : `mkdir -p -m 700 ${runs}, then `;
      return `${message} (${repository}): ${runDirectory} (run folders stay outside any repository; e.g. ${mkdir}${flag} ${suggested})`;
    }
  }
  if (code === "run_parent_invalid") {
    // mkdir -p cannot help when a file stands in the way: say which one.
    const blocking = fileAbove(dirname(runDirectory));
    if (blocking !== null)
      return `the run directory cannot be made under ${blocking}: it is a file, not a folder (choose --run DIR under a folder)`;
    return `${message}: ${dirname(runDirectory)} (create it first, e.g. mkdir -p -m 700 ${dirname(runDirectory)}; --run makes only the last folder)`;
  }
  if (code === "run_destination_exists") return `${message}: ${runDirectory} (choose a new path with --run DIR)`;
  if (code.startsWith("run_")) return `${message}: ${runDirectory}`;
  return message;
}

/** The baseline's next steps: see the run, then the negative checks beside it. */
function baselineNextSteps(runDirectory: string): NextStep[] {
  return [
    { what: "the run as an HTML page", command: reportCommand(runDirectory) },
    {
      what: "every negative check",
      command: tcaCommand(["lab", "checks", "--root", unusedPath(join(dirname(runDirectory), "checks"))]),
    },
  ];
}

/** A model run's next steps: see the run, then the submission from the evidence given so far. */
function modelNextSteps(runDirectory: string, baseline: string | undefined, checks: string | undefined): NextStep[] {
  const submission = [
    "lab",
    "submission",
    "--baseline",
    baseline === undefined ? "BASELINE_RUN" : resolve(baseline),
    ...(baseline === undefined ? [] : submissionOutArguments(resolve(baseline))),
    "--model",
    runDirectory,
  ];
  if (checks !== undefined) submission.push("--checks", resolve(checks));
  return [
    { what: "every proposal and observation as an HTML page", command: reportCommand(runDirectory) },
    {
      what: `the submission${baseline === undefined ? " (BASELINE_RUN: your tca lab baseline run)" : ""}`,
      command: tcaCommand(submission),
    },
  ];
}
