// The managed-file policy (Part 5), checked before every tool call, inside every edit just before
// the rename, and for the final snapshot: the workspace directory is the one we created (same
// dev+ino, not a symlink), both managed files are regular, unlinked-elsewhere (nlink 1), opened
// without following symlinks, and their SHA256 equals the controller's record. Anything else is
// workspace_conflict. The run folder and the workspace must stay owner-only (0700) and the
// managed files 0600 (the spec's owner-only access): a chmod by anyone mid-run is a conflict.
// Messages name logical files only.
import { promises as fsp } from "node:fs";
import type { ManagedFileName } from "../constants/labConstants.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { ManagedPaths } from "./runDirectory.ts";
import {
  DIRECTORY_MODE,
  directoryIdentity,
  FILE_MODE,
  readManagedFile,
  sameIdentity,
  type FileIdentity,
  type ManagedFileProblem,
} from "./secureFs.ts";

export interface ManagedBytes {
  readonly bytes: Buffer;
  readonly sha256: string;
}

export interface ManagedFilesOnDisk {
  readonly task: ManagedBytes;
  readonly source: ManagedBytes;
}

const PROBLEM_TEXT: Record<ManagedFileProblem, string> = {
  missing: "is missing",
  symlink: "is a symbolic link",
  not_regular_file: "is not a regular file",
  hard_linked: "has more than one hard link",
  too_large: "is unexpectedly large",
  swapped_during_open: "was replaced while being opened",
  wrong_device: "is not on the workspace's device",
};

export interface IntegrityTarget {
  readonly paths: ManagedPaths;
  readonly workspaceIdentity: FileIdentity;
}

/**
 * Reads both managed files under the policy, without comparing digests (reconciliation compares
 * against two candidate digests). The directory identity is checked before and after the reads,
 * so a directory swapped while we read is detected.
 */
export async function readManagedFiles(
  target: IntegrityTarget,
): Promise<Result<ManagedFilesOnDisk, "workspace_conflict">> {
  try {
    return await readManagedFilesUnguarded(target);
  } catch {
    // Fail closed: an unexpected fs error (permissions changed, I/O error) is not a pass.
    return err("workspace_conflict", "the managed files could not be checked");
  }
}

async function readManagedFilesUnguarded(
  target: IntegrityTarget,
): Promise<Result<ManagedFilesOnDisk, "workspace_conflict">> {
  const conflict = (message: string) => err("workspace_conflict" as const, message);
  const checkDirectory = async () => {
    const identity = await directoryIdentity(target.paths.workspace);
    return identity !== null && sameIdentity(identity, target.workspaceIdentity);
  };
  if (!(await checkDirectory())) return conflict("the workspace directory was replaced or is not a directory");
  const files: Array<[ManagedFileName, string]> = [
    ["TASK.txt", target.paths.task],
    ["toy_math.py", target.paths.source],
  ];
  const read: ManagedBytes[] = [];
  for (const [name, filePath] of files) {
    const outcome = await readManagedFile(filePath, target.workspaceIdentity.dev);
    if (!outcome.ok) return conflict(`${name} ${PROBLEM_TEXT[outcome.problem]}`);
    read.push({ bytes: outcome.bytes, sha256: outcome.sha256 });
  }
  if (!(await checkDirectory())) return conflict("the workspace directory was replaced during the check");
  const modeProblem = await ownerOnlyProblem(target.paths, files);
  if (modeProblem !== null) return conflict(modeProblem);
  const [task, source] = read as [ManagedBytes, ManagedBytes];
  return ok({ task, source });
}

/** Null when the run folder and workspace are 0700 and both managed files 0600; else what is not. */
async function ownerOnlyProblem(
  paths: ManagedPaths,
  files: ReadonlyArray<[ManagedFileName, string]>,
): Promise<string | null> {
  const expected: Array<[string, string, number]> = [
    ["the run folder", paths.run, DIRECTORY_MODE],
    ["the workspace directory", paths.workspace, DIRECTORY_MODE],
    ...files.map(([name, filePath]): [string, string, number] => [name, filePath, FILE_MODE]),
  ];
  for (const [name, path, mode] of expected) {
    const actual = (await fsp.lstat(path)).mode & 0o777;
    if (actual !== mode)
      return `${name} is not owner-only (mode ${actual.toString(8).padStart(3, "0")}, expected ${mode.toString(8)})`;
  }
  return null;
}

/** The full integrity check: policy plus both digests equal to the recorded ones. */
export async function checkIntegrity(
  target: IntegrityTarget,
  expected: { readonly taskSha256: string; readonly sourceSha256: string },
): Promise<Result<ManagedFilesOnDisk, "workspace_conflict">> {
  const files = await readManagedFiles(target);
  if (!files.ok) return files;
  if (files.value.task.sha256 !== expected.taskSha256)
    return err("workspace_conflict", "TASK.txt changed outside the controller");
  if (files.value.source.sha256 !== expected.sourceSha256)
    return err("workspace_conflict", "toy_math.py changed outside the controller");
  return files;
}
