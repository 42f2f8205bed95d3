// compare: several runs (models, conditions, repeats) side by side: fixed rate per condition
// over graded tasks with its 95% interval (model errors named beside it), and false "fixed" counts.
import { err, ok, type Result } from "../../core/result.ts";
import { CONDITION_IDS, type ConditionId } from "../agent/conditions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { pct, runKindTitle, summarize, type ConditionSummary } from "../results/resultsSummary.ts";
import { readManifest, readTaskResults } from "./runDirectory.ts";

export interface ComparedRun {
  readonly dir: string;
  readonly label: string;
  readonly tasks: number;
  readonly byCondition: Partial<Record<ConditionId, ConditionSummary>>;
}

export function loadComparison(dirs: readonly string[]): Result<ComparedRun[], BenchErrorCode> {
  if (dirs.length === 0) return err("invalid_option", "compare needs at least one run directory");
  const out: ComparedRun[] = [];
  for (const dir of dirs) {
    const m = readManifest(dir);
    if (!m.ok) return m;
    const rs = readTaskResults(dir);
    if (!rs.ok) return rs;
    const name = typeof m.value.model.label === "string" ? m.value.model.label : String(m.value.fingerprint.model);
    // A rehearsal or pipeline check can never sit in a comparison unnamed as a model result.
    const kind = runKindTitle(m.value.model);
    const label = kind === null ? name : `${kind}: ${name}`;
    const byCondition: Partial<Record<ConditionId, ConditionSummary>> = {};
    for (const s of summarize(rs.value)) byCondition[s.condition] = s;
    out.push({ dir, label, tasks: rs.value.length, byCondition });
  }
  return ok(out);
}

export function renderComparison(runs: readonly ComparedRun[]): string {
  const conds = CONDITION_IDS.filter((c) => runs.some((r) => r.byCondition[c]));
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
    lines.push(`| ${r.label} (${r.dir}) | ${cells.join(" | ")} | ${ff.join(" | ")} |`);
  }
  return lines.join("\n") + "\n";
}
