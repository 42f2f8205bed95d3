// A task's wall-clock deadline as one timer owned by the agent loop. Why not
// AbortSignal.any([cancel, AbortSignal.timeout(ms)]): on Node 20 the composed signal holds its
// sources weakly, and a garbage collection can drop the timeout signal together with its timer,
// so the deadline never fires (a model call then waits for Node's own HTTP timeout). Here the
// timer handle, the controller and the cancel listener are strong references held by this
// object, which the loop holds until the task ends; dispose() releases them.

export type DeadlineEnd = "expired" | "cancelled";

export class TaskDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onCancel: () => void;
  private endedBy: DeadlineEnd | undefined;

  constructor(
    timeoutMs: number,
    private readonly cancel?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.end("expired"), Math.max(0, Math.ceil(timeoutMs)));
    this.onCancel = (): void => this.end("cancelled");
    if (cancel?.aborted) this.end("cancelled");
    else cancel?.addEventListener("abort", this.onCancel, { once: true });
  }

  private end(how: DeadlineEnd): void {
    if (this.endedBy !== undefined) return;
    this.endedBy = how;
    clearTimeout(this.timer);
    this.controller.abort(new Error(how === "expired" ? "the task's time budget ran out" : "cancelled"));
  }

  /** Aborts when the deadline passes or the run is cancelled, whichever comes first. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the signal aborted; undefined while it has not. */
  get ended(): DeadlineEnd | undefined {
    return this.endedBy;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.cancel?.removeEventListener("abort", this.onCancel);
  }
}
