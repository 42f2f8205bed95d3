// What a generated set is like, measured honestly: how many programs it covers, its operator
// mix, how many mutants differ from QuixBugs' own bug, and the distribution of failing public
// cases per mutant (a mutant that fails every case is easier to find than one that fails one).
import type { ChosenMutant, SkippedProgram } from "./mutantSelection.ts";

export interface FailingDistribution {
  /** Mutants by the share of public cases they fail. */
  readonly oneCase: number;
  readonly upToHalf: number;
  readonly overHalf: number;
  readonly allCases: number;
  /** Failing public cases per mutant, sorted ascending. */
  readonly failing: readonly number[];
  readonly median: number | null;
}

export interface TasksetSummary {
  readonly programs: number;
  readonly covered: number;
  readonly operators: Readonly<Record<string, number>>;
  readonly differFromQuixBugs: number;
  readonly publicOnly: number;
  readonly timeouts: number;
  readonly failingPublic: FailingDistribution;
}

export function failingDistribution(mutants: readonly ChosenMutant[]): FailingDistribution {
  const failing = mutants.map((m) => m.publicCases.failing).sort((a, b) => a - b);
  const mid = Math.floor(failing.length / 2);
  const median =
    failing.length === 0
      ? null
      : failing.length % 2 === 1
        ? (failing[mid] ?? 0)
        : ((failing[mid - 1] ?? 0) + (failing[mid] ?? 0)) / 2;
  let oneCase = 0;
  let upToHalf = 0;
  let overHalf = 0;
  let allCases = 0;
  for (const m of mutants) {
    const { failing: f, total } = m.publicCases;
    if (f === total) allCases++;
    else if (f === 1) oneCase++;
    else if (f * 2 <= total) upToHalf++;
    else overHalf++;
  }
  return { oneCase, upToHalf, overHalf, allCases, failing, median };
}

export function summarizeTaskset(mutants: readonly ChosenMutant[], skipped: readonly SkippedProgram[]): TasksetSummary {
  const operators: Record<string, number> = {};
  for (const m of [...mutants].sort((a, b) => a.operator.localeCompare(b.operator)))
    operators[m.operator] = (operators[m.operator] ?? 0) + 1;
  return {
    programs: mutants.length + skipped.length,
    covered: mutants.length,
    operators,
    differFromQuixBugs: mutants.filter((m) => !m.sameAsQuixBugs).length,
    publicOnly: mutants.filter((m) => m.publicOnly).length,
    timeouts: mutants.filter((m) => m.outcome === "timeout").length,
    failingPublic: failingDistribution(mutants),
  };
}

export function formatTasksetSummary(s: TasksetSummary): string {
  const d = s.failingPublic;
  const ops = Object.entries(s.operators)
    .map(([op, n]) => `${op} ${n}`)
    .join(", ");
  return [
    `programs covered: ${s.covered}/${s.programs}`,
    `operators: ${ops === "" ? "none" : ops}`,
    `differ from QuixBugs' own bug: ${s.differFromQuixBugs}/${s.covered}; public-only (pass every held-out case): ${s.publicOnly}; time-outs: ${s.timeouts}`,
    `failing public cases per mutant: exactly one ${d.oneCase}, up to half ${d.upToHalf}, over half ${d.overHalf}, all ${d.allCases}; median ${d.median ?? "-"} (${d.failing.join(" ")})`,
  ].join("\n");
}
