// The benchmark document's published numbers (publishedResults.json, in the document's own
// wording and figures), for `compare --reference published`: printed beside a run, never mixed
// into it, always under the label that says they were not re-run here. A test checks every
// figure against the document's text, so a typo in the data cannot hide.
import { MAX_COLUMNS, wrapLine } from "../../core/textWidth.ts";
import { CONDITION_IDS, type ConditionId } from "../agent/conditions.ts";
import data from "./publishedResults.json" with { type: "json" };

export interface PublishedClaims {
  readonly model: string;
  readonly condition: string;
  readonly falseFixed: string;
  readonly finalChangeNotRerun: string;
  readonly afterFailingRun: string;
  readonly claimedWithoutPassingRun: string;
  readonly sentBack: string;
  /** The document's sentences these figures come from, verbatim. */
  readonly words: readonly string[];
}

export interface PublishedTable {
  readonly columns: readonly string[];
  /** First cell: the row's label as the document writes it. */
  readonly rows: readonly (readonly string[])[];
}

export interface PublishedResults {
  readonly label: string;
  readonly document: string;
  readonly measured: string;
  readonly environment: string;
  readonly tasksPerCondition: number;
  readonly grading: string;
  readonly fixedRates: readonly (Readonly<Record<ConditionId, string>> & { readonly model: string })[];
  readonly outcomes: PublishedTable & { readonly model: string };
  readonly guardrails: PublishedTable;
  readonly claims: readonly PublishedClaims[];
}

export const PUBLISHED: PublishedResults = data;

export const REFERENCES = ["published"] as const;

function row(cells: readonly string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function rule(n: number): string {
  return `|${Array.from({ length: n }, () => "---").join("|")}|`;
}

/**
 * A published model's rows for compare's long table (Run | Cond | Fixed | 95% CI | n | Model
 * errors | False "fixed"), under the key P1, P2…; the document states no interval or model errors.
 */
export function publishedComparisonRows(
  conditions: readonly ConditionId[],
): { readonly key: string; readonly model: string; readonly rows: string[] }[] {
  return PUBLISHED.fixedRates.map((rates, i) => {
    const key = `P${i + 1}`;
    const rows = conditions.map((c) =>
      row([
        key,
        c,
        rates[c],
        "not stated",
        String(PUBLISHED.tasksPerCondition),
        "not stated",
        PUBLISHED.claims.find((x) => x.model === rates.model && x.condition === c)?.falseFixed ?? "not stated",
      ]),
    );
    return { key, model: rates.model, rows };
  });
}

/** All four of the document's tables, each under the published label. */
export function renderPublished(): string[] {
  // The document's own tables stay as the document has them (the test compares them cell by
  // cell); the prose around them is wrapped to 100 columns.
  const out = [
    `## ${PUBLISHED.label}`,
    "",
    ...wrapLine(
      `${PUBLISHED.document}; ${PUBLISHED.environment}; grading: ${PUBLISHED.grading}. "Fixed" there means every test passes (our outcome "fixed"); held-out cases were not part of it.`,
    ),
    "",
  ];
  out.push("### Fixed rate", "", row(["Model", ...CONDITION_IDS]), rule(CONDITION_IDS.length + 1));
  for (const r of PUBLISHED.fixedRates) out.push(row([r.model, ...CONDITION_IDS.map((c) => r[c])]));
  out.push(
    "",
    `### Outcomes (${PUBLISHED.outcomes.model})`,
    "",
    row(["", ...PUBLISHED.outcomes.columns]),
    rule(PUBLISHED.outcomes.columns.length + 1),
  );
  for (const r of PUBLISHED.outcomes.rows) out.push(row(r));
  out.push(
    "",
    "### Guardrails",
    "",
    row(["", ...PUBLISHED.guardrails.columns]),
    rule(PUBLISHED.guardrails.columns.length + 1),
  );
  for (const r of PUBLISHED.guardrails.rows) out.push(row(r));
  out.push("", '### False "fixed" and stops sent back', "");
  out.push(row(["Model", "Cond", 'False "fixed"', "(a)", "(b)", "Claimed w/o a passing run", "Sent back"]), rule(7));
  for (const c of PUBLISHED.claims)
    out.push(
      row([
        c.model,
        c.condition,
        c.falseFixed,
        c.finalChangeNotRerun,
        c.afterFailingRun,
        c.claimedWithoutPassingRun,
        c.sentBack,
      ]),
    );
  out.push("", "(a) final change, not re-run; (b) stopped after a failing run; sent back: refused stops.");
  out.push("", "In the document's words:", "");
  for (const c of PUBLISHED.claims)
    for (const w of c.words) out.push(...wrapLine(`- ${c.model}, ${c.condition}: “${w}”`, MAX_COLUMNS, "  "));
  return out;
}
