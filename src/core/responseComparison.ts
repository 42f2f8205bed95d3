// How a regenerated model response is compared with the recorded one, for the Lab
// (src/lab/labRegeneration.ts) and the bench (src/bench/runRegeneration.ts): the UTF-8 bytes of two
// texts, with no normalization of the text itself, the first byte at which they differ, and each
// text bounded where a record keeps it. A harness acts on the exact text, so even a trailing space
// could change what it did: nothing is forgiven here.

/** How much of each text a difference keeps in a record (the terminal shows less). */
export const RESPONSE_TEXT_BOUND = 4096;

/** The first byte offset at which two texts' UTF-8 bytes differ (the shorter length when one is a prefix); null when equal. */
export function firstDifferingOffset(a: string, b: string): number | null {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return i;
  return x.length === y.length ? null : n;
}

export interface BoundedText {
  readonly text: string | null;
  readonly truncated: boolean;
}

/** A text as a record keeps it: its first RESPONSE_TEXT_BOUND characters, marked when cut. */
export function boundedText(text: string | null): BoundedText {
  if (text === null) return { text: null, truncated: false };
  return text.length > RESPONSE_TEXT_BOUND
    ? { text: text.slice(0, RESPONSE_TEXT_BOUND), truncated: true }
    : { text, truncated: false };
}

/** How much of each differing text a terminal line shows around the first difference (the record keeps more). */
const EXCERPT_BEFORE = 40;
const EXCERPT_AFTER = 120;

/** The bytes around `offset` of `text`, JSON-escaped so control characters and line breaks stay on one line. */
export function excerptAt(text: string | null, offset: number): string {
  if (text === null) return "(no text)";
  const bytes = Buffer.from(text, "utf8");
  const start = Math.max(0, offset - EXCERPT_BEFORE);
  const end = Math.min(bytes.length, offset + EXCERPT_AFTER);
  const shown = bytes.subarray(start, end).toString("utf8");
  return `${start > 0 ? "…" : ""}${JSON.stringify(shown)}${end < bytes.length ? "…" : ""} (bytes ${start}-${end} of ${bytes.length})`;
}

/** "regenerated n/m responses identical", labelled when the model was a synthetic checkpoint (the Lab's and the bench's one line). */
export function regeneratedSummary(identical: number, compared: number, syntheticLabel: string | null): string {
  return `regenerated ${identical}/${compared} responses identical${syntheticLabel === null ? "" : ` (SYNTHETIC checkpoint: ${syntheticLabel})`}`;
}

/** The recorded and regenerated texts around their first difference, as the Lab and the bench print them. */
export function differenceExcerpts(recorded: string | null, regenerated: string | null, offset: number): string[] {
  return [`  recorded:    ${excerptAt(recorded, offset)}`, `  regenerated: ${excerptAt(regenerated, offset)}`];
}

/** The closing line of a regeneration's output: reproduced, or what a difference means with and without --strict. */
export function regenerationOutcomeLine(outcome: string, strict: boolean): string {
  if (outcome === "reproduced") return "every compared response was reproduced";
  return strict
    ? "--strict: a regenerated response differs from the recorded one: EVIDENCE INVALID"
    : "not reproduced (a difference is not proof of forgery: the server need not be deterministic; --strict makes it EVIDENCE INVALID)";
}
