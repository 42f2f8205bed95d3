// Bounded, read-only access to evidence files under a run folder. The report never trusts a
// file's size, shape or type: every read goes through src/core/safeRead (no symlink followed in
// any component, FIFOs and devices refused without blocking, a byte cap), JSON goes through
// JSON.parse (data, never code), and a file that is missing, oversized, not UTF-8 or malformed
// becomes a typed error the report shows instead of a crash.
import { lstatSync } from "node:fs";
import { parseBoundedJson } from "../core/boundedJson.ts";
import { isRecord } from "../core/isRecord.ts";
import { err, ok, type Result } from "../core/result.ts";
import { kindUnder, readTextUnder, type SafeReadErrorCode } from "../core/safeRead.ts";
import type { ReportErrorCode } from "./errorCodes.ts";

/** Caps on what a report reads; generous for real runs, bounded against hostile directories. */
export const READ_LIMITS = {
  jsonFileBytes: 16 * 1024 * 1024,
  sourceFileBytes: 1024 * 1024,
} as const;

export type JsonObject = { readonly [key: string]: unknown };

/** The one plain-object test (src/core/isRecord.ts), narrowing to the report's read-only view. */
export function isJsonObject(value: unknown): value is JsonObject {
  return isRecord(value);
}

/** True when `relativePath` under the run folder is a regular file (no component followed). */
export function isRegularFileUnder(runDirectory: string, relativePath: string): boolean {
  const kind = kindUnder(runDirectory, relativePath);
  return kind.ok && kind.value === "file";
}

/** True when `relativePath` under the run folder is a real directory (no component followed). */
export function isDirectoryUnder(runDirectory: string, relativePath: string): boolean {
  const kind = kindUnder(runDirectory, relativePath);
  return kind.ok && kind.value === "directory";
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

function reportCode(code: SafeReadErrorCode): ReportErrorCode {
  if (code === "too_large") return "evidence_too_large";
  if (code === "invalid_utf8") return "evidence_malformed";
  return "evidence_unreadable";
}

/** Reads a regular file under the run folder (never through a symlink, never blocking) as strict UTF-8. */
export function readBoundedText(
  runDirectory: string,
  relativePath: string,
  maxBytes: number,
): Result<string, ReportErrorCode> {
  const read = readTextUnder(runDirectory, relativePath, maxBytes);
  return read.ok ? read : err(reportCode(read.error), `${read.error}: ${read.message}`);
}

export function readJsonObject(
  runDirectory: string,
  relativePath: string,
  maxBytes: number = READ_LIMITS.jsonFileBytes,
): Result<JsonObject, ReportErrorCode> {
  const text = readBoundedText(runDirectory, relativePath, maxBytes);
  if (!text.ok) return text;
  // Depth-checked first (src/core/boundedJson): over-deep JSON is refused, never a RangeError later.
  const parsed = parseBoundedJson(text.value, relativePath);
  if (!parsed.ok)
    return err(
      "evidence_malformed",
      parsed.error === "json_too_deep" ? `${parsed.error}: ${parsed.message}` : `${relativePath} is not valid JSON`,
    );
  if (!isJsonObject(parsed.value)) return err("evidence_malformed", `${relativePath} is not a JSON object`);
  return ok(parsed.value);
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
