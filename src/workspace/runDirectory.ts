// Exclusive creation of a fresh run directory (Part 3). Every refusal happens before anything is
// created; the destination itself is made with a non-recursive mkdir, so a destination that
// appears between the check and the mkdir still fails (EEXIST) instead of being reused.
import { promises as fsp } from "node:fs";
import path from "node:path";
import { INITIAL_TOY_MATH_PY, TASK_TXT } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { WorkspaceErrorCode } from "./errorCodes.ts";
import {
  DIRECTORY_MODE,
  directoryIdentity,
  isErrnoCode,
  lstatOrNull,
  NO_FOLLOW_SUPPORTED,
  readManagedFile,
  syncDirectory,
  writeNewFileExclusive,
  type FileIdentity,
} from "./secureFs.ts";
import { sha256Hex } from "../core/digest.ts";

export interface RunPaths {
  readonly run: string;
  readonly workspace: string;
  readonly backups: string;
}

/** Host paths of the two managed files; never shown to the model (only the logical names are). */
export interface ManagedPaths extends RunPaths {
  readonly task: string;
  readonly source: string;
}

export interface CreatedRunDirectory {
  readonly paths: ManagedPaths;
  readonly workspaceIdentity: FileIdentity;
  readonly taskSha256: string;
  readonly sourceSha256: string;
}

export const INITIAL_TASK_BYTES = Buffer.from(TASK_TXT, "utf8");
export const INITIAL_SOURCE_BYTES = Buffer.from(INITIAL_TOY_MATH_PY, "utf8");
export const INITIAL_TASK_SHA256 = sha256Hex(INITIAL_TASK_BYTES);
export const INITIAL_SOURCE_SHA256 = sha256Hex(INITIAL_SOURCE_BYTES);

export function managedPaths(runDirectory: string): ManagedPaths {
  const workspace = path.join(runDirectory, "workspace");
  return {
    run: runDirectory,
    workspace,
    backups: path.join(runDirectory, "backups"),
    task: path.join(workspace, "TASK.txt"),
    source: path.join(workspace, "toy_math.py"),
  };
}

/** Pure path checks: absolute, normal form, not the root, no NUL. */
export function checkRunPath(runDirectory: string): Result<string, WorkspaceErrorCode> {
  if (!path.isAbsolute(runDirectory)) return err("run_path_not_absolute", "the run directory must be an absolute path");
  if (runDirectory.includes("\0")) return err("run_path_unsafe", "the run directory path contains NUL");
  if (path.normalize(runDirectory) !== runDirectory || runDirectory.endsWith(path.sep)) {
    return err(
      "run_path_unsafe",
      "the run directory path must be in normal form (no '.', '..', doubled or trailing separators)",
    );
  }
  if (path.dirname(runDirectory) === runDirectory)
    return err("run_path_unsafe", "the run directory cannot be the root");
  return ok(runDirectory);
}

/** A directory looks like a run when it holds both `workspace/` and `backups/` directories. */
async function looksLikeRun(directory: string): Promise<boolean> {
  const workspace = await lstatOrNull(path.join(directory, "workspace"));
  const backups = await lstatOrNull(path.join(directory, "backups"));
  return workspace !== null && workspace.isDirectory() && backups !== null && backups.isDirectory();
}

function ancestors(directory: string): string[] {
  const list: string[] = [];
  let current = directory;
  for (;;) {
    list.push(current);
    const parent = path.dirname(current);
    if (parent === current) return list;
    current = parent;
  }
}

/**
 * Walks up from the parent (both the path as written and its resolved real path, since an
 * ancestor may be a symlink) looking for `.git` (a directory or a worktree file) or a run.
 */
async function checkContainment(parent: string): Promise<Result<void, WorkspaceErrorCode>> {
  const real = await fsp.realpath(parent);
  const seen = new Set<string>();
  for (const directory of [...ancestors(parent), ...ancestors(real)]) {
    if (seen.has(directory)) continue;
    seen.add(directory);
    if ((await lstatOrNull(path.join(directory, ".git"))) !== null) {
      return err("run_inside_repository", "the run directory would be inside a git repository");
    }
    if (await looksLikeRun(directory)) return err("run_inside_run", "the run directory would be inside another run");
  }
  return ok(undefined);
}

/** Checks the destination without creating anything. */
export async function checkRunDestination(runDirectory: string): Promise<Result<string, WorkspaceErrorCode>> {
  const checked = checkRunPath(runDirectory);
  if (!checked.ok) return checked;
  const parent = path.dirname(runDirectory);
  const parentStats = await lstatOrNull(parent);
  if (parentStats === null) return err("run_parent_invalid", "the parent of the run directory does not exist");
  if (parentStats.isSymbolicLink())
    return err("run_parent_invalid", "the parent of the run directory is a symbolic link");
  if (!parentStats.isDirectory())
    return err("run_parent_invalid", "the parent of the run directory is not a directory");
  if ((await lstatOrNull(runDirectory)) !== null)
    return err("run_destination_exists", "the run directory already exists");
  const contained = await checkContainment(parent);
  if (!contained.ok) return contained;
  return ok(runDirectory);
}

async function makeDirectory(directory: string): Promise<void> {
  // Not recursive: EEXIST must fail. chmod afterwards so the mode does not depend on umask.
  await fsp.mkdir(directory, { mode: DIRECTORY_MODE });
  await fsp.chmod(directory, DIRECTORY_MODE);
}

/**
 * Creates run/, run/workspace/ (TASK.txt, toy_math.py with the spec's exact bytes) and
 * run/backups/. Evidence files (audit.jsonl, manifest.json, final.json) belong to src/recording.
 * A failure after the mkdir leaves the partial directory in place as evidence.
 */
export async function createRunDirectory(
  runDirectory: string,
): Promise<Result<CreatedRunDirectory, WorkspaceErrorCode>> {
  if (!NO_FOLLOW_SUPPORTED)
    return err("unsupported_platform", "this platform cannot open files without following symlinks");
  const checked = await checkRunDestination(runDirectory);
  if (!checked.ok) return checked;
  const paths = managedPaths(runDirectory);
  try {
    await makeDirectory(paths.run);
  } catch (error) {
    if (isErrnoCode(error, "EEXIST")) return err("run_destination_exists", "the run directory already exists");
    return err("run_create_failed", "the run directory could not be created");
  }
  try {
    if ((await directoryIdentity(paths.run)) === null) {
      return err("run_create_failed", "the run directory was replaced while it was being created");
    }
    await makeDirectory(paths.workspace);
    await makeDirectory(paths.backups);
    await writeNewFileExclusive(paths.task, INITIAL_TASK_BYTES);
    await writeNewFileExclusive(paths.source, INITIAL_SOURCE_BYTES);
    await syncDirectory(paths.workspace);
    await syncDirectory(paths.run);
    await syncDirectory(path.dirname(paths.run));
    const workspaceIdentity = await directoryIdentity(paths.workspace);
    if (workspaceIdentity === null)
      return err("run_create_failed", "the workspace directory was replaced while it was being created");
    // Read back through the same policy the integrity check uses: what we recorded is on disk.
    const task = await readManagedFile(paths.task, workspaceIdentity.dev);
    const source = await readManagedFile(paths.source, workspaceIdentity.dev);
    if (!task.ok || !source.ok || task.sha256 !== INITIAL_TASK_SHA256 || source.sha256 !== INITIAL_SOURCE_SHA256) {
      return err("run_create_failed", "the managed files did not read back with the expected bytes");
    }
    return ok({ paths, workspaceIdentity, taskSha256: INITIAL_TASK_SHA256, sourceSha256: INITIAL_SOURCE_SHA256 });
  } catch {
    return err("run_create_failed", "the run layout could not be created");
  }
}
