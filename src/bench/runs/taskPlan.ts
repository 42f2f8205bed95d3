// Which tasks a run (or one shard of it) does: every (program × condition × repeat) in one fixed
// order, then a deterministic slice, so several machines share one benchmark and a merge can
// check that the shards cover it exactly once.
import { err, ok, type Result } from "../../core/result.ts";
import { taskId, type ConditionId } from "../agent/conditions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { resultKey } from "./runDirectory.ts";

/** Where a shard's index came from: --shard i/n, a Kubernetes Indexed Job, or a Slurm job array. */
export const SHARD_SOURCES = ["flag", "kubernetes", "slurm"] as const;
export type ShardSource = (typeof SHARD_SOURCES)[number];

export interface Shard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
  /** Recorded in run.json; absent in runs made before it was recorded. */
  readonly from?: ShardSource;
}

export interface PlannedTask {
  readonly taskId: string;
  readonly program: string;
  readonly condition: ConditionId;
  /** 1..repeats; a run without --repeats has only repeat 1. */
  readonly repeat: number;
  /** taskId, plus `.r<k>` for repeats after the first: the key in tasks.ndjson and the trace name. */
  readonly key: string;
}

export function parseShard(text: string): Shard | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return count >= 1 && index >= 1 && index <= count ? { index, count } : undefined;
}

/** All tasks in a fixed order (by task id, then repeat), then the shard's slice: every count-th task. */
export function planTasks(
  programs: readonly string[],
  conditions: readonly ConditionId[],
  shard?: Pick<Shard, "index" | "count">,
  repeats = 1,
): PlannedTask[] {
  const all = programs.flatMap((p) =>
    conditions.flatMap((c) =>
      Array.from({ length: repeats }, (_, i) => {
        const id = taskId(c, p);
        return { taskId: id, program: p, condition: c, repeat: i + 1, key: resultKey({ taskId: id, repeat: i + 1 }) };
      }),
    ),
  );
  all.sort((a, b) => a.taskId.localeCompare(b.taskId) || a.repeat - b.repeat);
  return shard ? all.filter((_, i) => i % shard.count === shard.index - 1) : all;
}

export interface ShardFlags {
  readonly shard?: string;
  readonly shardCount?: string;
  /** Which scheduler's environment gives the index (default: whichever one is set). */
  readonly shardFrom?: string;
}

const DIGITS = /^\d{1,6}$/;

/**
 * The shard to run: --shard i/n, or --shard-count n with this process's index taken from its
 * scheduler, so every array task (pod) runs the same command line:
 * - kubernetes: JOB_COMPLETION_INDEX, 0-based (an Indexed Job);
 * - slurm: SLURM_ARRAY_TASK_ID, 0-based, like the Kubernetes index (`sbatch --array=0-3` for
 *   4 shards). The id itself, not its distance from SLURM_ARRAY_TASK_MIN, names the shard, so a
 *   single failed task resubmitted as `sbatch --array=2 …` runs (and with --resume continues)
 *   the same shard 3 of 4. SLURM_ARRAY_TASK_MAX and SLURM_ARRAY_TASK_COUNT must fit in n, so a
 *   mistyped --array fails at once in every task.
 * --shard-from names the scheduler; without it the one whose variable is set is used, and both
 * set at once is an error (a Slurm job inside a pod, say), as is an index outside 0..n-1.
 */
export function resolveShard(
  flags: ShardFlags,
  env: Readonly<Record<string, string | undefined>>,
): Result<Shard | undefined, BenchErrorCode> {
  if (flags.shard !== undefined && flags.shardCount !== undefined)
    return err("invalid_option", "--shard and --shard-count exclude each other");
  if (flags.shardFrom !== undefined && flags.shardCount === undefined)
    return err("invalid_option", "--shard-from needs --shard-count <n>");
  if (flags.shard !== undefined) {
    const s = parseShard(flags.shard);
    return s ? ok({ ...s, from: "flag" }) : err("invalid_option", "--shard takes i/n with 1 <= i <= n");
  }
  if (flags.shardCount === undefined) return ok(undefined);
  if (!/^[1-9]\d{0,4}$/.test(flags.shardCount)) return err("invalid_option", "--shard-count takes a positive integer");
  const count = Number(flags.shardCount);
  if (flags.shardFrom !== undefined && flags.shardFrom !== "slurm" && flags.shardFrom !== "kubernetes") {
    return err("invalid_option", `--shard-from takes slurm or kubernetes, not ${JSON.stringify(flags.shardFrom)}`);
  }
  const kubernetes = env.JOB_COMPLETION_INDEX !== undefined;
  const slurm = env.SLURM_ARRAY_TASK_ID !== undefined;
  const from =
    flags.shardFrom ?? (kubernetes && slurm ? null : kubernetes ? "kubernetes" : slurm ? "slurm" : undefined);
  if (from === null)
    return err(
      "invalid_option",
      "both JOB_COMPLETION_INDEX (Kubernetes) and SLURM_ARRAY_TASK_ID (Slurm) are set; pass --shard-from kubernetes or --shard-from slurm",
    );
  if (from === undefined) {
    return err(
      "invalid_option",
      "--shard-count needs the shard's index from its scheduler: SLURM_ARRAY_TASK_ID (a Slurm job array) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job); neither is set",
    );
  }
  return from === "kubernetes" ? kubernetesShard(count, env) : slurmShard(count, env);
}

function kubernetesShard(
  count: number,
  env: Readonly<Record<string, string | undefined>>,
): Result<Shard, BenchErrorCode> {
  const raw = env.JOB_COMPLETION_INDEX;
  if (raw === undefined || !DIGITS.test(raw))
    return err(
      "invalid_option",
      "--shard-count needs JOB_COMPLETION_INDEX (0-based, set by a Kubernetes Indexed Job) in the environment",
    );
  const index = Number(raw) + 1;
  return index <= count
    ? ok({ index, count, from: "kubernetes" })
    : err("invalid_option", `JOB_COMPLETION_INDEX ${raw} is outside 0..${count - 1}`);
}

function slurmShard(count: number, env: Readonly<Record<string, string | undefined>>): Result<Shard, BenchErrorCode> {
  const id = env.SLURM_ARRAY_TASK_ID;
  if (id === undefined || !DIGITS.test(id))
    return err(
      "invalid_option",
      "--shard-from slurm needs SLURM_ARRAY_TASK_ID (set in each task of a Slurm job array: sbatch --array=0-N)",
    );
  if (Number(id) >= count)
    return err(
      "invalid_option",
      `SLURM_ARRAY_TASK_ID ${id} is outside 0..${count - 1}: array task ids are the 0-based shard indexes (sbatch --array=0-${count - 1})`,
    );
  // The whole array must fit the slices too, so a mistyped --array fails in its first task, not
  // only in the tasks past the end.
  const max = env.SLURM_ARRAY_TASK_MAX;
  if (max !== undefined && (!DIGITS.test(max) || Number(max) >= count)) {
    return err(
      "invalid_option",
      `the Slurm array reaches task id ${max}, but --shard-count ${count} has ids 0..${count - 1} (sbatch --array=0-${count - 1})`,
    );
  }
  const tasks = env.SLURM_ARRAY_TASK_COUNT;
  if (tasks !== undefined && (!DIGITS.test(tasks) || Number(tasks) > count)) {
    return err("invalid_option", `the Slurm array has ${tasks} tasks, more than --shard-count ${count}`);
  }
  return ok({ index: Number(id) + 1, count, from: "slurm" });
}
