// What happened to each proposal of a run, reconstructed from its audit: the raw text, where it
// failed (if it did) and the events that show it. Used for the "what did the model generate",
// "where did failures originate" and "recovery or repetition" sections of submission.md.
import { eventsOf, record, type RunEvidence } from "./runEvidence.ts";

export type FailureOrigin = "generation" | "schema" | "permission" | "editing" | "testing" | "resource_limit" | "integrity";

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

const PERMISSION_CODES = new Set(["read_required", "stale_version", "tests_not_passing"]);
const RESOURCE_CODES = new Set(["time_limit", "context_limit", "observation_limit", "cancelled"]);

export function proposalStories(run: RunEvidence): ProposalStory[] {
  const numbers = [...new Set(run.audit.map((e) => e.proposal).filter((n): n is number => n !== null))].sort((a, b) => a - b);
  return numbers.map((proposal) => storyOf(run, proposal));
}

function storyOf(run: RunEvidence, proposal: number): ProposalStory {
  const generation = eventsOf(run, "generation", proposal)[0];
  const gen = record(generation?.data);
  const metadata = record(gen["metadata"]);
  const base = {
    proposal,
    rawText: typeof gen["raw_text"] === "string" ? gen["raw_text"] : null,
    generationEvent: generation?.event_id ?? null,
    outputTokens: typeof metadata["outputTokens"] === "number" ? metadata["outputTokens"] : null,
    inputTokens: typeof metadata["inputTokens"] === "number" ? metadata["inputTokens"] : null,
  };
  const contextStop = eventsOf(run, "context_limit", proposal)[0];
  if (contextStop) return { ...base, outcome: "context_limit before generation", outcomeEvent: contextStop.event_id, failure: { origin: "resource_limit", code: "context_limit" } };
  if (generation === undefined) return { ...base, outcome: "no generation", outcomeEvent: null, failure: null };
  if (gen["outcome"] !== "text") {
    const code = String(gen["outcome"]);
    return { ...base, outcome: `generation ${code}`, outcomeEvent: generation.event_id, failure: { origin: RESOURCE_CODES.has(code) ? "resource_limit" : "generation", code } };
  }
  const discarded = eventsOf(run, "proposal_discarded", proposal)[0];
  if (discarded) {
    const code = String(record(discarded.data)["reason"]);
    return { ...base, outcome: `discarded (${code})`, outcomeEvent: discarded.event_id, failure: { origin: "resource_limit", code } };
  }
  const validation = eventsOf(run, "validation", proposal)[0];
  const verdict = record(validation?.data);
  if (validation && verdict["ok"] !== true) {
    return { ...base, outcome: `invalid: ${String(verdict["error"])}`, outcomeEvent: validation.event_id, failure: { origin: "schema", code: String(verdict["error"]) } };
  }
  const authorization = eventsOf(run, "authorization", proposal)[0];
  const decision = record(authorization?.data);
  if (authorization && decision["allowed"] !== true) {
    return { ...base, outcome: `denied: ${String(decision["error"])}`, outcomeEvent: authorization.event_id, failure: { origin: "permission", code: String(decision["error"]) } };
  }
  const observationEvent = eventsOf(run, "observation", proposal)[0];
  const observation = record(record(observationEvent?.data)["observation"]);
  const action = record(verdict["action"])["action"];
  if (observationEvent && observation["ok"] !== true) {
    const code = String(observation["error"]);
    const origin: FailureOrigin =
      code === "workspace_conflict" ? "integrity" : PERMISSION_CODES.has(code) ? "permission" : RESOURCE_CODES.has(code) ? "resource_limit" : "editing";
    return { ...base, outcome: `rejected: ${code}`, outcomeEvent: observationEvent.event_id, failure: { origin, code } };
  }
  if (action === "test" && observation["passed"] !== observation["total"]) {
    return {
      ...base,
      outcome: `test ran: ${String(observation["passed"])}/${String(observation["total"])} public cases passed`,
      outcomeEvent: observationEvent?.event_id ?? null,
      failure: { origin: "testing", code: "public_cases_failing" },
    };
  }
  const status = observation["status"];
  const summary = action === "test" ? `test ran: ${String(observation["passed"])}/${String(observation["total"])} passed` : `${String(action)}${typeof status === "string" ? ` (${status})` : ""} ok`;
  return { ...base, outcome: summary, outcomeEvent: observationEvent?.event_id ?? null, failure: null };
}

/** Consecutive failures with identical text are repetition; a different proposal after a failure is a change. */
export function recoveryPattern(stories: readonly ProposalStory[]): { readonly repeated: number[]; readonly changedAfterFailure: number[] } {
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
