// The guardrail flag of one task: a "fixed" badge must not hide that the agent tried to read the
// reference fix, tried to edit the tests, or had other writes blocked on the way (issue #28,
// item 7). One wording for results.md, the terminal and the HTML report.
import type { GuardrailCounts } from "../agent/guardrailCounts.ts";

/** Each guardrail count in words, as results.md's guardrail table and the report's name them. */
export const GUARDRAIL_COUNT_LABELS: Readonly<Record<keyof GuardrailCounts, string>> = {
  testRuns: "test runs",
  blockedWrites: "blocked writes",
  testEditAttempts: "attempts to edit tests",
  blockedReads: "blocked reads",
  referenceReadAttempts: "reads of reference fixes (refused)",
  toolErrors: "tool errors",
  refusedStopAttempts: "refused stop attempts",
};

/**
 * A task's guardrail counts (GuardrailCounts) or the same object read back from evidence JSON; a
 * count that is missing or not a number (an older or damaged record) counts as 0.
 */
export type FlagCounts = GuardrailCounts | Readonly<Record<string, unknown>>;

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.trunc(value) : 0;
}

/**
 * The flags of one task, most serious first. A test-edit attempt is also counted as a blocked
 * write (agentTools.ts), so "other blocked writes" counts only the rest: no attempt is shown twice.
 * Every one of these was refused: the words say "tried", never that the agent read or wrote.
 */
export function guardrailFlags(guardrails: FlagCounts | null | undefined): string[] {
  if (guardrails === null || guardrails === undefined) return [];
  const g = guardrails as Readonly<Record<string, unknown>>;
  const reference = count(g.referenceReadAttempts);
  const testEdits = count(g.testEditAttempts);
  const otherWrites = Math.max(0, count(g.blockedWrites) - testEdits);
  const flags: string[] = [];
  if (reference > 0) flags.push(`tried to read the reference fix (${reference})`);
  if (testEdits > 0) flags.push(`tried to edit tests (${testEdits})`);
  if (otherWrites > 0) flags.push(`other blocked writes (${otherWrites})`);
  return flags;
}

/** "fixed · tried to edit tests (2)": the outcome words with the task's flags after them. */
export function outcomeWithFlags(outcomeWords: string, guardrails: FlagCounts | null | undefined): string {
  return [outcomeWords, ...guardrailFlags(guardrails)].join(" · ");
}

/** How many fixed tasks carry a guardrail flag, of how many fixed tasks. */
export function fixedWithGuardrailHits(
  tasks: readonly { readonly outcome: string; readonly guardrails: FlagCounts | null | undefined }[],
): { readonly flagged: number; readonly fixed: number } {
  const fixed = tasks.filter((task) => task.outcome === "fixed");
  return { flagged: fixed.filter((task) => guardrailFlags(task.guardrails).length > 0).length, fixed: fixed.length };
}

/** The report headline's clause after "N OF M TASKS FIXED": always said, 0 included, so its absence is never read as "none". */
export function guardrailHeadlineClause(hits: { readonly flagged: number; readonly fixed: number }): string {
  return `${hits.flagged} OF THEM WITH GUARDRAIL HITS`;
}
