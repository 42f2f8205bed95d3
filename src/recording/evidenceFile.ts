// Writes one evidence JSON file exclusively (never over an existing one), owner-only, durable,
// and keeps its identity so the run can check, before it ends, that the file is still its own.
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, openSync, writeSync } from "node:fs";

export const EVIDENCE_FILE_MODE = 0o600;

export interface EvidenceFileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/** Throws (EEXIST) if anything is at the path, a symlink included; the caller records that as a harness error. */
export function writeJsonExclusive(path: string, value: unknown): EvidenceFileIdentity {
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    EVIDENCE_FILE_MODE,
  );
  try {
    const bytes = Buffer.from(`${JSON.stringify(value, null, 2)}\n`, "utf8");
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
    const stats = fstatSync(fd);
    return { dev: stats.dev, ino: stats.ino };
  } finally {
    closeSync(fd);
  }
}

/** Null when the file at `path` is still the one written (same identity, regular, one link, 0600). */
export function evidenceFileProblem(path: string, name: string, identity: EvidenceFileIdentity): string | null {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return `${name} is missing`;
  }
  if (!stats.isFile()) return `${name} is not a regular file`;
  if (stats.dev !== identity.dev || stats.ino !== identity.ino) return `${name} was replaced by another file`;
  if (stats.nlink !== 1) return `${name} has more than one hard link`;
  if ((stats.mode & 0o777) !== EVIDENCE_FILE_MODE)
    return `${name} is not owner-only (mode ${(stats.mode & 0o777).toString(8).padStart(3, "0")})`;
  return null;
}

/** True for the error an exclusive create throws when its file is already present. */
export function isAlreadyPresent(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "EEXIST";
}
