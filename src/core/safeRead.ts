// Reads under a run folder without ever following a symlink and without ever blocking on a FIFO.
// Hand-written on purpose (trusted core): Node has no openat(2), and O_NOFOLLOW alone protects
// only the LAST path component, so `diffs -> /etc` plus `diffs/passwd` would read /etc/passwd.
// Here every component is opened separately, relative to the descriptor of its parent: on Linux
// through the /proc/self/fd/<fd>/<name> link (the kernel resolves it to the opened directory, so a
// directory swapped after we opened it is not followed); elsewhere by full path with the same
// O_NOFOLLOW per component. Every open carries O_NONBLOCK and the type is checked by lstat before
// the open and by fstat after it, so a FIFO or device is refused at once instead of hanging.
// Every room may import this module; it imports nothing of ours but Result and boundedJson.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  type Stats,
} from "node:fs";
import { join } from "node:path";
import { parseBoundedJson } from "./boundedJson.ts";
import { err, ok, type Result } from "./result.ts";

export const SAFE_READ_ERROR_CODES = [
  "path_invalid",
  "not_found",
  "symlink_refused",
  "not_regular_file",
  "not_a_directory",
  "too_large",
  "hard_link_refused",
  "unreadable",
  "invalid_utf8",
] as const;
export type SafeReadErrorCode = (typeof SAFE_READ_ERROR_CODES)[number];

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

/** Where O_NOFOLLOW or O_DIRECTORY is missing (Windows), every read is refused: fail closed. */
const SUPPORTED = [O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY].every((flag) => typeof flag === "number" && flag !== 0);
const PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd") ? "/proc/self/fd" : null;

/** One path component: no separators, no "." or "..", no NUL, not empty. */
function isPlainName(name: string): boolean {
  return (
    name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\\") && !name.includes("\0")
  );
}

/** Splits a relative path ("diffs/A-gcd.diff") into plain names, or null for anything else. */
export function relativeComponents(relativePath: string): string[] | null {
  if (relativePath.startsWith("/") || relativePath.includes("\\")) return null;
  const parts = relativePath.split("/");
  return parts.every(isPlainName) ? parts : null;
}

function codeOf(error: unknown): string {
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : "";
}

function failure<T>(error: unknown, name: string): Result<T, SafeReadErrorCode> {
  switch (codeOf(error)) {
    case "ENOENT":
      return err("not_found", `${name} does not exist`);
    case "ELOOP":
      return err("symlink_refused", `${name} is a symbolic link; links are never followed`);
    case "ENOTDIR":
      return err("not_a_directory", `a component of ${name} is not a directory`);
    default:
      return err("unreadable", `${name} cannot be read`);
  }
}

/** What a non-regular file is, for the refusal's message. */
function kindName(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isDirectory()) return "a directory";
  if (stats.isSocket()) return "a socket";
  if (stats.isBlockDevice() || stats.isCharacterDevice()) return "a device";
  return "something else";
}

function typeProblem<T>(stats: Stats, name: string, wanted: "file" | "directory"): Result<T, SafeReadErrorCode> | null {
  if (stats.isSymbolicLink()) return err("symlink_refused", `${name} is a symbolic link; links are never followed`);
  if (wanted === "file" && !stats.isFile())
    return err("not_regular_file", `${name} is ${kindName(stats)}, not a regular file`);
  if (wanted === "directory" && !stats.isDirectory()) return err("not_a_directory", `${name} is not a directory`);
  return null;
}

/** The path of `name` inside the directory open as `dirFd` (descriptor-relative where /proc allows). */
function childPath(dirFd: number, dirPath: string, name: string): string {
  return PROC_FD === null ? join(dirPath, name) : `${PROC_FD}/${dirFd}/${name}`;
}

/**
 * Opens `name` inside an open directory, refusing symlinks and wrong types before and after the
 * open (lstat, then O_NOFOLLOW|O_NONBLOCK, then fstat with the same identity).
 */
function openChild(
  dirFd: number,
  dirPath: string,
  name: string,
  wanted: "file" | "directory",
): Result<number, SafeReadErrorCode> {
  const path = childPath(dirFd, dirPath, name);
  let before: Stats;
  try {
    before = lstatSync(path);
  } catch (error) {
    return failure(error, name);
  }
  const refused = typeProblem<number>(before, name, wanted);
  if (refused !== null) return refused;
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (wanted === "directory" ? O_DIRECTORY : 0));
  } catch (error) {
    return failure(error, name);
  }
  try {
    const after = fstatSync(fd);
    const problem = typeProblem<number>(after, name, wanted);
    if (problem !== null || after.dev !== before.dev || after.ino !== before.ino) {
      closeSync(fd);
      return problem ?? err("unreadable", `${name} was replaced while it was opened`);
    }
    // A second name for the same inode may sit outside the folder (and change with it): evidence
    // is a file of its own, so a hard-linked one is refused like a symlink.
    if (wanted === "file" && after.nlink > 1) {
      closeSync(fd);
      return err("hard_link_refused", `${name} has ${after.nlink} hard links; evidence files must have one`);
    }
    return ok(fd);
  } catch (error) {
    closeSync(fd);
    return failure(error, name);
  }
}

/**
 * Opens the root directory. The root is the folder the user names, so a link there is followed
 * (as `tca report <link-to-run>` expects); nothing below it ever is.
 */
function openRoot(root: string): Result<number, SafeReadErrorCode> {
  if (!SUPPORTED) return err("unreadable", "this platform cannot open files without following symlinks");
  try {
    const before = statSync(root);
    if (!before.isDirectory()) return err("not_a_directory", "the run folder is not a directory");
    const fd = openSync(root, O_RDONLY | O_NONBLOCK | O_DIRECTORY);
    const after = fstatSync(fd);
    if (after.dev !== before.dev || after.ino !== before.ino) {
      closeSync(fd);
      return err("unreadable", "the run folder was replaced while it was opened");
    }
    return ok(fd);
  } catch (error) {
    return failure(error, "the run folder");
  }
}

/** Walks to the directory holding the last component; the caller closes the returned descriptor. */
function openParent(root: string, parts: readonly string[]): Result<{ fd: number; path: string }, SafeReadErrorCode> {
  const rootFd = openRoot(root);
  if (!rootFd.ok) return rootFd;
  let fd = rootFd.value;
  let path = root;
  for (const name of parts.slice(0, -1)) {
    const next = openChild(fd, path, name, "directory");
    closeSync(fd);
    if (!next.ok) return next;
    fd = next.value;
    path = join(path, name);
  }
  return ok({ fd, path });
}

function readAllBounded(
  fd: number,
  maxBytes: number,
  name: string,
  prefixOnly = false,
): Result<Buffer, SafeReadErrorCode> {
  const size = fstatSync(fd).size;
  if (size > maxBytes && !prefixOnly) return err("too_large", `${name} is ${size} bytes (limit ${maxBytes})`);
  // One byte of headroom detects a file that grows while it is read.
  const buffer = Buffer.alloc(Math.min(maxBytes, size + 64 * 1024) + 1);
  let length = 0;
  for (;;) {
    const read = readSync(fd, buffer, length, buffer.length - length, length);
    if (read === 0) break;
    length += read;
    if (length > maxBytes)
      return prefixOnly
        ? ok(Buffer.from(buffer.subarray(0, maxBytes)))
        : err("too_large", `${name} grew past ${maxBytes} bytes while it was read`);
    if (length === buffer.length) break;
  }
  return ok(Buffer.from(buffer.subarray(0, length)));
}

/** The bytes of the regular file `relativePath` under `root`, no component followed through a link. */
export function readFileUnder(root: string, relativePath: string, maxBytes: number): Result<Buffer, SafeReadErrorCode> {
  const parts = relativeComponents(relativePath);
  if (parts === null)
    return err("path_invalid", "the path must be relative, inside the run folder, with no '.' or '..'");
  const parent = openParent(root, parts);
  if (!parent.ok) return parent;
  const name = parts[parts.length - 1]!;
  const file = openChild(parent.value.fd, parent.value.path, name, "file");
  closeSync(parent.value.fd);
  if (!file.ok)
    return file.error === "not_found" ||
      file.error === "symlink_refused" ||
      file.error === "not_regular_file" ||
      file.error === "hard_link_refused"
      ? err(file.error, file.message.replace(name, relativePath))
      : file;
  try {
    return readAllBounded(file.value, maxBytes, relativePath);
  } catch (error) {
    return failure(error, relativePath);
  } finally {
    closeSync(file.value);
  }
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 strictly: any invalid sequence is an error, never a replacement character. */
export function decodeUtf8Strict(bytes: Uint8Array, name: string): Result<string, SafeReadErrorCode> {
  try {
    return ok(STRICT_UTF8.decode(bytes));
  } catch {
    return err("invalid_utf8", `${name} is not valid UTF-8`);
  }
}

/** readFileUnder plus strict UTF-8 decoding. */
export function readTextUnder(root: string, relativePath: string, maxBytes: number): Result<string, SafeReadErrorCode> {
  const bytes = readFileUnder(root, relativePath, maxBytes);
  return bytes.ok ? decodeUtf8Strict(bytes.value, relativePath) : bytes;
}

/**
 * One small JSON object file under a folder (a run, a checks root, a model directory), read with
 * the same refusals as readTextUnder: null when it is absent, a link, a FIFO, too large, not
 * UTF-8, not JSON or not an object. For summaries that treat an unreadable file as "no evidence".
 */
export function readJsonObjectUnder(
  root: string,
  relativePath: string,
  maxBytes: number,
): Record<string, unknown> | null {
  const text = readTextUnder(root, relativePath, maxBytes);
  if (!text.ok) return null;
  const parsed = parseBoundedJson(text.value, relativePath);
  if (!parsed.ok) return null;
  return typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value)
    ? (parsed.value as Record<string, unknown>)
    : null;
}

export type EntryKind = "file" | "directory" | "symlink" | "other";

/** What is at `relativePath` under `root` (no component followed), or an error (not_found, ...). */
export function kindUnder(root: string, relativePath: string): Result<EntryKind, SafeReadErrorCode> {
  const parts = relativeComponents(relativePath);
  if (parts === null)
    return err("path_invalid", "the path must be relative, inside the run folder, with no '.' or '..'");
  const parent = openParent(root, parts);
  if (!parent.ok) return parent;
  try {
    const stats = lstatSync(childPath(parent.value.fd, parent.value.path, parts[parts.length - 1]!));
    return ok(
      stats.isSymbolicLink() ? "symlink" : stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other",
    );
  } catch (error) {
    return failure(error, relativePath);
  } finally {
    closeSync(parent.value.fd);
  }
}

/** The names in the directory `relativePath` under `root` ("" for the root itself), sorted. */
export function listDirectoryUnder(root: string, relativePath: string): Result<string[], SafeReadErrorCode> {
  const parts = relativePath === "" ? [] : relativeComponents(relativePath);
  if (parts === null)
    return err("path_invalid", "the path must be relative, inside the run folder, with no '.' or '..'");
  const parent = openParent(root, [...parts, "."]);
  if (!parent.ok) return parent;
  try {
    return ok(readdirSync(PROC_FD === null ? parent.value.path : `${PROC_FD}/${parent.value.fd}`).sort());
  } catch (error) {
    return failure(error, relativePath === "" ? "the run folder" : relativePath);
  } finally {
    closeSync(parent.value.fd);
  }
}

/**
 * A file the user names directly (not under a run folder): the final link may be followed, but
 * the open never blocks and anything but a regular file is refused before a byte is read.
 */
export function readRegularFile(
  path: string,
  maxBytes: number,
  options: { readonly prefixOnly?: boolean } = {},
): Result<Buffer, SafeReadErrorCode> {
  if (!SUPPORTED) return err("unreadable", "this platform cannot open files without blocking safeguards");
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK);
  } catch (error) {
    return failure(error, "the file");
  }
  try {
    if (!fstatSync(fd).isFile()) return err("not_regular_file", "the file is not a regular file");
    return readAllBounded(fd, maxBytes, "the file", options.prefixOnly === true);
  } catch (error) {
    return failure(error, "the file");
  } finally {
    closeSync(fd);
  }
}
