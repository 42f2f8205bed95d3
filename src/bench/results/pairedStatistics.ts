// Paired statistics of conditions within one run: every condition ran on the same programs, so
// two conditions are compared program by program (fixed in one, not in the other), and an exact
// McNemar test turns the document's "a difference of two or three tasks is within noise" into a
// p-value. Also the program × condition matrix the pairs are read from. First repeats only: a
// pair is one program's one task under each condition; model errors are not results.
import { CONDITIONS, CONDITION_IDS, type ConditionId } from "../agent/conditions.ts";
import type { TaskResult } from "./taskOutcome.ts";

export interface ConditionPair {
  readonly first: ConditionId;
  readonly second: ConditionId;
  /** Programs with a graded first-repeat task under both conditions. */
  readonly programs: number;
  readonly bothFixed: number;
  readonly onlyFirst: readonly string[];
  readonly onlySecond: readonly string[];
  readonly neither: number;
  /** Exact two-sided McNemar test on the discordant pairs (1 when there are none). */
  readonly pValue: number;
}

/**
 * Exact two-sided McNemar p-value: under no difference each of the b + c discordant programs
 * goes either way with probability 1/2, so p = P(X <= min(b, c)) * 2 for X ~ Binomial(b + c, 1/2),
 * capped at 1. Summed in log space so that large counts do not underflow.
 */
export function exactMcNemar(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let logTerm = n * Math.log(0.5);
  let tail = 0;
  for (let i = 0; i <= Math.min(b, c); i++) {
    tail += Math.exp(logTerm);
    logTerm += Math.log((n - i) / (i + 1));
  }
  return Math.min(1, 2 * tail);
}

/** program → condition → fixed (true/false) for the first repeat's graded tasks. */
function fixedByProgram(results: readonly TaskResult[]): Map<string, Map<ConditionId, boolean>> {
  const out = new Map<string, Map<ConditionId, boolean>>();
  for (const r of results) {
    if ((r.repeat ?? 1) !== 1 || r.outcome === "model_error") continue;
    const row = out.get(r.program) ?? new Map<ConditionId, boolean>();
    row.set(r.condition, r.outcome === "fixed");
    out.set(r.program, row);
  }
  return out;
}

export function conditionPairs(results: readonly TaskResult[]): ConditionPair[] {
  const byProgram = fixedByProgram(results);
  const present = CONDITION_IDS.filter((c) => results.some((r) => r.condition === c));
  const pairs: ConditionPair[] = [];
  for (const [i, first] of present.entries()) {
    for (const second of present.slice(i + 1)) {
      let bothFixed = 0;
      let neither = 0;
      let programs = 0;
      const onlyFirst: string[] = [];
      const onlySecond: string[] = [];
      for (const [program, row] of [...byProgram.entries()].sort(([a], [b]) => a.localeCompare(b))) {
        const x = row.get(first);
        const y = row.get(second);
        if (x === undefined || y === undefined) continue;
        programs++;
        if (x && y) bothFixed++;
        else if (x) onlyFirst.push(program);
        else if (y) onlySecond.push(program);
        else neither++;
      }
      pairs.push({
        first,
        second,
        programs,
        bothFixed,
        onlyFirst,
        onlySecond,
        neither,
        pValue: exactMcNemar(onlyFirst.length, onlySecond.length),
      });
    }
  }
  return pairs;
}

/** results.md: the pairs with their p-values, then the program × condition matrix. */
export function renderPairedSection(results: readonly TaskResult[]): string[] {
  const pairs = conditionPairs(results);
  const byProgram = fixedByProgram(results);
  const present = CONDITION_IDS.filter((c) => results.some((r) => r.condition === c));
  if (present.length === 0) return [];
  const out = ["", "## Conditions compared program by program", ""];
  if (pairs.length > 0) {
    out.push(
      "Each program is a pair: fixed or not under each condition (first repeat; model errors left out). The exact McNemar test asks whether the programs only one condition fixed lean one way more than chance allows; a large p-value means the difference is within noise.",
      "",
    );
    out.push(
      "| Pair | Programs | Both fixed | Only the first | Only the second | Neither | Exact McNemar p |",
      "|---|---|---|---|---|---|---|",
    );
    for (const p of pairs) {
      const list = (xs: readonly string[]): string => (xs.length === 0 ? "0" : `${xs.length}: ${xs.join(", ")}`);
      out.push(
        `| ${p.first} vs ${p.second} | ${p.programs} | ${p.bothFixed} | ${list(p.onlyFirst)} | ${list(p.onlySecond)} | ${p.neither} | ${p.pValue.toFixed(3)} |`,
      );
    }
    out.push("");
  }
  out.push(
    "### Program × condition",
    "",
    `| Program | ${present.map((c) => CONDITIONS[c].id).join(" | ")} |`,
    `|---|${present.map(() => "---").join("|")}|`,
  );
  const programs = [...new Set(results.map((r) => r.program))].sort((a, b) => a.localeCompare(b));
  for (const program of programs) {
    const row = byProgram.get(program);
    const cell = (c: ConditionId): string => {
      const fixed = row?.get(c);
      if (fixed !== undefined) return fixed ? "fixed" : "not fixed";
      return results.some((r) => r.program === program && r.condition === c && (r.repeat ?? 1) === 1)
        ? "model error"
        : "–";
    };
    out.push(`| ${program} | ${present.map(cell).join(" | ")} |`);
  }
  return out;
}
