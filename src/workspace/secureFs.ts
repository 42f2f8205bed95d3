// The low-level file operations of the workspace, each written to narrow what Node's path-based
// fs API allows. Node has no openat/renameat/fstatat, so every call re-resolves its path from the
// root; what we can do is (1) never follow a symlink in the last component (O_NOFOLLOW, O_EXCL),
// (2) check the opened descriptor itself (fstat) and compare it with the lstat of the path, and
// (3) recheck the directory's identity (dev+ino) around each access. The remaining window — a
// directory in the path swapped between two checks — is documented in docs/workspace.md; the
// Lab assumes no adversarial process of the same user (Part 5).
import { sha256Hex } from "../core/digest.ts";
import { constants, promises as fsp, type BigIntStats, type Stats } from "node:fs";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = constants;

/**
 * O_NOFOLLOW and O_DIRECTORY are undefined on Windows; OR-ing undefined into flags would silently
 * drop the protection. Where they are missing, the workspace refuses to run (fail closed).
 */
export const NO_FOLLOW_SUPPORTED =
  typeof O_NOFOLLOW === "number" && O_NOFOLLOW !== 0 && typeof O_DIRECTORY === "number" && O_DIRECTORY !== 0;

function requireNoFollow(): void {
  if (!NO_FOLLOW_SUPPORTED)
    throw new Error("O_NOFOLLOW/O_DIRECTORY unavailable: refusing to weaken the managed-file policy");
}

/** Managed files are tiny; anything larger cannot be ours and is not read into memory. */
export const MAX_MANAGED_FILE_BYTES = 64 * 1024;

export const FILE_MODE = 0o600;
export const DIRECTORY_MODE = 0o700;

export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

export function identityOf(stats: Stats | BigIntStats): FileIdentity {
  return { dev: Number(stats.dev), ino: Number(stats.ino) };
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** lstat that answers null for a missing path instead of throwing. */
export async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(path);
  } catch (error) {
    if (isErrnoCode(error, "ENOENT") || isErrnoCode(error, "ENOTDIR")) return null;
    throw error;
  }
}

export function isErrnoCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

/** Why a managed file failed the policy; for the audit, never shown with a path. */
export type ManagedFileProblem =
  "missing" | "symlink" | "not_regular_file" | "hard_linked" | "too_large" | "swapped_during_open" | "wrong_device";

export type SecureReadOutcome =
  | { readonly ok: true; readonly bytes: Buffer; readonly sha256: string; readonly identity: FileIdentity }
  | { readonly ok: false; readonly problem: ManagedFileProblem };

/**
 * Reads a managed file under the policy: regular file, not a symlink, exactly one link, opened
 * with O_NOFOLLOW, the opened descriptor's identity equal to the path's lstat identity, on the
 * same device as its directory, at most MAX_MANAGED_FILE_BYTES. Reads through the descriptor.
 */
export async function readManagedFile(path: string, directoryDevice: number): Promise<SecureReadOutcome> {
  const before = await lstatOrNull(path);
  if (before === null) return { ok: false, problem: "missing" };
  if (before.isSymbolicLink()) return { ok: false, problem: "symlink" };
  if (!before.isFile()) return { ok: false, problem: "not_regular_file" };
  if (before.nlink !== 1) return { ok: false, problem: "hard_linked" };
  requireNoFollow();
  let handle: fsp.FileHandle;
  try {
    // O_NOFOLLOW: if the last component became a symlink after the lstat, open fails (ELOOP).
    handle = await fsp.open(path, O_RDONLY | O_NOFOLLOW);
  } catch (error) {
    if (isErrnoCode(error, "ELOOP")) return { ok: false, problem: "symlink" };
    if (isErrnoCode(error, "ENOENT")) return { ok: false, problem: "missing" };
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, problem: "not_regular_file" };
    if (stats.nlink !== 1) return { ok: false, problem: "hard_linked" };
    if (!sameIdentity(identityOf(stats), identityOf(before))) return { ok: false, problem: "swapped_during_open" };
    if (Number(stats.dev) !== directoryDevice) return { ok: false, problem: "wrong_device" };
    if (stats.size > MAX_MANAGED_FILE_BYTES) return { ok: false, problem: "too_large" };
    const bytes = await readAllBounded(handle);
    if (bytes === null) return { ok: false, problem: "too_large" };
    return { ok: true, bytes, sha256: sha256Hex(bytes), identity: identityOf(stats) };
  } finally {
    await handle.close();
  }
}

/** Reads the whole descriptor, refusing to grow past the cap even if the file grows while we read. */
async function readAllBounded(handle: fsp.FileHandle): Promise<Buffer | null> {
  const buffer = Buffer.alloc(MAX_MANAGED_FILE_BYTES + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length > MAX_MANAGED_FILE_BYTES) return null;
  }
  return Buffer.from(buffer.subarray(0, length));
}

/**
 * Creates a new file exclusively (O_CREAT|O_EXCL|O_NOFOLLOW: fails if anything, even a dangling
 * symlink, exists), sets mode 0600 on the descriptor regardless of umask, writes, fsyncs, closes.
 */
export async function writeNewFileExclusive(path: string, bytes: Uint8Array): Promise<void> {
  requireNoFollow();
  const handle = await fsp.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, FILE_MODE);
  try {
    await handle.chmod(FILE_MODE);
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset);
      offset += bytesWritten;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync a directory so that a create or rename inside it is durable. */
export async function syncDirectory(path: string): Promise<void> {
  requireNoFollow();
  const handle = await fsp.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A real directory (not a symlink) with the given identity, or null. */
export async function directoryIdentity(path: string): Promise<FileIdentity | null> {
  const stats = await lstatOrNull(path);
  if (stats === null || stats.isSymbolicLink() || !stats.isDirectory()) return null;
  return identityOf(stats);
}
