// A run directory: run.json (manifest), tasks.ndjson (one TaskResult per finished task,
// appended as tasks finish: the incremental record that --resume reads), traces/<task>.ndjson,
// diffs/<task>.diff, and results.json + results.md rewritten after every task.
import { closeSync, constants, ftruncateSync, lstatSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { sha256Hex } from "../../core/digest.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { parseBoundedJson } from "../../core/boundedJson.ts";
import { readFileUnder, readTextUnder } from "../../core/safeRead.ts";
import { CONDITION_IDS } from "../agent/conditions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { endpointWarnings, isPipelineCheck, PIPELINE_CHECK_LINE, renderResultsMarkdown, summarize } from "../results/resultsSummary.ts";
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
  /** verify-run's re-grade record (runRegrade.ts), tied to the tasks.ndjson it re-graded. */
  verification: "verification.json",
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
  const read = parseBoundedJson(text.value, RUN_FILES.manifest);
  if (!read.ok) return err("run_dir_invalid", read.error === "json_too_deep" ? `${read.error}: ${read.message}` : `${RUN_FILES.manifest} is not JSON`);
  const parsed = read.value;
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
    const read = parseBoundedJson(line, `${RUN_FILES.tasks} line ${i + 1}`);
    if (!read.ok && read.error === "json_too_deep") return err("results_invalid", `${read.error}: ${read.message}`);
    if (!read.ok) {
      if (i === lines.length - 1) continue;
      return err("results_invalid", `${RUN_FILES.tasks} line ${i + 1} is not JSON`);
    }
    const parsed = read.value;
    const r = parseTaskResult(parsed);
    if (!r) return err("results_invalid", `${RUN_FILES.tasks} line ${i + 1} is not a task result`);
    out.set(resultKey(r), r);
  }
  return ok([...out.values()]);
}

/**
 * Cuts a torn last line (a write interrupted mid-line) so that new results start on a fresh line.
 * The file is read through src/core/safeRead first: a symlink, FIFO, hard link or oversized file
 * is refused BEFORE anything is written, so a truncation never goes through a link.
 */
export function dropTornTail(dir: string): Result<true, BenchErrorCode> {
  const bytes = readFileUnder(dir, RUN_FILES.tasks, RUN_READ_LIMITS.tasksBytes);
  if (!bytes.ok && bytes.error === "not_found") return ok(true);
  if (!bytes.ok) return err("results_invalid", `${RUN_FILES.tasks}: ${bytes.error}: ${bytes.message}`);
  const length = bytes.value.length;
  if (length === 0 || bytes.value[length - 1] === 0x0a) return ok(true);
  // O_NOFOLLOW on the write too: a link put in place between the check and the write is not followed.
  const fd = openSync(join(dir, RUN_FILES.tasks), constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    ftruncateSync(fd, bytes.value.lastIndexOf(0x0a) + 1);
  } finally {
    closeSync(fd);
  }
  return ok(true);
}

export function sameFingerprint(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const canon = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([p], [q]) => p.localeCompare(q))) : v));
  return canon(a) === canon(b);
}


/**
 * The run's labels as every trace's task_start records them: the fingerprint (by digest), the
 * model label, the pipeline-check flag and the plan (conditions, programs, repeats, shard) at the
 * time the task started. Editing run.json alone (a label, `synthetic` removed, half the programs)
 * then disagrees with every trace, and the verdict says EVIDENCE INVALID (evidence/benchVerdict.ts).
 */
export interface RunBinding {
  readonly fingerprintSha256: string;
  readonly label: string | null;
  readonly pipelineCheck: boolean;
  readonly conditions: readonly string[];
  readonly programs: readonly string[];
  readonly repeats: number;
  readonly shard: string | null;
}

export function runBinding(manifest: RunManifest): RunBinding {
  return {
    fingerprintSha256: sha256Hex(canonicalJson(manifest.fingerprint)),
    label: typeof manifest.model.label === "string" ? manifest.model.label : null,
    pipelineCheck: isPipelineCheck(manifest.model),
    conditions: [...manifest.conditions],
    programs: [...manifest.programs],
    repeats: manifest.repeats ?? 1,
    shard: manifest.shard ? `${manifest.shard.index}/${manifest.shard.count}` : null,
  };
}

/**
 * Why a trace's recorded binding does not fit the run's manifest, or null when it does. A resumed
 * run only grows its plan, so the manifest's conditions and programs must include the trace's; a
 * merged run (mergedFrom) joins shards, so its shard may differ.
 */
export function bindingMismatch(recorded: unknown, manifest: RunManifest): string | null {
  if (!isRecord(recorded)) return "records no run binding";
  const now = runBinding(manifest);
  if (recorded.fingerprintSha256 !== now.fingerprintSha256) return "was made under another fingerprint than run.json's";
  if (recorded.label !== now.label) return `names the model ${JSON.stringify(recorded.label)}, run.json ${JSON.stringify(now.label)}`;
  if (recorded.pipelineCheck !== now.pipelineCheck) return `says pipeline check ${String(recorded.pipelineCheck)}, run.json ${String(now.pipelineCheck)}`;
  const within = (list: unknown, all: readonly string[]): boolean => Array.isArray(list) && list.every((x) => typeof x === "string" && all.includes(x));
  if (!within(recorded.conditions, now.conditions)) return "was planned with conditions run.json does not list";
  if (!within(recorded.programs, now.programs)) return "was planned with programs run.json does not list";
  if (typeof recorded.repeats !== "number" || recorded.repeats > now.repeats) return "was planned with more repeats than run.json lists";
  if (manifest.mergedFrom === undefined && recorded.shard !== now.shard) return `was planned as shard ${String(recorded.shard)}, run.json says ${String(now.shard)}`;
  return null;
}

/**
 * Creates traces/ and diffs/ and refuses a run folder whose traces/ or diffs/ is anything but a
 * real directory: a planted `diffs -> /etc` would otherwise receive the run's writes.
 */
export function prepareRunDir(dir: string): Result<true, BenchErrorCode> {
  for (const sub of [RUN_FILES.traces, RUN_FILES.diffs]) {
    mkdirSync(join(dir, sub), { recursive: true });
    const stats = lstatSync(join(dir, sub));
    if (stats.isSymbolicLink() || !stats.isDirectory()) return err("run_dir_invalid", `${sub} in ${dir} is ${stats.isSymbolicLink() ? "a symbolic link" : "not a directory"}; the run writes only into real folders`);
  }
  return ok(true);
}

/**
 * Writes a whole run file without ever following a link in its place: written to a fresh
 * temporary name (O_EXCL) and renamed over the old one, so a `results.json -> /etc/x` planted in a
 * run folder is replaced, never written through.
 */
export function writeRunFile(dir: string, relativePath: string, data: string | Buffer): void {
  const path = join(dir, relativePath);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, data, { flag: "wx" });
  renameSync(temporary, path);
}

export function writeManifest(dir: string, manifest: RunManifest): void {
  writeRunFile(dir, RUN_FILES.manifest, JSON.stringify(manifest, null, 2) + "\n");
}

/** Appends one record; O_NOFOLLOW: a tasks.ndjson link put in place is refused (ELOOP), never written through. */
export function appendTaskResult(dir: string, result: TaskResult): void {
  const fd = openSync(join(dir, RUN_FILES.tasks), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  try {
    writeSync(fd, JSON.stringify(result) + "\n");
  } finally {
    closeSync(fd);
  }
}

export function writeResults(dir: string, manifest: RunManifest, results: readonly TaskResult[], expectedTasks: number): void {
  const sorted = [...results].sort((a, b) => a.taskId.localeCompare(b.taskId) || (a.repeat ?? 1) - (b.repeat ?? 1));
  const model = manifest.model;
  writeRunFile(
    dir,
    RUN_FILES.resultsJson,
    JSON.stringify({ schema: RUN_SCHEMA_VERSION, manifest, complete: results.length >= expectedTasks, tasksDone: results.length, tasksExpected: expectedTasks, warnings: endpointWarnings(results, model.serverProps), summary: summarize(sorted), repeats: summarizeRepeats(sorted), tasks: sorted }, null, 2) + "\n",
  );
  const label = typeof model.label === "string" ? model.label : "model";
  const env = manifest.environment;
  const served = [...new Set(results.map((r) => r.servedModel).filter((m): m is string => typeof m === "string"))];
  const props = isRecord(model.serverProps) ? model.serverProps : {};
  // A synthetic (random-weight) checkpoint makes the whole run a pipeline check, never a model result.
  const pipelineCheck = isPipelineCheck(model);
  const lines = [
    ...(pipelineCheck ? [PIPELINE_CHECK_LINE] : []),
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
  writeRunFile(dir, RUN_FILES.resultsMd, renderResultsMarkdown({ title: `${pipelineCheck ? "PIPELINE CHECK — " : ""}QuixBugs controlled-agent benchmark: ${label}`, lines, warnings }, sorted));
}
