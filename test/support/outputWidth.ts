// The 100-column rule as the tests measure it (issue #28 item 15): lines of stdout longer than
// 100 columns, after the test's own folders are written as "<dir>" (a user's path is as long as
// it is; the rule is about what tca adds), and not counting JSON documents, on one line or
// indented over several (the JSON forms are for programs).
import { MAX_COLUMNS, overlongLines } from "../../src/core/textWidth.ts";

/** The text without its indented JSON documents (a "{" line to the "}" line that closes a document that parses). */
function withoutJsonDocuments(text: string): string {
  const lines = text.split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i];
    if (open === "{" || open === "[") {
      const close = open === "{" ? "}" : "]";
      const end = lines.indexOf(close, i + 1);
      if (end > i) {
        try {
          JSON.parse(lines.slice(i, end + 1).join("\n"));
          i = end;
          continue;
        } catch {
          // not one document: measured as text
        }
      }
    }
    kept.push(open ?? "");
  }
  return kept.join("\n");
}

export function overlongProse(text: string, folders: readonly string[]): string[] {
  let shown = withoutJsonDocuments(text);
  for (const folder of folders) shown = shown.split(folder).join("<dir>");
  return overlongLines(shown, MAX_COLUMNS).filter((line) => {
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
}
