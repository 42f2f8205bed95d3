// merge: joins the shards of one benchmark (same fingerprint) into one run directory, with
// their traces and diffs, and rewrites results.json and results.md over the union.
import { existsSync, readdirSync } from "node:fs";
import { readFileUnder } from "../../core/safeRead.ts";
import { join, relative } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { planTasks } from "./taskPlan.ts";
import type { ConditionId } from "../agent/conditions.ts";
import {
  appendTaskResult,
  prepareRunDir,
  readManifest,
  readTaskResults,
  resultKey,
  RUN_FILES,
  RUN_READ_LIMITS,
  RUN_SCHEMA_VERSION,
  sameFingerprint,
  writeManifest,
  writeResults,
  writeRunFile,
  type RunManifest,
} from "./runDirectory.ts";
import type { TaskResult } from "../results/taskOutcome.ts";

/** One run to merge, already read (the CLI passes the bench verdict's snapshot of each run). */
export interface MergeInput {
  readonly dir: string;
  readonly manifest: RunManifest;
  readonly tasks: readonly TaskResult[];
  /** A trace's or diff's bytes as read, by recorded path; undefined when not read. */
  readonly file: (relativePath: string) => string | Buffer | undefined;
}

/** Reads each run itself (through src/core/safeRead); the CLI merges verified snapshots instead (mergeInputs). */
export function mergeRuns(
  runDirs: readonly string[],
  outDir: string,
): Result<{ manifest: RunManifest; results: TaskResult[]; duplicates: string[] }, BenchErrorCode> {
  const inputs: MergeInput[] = [];
  for (const dir of runDirs) {
    const m = readManifest(dir);
    if (!m.ok) return m;
    const rs = readTaskResults(dir);
    if (!rs.ok) return rs;
    inputs.push({
      dir,
      manifest: m.value,
      tasks: rs.value,
      file: (rel) => {
        const bytes = readFileUnder(dir, rel, RUN_READ_LIMITS.copiedFileBytes);
        return bytes.ok ? bytes.value : undefined;
      },
    });
  }
  return mergeInputs(inputs, outDir);
}

export function mergeInputs(
  inputs: readonly MergeInput[],
  outDir: string,
): Result<{ manifest: RunManifest; results: TaskResult[]; duplicates: string[] }, BenchErrorCode> {
  if (inputs.length === 0) return err("invalid_option", "merge needs at least one run directory");
  if (existsSync(join(outDir, RUN_FILES.manifest))) return err("run_dir_invalid", `${outDir} already holds a run`);
  const manifests: RunManifest[] = [];
  const byTask = new Map<string, { result: TaskResult; input: MergeInput }>();
  const duplicates: string[] = [];
  for (const input of inputs) {
    if (manifests[0] && !sameFingerprint(manifests[0].fingerprint, input.manifest.fingerprint)) {
      return err(
        "run_dir_invalid",
        `${input.dir} used a different model, prompts, budget, grading or task set than ${inputs[0]!.dir}; use compare for different runs`,
      );
    }
    // Shards of one benchmark are graded on one data set: two recorded identities must agree.
    const other = manifests.find((m) => m.dataset !== undefined && input.manifest.dataset !== undefined);
    if (other !== undefined && other.dataset!.sha256 !== input.manifest.dataset!.sha256)
      return err(
        "run_dir_invalid",
        `${input.dir} was made on another data set (${input.manifest.dataset!.root}) than ${inputs[manifests.indexOf(other)]!.dir} (${other.dataset!.root})`,
      );
    manifests.push(input.manifest);
    for (const r of input.tasks) {
      const key = resultKey(r);
      if (byTask.has(key)) {
        duplicates.push(key);
        continue;
      }
      byTask.set(key, { result: r, input });
    }
  }
  const prepared = prepareRunDir(outDir);
  if (!prepared.ok) return prepared;
  const first = manifests[0]!;
  const union = (f: (m: RunManifest) => readonly string[]): string[] => [...new Set(manifests.flatMap(f))].sort();
  const manifest: RunManifest = {
    schema: RUN_SCHEMA_VERSION,
    kind: "quixbugs-run",
    createdAt: new Date().toISOString(),
    fingerprint: first.fingerprint,
    model: first.model,
    conditions: union((m) => m.conditions),
    programs: union((m) => m.programs),
    shard: null,
    repeats: Math.max(...manifests.map((m) => m.repeats ?? 1)),
    environment: first.environment,
    // Recorded only when every shard recorded it (else the merged run is verified with --dataset).
    ...(manifests.every((m) => m.dataset !== undefined)
      ? { dataset: { ...first.dataset!, relativeToRun: relative(outDir, first.dataset!.root) } }
      : {}),
    mergedFrom: inputs.map((input) => input.dir),
  };
  writeManifest(outDir, manifest);
  const results: TaskResult[] = [];
  for (const { result, input } of [...byTask.values()].sort(
    (a, b) => a.result.taskId.localeCompare(b.result.taskId) || (a.result.repeat ?? 1) - (b.result.repeat ?? 1),
  )) {
    for (const rel of [result.tracePath, result.diffPath]) {
      // Only names the harness writes (task, repeat, attempt): a recorded path cannot leave the run.
      if (rel && /^(traces|diffs)\/[A-D]-[a-z0-9_]+(\.r\d+)?(\.attempt-\d+)?\.(ndjson|diff)$/.test(rel)) {
        // The bytes as read (a `diffs -> /etc` link or a FIFO was refused, never copied), written afresh.
        const bytes = input.file(rel);
        if (bytes !== undefined) writeRunFile(outDir, rel, bytes);
      }
    }
    appendTaskResult(outDir, result);
    results.push(result);
  }
  const expected = planTasks(
    manifest.programs,
    manifest.conditions as ConditionId[],
    undefined,
    manifest.repeats ?? 1,
  ).length;
  writeResults(outDir, manifest, results, expected);
  return ok({ manifest, results, duplicates });
}

/** Lists the task ids a run directory has traces for (used by tests and by compare's notes). */
export function traceFiles(dir: string): string[] {
  const t = join(dir, RUN_FILES.traces);
  return existsSync(t) ? readdirSync(t).sort() : [];
}
