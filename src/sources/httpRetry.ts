// Retrying a transient endpoint failure (429, 502-504, a refused connection): the policy, the
// Retry-After header, and a wait that ends early when the task's deadline or Ctrl-C aborts it,
// so a retry never extends the task's budget.

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** First backoff; doubled after each retry, capped at maxDelayMs. Retry-After wins when sent. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 30_000 };

export const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Seconds or an HTTP date, as Retry-After may carry; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Math.round(Number(header.trim()) * 1000);
  // An HTTP date starts with the day's name ("Tue, 01 Dec 2026 …"); anything else is unreadable.
  if (!/^[A-Za-z]{3},/.test(header.trim())) return undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
