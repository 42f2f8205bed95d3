// tca lab: the Lab's harness commands, registered here with their options (so every help is
// complete) while each subcommand's work lives in its own module, imported only in its action:
// `lab baseline` loads neither the report side that `lab verify` needs nor the model side of
// `lab model`, nor what the checks, predictions or submission need (#36 measures start-up).
import type { Command } from "commander";
import type { SetExitCode } from "./index.ts";
import type { LabBaselineOptions } from "./labBaseline.ts";
import type { LabChecksOptions } from "./labChecks.ts";
import type { LabModelOptions } from "./labModel.ts";
import type { LabPredictOptions } from "./labPredict.ts";
import type { LabSubmissionOptions } from "./labSubmission.ts";
import type { LabVerifyFlags } from "./labVerify.ts";

export function registerLabCommands(program: Command, setExitCode: SetExitCode): void {
  const lab = program.command("lab").description("Lab 16: the controlled tiny coding agent");
  registerLabTrialCommands(lab, setExitCode);
  registerLabVerifyCommand(lab, setExitCode);

  lab
    .command("baseline")
    .description("run the six scripted baseline proposals in a fresh run directory (no model)")
    .option("--run <dir>", "a new run directory (absolute or relative; must not exist)")
    .option("--json", "print final.json instead of the summary")
    .action(async (options: LabBaselineOptions) =>
      (await import("./labBaseline.ts")).runLabBaseline(options, setExitCode),
    );

  lab
    .command("checks")
    .description("run every negative check of Part 7, each in its own fresh run directory")
    .option("--root <dir>", "a new directory to hold the check runs and checks.json (must not exist)")
    .option("--json", "print checks.json instead of the table")
    .action(async (options: LabChecksOptions) => (await import("./labChecks.ts")).runLabChecks(options, setExitCode));
}

export function registerLabTrialCommands(lab: Command, setExitCode: SetExitCode): void {
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
    .action(async (options: LabModelOptions) => (await import("./labModel.ts")).runLabModel(options, setExitCode));

  lab
    .command("predict")
    .description("record your answers to the five prediction questions of Part 1, before any trial")
    .option("--model-directory <dir>", "record them beside this model directory's acquisition ledger")
    .option("--predictions <file>", "or record them in this new file")
    .option(
      "--answers <file>",
      "a JSON file with five answers (array, or object keyed 1-5) instead of the interactive prompt",
    )
    .action(async (options: LabPredictOptions) =>
      (await import("./labPredict.ts")).runLabPredict(options, setExitCode),
    );

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
    .action(async (options: LabSubmissionOptions) =>
      (await import("./labSubmission.ts")).runLabSubmission(options, setExitCode),
    );
}

export function registerLabVerifyCommand(lab: Command, setExitCode: SetExitCode): void {
  lab
    .command("verify")
    .description(
      "re-derive a Lab run's (or checks root's) verdict; --regenerate re-asks the model every recorded request",
    )
    .argument("<run-or-checks-dir>", "a Lab run folder (tca lab baseline/model) or a tca lab checks root")
    .option("--regenerate", "send every recorded request again to the model and compare the responses byte for byte")
    .option(
      "--model-directory <dir>",
      "with --regenerate: the run's model, verified now (pinned files or its own synthetic manifest)",
    )
    .option(
      "--strict",
      "fail when the evidence was made by another harness version; with --regenerate, any regenerated response " +
        "that differs makes the verdict EVIDENCE INVALID",
    )
    .option("--json", "print the verdict (and the regeneration record) as JSON")
    .action(async (directoryArgument: string, flags: LabVerifyFlags) =>
      (await import("./labVerify.ts")).runLabVerify(directoryArgument, flags, setExitCode),
    );
}
