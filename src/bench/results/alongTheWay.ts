// Per condition, what the benchmark's document reports beside the rates: the statements it counts
// "along the way" (claimStatements.ts) and the size of each fix (fixSize.ts), as results.md,
// compare and the report show them. Both come from the task records that the bench verdict
// checked against their traces (statements) and verify-run re-measures from the diff (fix size).
import { CONDITIONS, CONDITION_IDS, type ConditionId } from "../agent/conditions.ts";
import { countStatements, STATEMENT_LABELS, type ConditionStatements } from "./claimStatements.ts";
import { FIX_SIZE_LABELS, summarizeFixSizes, type ConditionFixSizes } from "./fixSize.ts";
import type { TaskResult } from "./taskOutcome.ts";

export interface ConditionAlongTheWay {
  readonly condition: ConditionId;
  readonly label: string;
  readonly tasks: number;
  readonly statements: ConditionStatements;
  /** Over the condition's fixed tasks. */
  readonly fixSizes: ConditionFixSizes;
}

export function alongTheWay(results: readonly TaskResult[]): ConditionAlongTheWay[] {
  return CONDITION_IDS.filter((c) => results.some((r) => r.condition === c)).map((condition) => {
    const rs = results.filter((r) => r.condition === condition);
    return {
      condition,
      label: CONDITIONS[condition].label,
      tasks: rs.length,
      statements: countStatements(rs),
      fixSizes: summarizeFixSizes(rs.filter((r) => r.outcome === "fixed")),
    };
  });
}

/** results.md's two sections: the statements, then the fix sizes, per condition. */
export function renderAlongTheWaySection(results: readonly TaskResult[]): string[] {
  const rows = alongTheWay(results);
  const out = ["", "## Statements along the way", ""];
  out.push(
    `Tasks whose agent said so in its own replies (code blocks not read; each statement counted once per task): ${STATEMENT_LABELS.original_correct}; ${STATEMENT_LABELS.tests_at_fault}; ${STATEMENT_LABELS.fix_announced_not_made} (a reply announced a fix and no later write changed the file). Recomputed from each trace by the bench verdict.`,
    "",
    '| | Tasks | "Was already correct" | Tests at fault | Fix announced, not made | Not analysed (older records) |',
    "|---|---|---|---|---|---|",
  );
  for (const r of rows)
    out.push(
      `| ${r.label} | ${r.tasks} | ${r.statements.counts.original_correct} | ${r.statements.counts.tests_at_fault} | ${r.statements.counts.fix_announced_not_made} | ${r.statements.notAnalysed} |`,
    );
  out.push("", "## Fix size of the fixed tasks", "");
  out.push(
    `Lines changed against the buggy program (a replaced line counts once; blank lines, trailing spaces and spacing inside a line are not changes). ${FIX_SIZE_LABELS.buggy_line}: only the line(s) the reference fix changes; ${FIX_SIZE_LABELS.rewrite}: at least half of the function's lines. verify-run re-measures each from the recorded diff.`,
    "",
    "| | Fixed | Buggy line only | Beyond the buggy line | Rewrite of the function | Whitespace only | Lines changed (median) | (max) | Not measured |",
    "|---|---|---|---|---|---|---|---|---|",
  );
  for (const r of rows) {
    const f = r.fixSizes;
    out.push(
      `| ${r.label} | ${f.measured + f.notMeasured} | ${f.kinds.buggy_line} | ${f.kinds.beyond_buggy_line} | ${f.kinds.rewrite} | ${f.kinds.whitespace_only} | ${f.medianLines} | ${f.maxLines} | ${f.notMeasured} |`,
    );
  }
  return out;
}
