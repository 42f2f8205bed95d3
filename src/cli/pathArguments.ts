// Path arguments checked before a command does anything: an input file or folder must exist and
// be of that kind; a new output's parent must be a folder and the output itself must not exist
// (a symlink there counts as existing, dangling or not). Each refusal names the option and the
// path, so every command answers a bad path with one line `tca <command>: <code>: <message>`
// instead of a stack trace from deep inside. Symlinks to the right kind are followed as usual.
import { lstatSync, statSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { err, ok, type Result } from "../core/result.ts";

/** The command layer's path codes (listed with CLI_ERROR_CODES in commandError.ts). */
export type PathErrorCode = "path_not_found" | "path_wrong_kind" | "path_unreadable" | "output_exists";

type Probe =
  { kind: "missing" } | { kind: "dangling_link" } | { kind: "stats"; stats: Stats } | { kind: "error"; code: string };

function probe(path: string): Probe {
  try {
    return { kind: "stats", stats: statSync(path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "EIO";
    if (code === "ENOENT" || code === "ENOTDIR") {
      try {
        if (lstatSync(path).isSymbolicLink()) return { kind: "dangling_link" };
      } catch {
        // nothing at the path at all
      }
      return { kind: "missing" };
    }
    return { kind: "error", code };
  }
}

function unusable(
  label: string,
  path: string,
  found: Probe & { kind: "missing" | "dangling_link" | "error" },
): Result<never, PathErrorCode> {
  if (found.kind === "missing") return err("path_not_found", `${label} ${path} does not exist`);
  if (found.kind === "dangling_link") return err("path_not_found", `${label} ${path} is a symlink to a missing target`);
  return err(
    "path_unreadable",
    `${label} ${path} cannot be read (${found.code === "EACCES" || found.code === "EPERM" ? "permission denied" : found.code})`,
  );
}

/** An existing folder (`label` is the option as the user typed it, e.g. "--model-directory"). */
export function inputDirectory(label: string, path: string): Result<string, PathErrorCode> {
  const found = probe(path);
  if (found.kind !== "stats") return unusable(label, path, found);
  if (!found.stats.isDirectory()) return err("path_wrong_kind", `${label} ${path} is a file, not a folder`);
  return ok(path);
}

/** An existing regular file. */
export function inputFile(label: string, path: string): Result<string, PathErrorCode> {
  const found = probe(path);
  if (found.kind !== "stats") return unusable(label, path, found);
  if (found.stats.isDirectory()) return err("path_wrong_kind", `${label} ${path} is a folder, not a file`);
  if (!found.stats.isFile()) return err("path_wrong_kind", `${label} ${path} is not a regular file`);
  return ok(path);
}

/** A file or folder the command will create: nothing at the path yet, and its parent a folder. */
export function newOutput(label: string, path: string, hint: string): Result<string, PathErrorCode> {
  let exists = true;
  try {
    lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") exists = false;
  }
  const parent = dirname(path);
  const parentFound = probe(parent);
  if (parentFound.kind === "stats" && !parentFound.stats.isDirectory())
    return err("path_wrong_kind", `${label} ${path}: its parent ${parent} is a file, not a folder (${hint})`);
  if (exists) return err("output_exists", `${label} ${path} exists; it is never overwritten (${hint})`);
  if (parentFound.kind !== "stats") {
    if (parentFound.kind === "error") return unusable(`${label} ${path}: its parent`, parent, parentFound);
    const blocking = fileAbove(parent);
    if (blocking !== null)
      return err("path_wrong_kind", `${label} ${path}: ${blocking} is a file, not a folder (${hint})`);
    return missingParent(label, path, parent);
  }
  return ok(path);
}

/**
 * The nearest existing ancestor of a missing path when it is not a folder (so `mkdir -p` would
 * fail there and must not be advised), else null.
 */
export function fileAbove(missing: string): string | null {
  for (let dir = missing; dir !== dirname(dir); dir = dirname(dir)) {
    const found = probe(dir);
    if (found.kind === "stats") return found.stats.isDirectory() ? null : dir;
  }
  return null;
}

/** The evidence files that make a folder a run (Lab run, checks root, bench run), never a model directory. */
const RUN_FOLDER_FILES = ["audit.jsonl", "final.json", "checks.json", "tasks.ndjson", "run.json"] as const;

/** The first evidence file found in the folder, or null when it holds none. */
export function runFolderMarker(directory: string): string | null {
  for (const name of RUN_FOLDER_FILES) {
    try {
      lstatSync(join(directory, name));
      return name;
    } catch {
      // not this one
    }
  }
  return null;
}

/** The refusal of an output whose parent folder is missing: the one rule, with the command that makes it. */
function missingParent(label: string, path: string, parent: string): Result<never, PathErrorCode> {
  return err(
    "path_not_found",
    `${label} ${path}: its parent ${parent} does not exist (create it first, e.g. mkdir -p ${parent})`,
  );
}

/**
 * A folder the command creates or reuses. The one output rule (README.md,
 * "Output folders"): a path the user names is created, never its parents; a missing parent is
 * refused with the mkdir that makes it. A file or a dangling symlink at the path, or a file
 * standing where a parent folder would be, is refused before any work. `makeParents` is only
 * for the command's own default location (a cache folder), never for a path the user typed.
 */
export function outputFolder(
  label: string,
  path: string,
  options: { readonly makeParents?: boolean } = {},
): Result<string, PathErrorCode> {
  const found = probe(path);
  if (found.kind === "dangling_link") return err("path_not_found", `${label} ${path} is a symlink to a missing target`);
  if (found.kind === "error") return unusable(label, path, found);
  if (found.kind === "stats")
    return found.stats.isDirectory() ? ok(path) : err("path_wrong_kind", `${label} ${path} is a file, not a folder`);
  const blocking = fileAbove(path);
  if (blocking !== null) return err("path_wrong_kind", `${label} ${path}: ${blocking} is a file, not a folder`);
  const parent = dirname(path);
  const parentFound = probe(parent);
  if (parentFound.kind === "error") return unusable(`${label} ${path}: its parent`, parent, parentFound);
  if (parentFound.kind !== "stats" && options.makeParents !== true) return missingParent(label, path, parent);
  return ok(path);
}

/**
 * The one output rule's parent check alone, for commands whose own room checks the rest (a model
 * directory, a report file): the parent must be a folder; a missing one is refused with its mkdir.
 */
export function existingParent(label: string, path: string): Result<string, PathErrorCode> {
  const parent = dirname(path);
  const found = probe(parent);
  if (found.kind === "stats")
    return found.stats.isDirectory()
      ? ok(path)
      : err("path_wrong_kind", `${label} ${path}: its parent ${parent} is a file, not a folder`);
  if (found.kind === "error") return unusable(`${label} ${path}: its parent`, parent, found);
  const blocking = fileAbove(parent);
  if (blocking !== null) return err("path_wrong_kind", `${label} ${path}: ${blocking} is a file, not a folder`);
  return missingParent(label, path, parent);
}

/** The first refusal among several checked paths, or null when all are usable. */
export function firstUnusable(
  checked: readonly Result<string, PathErrorCode>[],
): { error: PathErrorCode; message: string } | null {
  for (const result of checked) if (!result.ok) return { error: result.error, message: result.message };
  return null;
}

/**
 * A path a next-step hint may name as a new output: `preferred` (+ `extension`) when nothing is
 * there, else the first free `preferred-2`, `preferred-3`, … (+ `extension`), so the command the
 * hint prints is not refused with output_exists (a baseline run beside an earlier checks root, a
 * second rehearsal run, a second submission.md).
 */
export function unusedPath(preferred: string, extension = ""): string {
  const taken = (path: string): boolean => probe(path).kind !== "missing";
  if (!taken(`${preferred}${extension}`)) return `${preferred}${extension}`;
  for (let n = 2; ; n++) if (!taken(`${preferred}-${n}${extension}`)) return `${preferred}-${n}${extension}`;
}

/** The git repository a path lies in (the nearest ancestor holding .git), or null. */
export function repositoryAbove(path: string): string | null {
  for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) {
    try {
      lstatSync(join(dir, ".git"));
      return dir;
    } catch {
      // not this one
    }
  }
  return null;
}
