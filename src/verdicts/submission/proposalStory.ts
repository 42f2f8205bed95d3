// What happened to each proposal of a run, reconstructed from its audit: the raw text, where it
// failed (if it did) and the events that show it. Used for the "what did the model generate",
// "where did failures originate" and "recovery or repetition" sections of submission.md. The
// classification itself is the evidence room's one classifyProposal (the report's timeline uses
// the same); this module only words it.
import { classifyProposal, type FailureOrigin } from "../proposalOutcome.ts";
import { eventsOf, record, type RunEvidence } from "./runEvidence.ts";

export type { FailureOrigin };

export interface ProposalStory {
  readonly proposal: number;
  readonly rawText: string | null;
  readonly generationEvent: number | null;
  readonly outcome: string;
  /** The event that shows the outcome (validation, authorization or observation). */
  readonly outcomeEvent: number | null;
  readonly failure: { readonly origin: FailureOrigin; readonly code: string } | null;
  readonly outputTokens: number | null;
  readonly inputTokens: number | null;
}

export function proposalStories(run: RunEvidence): ProposalStory[] {
  const numbers = [...new Set(run.audit.map((e) => e.proposal).filter((n): n is number => n !== null))].sort(
    (a, b) => a - b,
  );
  return numbers.map((proposal) => storyOf(run, proposal));
}

function storyOf(run: RunEvidence, proposal: number): ProposalStory {
  const records = run.audit.filter((event) => event.proposal === proposal);
  const generation = eventsOf(run, "generation", proposal)[0];
  const gen = record(generation?.data);
  const metadata = record(gen["metadata"]);
  const classified = classifyProposal(records);
  return {
    proposal,
    rawText: typeof gen["raw_text"] === "string" ? gen["raw_text"] : null,
    generationEvent: generation?.event_id ?? null,
    outputTokens: typeof metadata["outputTokens"] === "number" ? metadata["outputTokens"] : null,
    inputTokens: typeof metadata["inputTokens"] === "number" ? metadata["inputTokens"] : null,
    outcome: outcomeText(classified),
    outcomeEvent: classified.eventId,
    failure: classified.failure,
  };
}

/** The submission's wording of a classified proposal. */
function outcomeText(classified: ReturnType<typeof classifyProposal>): string {
  const code = String(classified.code);
  switch (classified.status) {
    case "no_proposal":
      return classified.shownBy === "context_limit" ? "context_limit before generation" : `generation ${code}`;
    case "incomplete":
      return classified.shownBy === null ? "no generation" : "incomplete";
    case "discarded":
      return `discarded (${code})`;
    case "invalid":
      return `invalid: ${code}`;
    case "denied":
      return `denied: ${code}`;
    case "integrity_failure":
    case "tool_error":
      return `rejected: ${code}`;
    case "accepted": {
      if (classified.test !== null) {
        const counts = `${String(classified.test.passed)}/${String(classified.test.total)}`;
        return classified.failure !== null ? `test ran: ${counts} public cases passed` : `test ran: ${counts} passed`;
      }
      return `${String(classified.action)}${classified.observationStatus === null ? "" : ` (${classified.observationStatus})`} ok`;
    }
  }
}

/** Consecutive failures with identical text are repetition; a different proposal after a failure is a change. */
export function recoveryPattern(stories: readonly ProposalStory[]): {
  readonly repeated: number[];
  readonly changedAfterFailure: number[];
} {
  const repeated: number[] = [];
  const changedAfterFailure: number[] = [];
  for (let i = 1; i < stories.length; i++) {
    const previous = stories[i - 1];
    const current = stories[i];
    if (!previous || !current || previous.failure === null) continue;
    if (current.rawText !== null && current.rawText === previous.rawText) repeated.push(current.proposal);
    else changedAfterFailure.push(current.proposal);
  }
  return { repeated, changedAfterFailure };
}
