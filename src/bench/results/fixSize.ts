// How large a fix is, as the benchmark's document notes it ("several fixes rewrote the function
// instead of changing the one buggy line: correct, but a larger change to review"): the lines
// changed (each changed block counts its longer side, so replacing one line is 1), and whether the
// change stays on the buggy line, goes beyond it, or rewrites the function. The buggy line is the
// line the reference fix changes in the buggy program (QuixBugs: one line). Measured on the
// program text, never on what the model said: the task runner records it, and verify-run's
// re-grade recomputes it from the pristine program and the recorded diff and compares.
//
// Whitespace that does not change a Python program is not a change: trailing spaces, blank lines,
// and runs of spaces inside a line. Leading indentation is kept (it is Python's block structure).
import { diffArrays } from "diff";

export const FIX_SIZE_KINDS = ["whitespace_only", "buggy_line", "beyond_buggy_line", "rewrite"] as const;
export type FixSizeKind = (typeof FIX_SIZE_KINDS)[number];

export interface FixSize {
  readonly linesChanged: number;
  readonly kind: FixSizeKind;
}

export const FIX_SIZE_LABELS: Readonly<Record<FixSizeKind, string>> = {
  whitespace_only: "whitespace only",
  buggy_line: "the buggy line only",
  beyond_buggy_line: "beyond the buggy line",
  rewrite: "a rewrite of the function",
};

/**
 * One task's fix size in words, as the report shows it: "1 line changed: the buggy line only";
 * null (the file is unchanged) and undefined (a record older than the measure) say so.
 */
export function fixSizeWords(size: FixSize | null | undefined): string {
  if (size === undefined) return "not measured (a record older than the measure)";
  if (size === null) return "no change";
  return `${size.linesChanged} line${size.linesChanged === 1 ? "" : "s"} changed: ${FIX_SIZE_LABELS[size.kind]}`;
}

/** A change is a rewrite when it replaces at least this share of the function's lines (and more than 2). */
export const REWRITE_SHARE = 0.5;

function normalized(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => {
    const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
    return (
      indent +
      line
        .slice(indent.length)
        .trim()
        .replace(/[ \t]+/g, " ")
    );
  });
}

interface Block {
  /** Original line indices removed (0-based). */
  readonly removed: number[];
  readonly added: number;
  /** The original line index before which the block sits (for an insertion). */
  readonly at: number;
}

/** The changed blocks between two texts, blank lines ignored. */
function changedBlocks(before: string, after: string): Block[] {
  const a = normalized(before);
  const b = normalized(after);
  const blocks: Block[] = [];
  let index = 0;
  let open: { removed: number[]; added: number; at: number } | null = null;
  const close = (): void => {
    if (open !== null && (open.removed.length > 0 || open.added > 0)) blocks.push(open);
    open = null;
  };
  for (const part of diffArrays(a, b)) {
    if (!part.added && !part.removed) {
      // A run of only blank lines between two changes does not separate them.
      if (!part.value.every((line) => line.trim() === "")) close();
      index += part.value.length;
      continue;
    }
    open ??= { removed: [], added: 0, at: index };
    if (part.removed) {
      part.value.forEach((line, i) => {
        if (line.trim() !== "") open!.removed.push(index + i);
      });
      index += part.value.length;
    } else open.added += part.value.filter((line) => line.trim() !== "").length;
  }
  close();
  return blocks;
}

/** The original lines of the top-level definition around `line` (from its `def` to the next column-0 line). */
function functionSpan(lines: readonly string[], line: number): readonly [number, number] {
  let start = line;
  while (start > 0 && !/^(?:async\s+)?def\s|^class\s/.test(lines[start] ?? "")) start -= 1;
  let end = line + 1;
  while (end < lines.length && !/^\S/.test(lines[end] ?? "")) end += 1;
  return [start, end];
}

/**
 * The size of the change from `original` to `final`. `reference` (the reference fix) names the
 * buggy line; without it no change can be called "the buggy line only".
 */
export function measureFixSize(original: string, final: string, reference: string | null): FixSize {
  const blocks = changedBlocks(original, final);
  const linesChanged = blocks.reduce((sum, block) => sum + Math.max(block.removed.length, block.added), 0);
  if (linesChanged === 0) return { linesChanged: 0, kind: "whitespace_only" };
  const lines = normalized(original);
  const removed = blocks.flatMap((block) => block.removed);
  const anchor = removed[0] ?? Math.min(blocks[0]?.at ?? 0, Math.max(0, lines.length - 1));
  const [start, end] = functionSpan(lines, anchor);
  const functionLines = lines.slice(start, end).filter((line) => line.trim() !== "").length;
  if (removed.length > 2 && removed.length >= REWRITE_SHARE * functionLines) return { linesChanged, kind: "rewrite" };
  if (reference === null) return { linesChanged, kind: "beyond_buggy_line" };
  // The buggy region: the lines the reference fix removes, and for an insertion the lines around it.
  const buggy = new Set<number>();
  for (const block of changedBlocks(original, reference)) {
    block.removed.forEach((line) => buggy.add(line));
    if (block.removed.length === 0) [block.at - 1, block.at].forEach((line) => buggy.add(line));
  }
  const onBuggyLine = blocks.every((block) =>
    block.removed.length > 0
      ? block.removed.every((line) => buggy.has(line)) && block.added <= block.removed.length + 1
      : (buggy.has(block.at) || buggy.has(block.at - 1)) && block.added <= 1,
  );
  return { linesChanged, kind: onBuggyLine ? "buggy_line" : "beyond_buggy_line" };
}

export interface ConditionFixSizes {
  /** Fixed tasks whose record carries a fix size (older records and unchanged files are counted apart). */
  readonly measured: number;
  readonly notMeasured: number;
  readonly kinds: Readonly<Record<FixSizeKind, number>>;
  /** Median lines changed over the measured fixed tasks (0 when none). */
  readonly medianLines: number;
  readonly maxLines: number;
}

/** Over one condition's fixed tasks. */
export function summarizeFixSizes(
  fixed: readonly { readonly fixSize?: FixSize | null | undefined }[],
): ConditionFixSizes {
  const sizes = fixed.map((t) => t.fixSize).filter((s): s is FixSize => s !== undefined && s !== null);
  const kinds = Object.fromEntries(
    FIX_SIZE_KINDS.map((kind) => [kind, sizes.filter((s) => s.kind === kind).length]),
  ) as Record<FixSizeKind, number>;
  const lines = sizes.map((s) => s.linesChanged).sort((x, y) => x - y);
  const mid = Math.floor(lines.length / 2);
  const medianLines =
    lines.length === 0 ? 0 : lines.length % 2 === 1 ? lines[mid]! : (lines[mid - 1]! + lines[mid]!) / 2;
  return {
    measured: sizes.length,
    notMeasured: fixed.length - sizes.length,
    kinds,
    medianLines,
    maxLines: lines.at(-1) ?? 0,
  };
}
