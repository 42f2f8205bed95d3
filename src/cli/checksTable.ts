// The terminal table of `tca lab checks`, fitted to 100 columns: checks.json keeps every field;
// the table shows the observed code (the expected one is named in the FAIL line below when they
// differ), and a case name too long for its column gets a line of its own above its cells.
import type { CheckRow } from "../lab/checkRow.ts";

export const CHECKS_TABLE_COLUMNS = 100;
const SEPARATOR = "  ";

export function formatChecksTable(
  rows: readonly CheckRow[],
  reportPath: string,
  columns: number = CHECKS_TABLE_COLUMNS,
): string {
  const header = ["result", "case", "observed code", "unchanged", "run stop reason"];
  const body = rows.map((row) => [
    row.passed ? "ok" : "FAIL",
    row.id,
    row.observed ?? "(none)",
    row.unchanged,
    row.stopReason ?? "(no run)",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => (cells[i] ?? "").length)));
  // The case column gets what the other columns leave; longer names wrap onto their own line.
  const others = widths.reduce((sum, w, i) => (i === 1 ? sum : sum + w), 0) + SEPARATOR.length * (widths.length - 1);
  const caseWidth = Math.max(header[1]?.length ?? 4, Math.min(widths[1] ?? 0, columns - others));
  widths[1] = caseWidth;
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join(SEPARATOR)
      .trimEnd();
  const lines = [line(header), line(widths.map((w) => "-".repeat(w)))];
  for (const cells of body) {
    const name = cells[1] ?? "";
    if (name.length > caseWidth) {
      lines.push(
        ...wrap(
          `${" ".repeat((widths[0] ?? 0) + SEPARATOR.length)}${name}`,
          columns,
          " ".repeat((widths[0] ?? 0) + SEPARATOR.length),
        ),
      );
      lines.push(line([cells[0] ?? "", "", ...cells.slice(2)]));
    } else {
      lines.push(line(cells));
    }
  }
  lines.push("");
  const failed = rows.filter((row) => !row.passed);
  for (const row of failed) {
    const detail = `FAIL ${row.id}: expected ${row.expected}, observed ${row.observed ?? "(none)"}; ${row.problems.join("; ") || "observed code differs"}`;
    lines.push(...wrap(detail, columns, "    "));
  }
  lines.push(
    ...wrap(`${rows.length - failed.length} passed, ${failed.length} failed`, columns, "    "),
    ...wrap(`checks: ${reportPath}`, columns, "    "),
    "",
  );
  return lines.join("\n");
}

/** Word wrap at `columns`; a word longer than a line is cut (a path, say), never left to overflow. */
export function wrap(text: string, columns: number, indent: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const word of text.split(" ")) {
    const candidate = current === "" ? word : `${current} ${word}`;
    if (candidate.length <= columns) {
      current = candidate;
      continue;
    }
    if (current !== "") out.push(current);
    current = out.length === 0 ? word : `${indent}${word}`;
    while (current.length > columns) {
      out.push(current.slice(0, columns));
      current = `${indent}${current.slice(columns)}`;
    }
  }
  if (current !== "") out.push(current);
  return out;
}
