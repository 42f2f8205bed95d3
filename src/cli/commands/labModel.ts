// tca lab model: one model trial (or extension) in a fresh run directory, after the model
// directory, the predictions and the person's consent are checked; the model side is loaded only
// once all of that holds.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { SetExitCode } from "./index.ts";
import type { runModelTrial } from "../../lab/modelTrial.ts";
import { printCommandError, refusal } from "../commandError.ts";
import { inputFile } from "../pathArguments.ts";
import { modelDirectoryArgument } from "../labPathArguments.ts";
import { CANCELLED_EXIT_CODE, cancellingNotice } from "../interruption.ts";
import { watchRunProgress } from "../runProgress.ts";
import type { ProgressNotice } from "../liveGeneration.ts";
import { reportCommand, tcaCommand } from "../invocation.ts";
import { blockedSubmissionCommand, continueAcquireCommand, submissionOutArguments } from "../downloadHints.ts";
import { formatRunSummary, type NextStep } from "../../lab/runSummary.ts";
import { deriveRunVerdict, modelCheckOfRun } from "../../verdicts/runVerdict.ts";
import { predictionsPath, readPredictions } from "../../recording/predictions.ts";
import { LAB_REFUSED, runErrorMessage } from "./labRefusals.ts";

/** Options as commander parses them for `tca lab model` (src/cli/commands/lab.ts registers them). */
export interface LabModelOptions {
  run: string;
  modelDirectory: string;
  yes?: boolean;
  predictions?: string;
  withoutPredictions?: boolean;
  extension?: string;
  baseline?: string;
  checks?: string;
  unverifiedHarness?: boolean;
}

export async function runLabModel(options: LabModelOptions, setExitCode: SetExitCode): Promise<void> {
  const refuse = refusal(setExitCode, LAB_REFUSED);
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
    const what = options.extension ? `one EXTENSION trial (declared change: ${options.extension})` : "one model trial";
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
    setExitCode(trial.value.run.final.stop_reason === "harness_error" || verdict.kind === "evidence_invalid" ? 1 : 0);
  } finally {
    progress.stop();
    process.removeListener("SIGINT", onSigint);
  }
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
