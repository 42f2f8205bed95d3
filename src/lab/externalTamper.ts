// Simulated outside actors for the negative checks: code that changes a run's managed files
// behind the controller's back, exactly as a host process could. Only the checks use it; the
// controller never does. Kept apart so nobody mistakes it for part of the workspace layer.
import {
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

export interface TamperTarget {
  readonly workspaceDirectory: string;
  readonly runDirectory: string;
}

/** Overwrites toy_math.py in place with other bytes (an editor or another process). */
export function overwriteSource(target: TamperTarget, bytes: string): void {
  writeFileSync(join(target.workspaceDirectory, "toy_math.py"), bytes);
}

/** Replaces toy_math.py with a symbolic link to a same-content file outside the workspace. */
export function replaceSourceWithSymlink(target: TamperTarget): void {
  const path = join(target.workspaceDirectory, "toy_math.py");
  const outside = join(target.runDirectory, "outside-toy_math.py");
  writeFileSync(outside, readFileSync(path));
  unlinkSync(path);
  symlinkSync(outside, path);
}

/** Adds a second hard link to toy_math.py from outside the workspace (link count 2). */
export function hardLinkSource(target: TamperTarget): void {
  linkSync(join(target.workspaceDirectory, "toy_math.py"), join(target.runDirectory, "linked-toy_math.py"));
}

/** Swaps the whole workspace directory for a look-alike copy (same names and bytes, new identity). */
export function replaceWorkspaceDirectory(target: TamperTarget): void {
  const moved = `${target.workspaceDirectory}.original`;
  const files = readdirSync(target.workspaceDirectory).map(
    (name) => [name, readFileSync(join(target.workspaceDirectory, name))] as const,
  );
  renameSync(target.workspaceDirectory, moved);
  mkdirSync(target.workspaceDirectory, { mode: 0o700 });
  for (const [name, bytes] of files) writeFileSync(join(target.workspaceDirectory, name), bytes, { mode: 0o600 });
}

/** The current bytes on disk, for before/after comparisons (follows nothing special). */
export function readSourceBytes(target: TamperTarget): Buffer | null {
  try {
    return readFileSync(join(target.workspaceDirectory, "toy_math.py"));
  } catch {
    return null;
  }
}

export function listBackups(runDirectory: string): string[] {
  return readdirSync(join(runDirectory, "backups")).sort();
}
