// What every Lab subcommand refuses with: the one exit status and the run directory's refusals in
// the words the person at the terminal needs (the path, and what to do).
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileAbove, repositoryAbove, unusedPath } from "../pathArguments.ts";

/** The Lab's exit status for a refused invocation (nothing was run). */
export const LAB_REFUSED = 2;

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
