// The per-task trace: one NDJSON record per event (every turn, model request and response,
// tool call, refusal, test run with its output, stop attempt, grade, diff). Append-only.
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepHook } from "../../core/stepHook.ts";

export const TRACE_SCHEMA_VERSION = 1;

export type TraceEvent =
  | "task_start"
  | "model_request"
  | "model_response"
  | "model_error"
  | "tool_call"
  | "tool_refused"
  | "tool_error"
  | "tool_result"
  | "test_run"
  | "stop_attempt"
  | "budget_exhausted"
  | "protocol_finding"
  | "task_interrupted"
  | "grade"
  | "diff"
  | "task_end";

export interface TraceRecord {
  readonly v: number;
  readonly event: TraceEvent;
  /** Milliseconds since the task started (monotonic). */
  readonly t: number;
  readonly [key: string]: unknown;
}

export interface TraceSink {
  write(event: TraceEvent, t: number, fields: Readonly<Record<string, unknown>>): void;
}

export class MemoryTrace implements TraceSink {
  readonly records: TraceRecord[] = [];
  write(event: TraceEvent, t: number, fields: Readonly<Record<string, unknown>>): void {
    this.records.push({ v: TRACE_SCHEMA_VERSION, event, t: Math.round(t), ...fields });
  }
}

export class FileTrace implements TraceSink {
  /** The last diff event's text, for the run's diffs/ folder. */
  lastDiff: string | undefined;
  /** hook: "traceWrite" with half of a line on disk (tests only; see src/core/stepHook.ts). */
  constructor(
    private readonly path: string,
    private readonly hook?: StepHook<"traceWrite">,
  ) {
    // Created exclusively: a trace is never overwritten (an earlier attempt's trace is
    // evidence; the caller picks a fresh attempt-numbered path, see attemptTracePath).
    writeFileSync(path, "", { flag: "wx" });
  }
  write(event: TraceEvent, t: number, fields: Readonly<Record<string, unknown>>): void {
    if (event === "diff" && typeof fields.diff === "string") this.lastDiff = fields.diff;
    const line = JSON.stringify({ v: TRACE_SCHEMA_VERSION, event, t: Math.round(t), ...fields }) + "\n";
    if (this.hook === undefined) {
      appendFileSync(this.path, line);
      return;
    }
    // Tests: the line in two writes, so a kill between them leaves a torn line, as a kill inside
    // one large write can.
    const half = Math.floor(line.length / 2);
    appendFileSync(this.path, line.slice(0, half));
    void this.hook("traceWrite", event);
    appendFileSync(this.path, line.slice(half));
  }
}

/** Writes to several sinks (a file and an in-memory copy, for instance). */
export class TeeTrace implements TraceSink {
  constructor(private readonly sinks: readonly TraceSink[]) {}
  write(event: TraceEvent, t: number, fields: Readonly<Record<string, unknown>>): void {
    for (const s of this.sinks) s.write(event, t, fields);
  }
}

/**
 * The trace path (relative to the run directory) for the next attempt at a task: attempt 1 is
 * `traces/<task>.ndjson`, a task redone by --resume gets `traces/<task>.attempt-<n>.ndjson`, so
 * no earlier attempt's trace is ever erased.
 */
export function nextAttemptTrace(runDir: string, tracesDir: string, stem: string): { attempt: number; path: string } {
  for (let attempt = 1; ; attempt++) {
    const path = `${tracesDir}/${stem}${attempt === 1 ? "" : `.attempt-${attempt}`}.ndjson`;
    if (!existsSync(join(runDir, path))) return { attempt, path };
  }
}
