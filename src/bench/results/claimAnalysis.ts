// How an agent's "done" stood against its own test runs, read from its trace (the document's
// false-"fixed" analysis): a claim made while the file had a passing run since its last change
// is verified; otherwise it is (a) a final change, then "done" without re-running the tests,
// (b) "done" straight after a failing run on the current file, or (c) "done" without ever
// running the tests (B, and A whose answer is the file). The claim's own final words are kept
// so that results.md can quote them, as the document does.
import type { TraceEvent, TraceSink } from "../agent/taskTrace.ts";

export const CLAIM_KINDS = ["verified", "final_change_not_rerun", "after_failing_run", "never_ran_tests"] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

export const CLAIM_KIND_LABELS: Readonly<Record<ClaimKind, string>> = {
  verified: "after a passing run of the current file",
  final_change_not_rerun: "final change, not re-run",
  after_failing_run: "stopped after a failing run",
  never_ran_tests: "done without ever running the tests",
};

export interface ClaimRecord {
  readonly kind: ClaimKind;
  /** The reply that made the claim, verbatim (cut at FINAL_WORDS_LIMIT characters, marked). */
  readonly finalWords: string;
}

/** Long enough for any sentence a model ends with; an answer that is a whole file (A) is cut. */
export const FINAL_WORDS_LIMIT = 2000;
const CUT_MARK = " […]";

export interface ClaimEvent {
  readonly event: string;
  readonly [key: string]: unknown;
}

/** The events the analysis reads; every other event (and field) is ignored. */
const READ: ReadonlySet<string> = new Set(["task_start", "tool_result", "test_run", "stop_attempt", "model_response"]);

/**
 * The claim of one task from its trace events in order, or null when the agent made none (its
 * accepted stop). Only the trace's own records decide: the file's hash after each write, each
 * test run's hash and outcome, the accepted stop and the reply of its turn.
 */
export function analyzeClaim(events: readonly ClaimEvent[]): ClaimRecord | null {
  let current: unknown;
  let lastRun: { hash: unknown; passed: boolean } | null = null;
  let lastWords = "";
  for (const e of events) {
    if (e.event === "task_start") current = e.originalSha256;
    else if (e.event === "tool_result" && e.tool === "write_file") current = e.sha256;
    else if (e.event === "test_run") lastRun = { hash: e.targetSha256, passed: e.outcome === "passed" };
    else if (e.event === "model_response") lastWords = typeof e.content === "string" ? e.content : "";
    else if (e.event === "stop_attempt" && e.accepted === true) {
      const kind: ClaimKind =
        lastRun === null
          ? "never_ran_tests"
          : lastRun.hash !== current
            ? "final_change_not_rerun"
            : lastRun.passed
              ? "verified"
              : "after_failing_run";
      const finalWords =
        lastWords.length > FINAL_WORDS_LIMIT ? lastWords.slice(0, FINAL_WORDS_LIMIT) + CUT_MARK : lastWords;
      return { kind, finalWords };
    }
  }
  return null;
}

/** A trace sink that keeps, in memory, only what analyzeClaim reads (never a whole transcript). */
export class ClaimRecorder implements TraceSink {
  readonly events: ClaimEvent[] = [];
  write(event: TraceEvent, _t: number, fields: Readonly<Record<string, unknown>>): void {
    if (!READ.has(event)) return;
    const { originalSha256, tool, sha256, targetSha256, outcome, content, accepted, codeBlock } = fields;
    // codeBlock: a one-shot answer's stop carries the file (claimStatements.ts reads it).
    this.events.push({ event, originalSha256, tool, sha256, targetSha256, outcome, content, accepted, codeBlock });
  }
}
