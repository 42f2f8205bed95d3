// The one place that knows how a bench trace record is laid out: it turns each record into the
// replay's typed entry (its event type, its own fields, its line). The replay (benchReplay.ts) reads
// entries only, so a change of the trace's envelope changes this module alone. Two layouts are read:
// v1 `{v: 1, event, t, ...fields}` and the v2 envelope `{format, v: 2, ..., type, data: {...fields}}`.
import { isRecord } from "../core/isRecord.ts";

export type TraceFields = Readonly<Record<string, unknown>>;

export interface TraceEntry {
  readonly type: string;
  readonly data: TraceFields;
  /** 1-based line in the trace file. */
  readonly line: number;
}

const V1_ENVELOPE: ReadonlySet<string> = new Set(["v", "event", "t"]);

/** A record's entry, or undefined when it has neither layout. */
export function traceEntryOf(record: TraceFields, line: number): TraceEntry | undefined {
  // v2 keeps the model turn an event belongs to in the envelope's `proposal`; the harness's
  // decisions (harnessDecisions.ts) name it `turn`, so it is put back into the fields here.
  if (record.v === 2 && typeof record.type === "string" && isRecord(record.data))
    return {
      type: record.type,
      data: typeof record.proposal === "number" ? { ...record.data, turn: record.proposal } : record.data,
      line,
    };
  if (typeof record.event === "string")
    return {
      type: record.event,
      data: Object.fromEntries(Object.entries(record).filter(([key]) => !V1_ENVELOPE.has(key))),
      line,
    };
  return undefined;
}

/** Every record's entry, in order; a record of neither layout is reported by its line. */
export function traceEntries(records: readonly TraceFields[]): { entries: TraceEntry[]; unreadable: number[] } {
  const entries: TraceEntry[] = [];
  const unreadable: number[] = [];
  records.forEach((record, index) => {
    const entry = traceEntryOf(record, index + 1);
    if (entry === undefined) unreadable.push(index + 1);
    else entries.push(entry);
  });
  return { entries, unreadable };
}

/** An entry in the flat form the claim and statement analyses read (`{event, ...fields}`). */
export function asClaimEvent(entry: { readonly type: string; readonly data: TraceFields }): {
  readonly event: string;
  readonly [key: string]: unknown;
} {
  return { ...entry.data, event: entry.type };
}
