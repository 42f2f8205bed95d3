// The one test for "a plain JSON object": every reader of untrusted JSON (evidence files, server
// replies, worker messages, grader output) narrows with it before reading a field.

/** True for a non-null, non-array object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
