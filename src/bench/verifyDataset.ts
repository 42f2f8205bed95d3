// verify-dataset: before any agent runs, every buggy program must fail its tests and every
// reference fix must pass, both in the sandbox. The fix is tested by placing the reference
// program at the path the test imports (python_programs/<p>.py) in its own fresh task folder,
// which is exactly how the agent's file is graded; the data set's --correct switch is not used,
// so the correct_python_programs folder never enters a sandbox.
import type { QuixDataset } from "./dataset.ts";
import { buggySource, referenceFixSource } from "./dataset.ts";
import { mapWithConcurrency } from "./concurrency.ts";
import type { SandboxConfig } from "./sandbox.ts";
import { runProgramTests, type TestCounts, type TestOutcome } from "./testRunner.ts";

export interface VerifySide {
  readonly outcome: TestOutcome;
  readonly counts: TestCounts;
  readonly seconds: number;
  readonly summary: string;
}

export interface VerifyRecord {
  readonly program: string;
  readonly buggy: VerifySide;
  readonly fixed: VerifySide;
  /** buggy failed or timed out, and the fix passed. */
  readonly ok: boolean;
}

export interface VerifyReport {
  readonly dataset: string;
  readonly includeSlow: boolean;
  /** Said explicitly: without --include-slow, knapsack's --runslow case is skipped by its test. */
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
  readonly onRecord?: (record: VerifyRecord, done: number, total: number) => void;
}

function side(r: { outcome: TestOutcome; counts: TestCounts; seconds: number; summary: string }): VerifySide {
  return { outcome: r.outcome, counts: r.counts, seconds: Math.round(r.seconds * 1000) / 1000, summary: r.summary };
}

export async function verifyDataset(config: SandboxConfig, dataset: QuixDataset, options: VerifyOptions): Promise<VerifyReport> {
  const programs = dataset.programs.filter((p) => !options.programs || options.programs.includes(p.name));
  const includeSlow = options.includeSlow ?? false;
  const runOptions = { includeSlow, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) };
  // Buggy and fixed runs are separate jobs so that the three non-terminating buggy programs
  // overlap with everything else instead of serializing behind their timeouts.
  const jobs = programs.flatMap((p) => [
    { program: p, which: "buggy" as const },
    { program: p, which: "fixed" as const },
  ]);
  const bySide = new Map<string, VerifySide>();
  let done = 0;
  const records: VerifyRecord[] = [];
  await mapWithConcurrency(jobs, options.jobs, async (job) => {
    const source = job.which === "buggy" ? buggySource(dataset, job.program.name) : referenceFixSource(dataset, job.program.name);
    const result = await runProgramTests(config, dataset, job.program, source, runOptions);
    bySide.set(`${job.program.name}/${job.which}`, side(result));
    const buggy = bySide.get(`${job.program.name}/buggy`);
    const fixed = bySide.get(`${job.program.name}/fixed`);
    if (buggy && fixed) {
      const record = {
        program: job.program.name,
        buggy,
        fixed,
        ok: (buggy.outcome === "failed" || buggy.outcome === "timeout") && fixed.outcome === "passed",
      };
      records.push(record);
      done += 1;
      options.onRecord?.(record, done, programs.length);
    }
  });
  records.sort((a, b) => a.program.localeCompare(b.program));
  const buggyFailing = records.filter((r) => r.buggy.outcome === "failed" || r.buggy.outcome === "timeout").length;
  const fixesPassing = records.filter((r) => r.fixed.outcome === "passed").length;
  return {
    dataset: dataset.root,
    includeSlow,
    excluded: includeSlow || !programs.some((p) => p.name === "knapsack") ? [] : [SLOW_CASE_NOTE],
    programs: records.length,
    buggyFailing,
    fixesPassing,
    ok: records.length > 0 && records.every((r) => r.ok),
    records,
  };
}

export function formatVerifyTable(report: VerifyReport): string {
  const rows = [["program", "buggy", "tests", "s", "fixed", "tests", "s", "ok"]];
  const counts = (c: TestCounts): string => `${c.passed}p/${c.failed}f${c.errors ? `/${c.errors}e` : ""}${c.skipped ? `/${c.skipped}s` : ""}`;
  for (const r of report.records) {
    rows.push([r.program, r.buggy.outcome, counts(r.buggy.counts), r.buggy.seconds.toFixed(2), r.fixed.outcome, counts(r.fixed.counts), r.fixed.seconds.toFixed(2), r.ok ? "yes" : "NO"]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  const lines = rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd());
  lines.push("");
  lines.push(`${report.buggyFailing}/${report.programs} buggy programs fail; ${report.fixesPassing}/${report.programs} reference fixes pass${report.ok ? "" : " — DATA SET CHECK FAILED"}`);
  for (const note of report.excluded) lines.push(`excluded: ${note}`);
  return lines.join("\n");
}
