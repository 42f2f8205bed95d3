// A run directory: run.json (manifest), tasks.ndjson (one TaskResult per finished task,
// appended as tasks finish: the incremental record that --resume reads), traces/<task>.ndjson,
// diffs/<task>.diff, and results.json + results.md rewritten after every task.
import { labelledVerdict } from "../../core/resultLabel.ts";
import { isRecord } from "../../core/isRecord.ts";
import {
  closeSync,
  constants,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { sha256Hex } from "../../core/digest.ts";
import type { StepHook } from "../../core/stepHook.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { parseBoundedJson } from "../../core/boundedJson.ts";
import { readFileUnder, readTextUnder } from "../../core/safeRead.ts";
import { CONDITION_IDS } from "../agent/conditions.ts";
import type { DatasetIdentity } from "../dataset/datasetIdentity.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import {
  endpointWarnings,
  isPipelineCheck,
  PIPELINE_CHECK_LINE,
  REHEARSAL_LINE,
  renderResultsMarkdown,
  runKindTitle,
  benchResultSource,
  tasksFixedPhrase,
  summarize,
} from "../results/resultsSummary.ts";
import { summarizeRepeats } from "../results/repeatStatistics.ts";
import { hardwareLine } from "./hostHardware.ts";
import { budgetInWords, runDateLine, secondsInWords } from "./runHeaderLines.ts";
import { CLAIM_KINDS } from "../results/claimAnalysis.ts";
import { isFixSize, isStatementRecord } from "./taskRecordFieldChecks.ts";
import { conditionFindings } from "../results/claimFindings.ts";
import { conditionPairs } from "../results/pairedStatistics.ts";
import { FIXED_MEANS, OUTCOME_CLASSES, type TaskResult } from "../results/taskOutcome.ts";

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
  /** from: where the index came from (--shard, Kubernetes, Slurm); absent in older runs. */
  readonly shard: { readonly index: number; readonly count: number; readonly from?: string } | null;
  /** --repeats k (absent in runs that never used it: 1). */
  readonly repeats?: number;
  readonly environment: Readonly<Record<string, unknown>>;
  /** The data set the run was made on (dataset/datasetIdentity.ts); absent in older runs. */
  readonly dataset?: DatasetIdentity;
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
  /** verify-run's re-grade record (runRegrade.ts), tied to the tasks.ndjson it re-graded: the last one. */
  verification: "verification.json",
  /** The records verification.json held before each newer verify-run replaced it, one per line. */
  verificationHistory: "verifications.ndjson",
  /** verify-run --regenerate's record of re-asking the model (runRegeneration.ts), tied to tasks.ndjson and the traces: the last one. */
  regeneration: "regeneration.json",
  /** The records regeneration.json held before each newer one replaced it, one per line. */
  regenerationHistory: "regenerations.ndjson",
} as const;

/** Checks the fields the tables use; anything else in a record is kept as written. */
export function parseTaskResult(v: unknown): TaskResult | undefined {
  if (!isRecord(v)) return undefined;
  if (typeof v.taskId !== "string" || typeof v.program !== "string") return undefined;
  if (!CONDITION_IDS.includes(v.condition as never) || !OUTCOME_CLASSES.includes(v.outcome as never)) return undefined;
  for (const k of ["turns", "tokens", "seconds"]) if (typeof v[k] !== "number") return undefined;
  for (const k of ["claimedFixed", "falseFixed"]) if (typeof v[k] !== "boolean") return undefined;
  if (!isRecord(v.guardrails) || !isRecord(v.grade)) return undefined;
  // Fields of newer records: absent in older runs, checked when present.
  if (v.fixedMeans !== undefined && v.fixedMeans !== FIXED_MEANS) return undefined;
  if (v.falseFixedHeldOut !== undefined && typeof v.falseFixedHeldOut !== "boolean") return undefined;
  if (
    v.claim !== undefined &&
    v.claim !== null &&
    (!isRecord(v.claim) || !CLAIM_KINDS.includes(v.claim.kind as never) || typeof v.claim.finalWords !== "string")
  )
    return undefined;
  if (v.statements !== undefined && !isStatementRecord(v.statements)) return undefined;
  if (v.fixSize !== undefined && v.fixSize !== null && !isFixSize(v.fixSize)) return undefined;
  if (v.repeat !== undefined && (typeof v.repeat !== "number" || !Number.isInteger(v.repeat) || v.repeat < 1))
    return undefined;
  return v as unknown as TaskResult;
}

/** Read caps for a run's own files (a 160-task run's tasks.ndjson is well under 1 MiB). */
export const RUN_READ_LIMITS = {
  manifestBytes: 16 * 1024 * 1024,
  tasksBytes: 256 * 1024 * 1024,
  copiedFileBytes: 256 * 1024 * 1024,
} as const;

export function readManifest(dir: string): Result<RunManifest, BenchErrorCode> {
  // Through src/core/safeRead: no symlink followed, a FIFO refused at once, strict UTF-8.
  const text = readTextUnder(dir, RUN_FILES.manifest, RUN_READ_LIMITS.manifestBytes);
  if (!text.ok && text.error === "not_found") return err("run_dir_invalid", `${dir} has no ${RUN_FILES.manifest}`);
  if (!text.ok) return err("run_dir_invalid", `${RUN_FILES.manifest}: ${text.error}: ${text.message}`);
  const read = parseBoundedJson(text.value, RUN_FILES.manifest);
  if (!read.ok)
    return err(
      "run_dir_invalid",
      read.error === "json_too_deep" ? `${read.error}: ${read.message}` : `${RUN_FILES.manifest} is not JSON`,
    );
  const parsed = read.value;
  if (
    !isRecord(parsed) ||
    parsed.kind !== "quixbugs-run" ||
    parsed.schema !== RUN_SCHEMA_VERSION ||
    !isRecord(parsed.fingerprint)
  ) {
    return err(
      "run_dir_invalid",
      `${RUN_FILES.manifest} is not a QuixBugs run manifest of schema ${RUN_SCHEMA_VERSION}`,
    );
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
 * Cuts a torn last line (a write interrupted mid-line) of an NDJSON file in the run folder, so
 * that new lines start on a fresh line. The file is read through src/core/safeRead first: a
 * symlink, FIFO, hard link or oversized file is refused BEFORE anything is written, so a
 * truncation never goes through a link. A missing file has nothing to cut.
 */
function cutTornTail(dir: string, relativePath: string, maxBytes: number): Result<true, BenchErrorCode> {
  const bytes = readFileUnder(dir, relativePath, maxBytes);
  if (!bytes.ok && bytes.error === "not_found") return ok(true);
  if (!bytes.ok) return err("results_invalid", `${relativePath}: ${bytes.error}: ${bytes.message}`);
  const length = bytes.value.length;
  if (length === 0 || bytes.value[length - 1] === 0x0a) return ok(true);
  // O_NOFOLLOW on the write too: a link put in place between the check and the write is not followed.
  const fd = openSync(join(dir, relativePath), constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    ftruncateSync(fd, bytes.value.lastIndexOf(0x0a) + 1);
  } finally {
    closeSync(fd);
  }
  return ok(true);
}

/** tasks.ndjson's torn last line cut (cutTornTail); anything but a plain file there is refused. */
export function dropTornTail(dir: string): Result<true, BenchErrorCode> {
  return cutTornTail(dir, RUN_FILES.tasks, RUN_READ_LIMITS.tasksBytes);
}

export function sameFingerprint(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * The run's labels as every trace's task_start records them: the fingerprint (by digest), the
 * model label, the pipeline-check flag and the plan (conditions, programs, repeats, shard) at the
 * time the task started. Editing run.json alone (a label, `synthetic` removed, half the programs)
 * then disagrees with every trace, and the verdict says EVIDENCE INVALID (verdicts/benchVerdict.ts).
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
  if (recorded.label !== now.label)
    return `names the model ${JSON.stringify(recorded.label)}, run.json ${JSON.stringify(now.label)}`;
  if (recorded.pipelineCheck !== now.pipelineCheck)
    return `says pipeline check ${String(recorded.pipelineCheck)}, run.json ${String(now.pipelineCheck)}`;
  const within = (list: unknown, all: readonly string[]): boolean =>
    Array.isArray(list) && list.every((x) => typeof x === "string" && all.includes(x));
  if (!within(recorded.conditions, now.conditions)) return "was planned with conditions run.json does not list";
  if (!within(recorded.programs, now.programs)) return "was planned with programs run.json does not list";
  if (typeof recorded.repeats !== "number" || recorded.repeats > now.repeats)
    return "was planned with more repeats than run.json lists";
  if (manifest.mergedFrom === undefined && recorded.shard !== now.shard)
    return `was planned as shard ${String(recorded.shard)}, run.json says ${String(now.shard)}`;
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
    if (stats.isSymbolicLink() || !stats.isDirectory())
      return err(
        "run_dir_invalid",
        `${sub} in ${dir} is ${stats.isSymbolicLink() ? "a symbolic link" : "not a directory"}; the run writes only into real folders`,
      );
  }
  return ok(true);
}

/**
 * Steps of a run's file writes where a test may stop the process (src/core/stepHook.ts):
 * half a line appended to tasks.ndjson, a run file's replacement written halfway.
 */
export type RunFileStep = "taskAppend" | "fileWrite";

/** The suffix of a run file's replacement while it is being written; a resume removes leftovers. */
const PARTIAL_SUFFIX = ".partial";

/**
 * Writes a whole run file so that neither a link nor a kill can hurt it. The new bytes go to a
 * fresh `.<name>.<pid>.partial` beside it (O_EXCL: a link planted under that name is refused, never
 * followed), are flushed, and are renamed over the file: a `results.json -> /etc/x` planted in a
 * run folder is replaced, never written through, and a process killed at any moment leaves either
 * the old file or the new one, never a torn one (at worst a partial file the next --resume removes).
 */
export function writeRunFile(
  dir: string,
  relativePath: string,
  data: string | Buffer,
  hook?: StepHook<RunFileStep>,
): void {
  const path = join(dir, relativePath);
  const partial = join(dirname(path), `.${basename(path)}.${process.pid}${PARTIAL_SUFFIX}`);
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const fd = openSync(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    const half = hook ? Math.floor(bytes.length / 2) : bytes.length;
    writeSync(fd, bytes, 0, half);
    if (hook) void hook("fileWrite", basename(path));
    writeSync(fd, bytes, half, bytes.length - half);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(partial, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(partial, path);
}

/**
 * After a process was killed anywhere in a run: cuts a torn last line of tasks.ndjson (through a
 * safe read, never through a link: dropTornTail), removes the partial replacements it left, and
 * cuts the torn last line of a trace (the trace of a task that never finished; the task itself is
 * redone under a new attempt number). Only regular files with one link are touched, opened with
 * O_NOFOLLOW: a link or anything else planted in the run folder is left alone, and the run's
 * readers refuse it.
 */
export function repairAfterInterruption(dir: string): Result<true, BenchErrorCode> {
  const tail = dropTornTail(dir);
  if (!tail.ok) return tail;
  for (const sub of ["", RUN_FILES.traces, RUN_FILES.diffs]) {
    const folder = join(dir, sub);
    if (!isPlainEntry(folder, "directory")) continue;
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (!isPlainEntry(path, "file")) continue;
      if (name.startsWith(".") && name.endsWith(PARTIAL_SUFFIX)) rmSync(path);
      else if (sub === RUN_FILES.traces && name.endsWith(".ndjson")) {
        const cut = cutTornTail(dir, join(sub, name), RUN_READ_LIMITS.copiedFileBytes);
        if (!cut.ok) return cut;
      }
    }
  }
  return ok(true);
}

function isPlainEntry(path: string, kind: "file" | "directory"): boolean {
  try {
    const st = lstatSync(path);
    return kind === "directory" ? st.isDirectory() : st.isFile() && st.nlink === 1;
  } catch {
    return false;
  }
}

export function writeManifest(dir: string, manifest: RunManifest, hook?: StepHook<RunFileStep>): void {
  writeRunFile(dir, RUN_FILES.manifest, JSON.stringify(manifest, null, 2) + "\n", hook);
}

/** Appends one record; O_NOFOLLOW: a tasks.ndjson link put in place is refused (ELOOP), never written through. */
export function appendTaskResult(dir: string, result: TaskResult, hook?: StepHook<RunFileStep>): void {
  const fd = openSync(
    join(dir, RUN_FILES.tasks),
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    const line = JSON.stringify(result) + "\n";
    if (hook === undefined) {
      writeSync(fd, line);
      return;
    }
    // Tests: the line in two writes, so a kill between them leaves a torn line (cut on --resume).
    const half = Math.floor(line.length / 2);
    writeSync(fd, line.slice(0, half));
    void hook("taskAppend", result.taskId);
    writeSync(fd, line.slice(half));
  } finally {
    closeSync(fd);
  }
}

/** The /props facts a reader compares runs by: build, model file, context size. */
function serverPropsSummary(props: Readonly<Record<string, unknown>>): string {
  // The client records n_ctx at the top (a selection of /props); a raw /props has it in its settings.
  const settings = isRecord(props.default_generation_settings) ? props.default_generation_settings : {};
  const context = typeof props.n_ctx === "number" ? props.n_ctx : settings.n_ctx;
  const facts = [
    typeof props.build_info === "string" ? `build ${props.build_info}` : null,
    typeof props.model_path === "string" ? `model ${props.model_path}` : null,
    typeof context === "number" ? `context ${context}` : null,
  ].filter((f): f is string => f !== null);
  return facts.length > 0 ? facts.join(", ") : "recorded";
}

export function writeResults(
  dir: string,
  manifest: RunManifest,
  results: readonly TaskResult[],
  expectedTasks: number,
  hook?: StepHook<RunFileStep>,
): void {
  const sorted = [...results].sort((a, b) => a.taskId.localeCompare(b.taskId) || (a.repeat ?? 1) - (b.repeat ?? 1));
  const model = manifest.model;
  writeRunFile(
    dir,
    RUN_FILES.resultsJson,
    JSON.stringify(
      {
        schema: RUN_SCHEMA_VERSION,
        manifest,
        complete: results.length >= expectedTasks,
        tasksDone: results.length,
        tasksExpected: expectedTasks,
        warnings: endpointWarnings(results, model.serverProps),
        summary: summarize(sorted),
        findings: conditionFindings(sorted),
        pairs: conditionPairs(sorted),
        repeats: summarizeRepeats(sorted),
        tasks: sorted,
      },
      null,
      2,
    ) + "\n",
    hook,
  );
  const label = typeof model.label === "string" ? model.label : "model";
  const env = manifest.environment;
  const served = [...new Set(results.map((r) => r.servedModel).filter((m): m is string => typeof m === "string"))];
  const props = isRecord(model.serverProps) ? model.serverProps : {};
  // A synthetic (random-weight) checkpoint makes the whole run a pipeline check, never a model result.
  const kind = runKindTitle(model);
  const lines = [
    // The result with its source first, on one line (src/core/resultLabel.ts), before any detail.
    `result: ${labelledVerdict(benchResultSource(model), tasksFixedPhrase(results, results.length < expectedTasks ? { expected: expectedTasks } : null))}`,
    ...(kind === "REHEARSAL" ? [REHEARSAL_LINE] : kind === "PIPELINE CHECK" ? [PIPELINE_CHECK_LINE] : []),
    `model: ${label}${served.length > 0 ? ` (server reports: ${served.join(", ")})` : ""}${typeof props.build_info === "string" ? `; server build ${props.build_info}` : ""}`,
    runDateLine(manifest),
    hardwareLine(env.hardwareLabel, env.clientHardware) ?? "hardware: not recorded (name it with --hardware)",
    `tasks: ${results.length} of ${expectedTasks}${results.length < expectedTasks ? " (incomplete run)" : ""}; conditions ${manifest.conditions.join(", ")}`,
    `budget: ${budgetInWords(manifest.fingerprint.budget)}; test timeout ${secondsInWords(manifest.fingerprint.testTimeoutMs)}`,
    `prompts: ${String(manifest.fingerprint.promptSetVersion)} (hashes in run.json)`,
    ...(typeof manifest.fingerprint.thinking === "string"
      ? [
          `thinking: ${manifest.fingerprint.thinking}${manifest.fingerprint.thinking === "server-default" ? " (no chat_template_kwargs sent)" : ` (chat_template_kwargs enable_thinking: ${String(manifest.fingerprint.thinking === "on")})`}`,
        ]
      : []),
    `data set: ${String(env.datasetSource ?? "QuixBugs")}; ${String(env.slowCases ?? "")}`,
    `sandbox: bubblewrap, ${String(env.processLimit ?? "")}; python ${String(env.pythonVersion ?? "")}, pytest ${String(env.pytestVersion ?? "")}`,
    ...(Object.keys(props).length > 0 ? [`server /props: ${serverPropsSummary(props)} (all of it in run.json)`] : []),
    ...(manifest.shard ? [`shard: ${manifest.shard.index}/${manifest.shard.count}`] : []),
    ...((manifest.repeats ?? 1) > 1
      ? [`repeats: ${manifest.repeats} per task (repeat r samples with seed r - 1)`]
      : []),
    ...(manifest.resumedAt
      ? [
          `resumed ${manifest.resumedAt.length} time(s); tasks.ndjson keeps every attempt, the tables use each task's latest`,
        ]
      : []),
    ...(manifest.mergedFrom ? [`merged from ${manifest.mergedFrom.length} runs`] : []),
  ];
  const warnings = endpointWarnings(results, model.serverProps);
  writeRunFile(
    dir,
    RUN_FILES.resultsMd,
    renderResultsMarkdown(
      { title: `${kind !== null ? `${kind} — ` : ""}QuixBugs controlled-agent benchmark: ${label}`, lines, warnings },
      sorted,
    ),
    hook,
  );
}

/** A verification.json is a few KiB per 100 tasks; a previous record larger than this is not copied into the history. */
const RECORD_READ_LIMIT = 64 * 1024 * 1024;

/** What a previous record (verification.json, regeneration.json) becomes in its history: the record as it was, or why it was not one. */
function historyLine(runDirectory: string, name: string, replacedAt: string): string | null {
  const previous = readTextUnder(runDirectory, name, RECORD_READ_LIMIT);
  if (!previous.ok && previous.error === "not_found") return null;
  const parsed = previous.ok ? parseBoundedJson(previous.value, name) : null;
  const entry =
    parsed?.ok === true && isRecord(parsed.value)
      ? { replacedAt, record: parsed.value }
      : { replacedAt, unreadable: previous.ok ? "not a JSON object" : previous.error };
  return JSON.stringify(entry) + "\n";
}

/**
 * Writes `record` as the run folder's `name`, the LAST record of its kind, after appending the one it
 * replaces to `historyName` (one line each, oldest first). Neither is written through a link: the
 * record to a temporary name and renamed (a planted symlink is replaced), the history with O_NOFOLLOW.
 */
export function replaceRunRecord(
  runDirectory: string,
  name: string,
  historyName: string,
  record: Readonly<Record<string, unknown>>,
  replacedAt: string,
): Result<string, BenchErrorCode> {
  const path = join(runDirectory, name);
  const temporary = join(runDirectory, `.${name}.${process.pid}.tmp`);
  try {
    const history = historyLine(runDirectory, name, replacedAt);
    if (history !== null) {
      const fd = openSync(
        join(runDirectory, historyName),
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
        0o644,
      );
      try {
        writeSync(fd, history);
      } finally {
        closeSync(fd);
      }
    }
    writeFileSync(temporary, JSON.stringify(record, null, 2) + "\n", { flag: "wx" });
    renameSync(temporary, path);
    return ok(path);
  } catch (error) {
    rmSync(temporary, { force: true });
    // A read-only run folder, or a directory in the record's place: the result is still printed.
    return err(
      "run_dir_invalid",
      `${name} could not be written in ${runDirectory} (${error instanceof Error && "code" in error ? String(error.code) : "error"})`,
    );
  }
}
