// --repeats k: each task run k times (repeat r samples with seed r - 1). A single greedy run
// hides the variance a sampled server has; per condition we report pass@k (a program counts when
// at least one of its k runs fixed it) and pass^k (only when all k did), each with a 95% Wilson
// interval over programs, and the spread of the per-repeat fixed rate.
import { CONDITIONS, CONDITION_IDS, type ConditionId } from "../agent/conditions.ts";
import { wilsonInterval } from "./summaryStatistics.ts";
import type { TaskResult } from "./taskOutcome.ts";

export interface RepeatSummary {
  readonly condition: ConditionId;
  readonly label: string;
  readonly k: number;
  /** Programs with k graded repeats (a model error leaves a program out: it has no verdict). */
  readonly programs: number;
  readonly passAtK: number;
  readonly passAtKCi95: readonly [number, number];
  readonly passHatK: number;
  readonly passHatKCi95: readonly [number, number];
  /** Fixed rate of each repeat (over its graded tasks), repeat 1 first. */
  readonly perRepeatFixedRate: readonly number[];
}

export function summarizeRepeats(results: readonly TaskResult[]): RepeatSummary[] {
  const k = Math.max(1, ...results.map((r) => r.repeat ?? 1));
  if (k < 2) return [];
  const out: RepeatSummary[] = [];
  for (const condition of CONDITION_IDS) {
    const rs = results.filter((r) => r.condition === condition && r.outcome !== "model_error");
    if (rs.length === 0) continue;
    const byProgram = new Map<string, TaskResult[]>();
    for (const r of rs) byProgram.set(r.program, [...(byProgram.get(r.program) ?? []), r]);
    const complete = [...byProgram.values()].filter((list) => new Set(list.map((r) => r.repeat ?? 1)).size >= k);
    const any = complete.filter((list) => list.some((r) => r.outcome === "fixed")).length;
    const all = complete.filter((list) => list.every((r) => r.outcome === "fixed")).length;
    const perRepeatFixedRate = Array.from({ length: k }, (_, i) => {
      const rep = rs.filter((r) => (r.repeat ?? 1) === i + 1);
      return rep.length === 0 ? 0 : rep.filter((r) => r.outcome === "fixed").length / rep.length;
    });
    const n = complete.length;
    out.push({
      condition,
      label: CONDITIONS[condition].label,
      k,
      programs: n,
      passAtK: n === 0 ? 0 : any / n,
      passAtKCi95: wilsonInterval(any, n),
      passHatK: n === 0 ? 0 : all / n,
      passHatKCi95: wilsonInterval(all, n),
      perRepeatFixedRate,
    });
  }
  return out;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The results.md section for a run with repeats; nothing for a single run. */
export function renderRepeatsSection(results: readonly TaskResult[]): string[] {
  const s = summarizeRepeats(results);
  if (s.length === 0) return [];
  const out = ["", `## Repeats: pass@${s[0]!.k} and pass^${s[0]!.k} (95% Wilson interval over programs)`, ""];
  out.push(
    "| | Programs | pass@k | 95% interval | pass^k | 95% interval | Fixed rate per repeat |",
    "|---|---|---|---|---|---|---|",
  );
  for (const c of s) {
    out.push(
      `| ${c.label} | ${c.programs} | ${pct(c.passAtK)} | ${pct(c.passAtKCi95[0])} – ${pct(c.passAtKCi95[1])} | ${pct(c.passHatK)} | ${pct(c.passHatKCi95[0])} – ${pct(c.passHatKCi95[1])} | ${c.perRepeatFixedRate.map(pct).join(", ")} |`,
    );
  }
  return out;
}
