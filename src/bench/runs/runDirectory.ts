// A run directory: run.json (manifest), tasks.ndjson (one TaskResult per finished task,
// appended as tasks finish: the incremental record that --resume reads), traces/<task>.ndjson,
// diffs/<task>.diff, and results.json + results.md rewritten after every task.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { readTextUnder } from "../../core/safeRead.ts";
import { CONDITION_IDS } from "../agent/conditions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { endpointWarnings, PIPELINE_CHECK_LINE, REHEARSAL_LINE, renderResultsMarkdown, runKindTitle, summarize } from "../results/resultsSummary.ts";
import { summarizeRepeats } from "../results/repeatStatistics.ts";
import { OUTCOME_CLASSES, type TaskResult } from "../results/taskOutcome.ts";

export const RUN_SCHEMA_VERSION = 1;

export interface RunManifest {
  readonly schema: number;
  readonly kind: "quixbugs-run";
  readonly createdAt: string;
  /** What must match for --resume and merge: same model, prompts, budget and grading. */
  readonly fingerprint: Readonly<Record<string, unknown>>;
  readonly model: Readonly<Record<string, unknown>>;
  readonly conditions: readonly string[];
  readonly programs: readonly string[];
  readonly shard: { readonly index: number; readonly count: number } | null;
  /** --repeats k (absent in runs that never used it: 1). */
  readonly repeats?: number;
  readonly environment: Readonly<Record<string, unknown>>;
  readonly mergedFrom?: readonly string[];
  /** When --resume continued this run (createdAt stays the first start). */
  readonly resumedAt?: readonly string[];
}

/** A task result's key in tasks.ndjson: the task id, plus `.r<k>` for repeats after the first. */
export function resultKey(r: { readonly taskId: string; readonly repeat?: number }): string {
  return r.repeat === undefined || r.repeat <= 1 ? r.taskId : `${r.taskId}.r${r.repeat}`;
}

export const RUN_FILES = {
  manifest: "run.json",
  tasks: "tasks.ndjson",
  resultsJson: "results.json",
  resultsMd: "results.md",
  traces: "traces",
  diffs: "diffs",
} as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Checks the fields the tables use; anything else in a record is kept as written. */
export function parseTaskResult(v: unknown): TaskResult | undefined {
  if (!isRecord(v)) return undefined;
  if (typeof v.taskId !== "string" || typeof v.program !== "string") return undefined;
  if (!CONDITION_IDS.includes(v.condition as never) || !OUTCOME_CLASSES.includes(v.outcome as never)) return undefined;
  for (const k of ["turns", "tokens", "seconds"]) if (typeof v[k] !== "number") return undefined;
  for (const k of ["claimedFixed", "falseFixed"]) if (typeof v[k] !== "boolean") return undefined;
  if (!isRecord(v.guardrails) || !isRecord(v.grade)) return undefined;
  if (v.repeat !== undefined && (typeof v.repeat !== "number" || !Number.isInteger(v.repeat) || v.repeat < 1)) return undefined;
  return v as unknown as TaskResult;
}

/** Read caps for a run's own files (a 160-task run's tasks.ndjson is well under 1 MiB). */
export const RUN_READ_LIMITS = { manifestBytes: 16 * 1024 * 1024, tasksBytes: 256 * 1024 * 1024, copiedFileBytes: 256 * 1024 * 1024 } as const;

export function readManifest(dir: string): Result<RunManifest, BenchErrorCode> {
  // Through src/core/safeRead: no symlink followed, a FIFO refused at once, strict UTF-8.
  const text = readTextUnder(dir, RUN_FILES.manifest, RUN_READ_LIMITS.manifestBytes);
  if (!text.ok && text.error === "not_found") return err("run_dir_invalid", `${dir} has no ${RUN_FILES.manifest}`);
  if (!text.ok) return err("run_dir_invalid", `${RUN_FILES.manifest}: ${text.error}: ${text.message}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.value) as unknown;
  } catch {
    return err("run_dir_invalid", `${RUN_FILES.manifest} is not JSON`);
  }
  if (!isRecord(parsed) || parsed.kind !== "quixbugs-run" || parsed.schema !== RUN_SCHEMA_VERSION || !isRecord(parsed.fingerprint)) {
    return err("run_dir_invalid", `${RUN_FILES.manifest} is not a QuixBugs run manifest of schema ${RUN_SCHEMA_VERSION}`);
  }
  return ok(parsed as unknown as RunManifest);
}

/**
 * Finished tasks of a run: the latest record per task (and repeat); earlier records of a task
 * redone by --resume stay in the file as history. A torn last line (interrupted write) is
 * ignored; other bad lines are errors.
 */
export function readTaskResults(dir: string): Result<TaskResult[], BenchErrorCode> {
  const text = readTextUnder(dir, RUN_FILES.tasks, RUN_READ_LIMITS.tasksBytes);
  if (!text.ok && text.error === "not_found") return ok([]);
  if (!text.ok) return err("results_invalid", `${RUN_FILES.tasks}: ${text.error}: ${text.message}`);
  const lines = text.value.split("\n");
  const out = new Map<string, TaskResult>();
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line) as unknown;
    } catch {
      if (i === lines.length - 1) continue;
      return err("results_invalid", `${RUN_FILES.tasks} line ${i + 1} is not JSON`);
    }
    const r = parseTaskResult(parsed);
    if (!r) return err("results_invalid", `${RUN_FILES.tasks} line ${i + 1} is not a task result`);
    out.set(resultKey(r), r);
  }
  return ok([...out.values()]);
}

/** Cuts a torn last line (a write interrupted mid-line) so that new results start on a fresh line. */
export function dropTornTail(dir: string): void {
  const path = join(dir, RUN_FILES.tasks);
  if (!existsSync(path)) return;
  const text = readFileSync(path, "utf8");
  if (text === "" || text.endsWith("\n")) return;
  writeFileSync(path, text.slice(0, text.lastIndexOf("\n") + 1));
}

export function sameFingerprint(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const canon = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([p], [q]) => p.localeCompare(q))) : v));
  return canon(a) === canon(b);
}

export function prepareRunDir(dir: string): void {
  mkdirSync(join(dir, RUN_FILES.traces), { recursive: true });
  mkdirSync(join(dir, RUN_FILES.diffs), { recursive: true });
}

export function writeManifest(dir: string, manifest: RunManifest): void {
  writeFileSync(join(dir, RUN_FILES.manifest), JSON.stringify(manifest, null, 2) + "\n");
}

export function appendTaskResult(dir: string, result: TaskResult): void {
  appendFileSync(join(dir, RUN_FILES.tasks), JSON.stringify(result) + "\n");
}

export function writeResults(dir: string, manifest: RunManifest, results: readonly TaskResult[], expectedTasks: number): void {
  const sorted = [...results].sort((a, b) => a.taskId.localeCompare(b.taskId) || (a.repeat ?? 1) - (b.repeat ?? 1));
  const model = manifest.model;
  writeFileSync(
    join(dir, RUN_FILES.resultsJson),
    JSON.stringify({ schema: RUN_SCHEMA_VERSION, manifest, complete: results.length >= expectedTasks, tasksDone: results.length, tasksExpected: expectedTasks, warnings: endpointWarnings(results, model.serverProps), summary: summarize(sorted), repeats: summarizeRepeats(sorted), tasks: sorted }, null, 2) + "\n",
  );
  const label = typeof model.label === "string" ? model.label : "model";
  const env = manifest.environment;
  const served = [...new Set(results.map((r) => r.servedModel).filter((m): m is string => typeof m === "string"))];
  const props = isRecord(model.serverProps) ? model.serverProps : {};
  // A synthetic (random-weight) checkpoint makes the whole run a pipeline check, never a model result.
  const kind = runKindTitle(model);
  const lines = [
    ...(kind === "REHEARSAL" ? [REHEARSAL_LINE] : kind === "PIPELINE CHECK" ? [PIPELINE_CHECK_LINE] : []),
    `model: ${label}${served.length > 0 ? ` (server reports: ${served.join(", ")})` : ""}${typeof props.build_info === "string" ? `; server build ${props.build_info}` : ""}`,
    `tasks: ${results.length} of ${expectedTasks}${results.length < expectedTasks ? " (incomplete run)" : ""}; conditions ${manifest.conditions.join(", ")}`,
    `budget: ${JSON.stringify(manifest.fingerprint.budget)}; test timeout ${String(manifest.fingerprint.testTimeoutMs)} ms`,
    `prompts: ${String(manifest.fingerprint.promptSetVersion)} (hashes in run.json)`,
    `data set: ${String(env.datasetSource ?? "QuixBugs")}; ${String(env.slowCases ?? "")}`,
    `sandbox: bubblewrap, ${String(env.processLimit ?? "")}; python ${String(env.pythonVersion ?? "")}, pytest ${String(env.pytestVersion ?? "")}`,
    ...(manifest.shard ? [`shard: ${manifest.shard.index}/${manifest.shard.count}`] : []),
    ...((manifest.repeats ?? 1) > 1 ? [`repeats: ${manifest.repeats} per task (repeat r samples with seed r - 1)`] : []),
    ...(manifest.resumedAt ? [`resumed ${manifest.resumedAt.length} time(s); tasks.ndjson keeps every attempt, the tables use each task's latest`] : []),
    ...(manifest.mergedFrom ? [`merged from ${manifest.mergedFrom.length} runs`] : []),
  ];
  const warnings = endpointWarnings(results, model.serverProps);
  writeFileSync(join(dir, RUN_FILES.resultsMd), renderResultsMarkdown({ title: `${kind !== null ? `${kind} — ` : ""}QuixBugs controlled-agent benchmark: ${label}`, lines, warnings }, sorted));
}
