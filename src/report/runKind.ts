// Which kind of run a directory holds, decided from its contents alone:
//   checks.json                          -> a checks run (tca lab checks)
//   manifest.json or audit.jsonl         -> a Lab run (tca lab baseline / trial / a single check)
//   run.json or results.json or tasks.ndjson -> a QuixBugs bench run (tca bench run)
// A directory that matches more than one pattern is refused rather than guessed. A marker counts
// only as a regular file: a symlink, FIFO or device named like one is not evidence.
import { lstatSync, statSync } from "node:fs";
import { err, ok, type Result } from "../core/result.ts";
import type { ReportErrorCode } from "./errorCodes.ts";
import { isRegularFileUnder } from "./evidenceFiles.ts";

export type RunKind = "lab" | "checks" | "bench";

const MARKERS: Readonly<Record<RunKind, readonly string[]>> = {
  checks: ["checks.json"],
  lab: ["manifest.json", "audit.jsonl", "final.json"],
  bench: ["run.json", "results.json", "tasks.ndjson"],
};

/** Names a kind of evidence for a marker that is present but not a regular file (so it is refused, not ignored). */
function presentAtAll(directory: string, name: string): boolean {
  try {
    lstatSync(`${directory}/${name}`);
    return true;
  } catch {
    return false;
  }
}

export function detectRunKind(directory: string): Result<RunKind, ReportErrorCode> {
  let isDirectory: boolean;
  try {
    // The directory the user names may itself be a link to the run; nothing inside it is followed.
    isDirectory = statSync(directory).isDirectory();
  } catch {
    return err("run_directory_not_found", "no run directory at that path");
  }
  if (!isDirectory) return err("not_a_directory", "the report needs a run directory, not a file");
  const matches = (Object.keys(MARKERS) as RunKind[]).filter((kind) =>
    MARKERS[kind].some((name) => isRegularFileUnder(directory, name)),
  );
  if (matches.length === 1 && matches[0] !== undefined) return ok(matches[0]);
  if (matches.length === 0) {
    const odd = Object.values(MARKERS)
      .flat()
      .find((name) => presentAtAll(directory, name));
    if (odd !== undefined)
      return err("evidence_unreadable", `${odd} is not a regular file (a link, FIFO or device is never read)`);
    return err(
      "unknown_run_kind",
      "no checks.json (checks run), manifest.json/audit.jsonl (Lab run) or run.json/results.json (bench run) in this directory",
    );
  }
  return err(
    "unknown_run_kind",
    `the directory holds evidence of several kinds (${matches.join(", ")}); pass one run directory`,
  );
}
