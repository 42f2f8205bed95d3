// Markdown helpers that keep untrusted text inert: quoted model output goes into a fenced block
// whose fence is longer than any backtick run inside it, and table cells escape their delimiters.

export function fenced(text: string, info = "text"): string {
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

export function cell(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/[\r\n]+/g, " ")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.map(cell).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ].join("\n");
}

/** A citation of audit events of one run, e.g. [model audit #12, #14]. */
export function cite(runName: string, eventIds: readonly (number | null)[]): string {
  const ids = eventIds.filter((id): id is number => id !== null);
  return ids.length === 0 ? `[${runName} final.json]` : `[${runName} audit ${ids.map((id) => `#${id}`).join(", ")}]`;
}
