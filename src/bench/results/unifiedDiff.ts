// Unified diffs of a program before and after a fix, through jsdiff (the `diff` package): hunks
// as git shows them, and a change of the end-of-file newline shown as git shows it
// ("\\ No newline at end of file"). The exported API is the one its callers (taskRunner, the
// special-casing check, the report's edit diffs) were written against.
import {
  applyPatch,
  createTwoFilesPatch,
  diffLines as changesByLine,
  FILE_HEADERS_ONLY,
  type ChangeObject,
} from "diff";

export interface DiffLine {
  readonly kind: " " | "-" | "+";
  readonly text: string;
}

/** Beyond this many edited lines the diff is not searched further: everything removed, everything added (still correct). */
const MAX_EDIT_LENGTH = 20_000;

function linesOf(value: string): string[] {
  const lines = value.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function wholesale(before: string, after: string): ChangeObject<string>[] {
  return [
    ...(before === "" ? [] : [{ value: before, added: false, removed: true, count: linesOf(before).length }]),
    ...(after === "" ? [] : [{ value: after, added: true, removed: false, count: linesOf(after).length }]),
  ];
}

export function diffLines(before: string, after: string): DiffLine[] {
  const changes = changesByLine(before, after, { maxEditLength: MAX_EDIT_LENGTH }) ?? wholesale(before, after);
  return changes.flatMap((change) => {
    const kind = change.added ? "+" : change.removed ? "-" : " ";
    return linesOf(change.value).map((text) => ({ kind, text }));
  });
}

/** git writes a hunk range of one line without its count ("@@ -3 +3 @@"); jsdiff always writes it. */
function gitHunkHeaders(patch: string): string {
  const range = (start: string, count: string): string => (count === "1" ? start : `${start},${count}`);
  // Only header lines start with "@@": every line of a hunk body starts with " ", "-", "+" or "\\".
  return patch.replace(
    /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/gm,
    (_all, a: string, al: string, b: string, bl: string) => `@@ -${range(a, al)} +${range(b, bl)} @@`,
  );
}

export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, {
    context,
    headerOptions: FILE_HEADERS_ONLY,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  if (patch !== undefined) return gitHunkHeaders(patch);
  // Too many edits to search: the whole file out, the whole file in.
  const removed = linesOf(before).map((l) => `-${l}`);
  const added = linesOf(after).map((l) => `+${l}`);
  const eof = (text: string): string[] => (text !== "" && !text.endsWith("\n") ? ["\\ No newline at end of file"] : []);
  const aLen = removed.length;
  const bLen = added.length;
  return (
    [
      `--- a/${path}`,
      `+++ b/${path}`,
      gitHunkHeaders(`@@ -${aLen === 0 ? 0 : 1},${aLen} +${bLen === 0 ? 0 : 1},${bLen} @@`),
      ...removed,
      ...eof(before),
      ...added,
      ...eof(after),
    ].join("\n") + "\n"
  );
}

export function addedLines(before: string, after: string): string[] {
  return diffLines(before, after)
    .filter((l) => l.kind === "+")
    .map((l) => l.text);
}

/**
 * "No change" is decided modulo trailing whitespace at the end of the file: a one-shot answer
 * that echoes the file exactly as the prompt shows it (inside a code block, which adds a final
 * newline) is the buggy program, not a fix. Whitespace anywhere else counts as a change.
 */
export function sameModuloTrailingWhitespace(before: string, after: string): boolean {
  return before.trimEnd() === after.trimEnd();
}

/**
 * `before` with a diff made by unifiedDiff applied, exactly (jsdiff's applyPatch with no fuzz:
 * every context and removed line must be there, and the end-of-file newline is restored as the
 * diff records it), or null when it does not apply (a line that is not there, a malformed or
 * foreign diff). Used by verify-run to rebuild the graded file from the recorded diff; the caller
 * checks the result's digest.
 */
export function applyUnifiedDiff(before: string, diff: string): string | null {
  if (diff === "") return before;
  if (!diff.startsWith("--- ") || !/^@@ /m.test(diff)) return null;
  let patched: string | false;
  try {
    patched = applyPatch(before, diff, { fuzzFactor: 0 });
  } catch {
    return null;
  }
  return patched === false ? null : patched;
}
