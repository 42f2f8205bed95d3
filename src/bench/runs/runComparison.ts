// compare: several runs (models, conditions, repeats) side by side: fixed rate per condition
// over graded tasks with its 95% interval (model errors named beside it), and false "fixed" counts.
import { err, ok, type Result } from "../../core/result.ts";
import { CONDITION_IDS, type ConditionId } from "../agent/conditions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { conditionFindings, type ConditionFindings } from "../results/claimFindings.ts";
import { pct, runKindTitle, summarize, type ConditionSummary } from "../results/resultsSummary.ts";
import { publishedComparisonRows, REFERENCES, renderPublished } from "./publishedResults.ts";
import { readManifest, readTaskResults, type RunManifest } from "./runDirectory.ts";
import type { TaskResult } from "../results/taskOutcome.ts";

export type Reference = (typeof REFERENCES)[number];

/** --reference: "published" (the document's numbers); anything else is refused by name. */
export function parseReference(value: string | undefined): Result<Reference | null, BenchErrorCode> {
  if (value === undefined) return ok(null);
  const known = REFERENCES.find((r) => r === value);
  return known === undefined ? err("invalid_option", `--reference must be one of: ${REFERENCES.join(", ")} (got "${value}")`) : ok(known);
}

export interface ComparedRun {
  readonly dir: string;
  readonly label: string;
  /** The run's data set as run.json names it (QuixBugs, or a generated set's seed and manifest hash). */
  readonly dataset: string;
  readonly tasks: number;
  readonly byCondition: Partial<Record<ConditionId, ConditionSummary>>;
  /** The held-out findings and the claim breakdown per condition (claimFindings.ts). */
  readonly findings: Partial<Record<ConditionId, ConditionFindings>>;
}

/** Reads each run itself; the CLI compares the bench verdict's verified snapshots instead (compareRuns). */
export function loadComparison(dirs: readonly string[], reference: Reference | null = null): Result<ComparedRun[], BenchErrorCode> {
  if (dirs.length === 0 && reference === null) return err("invalid_option", "compare needs at least one run directory (or --reference published)");
  const runs: { dir: string; manifest: RunManifest; tasks: readonly TaskResult[] }[] = [];
  for (const dir of dirs) {
    const m = readManifest(dir);
    if (!m.ok) return m;
    const rs = readTaskResults(dir);
    if (!rs.ok) return rs;
    runs.push({ dir, manifest: m.value, tasks: rs.value });
  }
  return ok(compareRuns(runs));
}

/** The comparison rows of runs already read. */
export function compareRuns(runs: readonly { readonly dir: string; readonly manifest: RunManifest; readonly tasks: readonly TaskResult[] }[]): ComparedRun[] {
  return runs.map(({ dir, manifest, tasks }) => {
    const name = typeof manifest.model.label === "string" ? manifest.model.label : String(manifest.fingerprint.model);
    // A rehearsal or pipeline check can never sit in a comparison unnamed as a model result.
    const kind = runKindTitle(manifest.model);
    const label = kind === null ? name : `${kind}: ${name}`;
    const byCondition: Partial<Record<ConditionId, ConditionSummary>> = {};
    for (const s of summarize(tasks)) byCondition[s.condition] = s;
    const dataset = typeof manifest.environment.datasetSource === "string" ? manifest.environment.datasetSource : "QuixBugs";
    const findings: Partial<Record<ConditionId, ConditionFindings>> = {};
    for (const f of conditionFindings(tasks)) findings[f.condition] = f;
    return { dir, label, dataset, tasks: tasks.length, byCondition, findings };
  });
}

export function renderComparison(runs: readonly ComparedRun[], reference: Reference | null = null): string {
  // With the published reference alone, all four of the document's conditions.
  const conds = runs.length === 0 ? [...CONDITION_IDS] : CONDITION_IDS.filter((c) => runs.some((r) => r.byCondition[c]));
  const lines = [
    `| Run | ${conds.map((c) => `${c} fixed (95% CI)`).join(" | ")} | ${conds.map((c) => `${c} false fixed`).join(" | ")} |`,
    `|---|${conds.map(() => "---").join("|")}|${conds.map(() => "---").join("|")}|`,
  ];
  for (const r of runs) {
    const cells = conds.map((c) => {
      const s = r.byCondition[c];
      // n counts graded tasks: model errors (endpoint failures) are named, never in the rate.
      return s ? `${pct(s.fixedRate)} (${pct(s.fixedRateCi95[0])}–${pct(s.fixedRateCi95[1])}, n=${s.graded}${s.modelError > 0 ? `; ${s.modelError} model errors` : ""})` : "–";
    });
    const ff = conds.map((c) => {
      const s = r.byCondition[c];
      return s ? String(s.falseFixed) : "–";
    });
    lines.push(`| ${r.label} on ${r.dataset} (${r.dir}) | ${cells.join(" | ")} | ${ff.join(" | ")} |`);
  }
  if (reference === "published") lines.push(...publishedComparisonRows(conds));
  if (runs.length > 0) lines.push("", ...renderClaimComparison(runs));
  if (reference === "published") lines.push("", ...renderPublished());
  return lines.join("\n") + "\n";
}

/** Per run and condition: the false-"fixed" split and the claims without a passing run, by kind. */
function renderClaimComparison(runs: readonly ComparedRun[]): string[] {
  const lines = [
    "| Run | Condition | Claimed | False \"fixed\" (claimed, tests fail) | Claimed, tests pass, held-out fail | (a) final change, not re-run | (b) stopped after a failing run | (c) never ran the tests | Refused stop attempts |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of runs) {
    for (const c of CONDITION_IDS) {
      const f = r.findings[c];
      if (f) lines.push(`| ${r.label} | ${c} | ${f.claimed} | ${f.claimedTestsFail} | ${f.claimedTestsPassHeldOutFail} | ${f.claims.final_change_not_rerun} | ${f.claims.after_failing_run} | ${f.claims.never_ran_tests} | ${f.refusedStopAttempts} |`);
    }
  }
  return lines;
}
