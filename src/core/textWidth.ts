// The project's line width: terminal output and the Markdown it writes fit 100 columns (issue #28,
// item 15), so a summary reads in an 100-column terminal, a pager or a diff without sideways
// scrolling. Tables whose rows cannot wrap keep short columns; prose is wrapped here.

export const MAX_COLUMNS = 100;

/**
 * Wraps one line of prose at spaces so each piece fits `width` columns; the pieces after the
 * first start with `indent` (e.g. two spaces to continue a Markdown list item). A single word
 * longer than the width (a path, a URL) is kept whole on its own line: cutting it would break it.
 */
export function wrapLine(text: string, width: number = MAX_COLUMNS, indent = ""): string[] {
  if (text.length <= width) return [text];
  const words = text.split(" ");
  const lines: string[] = [];
  let current = "";
  for (const word of words) {
    const prefix = lines.length === 0 ? "" : indent;
    const candidate = current === "" ? prefix + word : `${current} ${word}`;
    if (candidate.length <= width || current === "" || current === prefix) current = candidate;
    else {
      lines.push(current);
      current = indent + word;
    }
  }
  if (current !== "") lines.push(current);
  return lines;
}

/** The lines of `text` longer than `width` columns (counted in code points), for tests and checks. */
export function overlongLines(text: string, width: number = MAX_COLUMNS): string[] {
  return text.split("\n").filter((line) => [...line].length > width);
}
