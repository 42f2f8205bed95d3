// Bounded, read-only access to evidence files. The report never trusts a file's size or shape:
// every read has a byte cap, JSON goes through JSON.parse (data, never code), and a file that is
// missing, oversized or malformed becomes a typed error the report shows instead of a crash.
import { closeSync, fstatSync, lstatSync, openSync, readSync, constants } from "node:fs";
import { err, ok, type Result } from "../lab/result.ts";
import type { ReportErrorCode } from "./errorCodes.ts";

/** Caps on what a report reads; generous for real runs, bounded against hostile directories. */
export const READ_LIMITS = {
  jsonFileBytes: 16 * 1024 * 1024,
  ndjsonFileBytes: 64 * 1024 * 1024,
  sourceFileBytes: 1024 * 1024,
} as const;

export type JsonObject = { readonly [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when the path exists as a regular file (symlinks are not followed, so not counted). */
export function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** True when anything (file, directory, symlink, even a dangling one) is at the path. */
export function existsAtAll(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Reads a regular file (never through a symlink) up to maxBytes as UTF-8. */
export function readBoundedText(path: string, maxBytes: number): Result<string, ReportErrorCode> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return err("evidence_unreadable", `cannot open ${baseName(path)}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return err("evidence_unreadable", `${baseName(path)} is not a regular file`);
    if (stat.size > maxBytes) return err("evidence_too_large", `${baseName(path)} is ${stat.size} bytes (limit ${maxBytes})`);
    const buffer = Buffer.alloc(stat.size);
    let offset = 0;
    while (offset < buffer.length) {
      const read = readSync(fd, buffer, offset, buffer.length - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return ok(buffer.subarray(0, offset).toString("utf8"));
  } catch {
    return err("evidence_unreadable", `cannot read ${baseName(path)}`);
  } finally {
    closeSync(fd);
  }
}

export function readJsonObject(path: string, maxBytes: number = READ_LIMITS.jsonFileBytes): Result<JsonObject, ReportErrorCode> {
  const text = readBoundedText(path, maxBytes);
  if (!text.ok) return text;
  try {
    const value: unknown = JSON.parse(text.value);
    if (!isJsonObject(value)) return err("evidence_malformed", `${baseName(path)} is not a JSON object`);
    return ok(value);
  } catch {
    return err("evidence_malformed", `${baseName(path)} is not valid JSON`);
  }
}

export interface NdjsonLines {
  readonly records: JsonObject[];
  /** 1-based numbers of lines that were not a JSON object (shown in the report, never dropped silently). */
  readonly badLines: number[];
}

export function readNdjson(path: string, maxBytes: number = READ_LIMITS.ndjsonFileBytes): Result<NdjsonLines, ReportErrorCode> {
  const text = readBoundedText(path, maxBytes);
  if (!text.ok) return text;
  const records: JsonObject[] = [];
  const badLines: number[] = [];
  const lines = text.value.split("\n");
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      const value: unknown = JSON.parse(line);
      if (isJsonObject(value)) records.push(value);
      else badLines.push(index + 1);
    } catch {
      badLines.push(index + 1);
    }
  });
  return ok({ records, badLines });
}

/** The last path component; reports name files by it so no host path ends up in the page. */
export function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  const cut = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return cut >= 0 ? trimmed.slice(cut + 1) : trimmed;
}

export function stringField(object: JsonObject | null | undefined, key: string): string | null {
  const value = object?.[key];
  return typeof value === "string" ? value : null;
}

export function numberField(object: JsonObject | null | undefined, key: string): number | null {
  const value = object?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function objectField(object: JsonObject | null | undefined, key: string): JsonObject | null {
  const value = object?.[key];
  return isJsonObject(value) ? value : null;
}
