// A fixed-size worker pool: at most `jobs` tasks in flight, results in input order.
import { availableParallelism } from "node:os";

export function defaultJobs(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  jobs: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  return results;
}
