// Runs the benchmark: (program × condition) tasks, --jobs at a time, each fully isolated
// (its own message history, its own fresh sandbox per test run). Results are appended as tasks
// finish so an interrupted run resumes without redoing finished tasks; --shard i/n takes a
// deterministic slice so several machines can share one benchmark.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../lab/result.ts";
import type { ChatBackend } from "../sources/openaiCompatibleChat.ts";
import { runAgentTask } from "./agentLoop.ts";
import { mapWithConcurrency } from "./concurrency.ts";
import { AGENT_BUDGET, CONDITIONS, type AgentBudget, type ConditionId } from "./conditions.ts";
import type { QuixDataset } from "./dataset.ts";
import type { BenchErrorCode } from "./errorCodes.ts";
import { silentProgress, type ProgressReporter } from "./progressDisplay.ts";
import { PROMPT_SET_VERSION, promptHashes } from "./prompts.ts";
import { appendTaskResult, dropTornTail, prepareRunDir, readManifest, readTaskResults, RUN_FILES, RUN_SCHEMA_VERSION, sameFingerprint, writeManifest, writeResults, type RunManifest } from "./runDirectory.ts";
import type { SandboxConfig } from "./sandbox.ts";
import { taskId, type TaskResult } from "./taskOutcome.ts";
import { FileTrace } from "./taskTrace.ts";

export interface Shard {
  readonly index: number;
  readonly count: number;
}

export interface PlannedTask {
  readonly taskId: string;
  readonly program: string;
  readonly condition: ConditionId;
}

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
  readonly budget?: AgentBudget;
  readonly testTimeoutMs: number;
  readonly includeSlow: boolean;
  /** Extra facts for the manifest (python, sandbox, data set check). */
  readonly environment: Readonly<Record<string, unknown>>;
  readonly progress?: ProgressReporter;
  readonly clock?: () => number;
  readonly signal?: AbortSignal;
}

export function parseShard(text: string): Shard | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return count >= 1 && index >= 1 && index <= count ? { index, count } : undefined;
}

/** All tasks in a fixed order (by task id), then the shard's slice: every count-th task. */
export function planTasks(programs: readonly string[], conditions: readonly ConditionId[], shard?: Shard): PlannedTask[] {
  const all = programs.flatMap((p) => conditions.map((c) => ({ taskId: taskId(c, p), program: p, condition: c })));
  all.sort((a, b) => a.taskId.localeCompare(b.taskId));
  return shard ? all.filter((_, i) => i % shard.count === shard.index - 1) : all;
}

export function runFingerprint(o: Pick<BenchmarkOptions, "modelName" | "budget" | "testTimeoutMs" | "includeSlow">): Record<string, unknown> {
  return {
    model: o.modelName,
    promptSetVersion: PROMPT_SET_VERSION,
    promptHashes: promptHashes(),
    budget: o.budget ?? AGENT_BUDGET,
    testTimeoutMs: o.testTimeoutMs,
    includeSlow: o.includeSlow,
  };
}

export async function runBenchmark(o: BenchmarkOptions): Promise<Result<{ manifest: RunManifest; results: TaskResult[] }, BenchErrorCode>> {
  const programs = o.programs ?? o.dataset.programs.map((p) => p.name);
  for (const p of programs) {
    if (!o.dataset.programs.some((q) => q.name === p)) return err("unknown_program", `no program named ${JSON.stringify(p)}`);
  }
  const planned = planTasks(programs, o.conditions, o.shard);
  const fingerprint = runFingerprint(o);
  let previous: TaskResult[] = [];
  if (existsSync(join(o.outDir, RUN_FILES.manifest))) {
    if (!o.resume) return err("run_dir_invalid", `${o.outDir} already holds a run; pass --resume to continue it or choose another --out`);
    const m = readManifest(o.outDir);
    if (!m.ok) return m;
    if (!sameFingerprint(m.value.fingerprint, fingerprint)) {
      return err("run_dir_invalid", "the existing run used a different model, prompts, budget or grading; it cannot be resumed with these options");
    }
    dropTornTail(o.outDir);
    const prev = readTaskResults(o.outDir);
    if (!prev.ok) return prev;
    previous = prev.value;
  }
  prepareRunDir(o.outDir);
  const manifest: RunManifest = {
    schema: RUN_SCHEMA_VERSION,
    kind: "quixbugs-run",
    createdAt: new Date().toISOString(),
    fingerprint,
    model: o.modelDescription,
    conditions: [...o.conditions],
    programs: [...programs],
    shard: o.shard ?? null,
    environment: o.environment,
  };
  writeManifest(o.outDir, manifest);
  const plannedIds = new Set(planned.map((t) => t.taskId));
  // A task that ended in a model error (endpoint down, HTTP error) is redone on --resume; its
  // earlier record stays in tasks.ndjson as evidence and the newer record wins.
  const results = new Map(previous.filter((r) => plannedIds.has(r.taskId) && r.outcome !== "model_error").map((r) => [r.taskId, r]));
  const todo = planned.filter((t) => !results.has(t.taskId));
  const progress = o.progress ?? silentProgress;
  progress.start(planned.length, [...results.values()]);
  const clock = o.clock ?? (() => performance.now());
  await mapWithConcurrency(todo, o.jobs, async (task) => {
    if (o.signal?.aborted) return;
    const program = o.dataset.programs.find((p) => p.name === task.program);
    if (!program) return;
    const tracePath = `${RUN_FILES.traces}/${task.taskId}.ndjson`;
    const trace = new FileTrace(join(o.outDir, tracePath));
    let result = await runAgentTask({
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
      ...(o.signal ? { signal: o.signal } : {}),
    });
    if (o.signal?.aborted && result.stopReason === "cancelled") return; // not recorded: redone on --resume
    result = { ...result, tracePath };
    if (result.changed) {
      const diffPath = `${RUN_FILES.diffs}/${task.taskId}.diff`;
      writeFileSync(join(o.outDir, diffPath), trace.lastDiff ?? "");
      result = { ...result, diffPath };
    }
    appendTaskResult(o.outDir, result);
    results.set(result.taskId, result);
    writeResults(o.outDir, manifest, [...results.values()], planned.length);
    progress.taskDone(result);
  });
  progress.stop();
  const all = [...results.values()];
  writeResults(o.outDir, manifest, all, planned.length);
  return ok({ manifest, results: all });
}
