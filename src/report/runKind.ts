// Which kind of run a directory holds, decided from its contents alone:
//   checks.json                          -> a checks run (tca lab checks)
//   manifest.json or audit.jsonl         -> a Lab run (tca lab baseline / trial / a single check)
//   run.json or results.json or tasks.ndjson -> a QuixBugs bench run (tca bench run)
// A directory that matches more than one pattern is refused rather than guessed.
import { join } from "node:path";
import { err, ok, type Result } from "../lab/result.ts";
import type { ReportErrorCode } from "./errorCodes.ts";
import { isDirectory, isRegularFile } from "./evidenceFiles.ts";

export type RunKind = "lab" | "checks" | "bench";

const MARKERS: Readonly<Record<RunKind, readonly string[]>> = {
  checks: ["checks.json"],
  lab: ["manifest.json", "audit.jsonl", "final.json"],
  bench: ["run.json", "results.json", "tasks.ndjson"],
};

export function detectRunKind(directory: string): Result<RunKind, ReportErrorCode> {
  if (!isDirectory(directory)) {
    return isRegularFile(directory) ? err("not_a_directory", "the report needs a run directory, not a file") : err("run_directory_not_found", "no run directory at that path");
  }
  const matches = (Object.keys(MARKERS) as RunKind[]).filter((kind) => MARKERS[kind].some((name) => isRegularFile(join(directory, name))));
  if (matches.length === 1 && matches[0] !== undefined) return ok(matches[0]);
  if (matches.length === 0) {
    return err("unknown_run_kind", "no checks.json (checks run), manifest.json/audit.jsonl (Lab run) or run.json/results.json (bench run) in this directory");
  }
  return err("unknown_run_kind", `the directory holds evidence of several kinds (${matches.join(", ")}); pass one run directory`);
}
