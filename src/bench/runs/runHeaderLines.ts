// results.md's header lines that a reader reads as words, not as JSON: the run's date (the
// document's "measured" line) and its budget ("8 model turns, 2,048 tokens per turn, 300 s per task").
import { isRecord } from "../../core/isRecord.ts";
import { formatCount } from "../../core/numberFormat.ts";

/** "date: 2026-10-07 (started 2026-10-07T09:12:03.000Z; resumed 2026-10-08T…)". */
export function runDateLine(manifest: { readonly createdAt: string; readonly resumedAt?: readonly string[] }): string {
  const day = /^\d{4}-\d{2}-\d{2}/.exec(manifest.createdAt)?.[0] ?? manifest.createdAt;
  const resumed = manifest.resumedAt !== undefined && manifest.resumedAt.length > 0;
  return `date: ${day} (started ${manifest.createdAt}${resumed ? `; last resumed ${manifest.resumedAt!.at(-1)!}` : ""})`;
}

/** Milliseconds as seconds in words ("300 s"); anything else as it was recorded. */
export function secondsInWords(ms: unknown): string {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return `${String(ms)} (as recorded)`;
  return Number.isInteger(ms / 1000) ? `${formatCount(ms / 1000)} s` : `${ms / 1000} s`;
}

/** The agent budget of run.json's fingerprint in words; a field this does not know is named as recorded. */
export function budgetInWords(budget: unknown): string {
  if (!isRecord(budget)) return "not recorded";
  const { maxTurns, maxTokensPerTurn, taskTimeoutMs, ...rest } = budget;
  const parts: string[] = [];
  if (typeof maxTurns === "number") parts.push(`${formatCount(maxTurns)} model turns`);
  if (typeof maxTokensPerTurn === "number") parts.push(`${formatCount(maxTokensPerTurn)} tokens per turn`);
  if (taskTimeoutMs !== undefined) parts.push(`${secondsInWords(taskTimeoutMs)} per task`);
  for (const [key, value] of Object.entries(rest)) parts.push(`${key} ${String(value)}`);
  return parts.length === 0 ? "not recorded" : parts.join(", ");
}
