// A unified diff of two small text files (QuixBugs programs are under ~100 lines), by a plain
// LCS table: quadratic, exact, and small enough to audit. Used for the per-fix diffs.
export interface DiffLine {
  readonly kind: " " | "-" | "+";
  readonly text: string;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  if (a.length * b.length > 4_000_000) {
    // Too large for the table: everything removed, everything added (still a correct diff).
    return [...a.map((t) => ({ kind: "-" as const, text: t })), ...b.map((t) => ({ kind: "+" as const, text: t }))];
  }
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i]!;
    const below = lcs[i + 1]!;
    for (let j = m - 1; j >= 0; j--) {
      row[j] = a[i] === b[j] ? below[j + 1]! + 1 : Math.max(below[j]!, row[j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: " ", text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      out.push({ kind: "-", text: a[i++]! });
    } else {
      out.push({ kind: "+", text: b[j++]! });
    }
  }
  while (i < n) out.push({ kind: "-", text: a[i++]! });
  while (j < m) out.push({ kind: "+", text: b[j++]! });
  return out;
}

export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const lines = diffLines(before, after);
  const header = [`--- a/${path}`, `+++ b/${path}`];
  const hunks: string[] = [];
  let idx = 0;
  while (idx < lines.length) {
    while (idx < lines.length && lines[idx]!.kind === " ") idx++;
    if (idx >= lines.length) break;
    const start = Math.max(0, idx - context);
    let end = idx;
    // Extend the hunk while changes are within 2*context lines of each other.
    for (;;) {
      while (end < lines.length && lines[end]!.kind !== " ") end++;
      let look = end;
      while (look < lines.length && look - end < 2 * context && lines[look]!.kind === " ") look++;
      if (look < lines.length && lines[look]!.kind !== " " && look - end < 2 * context + 1) {
        end = look;
        continue;
      }
      break;
    }
    const stop = Math.min(lines.length, end + context);
    // Line numbers: count lines of each side before `start`.
    let aStart = 1;
    let bStart = 1;
    for (let k = 0; k < start; k++) {
      if (lines[k]!.kind !== "+") aStart++;
      if (lines[k]!.kind !== "-") bStart++;
    }
    const body = lines.slice(start, stop);
    const aLen = body.filter((l) => l.kind !== "+").length;
    const bLen = body.filter((l) => l.kind !== "-").length;
    hunks.push(`@@ -${aLen === 0 ? aStart - 1 : aStart},${aLen} +${bLen === 0 ? bStart - 1 : bStart},${bLen} @@`);
    for (const l of body) hunks.push(`${l.kind}${l.text}`);
    idx = stop;
  }
  return [...header, ...hunks].join("\n") + "\n";
}

export function addedLines(before: string, after: string): string[] {
  return diffLines(before, after).filter((l) => l.kind === "+").map((l) => l.text);
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
 * The lines of `before` with a diff made by unifiedDiff applied, or null when the diff does not
 * apply exactly (a context or removed line that is not there, a malformed hunk). Used by verify-run
 * to rebuild the graded file from the recorded diff; the caller checks the result's digest.
 */
export function applyUnifiedDiff(before: string, diff: string): string[] | null {
  const source = splitLines(before);
  if (diff === "") return source;
  const lines = splitLines(diff);
  if (!lines[0]?.startsWith("--- ") || !lines[1]?.startsWith("+++ ")) return null;
  const out: string[] = [];
  let next = 0;
  let k = 2;
  while (k < lines.length) {
    const header = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(lines[k]!);
    if (!header) return null;
    const aStart = Number(header[1]);
    const aLen = Number(header[2]);
    const bLen = Number(header[4]);
    // unifiedDiff writes the line before an empty side's position (aLen 0: insert after aStart).
    const at = aLen === 0 ? aStart : aStart - 1;
    if (at < next || at > source.length) return null;
    while (next < at) out.push(source[next++]!);
    let seenA = 0;
    let seenB = 0;
    for (k++; k < lines.length && !lines[k]!.startsWith("@@ "); k++) {
      const line = lines[k]!;
      const kind = line[0];
      const text = line.slice(1);
      if (kind === " " || kind === "-") {
        if (source[next] !== text) return null;
        next++;
        seenA++;
        if (kind === " ") {
          out.push(text);
          seenB++;
        }
      } else if (kind === "+") {
        out.push(text);
        seenB++;
      } else return null;
    }
    if (seenA !== aLen || seenB !== bLen) return null;
  }
  while (next < source.length) out.push(source[next++]!);
  return out;
}
