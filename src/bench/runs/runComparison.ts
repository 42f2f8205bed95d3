// compare: several runs (models, conditions, repeats) side by side: fixed rate per condition
// over graded tasks with its 95% interval (model errors named beside it), and false "fixed" counts.
import { err, ok, type Result } from "../../core/result.ts";
import { MAX_COLUMNS, wrapLine } from "../../core/textWidth.ts";
import { CONDITION_IDS, type ConditionId } from "../agent/conditions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import {
  applicableCounts,
  conditionFindings,
  countCell,
  NOT_APPLICABLE,
  type ConditionFindings,
} from "../results/claimFindings.ts";
import { pct, runKindTitle, summarize, type ConditionSummary } from "../results/resultsSummary.ts";
import { PUBLISHED, publishedComparisonRows, REFERENCES, renderPublished } from "./publishedResults.ts";
import { readManifest, readTaskResults, type RunManifest } from "./runDirectory.ts";
import type { TaskResult } from "../results/taskOutcome.ts";
import { alongTheWay, type ConditionAlongTheWay } from "../results/alongTheWay.ts";
import { modelConditionTable, renderModelConditionTable, type ModelTable } from "./modelConditionTable.ts";

export type Reference = (typeof REFERENCES)[number];

/** --reference: "published" (the document's numbers); anything else is refused by name. */
export function parseReference(value: string | undefined): Result<Reference | null, BenchErrorCode> {
  if (value === undefined) return ok(null);
  const known = REFERENCES.find((r) => r === value);
  return known === undefined
    ? err("invalid_option", `--reference must be one of: ${REFERENCES.join(", ")} (got "${value}")`)
    : ok(known);
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
  /** The document's "along the way" statements and the fixed tasks' fix sizes per condition (alongTheWay.ts). */
  readonly alongTheWay: Partial<Record<ConditionId, ConditionAlongTheWay>>;
  /** The CLI's line about the run's verification.json: a record, shown and never believed (absent: not given). */
  readonly recordedVerification?: string;
}

/** compare --json: the runs, and the document's model × condition table of them. */
export function comparisonJson(runs: readonly ComparedRun[]): { runs: readonly ComparedRun[]; table: ModelTable } {
  return { runs, table: modelConditionTable(runs) };
}

/** Reads each run itself; the CLI compares the bench verdict's verified snapshots instead (compareRuns). */
export function loadComparison(
  dirs: readonly string[],
  reference: Reference | null = null,
): Result<ComparedRun[], BenchErrorCode> {
  if (dirs.length === 0 && reference === null)
    return err("invalid_option", "compare needs at least one run directory (or --reference published)");
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

function datasetOf(manifest: RunManifest | undefined): string {
  return typeof manifest?.environment.datasetSource === "string" ? manifest.environment.datasetSource : "QuixBugs";
}

/** The comparison rows of runs already read. */
export function compareRuns(
  runs: readonly {
    readonly dir: string;
    readonly manifest: RunManifest;
    readonly tasks: readonly TaskResult[];
    readonly recordedVerification?: string;
  }[],
): ComparedRun[] {
  return runs.map(({ dir, manifest, tasks, recordedVerification }) => {
    const name = typeof manifest.model.label === "string" ? manifest.model.label : String(manifest.fingerprint.model);
    // A rehearsal or pipeline check can never sit in a comparison unnamed as a model result.
    const kind = runKindTitle(manifest.model);
    const label = kind === null ? name : `${kind}: ${name}`;
    const byCondition: Partial<Record<ConditionId, ConditionSummary>> = {};
    for (const s of summarize(tasks)) byCondition[s.condition] = s;
    const dataset = datasetOf(manifest);
    const findings: Partial<Record<ConditionId, ConditionFindings>> = {};
    for (const f of conditionFindings(tasks)) findings[f.condition] = f;
    const along: Partial<Record<ConditionId, ConditionAlongTheWay>> = {};
    for (const a of alongTheWay(tasks)) along[a.condition] = a;
    return {
      dir,
      label,
      dataset,
      tasks: tasks.length,
      byCondition,
      findings,
      alongTheWay: along,
      ...(recordedVerification !== undefined ? { recordedVerification } : {}),
    };
  });
}

/**
 * The runs that cover the same tasks. Runs over different programs or conditions (n=5 beside n=3)
 * are not comparable as they stand: unless `allTasks`, each run is cut to the tasks every run has,
 * and the warning says so and how many; with `allTasks` each keeps all its tasks and the warning
 * says the rows are over different tasks. A task is its id (condition and program); repeats of a
 * task stay with it.
 */
export function restrictToCommonTasks<
  T extends { readonly dir: string; readonly tasks: readonly TaskResult[]; readonly manifest?: RunManifest },
>(runs: readonly T[], allTasks: boolean): { readonly runs: T[]; readonly warning: string | null } {
  if (runs.length < 2) return { runs: [...runs], warning: null };
  // Runs on different data sets (QuixBugs beside a generated task set) share task names, not
  // tasks: there is nothing in common to cut to; each row stays over its own set, and says so.
  const datasets = new Set(runs.map((run) => datasetOf(run.manifest)));
  if (datasets.size > 1)
    return {
      runs: [...runs],
      warning: `the runs are on different data sets (${[...datasets].join("; ")}); each row is over its own run's tasks`,
    };
  const sets = runs.map((run) => new Set(run.tasks.map((task) => task.taskId)));
  const common = [...(sets[0] ?? [])].filter((id) => sets.every((set) => set.has(id)));
  if (sets.every((set) => set.size === common.length)) return { runs: [...runs], warning: null };
  const counts = sets.map((set, i) => `R${i + 1} ${set.size}`).join(", ");
  if (allTasks) {
    return {
      runs: [...runs],
      warning: `the runs cover different tasks (${counts}; ${common.length} in common); --all-tasks: each row is over its own run's tasks, so the rates are not over the same programs`,
    };
  }
  const keep = new Set(common);
  return {
    runs: runs.map((run) => ({ ...run, tasks: run.tasks.filter((task) => keep.has(task.taskId)) })),
    warning: `the runs cover different tasks (${counts}); comparing only the ${common.length} task(s) all of them ran; pass --all-tasks to compare each run over all its tasks`,
  };
}

/** Short names for the tables; the legend above them says which run each is (tables stay narrow). */
function runKey(index: number): string {
  return `R${index + 1}`;
}

/**
 * Markdown in long form: one row per run and condition, runs named by a short key with a legend
 * list above. A table row cannot wrap in a terminal or a plain-text file, so the tables keep a
 * few short columns and fit 100 columns; the long text (labels, paths) sits in list items,
 * which a Markdown renderer and a reader's pager both wrap.
 */
export function renderComparison(
  runs: readonly ComparedRun[],
  reference: Reference | null = null,
  warning: string | null = null,
): string {
  // With the published reference alone, all four of the document's conditions.
  const conds =
    runs.length === 0 ? [...CONDITION_IDS] : CONDITION_IDS.filter((c) => runs.some((r) => r.byCondition[c]));
  const lines: string[] = [];
  if (warning !== null) lines.push(...wrapLine(`> **Warning:** ${warning}`, MAX_COLUMNS, "> "), "");
  if (runs.length > 0) {
    lines.push("Runs:", "");
    runs.forEach((r, i) => {
      lines.push(`- ${runKey(i)}: ${r.label} on ${r.dataset} (${r.dir}), ${r.tasks} tasks`);
      // verify-run's record, under its run and labelled as one: compare re-grades nothing.
      if (r.recordedVerification !== undefined)
        lines.push(...wrapLine(r.recordedVerification, MAX_COLUMNS - 2).map((line) => `  ${line}`));
    });
  }
  const published = reference === "published" ? publishedComparisonRows(conds) : [];
  if (published.length > 0) {
    if (runs.length === 0) lines.push("Rows:", "");
    published.forEach((p) => lines.push(`- ${p.key}: ${p.model}: ${PUBLISHED.label}`));
  }
  // The document's own table first (its four headings, one row per run's model), then the long form.
  if (runs.length > 0)
    lines.push("", "Fixed rate by model and condition:", "", ...renderModelConditionTable(modelConditionTable(runs)));
  lines.push("", '| Run | Cond | Fixed | 95% CI | n | Model errors | False "fixed" |', "|---|---|---|---|---|---|---|");
  runs.forEach((r, i) => {
    for (const c of conds) {
      const s = r.byCondition[c];
      // n counts graded tasks: model errors (endpoint failures) are named, never in the rate.
      if (s)
        lines.push(
          `| ${runKey(i)} | ${c} | ${pct(s.fixedRate)} | ${pct(s.fixedRateCi95[0])}–${pct(s.fixedRateCi95[1])} | ${s.graded} | ${s.modelError} | ${s.falseFixed} |`,
        );
      else lines.push(`| ${runKey(i)} | ${c} | – | – | 0 | – | – |`);
    }
  });
  for (const p of published) lines.push(...p.rows);
  lines.push("", 'n: graded tasks (model errors are outside the rate). False "fixed": claimed, and the tests fail.');
  if (runs.length > 0) lines.push("", ...renderClaimComparison(runs), "", ...renderAlongTheWayComparison(runs));
  if (reference === "published") lines.push("", ...renderPublished());
  return lines.join("\n") + "\n";
}

/** Per run and condition: the false-"fixed" split and the claims without a passing run, by kind. */
function renderClaimComparison(runs: readonly ComparedRun[]): string[] {
  const lines = [
    '| Run | Cond | Claimed | False "fixed" | Pass, held-out fail | (a) | (b) | (c) | Refused stops |',
    "|---|---|---|---|---|---|---|---|---|",
  ];
  runs.forEach((r, i) => {
    for (const c of CONDITION_IDS) {
      const f = r.findings[c];
      if (!f) continue;
      const applies = applicableCounts(c);
      const tests = (n: number): string => countCell(n, applies.tests);
      lines.push(
        `| ${runKey(i)} | ${c} | ${f.claimed} | ${f.claimedTestsFail} | ${f.claimedTestsPassHeldOutFail} | ${tests(f.claims.final_change_not_rerun)} | ${tests(f.claims.after_failing_run)} | ${tests(f.claims.never_ran_tests)} | ${countCell(f.refusedStopAttempts, applies.refusedStops)} |`,
      );
    }
  });
  lines.push(
    "",
    "Claims without a passing run: (a) the final change was not re-run, (b) stopped after a failing",
    "run, (c) never ran the tests. Pass, held-out fail: claimed, tests pass, a held-out case fails.",
    `${NOT_APPLICABLE}: the condition cannot have the count (A and B cannot run the tests, only D refuses a stop).`,
  );
  return lines;
}

/** Per run and condition: the statements the document counts along the way, and the fixed tasks' fix sizes. */
function renderAlongTheWayComparison(runs: readonly ComparedRun[]): string[] {
  const lines = [
    "| Run | Cond | Already correct | Tests at fault | Fix not made | Buggy line | Beyond | Rewrite |",
    "|---|---|---|---|---|---|---|---|",
  ];
  runs.forEach((r, i) => {
    for (const c of CONDITION_IDS) {
      const a = r.alongTheWay[c];
      if (a)
        lines.push(
          `| ${runKey(i)} | ${c} | ${a.statements.counts.original_correct} | ${a.statements.counts.tests_at_fault} | ${a.statements.counts.fix_announced_not_made} | ${a.fixSizes.kinds.buggy_line} | ${a.fixSizes.kinds.beyond_buggy_line} | ${a.fixSizes.kinds.rewrite} |`,
        );
    }
  });
  lines.push(
    "",
    ...wrapLine(
      'Statements (tasks, each counted once): the original code "was already correct", the tests at fault, a fix announced and never made. Fix size of the fixed tasks: the buggy line only, beyond it, or a rewrite of the function.',
    ),
  );
  return lines;
}
