// The Lab commands' path arguments, checked before any evidence is read or written, with the
// Lab rooms' own codes (a missing run folder stays run_evidence_missing, as the submission room
// says it) and a message naming the option and the path (pathArguments.ts).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { err, type Result } from "../core/result.ts";
import { inputDirectory, inputFile, runFolderMarker, type PathErrorCode } from "./pathArguments.ts";
import { tcaCommand } from "./invocation.ts";

/** Where a model directory comes from, as commands that run from where the user is (invocation.ts). */
function modelHint(directory: string): string {
  return (
    `download one: ${tcaCommand(["model", "acquire", "--directory", directory])}; or make a synthetic ` +
    `checkpoint: ${tcaCommand(["model", "make-test-checkpoint", "--directory", directory, "--size", "tiny"])}`
  );
}

/**
 * --model-directory: an existing folder that is not a run's evidence folder (a run folder there
 * would get predictions written into its evidence, or be answered only with predictions_missing).
 */
export function modelDirectoryArgument(directory: string): Result<string, "model_directory_rejected"> {
  const found = inputDirectory("--model-directory", directory);
  // A path that does not exist can be created by either command; a file or run folder cannot.
  if (!found.ok)
    return err(
      "model_directory_rejected",
      found.error === "path_not_found"
        ? `${found.message} (${modelHint(directory)})`
        : `${found.message} (a model directory comes from tca model acquire or tca model make-test-checkpoint)`,
    );
  const marker = runFolderMarker(directory);
  if (marker !== null)
    return err(
      "model_directory_rejected",
      `--model-directory ${directory} is a run folder (it holds ${marker}), not a model directory ` +
        `(a model directory comes from tca model acquire or tca model make-test-checkpoint)`,
    );
  return found;
}

export interface SubmissionPaths {
  readonly baseline: string;
  readonly model: string | null;
  readonly extensions: readonly string[];
  readonly checks: string | null;
  readonly predictions: string | null;
}

function roomCode(code: PathErrorCode, missing: string, invalid: string): string {
  return code === "path_not_found" ? missing : invalid;
}

/** The first unusable path of `lab submission`, as (code, message), or null when every one is usable. */
export function submissionPathProblem(paths: SubmissionPaths): { error: string; message: string } | null {
  const folders: [string, string][] = [["--baseline", paths.baseline]];
  if (paths.model !== null) folders.push(["--model", paths.model]);
  for (const extension of paths.extensions) folders.push(["--extension", extension]);
  for (const [label, path] of folders) {
    const found = inputDirectory(label, path);
    // A model run that never happened is the newcomer's usual case: name the honest alternative.
    const instead =
      label === "--model" && !found.ok && found.error === "path_not_found"
        ? " (if the model stage could not run, give --blocked REASON instead of --model)"
        : "";
    if (!found.ok)
      return {
        error: roomCode(found.error, "run_evidence_missing", "run_evidence_invalid"),
        message: `${found.message}${instead}`,
      };
  }
  if (paths.checks !== null) {
    const found = inputDirectory("--checks", paths.checks);
    if (!found.ok) return { error: "checks_invalid", message: found.message };
    // A run folder given as --checks is a wrong folder, not evidence that failed: say which folder it is.
    const marker = runFolderMarker(paths.checks);
    if (marker !== null && !existsSync(join(paths.checks, "checks.json"))) {
      const what =
        paths.checks === paths.baseline
          ? "the baseline run folder"
          : marker === "tasks.ndjson" || marker === "run.json"
            ? "a benchmark run folder"
            : "a Lab run folder";
      return {
        error: "checks_invalid",
        message:
          `--checks ${paths.checks} is ${what} (it holds ${marker}), not a checks folder: ` +
          `give the root that tca lab checks --root DIR wrote (it holds checks.json)`,
      };
    }
  }
  if (paths.predictions !== null) {
    const found = inputFile("--predictions", paths.predictions);
    if (!found.ok)
      return { error: roomCode(found.error, "predictions_missing", "predictions_invalid"), message: found.message };
  }
  return null;
}
