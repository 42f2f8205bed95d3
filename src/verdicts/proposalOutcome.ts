// What happened to one proposal, decided once from its audit records. The report's timeline
// (src/report/proposalTimeline.ts) and submission.md's proposal stories
// (src/verdicts/submission/proposalStory.ts) are two renderings of this one classification, so
// they can never disagree about whether a proposal was invalid, denied or accepted.

export type ProposalStatus =
  "accepted" | "invalid" | "denied" | "tool_error" | "discarded" | "no_proposal" | "integrity_failure" | "incomplete";

/** Where a failure originated (the Lab's submission questions name these). */
export type FailureOrigin =
  "generation" | "schema" | "permission" | "editing" | "testing" | "resource_limit" | "integrity";

/** Any audit record shape: the strict reader's records and the report's parsed objects both fit. */
export interface ProposalRecord {
  readonly type?: unknown;
  readonly event_id?: unknown;
  readonly data?: unknown;
}

export interface ProposalOutcome {
  readonly status: ProposalStatus;
  /** The error code, the discard reason or the generation outcome; null for an accepted proposal. */
  readonly code: string | null;
  /** Null when nothing failed (a test run that passed every public case, a read, an edit, a finish). */
  readonly failure: { readonly origin: FailureOrigin; readonly code: string } | null;
  /** The event that shows the outcome, and its record type ("context_limit", "validation", ...). */
  readonly eventId: number | null;
  readonly shownBy: string | null;
  /** The validated action's name (or what the invalid proposal attempted), when known. */
  readonly action: string | null;
  /** For an accepted test action: its public-case counts. */
  readonly test: { readonly passed: unknown; readonly total: unknown } | null;
  /** For an accepted read/replace/finish: the observation's status ("edit_committed", ...). */
  readonly observationStatus: string | null;
}

const PERMISSION_CODES = new Set(["read_required", "stale_version", "tests_not_passing"]);
const RESOURCE_CODES = new Set(["time_limit", "context_limit", "observation_limit", "cancelled"]);

function objectOf(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function firstOf(
  records: readonly ProposalRecord[],
  type: string,
): { data: Readonly<Record<string, unknown>>; eventId: number | null; type: string } | null {
  const found = records.find((record) => record.type === type);
  if (found === undefined) return null;
  return { data: objectOf(found.data), eventId: typeof found.event_id === "number" ? found.event_id : null, type };
}

function actionOf(validation: Readonly<Record<string, unknown>> | undefined): string | null {
  if (validation === undefined) return null;
  const action = text(objectOf(validation.action).action);
  if (action !== null) return action;
  const attempted = validation.attempted_action;
  return typeof attempted === "string" ? attempted : text(objectOf(attempted).action);
}

function observationOrigin(code: string): FailureOrigin {
  if (code === "workspace_conflict") return "integrity";
  if (PERMISSION_CODES.has(code)) return "permission";
  if (RESOURCE_CODES.has(code)) return "resource_limit";
  return "editing";
}

/** The one classification of a proposal from its own records (in event order). */
export function classifyProposal(records: readonly ProposalRecord[]): ProposalOutcome {
  const validation = firstOf(records, "validation");
  const action = actionOf(validation?.data);
  const outcome = (
    status: ProposalStatus,
    code: string | null,
    origin: FailureOrigin | null,
    shown: { eventId: number | null; type: string } | null,
  ): ProposalOutcome => ({
    status,
    code,
    failure: origin === null || code === null ? null : { origin, code },
    eventId: shown?.eventId ?? null,
    shownBy: shown?.type ?? null,
    action,
    test: null,
    observationStatus: null,
  });
  const contextStop = firstOf(records, "context_limit");
  if (contextStop !== null) return outcome("no_proposal", "context_limit", "resource_limit", contextStop);
  const generation = firstOf(records, "generation");
  if (generation === null) return outcome("incomplete", null, null, null);
  if (generation.data.outcome !== "text") {
    const code = text(generation.data.outcome) ?? "unrecorded";
    return outcome("no_proposal", code, RESOURCE_CODES.has(code) ? "resource_limit" : "generation", generation);
  }
  const discarded = firstOf(records, "proposal_discarded");
  if (discarded !== null)
    return outcome("discarded", text(discarded.data.reason) ?? "unrecorded", "resource_limit", discarded);
  if (validation !== null && validation.data.ok !== true)
    return outcome("invalid", text(validation.data.error) ?? "unrecorded", "schema", validation);
  const integrity = firstOf(records, "integrity_check");
  if (integrity !== null && integrity.data.ok !== true)
    return outcome("integrity_failure", "workspace_conflict", "integrity", integrity);
  const authorization = firstOf(records, "authorization");
  if (authorization !== null && authorization.data.allowed !== true) {
    return outcome("denied", text(authorization.data.error) ?? "unrecorded", "permission", authorization);
  }
  const observed = firstOf(records, "observation");
  if (observed === null) return outcome("incomplete", null, null, generation);
  const observation = objectOf(observed.data.observation);
  if (observation.ok !== true) {
    const code = text(observation.error) ?? "unrecorded";
    return outcome("tool_error", code, observationOrigin(code), observed);
  }
  const test = action === "test" ? { passed: observation.passed, total: observation.total } : null;
  const failing = test !== null && test.passed !== test.total;
  return {
    ...outcome("accepted", null, null, observed),
    // An accepted test whose public cases fail is no refusal, but it is where a failure shows.
    failure: failing ? { origin: "testing", code: "public_cases_failing" } : null,
    test,
    observationStatus: text(observation.status),
  };
}
