// verify-dataset: before any agent runs, every buggy program must fail and every reference fix
// must pass, through the same trusted grader that grades the agent's file (trustedGrader.ts), public
// cases and held-out cases alike: the reference must pass its own held-out cases (which also
// proves it deterministic, since their expected values come from an earlier run of it), and a
// buggy program must fail public or held-out cases. The fix is graded by placing the reference
// program at python_programs/<p>.py in its own fresh task folder, exactly how the agent's file is
// graded; the correct_python_programs folder never enters a sandbox that grades. Held-out
// expected values are confirmed by the project's independent implementation (heldOutCases.ts);
// the report counts, per program, the inputs dropped because the two disagree.
import type { QuixDataset } from "../dataset/dataset.ts";
import { buggySource, referenceFixSource } from "../dataset/dataset.ts";
import { mapWithConcurrency } from "../../core/concurrency.ts";
import { MAX_COLUMNS, wrapLine } from "../../core/textWidth.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import type { GradeCounts, GradeOutcome } from "./gradeRecord.ts";
import { shortValue } from "./caseResults.ts";
import { heldOutCases, processHeldOutSeed } from "./heldOutCases.ts";
import {
  failureCheckCaseCpuSeconds,
  GRADER_ID,
  gradeProgram,
  type HeldOutDisagreement,
  type TrustedGrade,
} from "./trustedGrader.ts";

export interface VerifySide {
  readonly outcome: GradeOutcome;
  /** Public cases: passed, failed (incl. no result), errors, skipped (excluded by the tests). */
  readonly counts: GradeCounts;
  readonly seconds: number;
  readonly summary: string;
  readonly fixedPublic: boolean;
  /** Held-out cases passed / asked (null: no held-out generation for this program). */
  readonly heldOut: { readonly passed: number; readonly total: number } | null;
  readonly reason: string | null;
}

export interface VerifyRecord {
  readonly program: string;
  /** The full public case count the grade requires (the data set's cases minus `excluded`). */
  readonly publicCases: number;
  readonly excluded: readonly string[];
  readonly heldOutCases: number;
  /**
   * Generated held-out inputs on which the reference fix and the project's independent
   * implementation disagree: dropped (replaced by further draws), never used as expected values.
   */
  readonly heldOutDisagreements: number;
  /** The first few of them, with both answers. */
  readonly heldOutDisagreeing: readonly HeldOutDisagreement[];
  readonly buggy: VerifySide;
  readonly fixed: VerifySide;
  /**
   * CPU-seconds per case the buggy program was given (failureCheckCaseCpuSeconds: a multiple of
   * the reference fix's slowest case, with a floor; the grading budget where none was derived).
   */
  readonly buggyCaseCpuSeconds: number;
  /** buggy not passed (failed, timed out or broken), and the fix passed. */
  readonly ok: boolean;
}

export interface VerifyReport {
  readonly dataset: string;
  readonly grader: typeof GRADER_ID;
  readonly includeSlow: boolean;
  readonly heldOutSeed: number;
  /** Programs graded with held-out cases too. */
  readonly heldOutPrograms: number;
  /** Held-out inputs dropped because the reference and the independent implementation disagree, over all programs. */
  readonly heldOutDisagreements: number;
  /** Said explicitly: every case a test skips (knapsack's slow case without --include-slow, ...). */
  readonly excluded: readonly string[];
  readonly programs: number;
  readonly buggyFailing: number;
  readonly fixesPassing: number;
  readonly ok: boolean;
  readonly records: readonly VerifyRecord[];
}

export const SLOW_CASE_NOTE = "knapsack: the --runslow case (over 9 minutes even for the reference fix) is skipped";

export interface VerifyOptions {
  readonly jobs: number;
  readonly includeSlow?: boolean;
  readonly timeoutMs?: number;
  readonly programs?: readonly string[];
  /** Seed of the held-out inputs (default: this process's, recorded in the report). */
  readonly heldOutSeed?: number;
  readonly onRecord?: (record: VerifyRecord, done: number, total: number) => void;
}

function side(g: TrustedGrade): VerifySide {
  return {
    outcome: g.outcome,
    counts: g.counts,
    seconds: Math.round(g.seconds * 1000) / 1000,
    summary: g.summary,
    fixedPublic: g.fixedPublic,
    heldOut: g.heldOut ? { passed: g.heldOut.passed, total: g.heldOut.total } : null,
    reason: g.reason,
  };
}

export async function verifyDataset(
  config: SandboxConfig,
  dataset: QuixDataset,
  options: VerifyOptions,
): Promise<VerifyReport> {
  const programs = dataset.programs.filter((p) => !options.programs || options.programs.includes(p.name));
  const includeSlow = options.includeSlow ?? false;
  // The run's own seed by default, so a benchmark's data set check and its grades ask the same
  // held-out cases (computed once).
  const seed = options.heldOutSeed ?? processHeldOutSeed();
  // Per program, the reference fix first: its measured CPU time bounds the buggy program's cases
  // (failureCheckCaseCpuSeconds), so a buggy program that never terminates fails in about a
  // CPU-second instead of the grading budget's 15. Programs run --jobs at a time.
  let done = 0;
  const records: VerifyRecord[] = [];
  await mapWithConcurrency(programs, options.jobs, async (program) => {
    const heldOut = await heldOutCases(config, dataset, program, seed);
    const base = {
      includeSlow,
      heldOut,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    };
    const fixed = await gradeProgram(config, dataset, program, referenceFixSource(dataset, program.name), base);
    const budget = failureCheckCaseCpuSeconds(fixed);
    const buggy = await gradeProgram(config, dataset, program, buggySource(dataset, program.name), {
      ...base,
      ...(budget !== undefined ? { caseCpuSeconds: budget } : {}),
    });
    const record: VerifyRecord = {
      program: program.name,
      publicCases: fixed.public.total,
      excluded: fixed.excluded,
      heldOutCases: fixed.heldOut?.total ?? 0,
      heldOutDisagreements: heldOut?.disagreements ?? 0,
      heldOutDisagreeing: heldOut?.disagreeing ?? [],
      buggy: side(buggy),
      fixed: side(fixed),
      buggyCaseCpuSeconds: Math.round((budget ?? config.limits.caseCpuSeconds) * 1000) / 1000,
      ok: buggy.outcome !== "passed" && fixed.outcome === "passed",
    };
    records.push(record);
    done += 1;
    options.onRecord?.(record, done, programs.length);
  });
  records.sort((a, b) => a.program.localeCompare(b.program));
  const buggyFailing = records.filter((r) => r.buggy.outcome !== "passed").length;
  const fixesPassing = records.filter((r) => r.fixed.outcome === "passed").length;
  const excluded = records.flatMap((r) =>
    r.excluded.map((e) => (r.program === "knapsack" && /slow case/.test(e) ? SLOW_CASE_NOTE : `${r.program}: ${e}`)),
  );
  return {
    dataset: dataset.root,
    grader: GRADER_ID,
    includeSlow,
    heldOutSeed: seed,
    heldOutPrograms: records.filter((r) => r.heldOutCases > 0).length,
    heldOutDisagreements: records.reduce((sum, r) => sum + r.heldOutDisagreements, 0),
    excluded,
    programs: records.length,
    buggyFailing,
    fixesPassing,
    ok: records.length > 0 && records.every((r) => r.ok),
    records,
  };
}

/**
 * The terminal table, within 100 columns: cases as public+held-out, each side's outcome, public
 * counts, held-out passed/asked and seconds; then the totals and the excluded cases, wrapped.
 */
export function formatVerifyTable(report: VerifyReport): string {
  const rows = [["program", "cases", "dis", "buggy", "public", "held", "s", "fixed", "public", "held", "s", "ok"]];
  const counts = (c: GradeCounts): string =>
    `${c.passed}p/${c.failed}f${c.errors ? `/${c.errors}e` : ""}${c.skipped ? `/${c.skipped}s` : ""}`;
  const held = (h: VerifySide["heldOut"]): string => (h ? `${h.passed}/${h.total}` : "-");
  for (const r of report.records) {
    rows.push([
      r.program,
      `${r.publicCases}+${r.heldOutCases}`,
      String(r.heldOutDisagreements),
      r.buggy.outcome,
      counts(r.buggy.counts),
      held(r.buggy.heldOut),
      r.buggy.seconds.toFixed(1),
      r.fixed.outcome,
      counts(r.fixed.counts),
      held(r.fixed.heldOut),
      r.fixed.seconds.toFixed(1),
      r.ok ? "yes" : "NO",
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  // Two spaces between columns, one when a long program name (longest_common_subsequence) would pass 100 columns.
  const gap = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) > MAX_COLUMNS ? " " : "  ";
  const lines = rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join(gap)
      .trimEnd(),
  );
  lines.push("", "cases: public+held-out; dis: held-out inputs dropped where the reference fix and the independent");
  lines.push("implementation disagree; s: seconds; counts: p passed, f failed, e errors, s skipped");
  lines.push(
    ...wrapLine(
      `data set ${report.dataset}: ${report.buggyFailing}/${report.programs} buggy programs fail; ${report.fixesPassing}/${report.programs} reference fixes pass (grader ${report.grader}; held-out cases for ${report.heldOutPrograms} programs, seed ${report.heldOutSeed}; ${report.heldOutDisagreements} held-out inputs dropped where the reference fix and the independent implementation disagree)${report.ok ? "" : " — DATA SET CHECK FAILED"}`,
      MAX_COLUMNS,
      "  ",
    ),
  );
  for (const note of report.excluded) lines.push(...wrapLine(`excluded: ${note}`, MAX_COLUMNS, "  "));
  for (const r of report.records) {
    for (const d of r.heldOutDisagreeing)
      lines.push(
        ...wrapLine(
          `disagreement: ${r.program}: reference ${shortValue(d.reference)}, independent ${shortValue(d.independent)} on ${shortValue(JSON.stringify(d.input.args))}`,
          MAX_COLUMNS,
          "  ",
        ),
      );
  }
  return lines.join("\n");
}
