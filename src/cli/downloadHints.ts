// The two ways on after a download that did not finish, each one command spelled the same
// wherever it is suggested (a failed `model acquire`, `lab model` on an unfinished download):
// continue the download (with --yes where the consent question cannot be asked), or the Lab's
// honest ending without the model stage with the baseline, the checks root and the predictions
// recorded beside the model directory (tca lab predict --model-directory DIR writes
// DIR/predictions.json), so following the hint drops no evidence.
import { predictionsPath } from "../recording/predictions.ts";
import { dirname, join } from "node:path";
import { tcaCommand } from "./invocation.ts";
import { unusedPath } from "./pathArguments.ts";

export interface BlockedSubmissionPaths {
  /** The baseline run folder when the command knows it, else the placeholder BASELINE_RUN. */
  readonly baseline?: string | undefined;
  /** The checks root when the command knows it, else the placeholder CHECKS_ROOT. */
  readonly checks?: string | undefined;
  /** The model directory whose predictions.json is cited. */
  readonly modelDirectory: string;
  /** A predictions file given explicitly instead of the model directory's. */
  readonly predictions?: string | undefined;
}

export function blockedSubmissionCommand(paths: BlockedSubmissionPaths): string {
  return tcaCommand([
    "lab",
    "submission",
    "--baseline",
    paths.baseline ?? "BASELINE_RUN",
    ...(paths.baseline === undefined ? [] : submissionOutArguments(paths.baseline)),
    "--checks",
    paths.checks ?? "CHECKS_ROOT",
    "--predictions",
    paths.predictions ?? predictionsPath(paths.modelDirectory),
    "--blocked",
    "REASON",
  ]);
}

/** Where `lab submission` writes without --out: submission.md beside the baseline run folder. */
export function defaultSubmissionPath(baseline: string): string {
  return join(dirname(baseline), "submission.md");
}

/**
 * A suggested `lab submission` with a known baseline: no --out while the default file is free,
 * else `--out` a free name beside it (submission-2.md, …), since the default would be refused
 * with output_exists (a second submission after an earlier one, a blocked one then a trial).
 */
export function submissionOutArguments(baseline: string): string[] {
  const preferred = defaultSubmissionPath(baseline);
  const free = unusedPath(preferred.slice(0, -".md".length), ".md");
  return free === preferred ? [] : ["--out", free];
}

/** Whether consent must be given by --yes here: `model acquire` asks its question only on a terminal. */
export function consentNeedsFlag(): boolean {
  return process.stdin.isTTY !== true || process.stdout.isTTY !== true;
}

/** The command that continues an unfinished download in `directory`. */
export function continueAcquireCommand(directory: string, endpoint?: string): string {
  return tcaCommand([
    "model",
    "acquire",
    "--directory",
    directory,
    ...(endpoint === undefined ? [] : ["--endpoint", endpoint]),
    ...(consentNeedsFlag() ? ["--yes"] : []),
  ]);
}
