// Which tasks a run (or one shard of it) does: every (program × condition × repeat) in one fixed
// order, then a deterministic slice, so several machines share one benchmark and a merge can
// check that the shards cover it exactly once.
import { err, ok, type Result } from "../../core/result.ts";
import { taskId, type ConditionId } from "../agent/conditions.ts";
import type { BenchErrorCode } from "../errorCodes.ts";
import { resultKey } from "./runDirectory.ts";

export interface Shard {
  readonly index: number;
  readonly count: number;
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
export function planTasks(programs: readonly string[], conditions: readonly ConditionId[], shard?: Shard, repeats = 1): PlannedTask[] {
  const all = programs.flatMap((p) => conditions.flatMap((c) => Array.from({ length: repeats }, (_, i) => {
    const id = taskId(c, p);
    return { taskId: id, program: p, condition: c, repeat: i + 1, key: resultKey({ taskId: id, repeat: i + 1 }) };
  })));
  all.sort((a, b) => a.taskId.localeCompare(b.taskId) || a.repeat - b.repeat);
  return shard ? all.filter((_, i) => i % shard.count === shard.index - 1) : all;
}

/**
 * The shard to run: --shard i/n, or --shard-count n with the 0-based index from
 * JOB_COMPLETION_INDEX (what a Kubernetes Indexed Job sets in each pod), so every pod of the
 * Job runs the same command line. Both at once, or an index outside 0..n-1, is an error.
 */
export function resolveShard(flags: { readonly shard?: string; readonly shardCount?: string }, env: Readonly<Record<string, string | undefined>>): Result<Shard | undefined, BenchErrorCode> {
  if (flags.shard !== undefined && flags.shardCount !== undefined) return err("invalid_option", "--shard and --shard-count exclude each other");
  if (flags.shard !== undefined) {
    const s = parseShard(flags.shard);
    return s ? ok(s) : err("invalid_option", "--shard takes i/n with 1 <= i <= n");
  }
  if (flags.shardCount === undefined) return ok(undefined);
  if (!/^[1-9]\d{0,4}$/.test(flags.shardCount)) return err("invalid_option", "--shard-count takes a positive integer");
  const count = Number(flags.shardCount);
  const raw = env.JOB_COMPLETION_INDEX;
  if (raw === undefined || !/^\d{1,5}$/.test(raw)) return err("invalid_option", "--shard-count needs JOB_COMPLETION_INDEX (0-based, set by a Kubernetes Indexed Job) in the environment");
  const index = Number(raw) + 1;
  return index <= count ? ok({ index, count }) : err("invalid_option", `JOB_COMPLETION_INDEX ${raw} is outside 0..${count - 1}`);
}
