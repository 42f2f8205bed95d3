// Waits for one proposal from a source, but never past the earlier of the per-call deadline
// and the overall deadline, and never past cancellation. Whatever arrives afterwards is late:
// it is handed to `onLate` for the audit and never validated or dispatched.
import type { MonotonicClock } from "../core/clock.ts";
import type { ProposalOutcome, ProposalRequest, ProposalSource } from "./proposalSource.ts";

export interface GenerationWait {
  readonly outcome: ProposalOutcome;
  readonly elapsedMs: number;
}

export function generateWithDeadline(
  source: ProposalSource,
  request: ProposalRequest,
  clock: MonotonicClock,
  cancellation: AbortSignal,
  onLate: (late: ProposalOutcome | { readonly kind: "late_error" }) => void,
): Promise<GenerationWait> {
  const started = clock.now();
  const sourceAbort = new AbortController();
  return new Promise<GenerationWait>((resolve) => {
    let settled = false;
    const finish = (outcome: ProposalOutcome): void => {
      if (settled) return;
      settled = true;
      cancelTimer();
      cancellation.removeEventListener("abort", onCancel);
      // Tell the source to stop working on a call whose answer nobody will use.
      if (outcome.kind === "time_limit" || outcome.kind === "cancelled") sourceAbort.abort();
      resolve({ outcome, elapsedMs: clock.now() - started });
    };
    const onCancel = (): void => finish({ kind: "cancelled", metadata: {} });
    const cancelTimer = clock.at(request.deadlineMs, () => finish({ kind: "time_limit", metadata: {} }));
    if (cancellation.aborted) {
      finish({ kind: "cancelled", metadata: {} });
      return;
    }
    cancellation.addEventListener("abort", onCancel, { once: true });
    let call: Promise<ProposalOutcome>;
    try {
      call = source.propose(request, sourceAbort.signal);
    } catch (error) {
      finish({ kind: "model_error", message: describeFailure(error), metadata: {} });
      return;
    }
    call.then(
      (outcome) => (settled ? reportLate(outcome) : finish(outcome)),
      (error: unknown) =>
        settled
          ? reportLate({ kind: "late_error" })
          : finish({ kind: "model_error", message: describeFailure(error), metadata: {} }),
    );
    // A late answer may arrive after the run has closed its audit; it must never crash the process.
    function reportLate(late: ProposalOutcome | { readonly kind: "late_error" }): void {
      try {
        onLate(late);
      } catch {
        // nothing to record into any more
      }
    }
  });
}

/** A short, path-free description of a source failure (the audit keeps it; the model never sees it). */
function describeFailure(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  return `proposal source failed (${name})`;
}
