// The one place that knows how a bench trace record is laid out for the replay: it turns each record
// the trace reader parsed (src/bench/runs/benchTrace.ts parseBenchTrace, the v2 envelope, checked
// against the catalog) into the replay's entry (its event type, its data, its line). The replay
// (benchReplay.ts) reads entries only, so a change of the envelope changes this module alone. A
// trace of format 1 never gets here: the reader refuses it (old_format_version).
import type { BenchTraceRecord } from "../bench/runs/benchTrace.ts";

export type TraceFields = Readonly<Record<string, unknown>>;

export interface TraceEntry {
  readonly type: string;
  readonly data: TraceFields;
  /** 1-based position among the trace's records: its line in the file when the reader found no problem in it. */
  readonly line: number;
}

/** A record's entry. */
export function traceEntryOf(record: BenchTraceRecord, line: number): TraceEntry {
  const data: TraceFields = record.data;
  // The envelope keeps the model turn an event belongs to in `proposal`; the harness's decisions
  // (harnessDecisions.ts) name it `turn` in their data, so it is put back into the data here.
  return { type: record.type, data: record.proposal === null ? data : { ...data, turn: record.proposal }, line };
}

/** Every record's entry, in order. */
export function traceEntries(records: readonly BenchTraceRecord[]): TraceEntry[] {
  return records.map((record, index) => traceEntryOf(record, index + 1));
}

/** An entry as the claim and statement analyses read it (`{type, data}`), without the decisions' `turn`. */
export function asClaimEvent(entry: { readonly type: string; readonly data: TraceFields }): {
  readonly type: string;
  readonly data: TraceFields;
} {
  const { turn: _turn, ...data } = entry.data;
  return { type: entry.type, data };
}
