// The agent's guardrail counters and the one rule that moves them. The tools count live while a
// task runs (agentTools.ts); the bench verdict recounts from the task's trace by the same rule
// (src/verdicts/benchVerdict.ts), so the counts behind a report's guardrail flags are never
// believed from the task record. Kept apart from the tools so that the verdict does not load
// the sandbox and test runner to recount.
import type { DataOf } from "../../recording/evidenceEnvelope.ts";
import type { AgentTraceCatalog } from "./traceEvents.ts";

/** What the guardrails counted in one task: tool runs, refusals and refused stops. */
export type GuardrailCounts = Readonly<MutableGuardrails>;

export interface MutableGuardrails {
  testRuns: number;
  blockedWrites: number;
  blockedReads: number;
  testEditAttempts: number;
  referenceReadAttempts: number;
  toolErrors: number;
  refusedStopAttempts: number;
}

export function noGuardrailHits(): MutableGuardrails {
  return {
    testRuns: 0,
    blockedWrites: 0,
    blockedReads: 0,
    testEditAttempts: 0,
    referenceReadAttempts: 0,
    toolErrors: 0,
    refusedStopAttempts: 0,
  };
}

/** The counters one refused tool call moves (by the refusal's error code). */
export function countRefusal(g: MutableGuardrails, error: string): void {
  switch (error) {
    case "write_to_tests":
      g.testEditAttempts++;
      g.blockedWrites++;
      break;
    case "write_not_allowed":
      g.blockedWrites++;
      break;
    case "read_reference_fix":
      g.referenceReadAttempts++;
      g.blockedReads++;
      break;
    case "read_not_allowed":
      g.blockedReads++;
      break;
    default:
      g.toolErrors++;
  }
}

/**
 * The guardrail counts a task's trace implies, by the rule the tools count with live: every
 * counter moves exactly where a trace event is written (tool_refused, tool_error, test_run, a
 * stop refused by the harness). The bench verdict recounts with it, so a task record whose
 * counts were edited (a guardrail flag hidden behind a plain "fixed") does not agree.
 */
export function guardrailsFromTrace(
  events: readonly { readonly type: string; readonly data: unknown }[],
): GuardrailCounts {
  const g = noGuardrailHits();
  for (const e of events) {
    // Records of the trace's catalog (the typed writer's, or the strict reader's): these types carry these fields.
    if (e.type === "tool_refused") countRefusal(g, (e.data as DataOf<AgentTraceCatalog, "tool_refused">).error);
    else if (e.type === "tool_error") g.toolErrors++;
    else if (e.type === "test_run") g.testRuns++;
    else if (e.type === "stop_attempt") {
      const stop = e.data as DataOf<AgentTraceCatalog, "stop_attempt">;
      if (!stop.accepted && typeof stop.refusal === "string") g.refusedStopAttempts++;
    }
  }
  return g;
}
