// Runs the benchmark: (program × condition) tasks, --jobs at a time, each fully isolated
// (its own message history, its own fresh sandbox per test run). Results are appended as tasks
// finish so an interrupted run resumes without redoing finished tasks; --shard i/n takes a
// deterministic slice so several machines can share one benchmark.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../core/result.ts";
import type { StepHook } from "../core/stepHook.ts";
import type { ChatBackend } from "../sources/openaiCompatibleChat.ts";
import { mapWithConcurrency } from "../core/concurrency.ts";
import { AGENT_BUDGET, CONDITIONS, type AgentBudget, type ConditionId } from "./agent/conditions.ts";
import type { QuixDataset } from "./dataset/dataset.ts";
import { datasetIdentity, parseDatasetIdentity } from "./dataset/datasetIdentity.ts";
import type { BenchErrorCode } from "./errorCodes.ts";
import { silentProgress, type ProgressReporter } from "./runs/progressDisplay.ts";
import { PROMPT_SET_VERSION, promptHashes } from "./agent/prompts.ts";
import { TRACE_REPLAY_FORMAT } from "./agent/harnessDecisions.ts";
import type { ThinkingMode } from "./endpoint/thinkingMode.ts";
import {
  appendTaskResult,
  prepareRunDir,
  readManifest,
  readTaskResults,
  repairAfterInterruption,
  resultKey,
  RUN_FILES,
  runBinding,
  RUN_SCHEMA_VERSION,
  sameFingerprint,
  writeManifest,
  writeResults,
  writeRunFile,
  type RunFileStep,
  type RunManifest,
} from "./runs/runDirectory.ts";
import type { SandboxConfig } from "./sandbox/sandbox.ts";
import type { TaskResult } from "./results/taskOutcome.ts";
import { FileTrace, nextAttemptTrace, traceSourceOf } from "./agent/taskTrace.ts";
import type { BenchTraceCatalog } from "./runs/benchTrace.ts";
import { isInterruption, runTask } from "./taskRunner.ts";
import { planTasks, type Shard } from "./runs/taskPlan.ts";

export interface BenchmarkOptions {
  readonly dataset: QuixDataset;
  readonly sandbox: SandboxConfig;
  readonly backend: ChatBackend;
  /** Identity from backend.describe(), recorded in the manifest. */
  readonly modelDescription: Readonly<Record<string, unknown>>;
  readonly modelName: string;
  readonly conditions: readonly ConditionId[];
  readonly programs?: readonly string[];
  readonly outDir: string;
  readonly jobs: number;
  readonly resume: boolean;
  readonly shard?: Shard;
  /** --repeats k: every task k times, repeat r with sampling seed r - 1 (default 1). */
  readonly repeats?: number;
  /** Sampling temperature sent by the backend; recorded in the fingerprint when not 0. */
  readonly temperature?: number;
  /** --thinking for an OpenAI-compatible endpoint; in the fingerprint when set. */
  readonly thinking?: ThinkingMode;
  readonly budget?: AgentBudget;
  readonly testTimeoutMs: number;
  readonly includeSlow: boolean;
  /** Extra facts for the manifest (python, sandbox, data set check). */
  readonly environment: Readonly<Record<string, unknown>>;
  readonly progress?: ProgressReporter;
  readonly clock?: () => number;
  readonly signal?: AbortSignal;
  /** Crash injection for tests (src/core/stepHook.ts): called at every step where a kill must be survivable. */
  readonly hook?: StepHook<BenchRunStep>;
}

/** Where a run can be stopped by a test: a model call or a grading run in progress, any file write half done. */
export type BenchRunStep = RunFileStep | "traceWrite" | "modelCall" | "grading";

/** Union of two lists, in first-seen order (programs and conditions across resumes). */
function union<T>(a: readonly T[], b: readonly T[]): T[] {
  return [...new Set([...a, ...b])];
}

export function runFingerprint(
  o: Pick<
    BenchmarkOptions,
    "modelName" | "budget" | "testTimeoutMs" | "includeSlow" | "temperature" | "thinking" | "environment"
  >,
): Record<string, unknown> {
  // A generated task set (make-taskset) is another benchmark: its identity is part of what a
  // resume or a merge must match, so shards of QuixBugs and of a generated set never mix.
  // Absent for QuixBugs itself, so earlier runs keep their fingerprint.
  const taskset = o.environment.taskset;
  return {
    ...(o.temperature ? { temperature: o.temperature } : {}),
    ...(o.thinking !== undefined ? { thinking: o.thinking } : {}),
    ...(taskset !== undefined ? { taskset } : {}),
    model: o.modelName,
    promptSetVersion: PROMPT_SET_VERSION,
    promptHashes: promptHashes(),
    traceReplay: TRACE_REPLAY_FORMAT,
    budget: o.budget ?? AGENT_BUDGET,
    testTimeoutMs: o.testTimeoutMs,
    includeSlow: o.includeSlow,
  };
}

export async function runBenchmark(
  o: BenchmarkOptions,
): Promise<Result<{ manifest: RunManifest; results: TaskResult[] }, BenchErrorCode>> {
  const programs = o.programs ?? o.dataset.programs.map((p) => p.name);
  for (const p of programs) {
    if (!o.dataset.programs.some((q) => q.name === p))
      return err("unknown_program", `no program named ${JSON.stringify(p)}`);
  }
  const repeats = o.repeats ?? 1;
  const fingerprint = runFingerprint(o);
  let previous: TaskResult[] = [];
  let prior: RunManifest | undefined;
  if (existsSync(join(o.outDir, RUN_FILES.manifest))) {
    if (!o.resume)
      return err(
        "run_dir_invalid",
        `${o.outDir} already holds a run; pass --resume to continue it or choose another --out`,
      );
    const m = readManifest(o.outDir);
    if (!m.ok) return m;
    if (!sameFingerprint(m.value.fingerprint, fingerprint)) {
      return err(
        "run_dir_invalid",
        "the existing run used a different model, prompts, budget, grading or task set; it cannot be resumed with these options",
      );
    }
    const shardOf = (x: Pick<Shard, "index" | "count"> | null | undefined): string =>
      x ? `${x.index}/${x.count}` : "none";
    if (shardOf(m.value.shard) !== shardOf(o.shard))
      return err(
        "run_dir_invalid",
        `the existing run is shard ${shardOf(m.value.shard)}; resume it with the same --shard`,
      );
    // The tasks of one run are graded on one data set: a resume on another content is refused
    // (a run recorded before the identity was keeps none: its traces' digests stay the check).
    const priorDataset = parseDatasetIdentity(m.value.dataset);
    const now = datasetIdentity(o.dataset, o.outDir);
    if ("problem" in priorDataset) return err("run_dir_invalid", `${RUN_FILES.manifest}: ${priorDataset.problem}`);
    if (priorDataset.identity !== null && priorDataset.identity.sha256 !== now.sha256)
      return err(
        "run_dir_invalid",
        `the existing run was made on another data set (${priorDataset.identity.root}); resume it with that --dataset`,
      );
    prior = m.value;
    // A run killed anywhere (a preempted array task, a time limit) left at most torn last lines
    // and partial replacements: cut and remove them (never through a link) before reading what it finished.
    const repaired = repairAfterInterruption(o.outDir);
    if (!repaired.ok) return repaired;
    const prev = readTaskResults(o.outDir);
    if (!prev.ok) return prev;
    previous = prev.value;
  } else if (existsSync(o.outDir)) {
    // No run.json: a run killed while writing its first one leaves at most that partial file.
    const repaired = repairAfterInterruption(o.outDir);
    if (!repaired.ok) return repaired;
  }
  const prepared = prepareRunDir(o.outDir);
  if (!prepared.ok) return prepared;
  // A resume with a smaller (or other) selection adds to the run; it never narrows what the
  // run directory reports, so run.json and results.* always agree with tasks.ndjson.
  const allPrograms = union(prior?.programs ?? [], programs);
  const allConditions = union(prior?.conditions ?? [], o.conditions) as ConditionId[];
  const allRepeats = Math.max(prior?.repeats ?? 1, repeats);
  const manifest: RunManifest = {
    schema: RUN_SCHEMA_VERSION,
    kind: "quixbugs-run",
    createdAt: prior?.createdAt ?? new Date().toISOString(),
    ...(prior ? { resumedAt: [...(prior.resumedAt ?? []), new Date().toISOString()] } : {}),
    fingerprint,
    model: o.modelDescription,
    conditions: allConditions,
    programs: allPrograms,
    shard: o.shard ?? null,
    repeats: allRepeats,
    environment: o.environment,
    ...(prior === undefined || prior.dataset !== undefined ? { dataset: datasetIdentity(o.dataset, o.outDir) } : {}),
  };
  writeManifest(o.outDir, manifest, o.hook);
  const binding = { ...runBinding(manifest) };
  const expected = planTasks(allPrograms, allConditions, o.shard, allRepeats).length;
  const planned = planTasks(programs, o.conditions, o.shard, repeats);
  // Every task's latest record stays in the tables, planned now or not. A planned task whose
  // latest record is a model error (endpoint down, HTTP error) is redone; the earlier record
  // stays in tasks.ndjson and its trace under its own attempt number.
  const results = new Map(previous.map((r) => [resultKey(r), r]));
  const todo = planned.filter((t) => {
    const r = results.get(t.key);
    return r === undefined || r.outcome === "model_error";
  });
  const progress = o.progress ?? silentProgress;
  progress.start(
    planned.length,
    planned.flatMap((t) => {
      const r = results.get(t.key);
      return r && r.outcome !== "model_error" ? [r] : [];
    }),
  );
  const clock = o.clock ?? (() => performance.now());
  await mapWithConcurrency(todo, o.jobs, async (task) => {
    if (o.signal?.aborted) return;
    const program = o.dataset.programs.find((p) => p.name === task.program);
    if (!program) return;
    const { attempt, path: tracePath } = nextAttemptTrace(o.outDir, RUN_FILES.traces, task.key);
    const trace = new FileTrace<BenchTraceCatalog>(
      join(o.outDir, tracePath),
      { runId: manifest.createdAt, source: traceSourceOf(o.modelDescription), clock },
      o.hook,
    );
    const ended = await runTask({
      dataset: o.dataset,
      program,
      condition: CONDITIONS[task.condition],
      backend: o.backend,
      sandbox: o.sandbox,
      budget: o.budget ?? AGENT_BUDGET,
      trace,
      clock,
      testTimeoutMs: o.testTimeoutMs,
      includeSlow: o.includeSlow,
      attempt,
      repeat: task.repeat,
      runBinding: binding,
      ...(repeats > 1 || task.repeat > 1 ? { seed: task.repeat - 1 } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.hook ? { hook: o.hook } : {}),
    });
    // Interrupted (Ctrl-C): not graded, not recorded; its trace stays, and --resume redoes it.
    if (isInterruption(ended)) return;
    let result: TaskResult = { ...ended, tracePath };
    if (result.changed) {
      const diffPath = `${RUN_FILES.diffs}/${task.key}${attempt === 1 ? "" : `.attempt-${attempt}`}.diff`;
      writeRunFile(o.outDir, diffPath, trace.lastDiff ?? "", o.hook);
      result = { ...result, diffPath };
    }
    appendTaskResult(o.outDir, result, o.hook);
    results.set(resultKey(result), result);
    writeResults(o.outDir, manifest, [...results.values()], expected, o.hook);
    progress.taskDone(result);
  });
  progress.stop();
  const all = [...results.values()];
  writeResults(o.outDir, manifest, all, expected, o.hook);
  return ok({ manifest, results: all });
}
