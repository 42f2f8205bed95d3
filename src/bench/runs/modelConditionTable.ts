// The benchmark document's model × condition table ("A bigger model needs the same rule"): one row
// per model, one column per condition under the document's own short headings, each cell the fixed
// rate. compare prints it for runs beside its long form; the headings are checked against the
// document's text (test/bench/modelConditionTable.test.ts).
import { CONDITION_IDS, type ConditionId } from "../agent/conditions.ts";
import { pct, type ConditionSummary } from "../results/resultsSummary.ts";

/** The document's column headings, verbatim. */
export const MODEL_TABLE_HEADINGS: Readonly<Record<ConditionId, string>> = {
  A: "A · one-shot",
  B: "B · no tests",
  C: "C · with tests",
  D: "D · verified",
};

/** A row's label in the Markdown is cut here (the legend above the table names each run in full). */
export const MODEL_LABEL_COLUMNS = 40;

export interface ModelTableRow {
  /** The run's model label (with its REHEARSAL / PIPELINE CHECK word first where it has one). */
  readonly model: string;
  /** The run's key in compare's legend (R1, R2…). */
  readonly run: string;
  /** The fixed rate per condition, as the document writes it ("62.5%"); null: the run has no such task. */
  readonly cells: Readonly<Record<ConditionId, string | null>>;
}

export interface ModelTable {
  readonly columns: readonly string[];
  readonly rows: readonly ModelTableRow[];
}

export function modelConditionTable(
  runs: readonly { readonly label: string; readonly byCondition: Partial<Record<ConditionId, ConditionSummary>> }[],
): ModelTable {
  return {
    columns: CONDITION_IDS.map((c) => MODEL_TABLE_HEADINGS[c]),
    rows: runs.map((run, i) => ({
      model: run.label,
      run: `R${i + 1}`,
      cells: Object.fromEntries(
        CONDITION_IDS.map((c) => {
          const s = run.byCondition[c];
          return [c, s === undefined ? null : pct(s.fixedRate)];
        }),
      ) as Record<ConditionId, string | null>,
    })),
  };
}

function cut(label: string): string {
  return label.length <= MODEL_LABEL_COLUMNS ? label : `${label.slice(0, MODEL_LABEL_COLUMNS - 1)}…`;
}

/** The table in Markdown, as the document prints it (a row whose label repeats gets its run key). */
export function renderModelConditionTable(table: ModelTable): string[] {
  const seen = new Map<string, number>();
  for (const row of table.rows) seen.set(row.model, (seen.get(row.model) ?? 0) + 1);
  const lines = [`| | ${table.columns.join(" | ")} |`, `|---|${table.columns.map(() => "---").join("|")}|`];
  for (const row of table.rows) {
    const label = (seen.get(row.model) ?? 0) > 1 ? `${cut(row.model)} (${row.run})` : cut(row.model);
    lines.push(`| ${label} | ${CONDITION_IDS.map((c) => row.cells[c] ?? "–").join(" | ")} |`);
  }
  return lines;
}
