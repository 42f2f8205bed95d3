// The per-task trace: one NDJSON record per event (every turn, model request and response,
// tool call, refusal, test run with its output, stop attempt, grade, diff), each in the v2
// evidence envelope (src/recording/evidenceEnvelope.ts; docs/evidence-format.md). Append-only.
//
// The envelope of a trace record, as this writer fills it:
//   format    BENCH_TRACE_FORMAT ("tca.trace")
//   run_id    the run's createdAt in run.json (the same for every attempt of a resumed run; a merged
//             run's traces keep their shard's): what a run directory has that names it
//   event_id  1, 2, 3, … in the order this trace's records were appended
//   t_ms      milliseconds since the trace was opened (the task's start), from the run's injected
//             clock, rounded, never decreasing
//   source    the backend the run's model answered through, as its description names it
//             ("openai-compatible", "local-engine"; "unnamed" for a backend that names none, such
//             as a test's scripted one)
//   proposal  the model turn (1-based) an event belongs to; null for the task's own events
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepHook } from "../../core/stepHook.ts";
import {
  encodeRecord,
  EVIDENCE_FORMAT_VERSION,
  type DataOf,
  type EventCatalog,
  type EventOf,
  type EvidenceRecord,
} from "../../recording/evidenceEnvelope.ts";
import type { AgentTraceCatalog } from "./traceEvents.ts";

/** The format id of every trace record. */
export const BENCH_TRACE_FORMAT = "tca.trace";
/** The trace's versions before 2 (`{v: 1, event, t, ...fields}`): refused with old_format_version. */
export const BENCH_TRACE_OLDER_VERSIONS: readonly number[] = [1];

/** A value as a writer may hand it over: read-only all the way down (the trace only serializes it). */
export type ReadonlyDeep<T> = T extends readonly (infer U)[]
  ? readonly ReadonlyDeep<U>[]
  : T extends object
    ? { readonly [P in keyof T]: ReadonlyDeep<T[P]> }
    : T;

/**
 * A trace writer: EvidenceLog's append (src/recording/evidenceEnvelope.ts), typed by the catalog (a
 * payload that drifts fails tsc), taking the data read-only: the task and grade records are read-only
 * types, and the trace only serializes them. Its own interface only because tsc cannot relate the two
 * generic signatures; every call EvidenceLog<C> accepts, it accepts.
 */
export interface TraceLog<C extends EventCatalog> {
  append<K extends keyof C & string>(type: K, data: ReadonlyDeep<DataOf<C, K>>, proposal?: number | null): number;
}

/** What the agent writes to: its events, typed by the agent's catalog. */
export type TraceSink = TraceLog<AgentTraceCatalog>;

/** The envelope fields every record of one trace shares, and the clock of its t_ms. */
export interface TraceIdentity {
  readonly runId: string;
  readonly source: string;
  /** Monotonic milliseconds (the run's injected clock). */
  readonly clock: () => number;
}

/** The source label of a run's model description (see the header). */
export function traceSourceOf(modelDescription: Readonly<Record<string, unknown>>): string {
  const backend = modelDescription.backend;
  return typeof backend === "string" && backend !== "" ? backend : "unnamed";
}

/** Numbers and stamps the records of one trace. */
class TraceEnvelope<C extends EventCatalog> {
  private nextId = 1;
  private lastT = 0;
  private readonly origin: number;
  constructor(private readonly identity: TraceIdentity) {
    this.origin = identity.clock();
  }
  record<K extends keyof C & string>(
    type: K,
    data: ReadonlyDeep<DataOf<C, K>>,
    proposal: number | null,
  ): EvidenceRecord<C, K> {
    this.lastT = Math.max(this.lastT, Math.round(this.identity.clock() - this.origin));
    return {
      format: BENCH_TRACE_FORMAT,
      v: EVIDENCE_FORMAT_VERSION,
      run_id: this.identity.runId,
      event_id: this.nextId++,
      t_ms: this.lastT,
      type,
      source: this.identity.source,
      proposal,
      // The record holds the writer's value as given; it is serialized, never changed.
      data: data as DataOf<C, K>,
    };
  }
}

const MEMORY_IDENTITY: TraceIdentity = { runId: "memory", source: "memory", clock: () => performance.now() };

/** The records in memory (tests, and a task run outside a run directory). */
export class MemoryTrace<C extends EventCatalog = AgentTraceCatalog> implements TraceLog<C> {
  readonly records: EventOf<C>[] = [];
  private readonly envelope: TraceEnvelope<C>;
  constructor(identity: Partial<TraceIdentity> = {}) {
    this.envelope = new TraceEnvelope({ ...MEMORY_IDENTITY, ...identity });
  }
  append<K extends keyof C & string>(
    type: K,
    data: ReadonlyDeep<DataOf<C, K>>,
    proposal: number | null = null,
  ): number {
    const record = this.envelope.record(type, data, proposal);
    this.records.push(record as unknown as EventOf<C>);
    return record.event_id;
  }
}

export class FileTrace<C extends EventCatalog = AgentTraceCatalog> implements TraceLog<C> {
  /** The last diff event's text, for the run's diffs/ folder. */
  lastDiff: string | undefined;
  private readonly envelope: TraceEnvelope<C>;
  /** hook: "traceWrite" with half of a line on disk (tests only; see src/core/stepHook.ts). */
  constructor(
    private readonly path: string,
    identity: TraceIdentity,
    private readonly hook?: StepHook<"traceWrite">,
  ) {
    // Created exclusively: a trace is never overwritten (an earlier attempt's trace is
    // evidence; the caller picks a fresh attempt-numbered path, see attemptTracePath).
    writeFileSync(path, "", { flag: "wx" });
    this.envelope = new TraceEnvelope(identity);
  }
  append<K extends keyof C & string>(
    type: K,
    data: ReadonlyDeep<DataOf<C, K>>,
    proposal: number | null = null,
  ): number {
    const record = this.envelope.record(type, data, proposal);
    const diff: unknown = (data as { readonly diff?: unknown }).diff;
    if (type === "diff" && typeof diff === "string") this.lastDiff = diff;
    const line = encodeRecord(record);
    if (this.hook === undefined) {
      appendFileSync(this.path, line);
      return record.event_id;
    }
    // Tests: the line in two writes, so a kill between them leaves a torn line, as a kill inside
    // one large write can.
    const half = Math.floor(line.length / 2);
    appendFileSync(this.path, line.slice(0, half));
    void this.hook("traceWrite", type);
    appendFileSync(this.path, line.slice(half));
    return record.event_id;
  }
}

/** Writes to several sinks (a file and an in-memory copy, for instance); returns the first sink's event id. */
export class TeeTrace<C extends EventCatalog = AgentTraceCatalog> implements TraceLog<C> {
  constructor(private readonly sinks: readonly [TraceLog<C>, ...TraceLog<C>[]]) {}
  append<K extends keyof C & string>(
    type: K,
    data: ReadonlyDeep<DataOf<C, K>>,
    proposal: number | null = null,
  ): number {
    const [first, ...rest] = this.sinks;
    const id = first.append(type, data, proposal);
    for (const s of rest) s.append(type, data, proposal);
    return id;
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
