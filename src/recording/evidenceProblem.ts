// A problem found in evidence is a record, never a sentence decided by its prefix: a stable code (each
// room's codes are a closed union, listed in docs/evidence-format.md), the file it was found in, where in
// it (the line of a log, or the record's event type), and a short detail for people. The CLI and the
// reports render these; verdicts decide by `code` alone.

export interface EvidenceProblem<C extends string = string> {
  readonly code: C;
  /**
   * The evidence file's name relative to the run folder, e.g. "audit.jsonl" or
   * "traces/C-gcd.ndjson"; "" for a problem of the whole run (problems_omitted).
   */
  readonly file: string;
  /** 1-based line of a log file, when the problem is in one record. */
  readonly line?: number;
  /** The record's event type, when known. */
  readonly event?: string;
  /** For people: keys and counts, never text copied from the file. */
  readonly detail: string;
}

/** The one printed form of a problem: `code: file[:line][ (event)]: detail`, or `code: detail` for the whole run. */
export function formatProblem(problem: EvidenceProblem): string {
  const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}`;
  const event = problem.event === undefined ? "" : ` (${problem.event})`;
  const place = `${where}${event}`;
  return place === "" ? `${problem.code}: ${problem.detail}` : `${problem.code}: ${place}: ${problem.detail}`;
}
