// One writer per run folder: a command that writes into a run folder (a bench run or its resume,
// an array task's shard, verify-run, merge's output, lab verify --regenerate) first takes this
// lock, a file inside the folder that names its holder (pid, host, command, start time). The file
// appears whole or not at all: it is written under a private name opened with O_EXCL, then linked
// to the lock's name (link(2) fails when the name exists, the same exclusive create), so a reader
// never sees a half-written lock. A lock whose pid is not alive on this host is stale (its holder
// was killed) and is taken over; a lock from another host is never judged from here (its pid means
// nothing on this machine), and is refused until the user removes it. Ground floor: node:fs,
// node:os and Result only, so every room that writes a run folder can use it.
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { err, ok, type Result } from "./result.ts";
import { isRecord } from "./isRecord.ts";

/** The lock's name inside the run folder (a dot file: no reader of a run lists it). */
export const RUN_FOLDER_LOCK_FILE = ".tca-writer.lock";

/**
 * run_folder_locked: another process holds the folder (alive on this host, or on another host);
 * run_lock_invalid: the lock's name holds something that is not a lock this code wrote (a link,
 * a folder, unparsable text), which is never removed for the user, or the lock cannot be created
 * there at all (a read-only folder).
 */
export const RUN_LOCK_ERROR_CODES = ["run_folder_locked", "run_lock_invalid"] as const;
export type RunLockErrorCode = (typeof RUN_LOCK_ERROR_CODES)[number];

/** What a lock file records about its holder. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly command: string;
  readonly startedAt: string;
  /** Unique per acquisition: release removes the file only while it is still this one. */
  readonly token: string;
}

export interface HeldRunFolderLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** The stale holder that was replaced, or null when the folder was free. */
  readonly tookOverFrom: LockHolder | null;
  /** Removes the lock if it is still this one; idempotent, synchronous (it runs in exit handlers). */
  readonly release: () => void;
}

/** What varies between this process and a test: who we are, the time, whether a pid is alive. */
export interface LockFacts {
  readonly pid: number;
  readonly host: string;
  readonly now: () => Date;
  readonly isAlive: (pid: number) => boolean;
}

/** A pid is alive when signal 0 reaches it, or when it exists but belongs to another user (EPERM). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export const THIS_PROCESS: LockFacts = {
  pid: process.pid,
  host: hostname(),
  now: () => new Date(),
  isAlive: pidAlive,
};

const MAX_LOCK_BYTES = 4096;

// The locks this process holds: a lock naming our own pid that is not in here was left by an
// earlier process that had the same pid (a container restarted), so it is stale, not ours.
const heldHere = new Set<string>();

type Found = { kind: "none" } | { kind: "holder"; holder: LockHolder } | { kind: "invalid"; why: string };

/** The lock file's holder, read without following a link and without blocking on a FIFO. */
export function readLockHolder(path: string): Found {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "none" };
    return { kind: "invalid", why: code === "ELOOP" ? "it is a symbolic link" : `it cannot be read (${code})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { kind: "invalid", why: "it is not a regular file" };
    if (stats.size > MAX_LOCK_BYTES) return { kind: "invalid", why: `it is ${stats.size} bytes, not a lock` };
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const length = readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0);
    const holder = parseHolder(buffer.subarray(0, length).toString("utf8"));
    return holder === null ? { kind: "invalid", why: "its content is not a tca lock" } : { kind: "holder", holder };
  } finally {
    closeSync(fd);
  }
}

function parseHolder(text: string): LockHolder | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const { pid, host, command, startedAt, token } = value;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return null;
  if (typeof host !== "string" || typeof command !== "string") return null;
  if (typeof startedAt !== "string" || typeof token !== "string") return null;
  return { pid, host, command, startedAt, token };
}

/** The holder in words, for a refusal or a takeover notice. */
export function describeHolder(holder: LockHolder): string {
  return `pid ${holder.pid} on ${holder.host} (command: ${holder.command}, since ${holder.startedAt})`;
}

/** Whether a recorded holder is a process that may still be writing (the one staleness rule). */
export function holderIsStale(holder: LockHolder, facts: LockFacts, path: string): boolean {
  if (holder.host !== facts.host) return false;
  if (holder.pid === facts.pid) return !heldHere.has(path);
  return !facts.isAlive(holder.pid);
}

/**
 * Takes the folder's lock for `command`. The folder must exist. A live holder (or one on another
 * host) is refused with run_folder_locked, naming it and what to do; a stale one is replaced and
 * reported in tookOverFrom.
 */
export function acquireRunFolderLock(
  folder: string,
  command: string,
  facts: LockFacts = THIS_PROCESS,
): Result<HeldRunFolderLock, RunLockErrorCode> {
  const path = join(folder, RUN_FOLDER_LOCK_FILE);
  const holder: LockHolder = {
    pid: facts.pid,
    host: facts.host,
    command,
    startedAt: facts.now().toISOString(),
    token: randomBytes(8).toString("hex"),
  };
  let tookOverFrom: LockHolder | null = null;
  // A few rounds: one may find a stale lock and move it aside, the next creates; a lock that
  // changes hands more often than that is refused rather than chased.
  for (let round = 0; round < 3; round += 1) {
    let created: boolean;
    try {
      created = createExclusive(folder, path, holder);
    } catch (error) {
      // A folder that cannot take a file (missing, read-only, full): nothing could be written there.
      const code = (error as NodeJS.ErrnoException).code ?? "EIO";
      return err("run_lock_invalid", `${path}: the writer's lock cannot be created in ${folder} (${code})`);
    }
    if (created) {
      heldHere.add(path);
      return ok({ path, holder, tookOverFrom, release: () => releaseLock(path, holder.token) });
    }
    const found = readLockHolder(path);
    if (found.kind === "none") continue; // released between our create and our read
    if (found.kind === "invalid")
      return err(
        "run_lock_invalid",
        `${path} is in the way of the writer's lock: ${found.why}; if no tca command is writing ${folder}, remove it and run again`,
      );
    if (!holderIsStale(found.holder, facts, path))
      return err("run_folder_locked", refusalText(folder, path, found.holder, facts));
    const moved = moveAsideIfStill(path, found.holder);
    if (moved === "other") continue; // someone else replaced it first: judge the new one
    tookOverFrom = found.holder;
  }
  return err("run_folder_locked", `${path}: the lock changed hands while it was being taken; run again`);
}

function refusalText(folder: string, path: string, holder: LockHolder, facts: LockFacts): string {
  const who = describeHolder(holder);
  if (holder.host !== facts.host)
    return (
      `${folder} is being written by ${who}, another host, whose process cannot be checked from here; ` +
      `wait for it to finish, or if it is no longer running there, remove ${path} and run again`
    );
  return (
    `${folder} is being written by ${who}; one writer per run folder: wait for it to finish ` +
    `(or stop it: kill ${holder.pid}), then run again`
  );
}

/** The whole lock under a private name (O_EXCL), then linked to the lock's name: false when that name exists. */
function createExclusive(folder: string, path: string, holder: LockHolder): boolean {
  const privateName = join(folder, `${RUN_FOLDER_LOCK_FILE}.${holder.pid}.${holder.token}`);
  const fd = openSync(
    privateName,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(privateName, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    unlinkSync(privateName);
  }
}

/**
 * Moves a stale lock out of the way: the rename is atomic, so of two processes taking over the
 * same stale lock only one moves it. If what was moved is not the stale lock any more (another
 * process took it over meanwhile), it is put back and "other" returned.
 */
function moveAsideIfStill(path: string, stale: LockHolder): "moved" | "other" {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "other";
    throw error;
  }
  const found = readLockHolder(aside);
  if (found.kind === "holder" && found.holder.token === stale.token) {
    unlinkSync(aside);
    return "moved";
  }
  try {
    linkSync(aside, path);
  } catch {
    // A third process created a lock meanwhile; it stands, and the one moved aside is dropped.
  }
  unlinkSync(aside);
  return "other";
}

function releaseLock(path: string, token: string): void {
  if (!heldHere.has(path)) return;
  heldHere.delete(path);
  const found = readLockHolder(path);
  if (found.kind !== "holder" || found.holder.token !== token) return;
  try {
    unlinkSync(path);
  } catch {
    // Already gone (the folder was removed): nothing is held either way.
  }
}
