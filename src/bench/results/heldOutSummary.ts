// The results.md section that puts "fixed (public)" and "fixed (public + held-out)" side by
// side per condition: a fix that passes every public case but not the held-out ones is what a
// program special-cased to the public inputs looks like. Tasks graded before the trusted grader
// (no fixedPublic in their grade) are counted apart.
import { CONDITIONS, CONDITION_IDS } from "../agent/conditions.ts";
import type { TaskResult } from "./taskOutcome.ts";

export interface HeldOutRow {
  readonly label: string;
  readonly graded: number;
  readonly fixedPublic: number;
  readonly fixedWithHeldOut: number;
  /** Passed every public case, failed held-out ones. */
  readonly publicOnly: readonly string[];
  /** Graded without held-out cases (no generator for the program). */
  readonly withoutHeldOut: number;
}

export function heldOutRows(results: readonly TaskResult[]): HeldOutRow[] {
  return CONDITION_IDS.filter((c) => results.some((r) => r.condition === c)).map((c) => {
    const rs = results.filter(
      (r) => r.condition === c && r.outcome !== "model_error" && r.grade.fixedPublic !== undefined,
    );
    return {
      label: CONDITIONS[c].label,
      graded: rs.length,
      fixedPublic: rs.filter((r) => r.grade.fixedPublic === true).length,
      fixedWithHeldOut: rs.filter((r) => r.grade.fixedPublic === true && r.grade.fixedWithHeldOut !== false).length,
      publicOnly: rs
        .filter((r) => r.grade.fixedPublic === true && r.grade.fixedWithHeldOut === false)
        .map((r) => r.taskId),
      withoutHeldOut: rs.filter((r) => r.grade.fixedWithHeldOut === null).length,
    };
  });
}

export function renderHeldOutSection(results: readonly TaskResult[]): string[] {
  const rows = heldOutRows(results);
  if (rows.every((r) => r.graded === 0)) return [];
  const seeds = [...new Set(results.map((r) => r.grade.heldOut?.seed).filter((s): s is number => s !== undefined))];
  const out = ["", "## Public and held-out verification", ""];
  out.push(
    `Fixed (public): every public case passes. Fixed (public + held-out): also every held-out case, generated per run (seed${seeds.length === 1 ? "" : "s"} ${seeds.join(", ") || "none"}) with expected values from the reference fix; the outcome "fixed" is the first (the benchmark document's), except in records from older runs. Programs without held-out generation count as passing it.`,
    "",
  );
  out.push(
    "| | Graded | Fixed (public) | Fixed (public + held-out) | Public only | Without held-out cases |",
    "|---|---|---|---|---|---|",
  );
  for (const r of rows)
    out.push(
      `| ${r.label} | ${r.graded} | ${r.fixedPublic} | ${r.fixedWithHeldOut} | ${r.publicOnly.length === 0 ? "0" : `${r.publicOnly.length}: ${r.publicOnly.join(", ")}`} | ${r.withoutHeldOut} |`,
    );
  return out;
}
