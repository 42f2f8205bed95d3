// JSON from files and servers we do not control, parsed only after an iterative depth check.
// Hand-written on purpose (trusted core): JSON.parse accepts any depth, and what runs over the
// parsed value afterwards (JSON.stringify, canonical forms, the report's string capping) recurses,
// so a 100,000-deep array turns into an uncaught RangeError far from the read. The pre-check is
// one loop over the characters that tracks only "inside a string" and the bracket depth: it
// cannot itself recurse, and it refuses before anything else touches the value.
import { err, ok, type Result } from "./result.ts";

export const BOUNDED_JSON_ERROR_CODES = ["json_invalid", "json_too_deep"] as const;
export type BoundedJsonErrorCode = (typeof BOUNDED_JSON_ERROR_CODES)[number];

/**
 * Depth allowed in evidence files (run folders, audit logs). An honest trace event nests a model's
 * tool arguments under about four levels, and the model client refuses replies deeper than
 * MODEL_REPLY_MAX_DEPTH, so nothing the project writes comes near this.
 */
export const EVIDENCE_JSON_MAX_DEPTH = 128;
/** Depth allowed in a model server's reply (and in a tool call's arguments). */
export const MODEL_REPLY_MAX_DEPTH = 64;

/** The deepest bracket nesting in `text` (strings skipped), counted without recursion; stops early past `limit`. */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** JSON.parse after the depth check; `name` goes into the message (a path, "the reply"). */
export function parseBoundedJson(
  text: string,
  name: string,
  maxDepth: number = EVIDENCE_JSON_MAX_DEPTH,
): Result<unknown, BoundedJsonErrorCode> {
  if (jsonDepth(text, maxDepth) > maxDepth) return err("json_too_deep", `${name} nests deeper than ${maxDepth} levels`);
  try {
    return ok(JSON.parse(text) as unknown);
  } catch {
    return err("json_invalid", `${name} is not valid JSON`);
  }
}
