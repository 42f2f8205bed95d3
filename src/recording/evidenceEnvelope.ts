// The one envelope of every evidence record, Lab audit and bench trace alike (docs/evidence-format.md):
//
//   { "format": "tca.audit", "v": 2, "run_id": "…", "event_id": 1, "t_ms": 0, "type": "run_started",
//     "source": "scripted", "proposal": null, "data": { … } }
//
// Nothing of an event's payload is spread over the envelope: a payload key can never shadow an
// envelope field, and a reader knows every key of the envelope without knowing the event. The Lab spec
// (Part 10: "Give each record a run ID, event ID, proposal number when applicable, monotonic timestamp,
// and proposal-source label") fixes which fields every record carries; the bench trace carries the same
// ones, so one reader and one document serve both rooms. `event_id` is the sequence number: 1, 2, 3, …
//
// Each room declares its events once, as an event catalog: event type → TypeBox schema of its data.
// TypeBox (chosen over zod and io-ts) builds plain JSON Schema objects whose static types TypeScript
// infers, so one definition gives the writer's type (`append<K>(type: K, data: DataOf<C, K>)`: a writer
// that drifts from the reader fails tsc), the reader's validation (ajv, which the project already uses)
// and the committed schemas/ files (generated from it, compared by a test).
import Type, { type Static, type TObject, type TSchema, type TUnion } from "typebox";
import type { ErrorObject, ValidateFunction } from "ajv";
import { isRecord } from "../core/isRecord.ts";
import type { EvidenceProblem } from "./evidenceProblem.ts";
import { compileWithAjv, precompiledOr, validatorKey } from "./precompiledValidators.ts";

/** The format version every new evidence record carries. */
export const EVIDENCE_FORMAT_VERSION = 2;

/**
 * A room's events: each event type and the schema of its data object (an object, or a union of
 * objects where an event has exclusive shapes, e.g. a validation that passed or failed).
 */
export type EventCatalog = Readonly<Record<string, TObject | TUnion<TObject[]>>>;

/**
 * A value no reader may change and any writer may pass: readonly all the way down, so a writer's
 * readonly arrays (a request's messages, a test's cases) are accepted as they are.
 */
export type DeepReadonly<T> = T extends readonly (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [P in keyof T]: DeepReadonly<T[P]> }
    : T;

/** The data of one event type of a catalog. */
export type DataOf<C extends EventCatalog, K extends keyof C> = DeepReadonly<Static<C[K]>>;

/** One record of a catalog's log, for one event type. */
export interface EvidenceRecord<C extends EventCatalog, K extends keyof C & string> {
  readonly format: string;
  readonly v: typeof EVIDENCE_FORMAT_VERSION;
  readonly run_id: string;
  /** The sequence number: 1, 2, 3, … in append order, no gap. */
  readonly event_id: number;
  /** Monotonic milliseconds from the writer's injected clock; never decreases within a file. */
  readonly t_ms: number;
  readonly type: K;
  /** Who proposed what this record is about: the proposal-source label, the same on every record of a run. */
  readonly source: string;
  /** The proposal (Lab) or model turn (bench) the record belongs to, 1-based; null for run-level records. */
  readonly proposal: number | null;
  readonly data: DataOf<C, K>;
}

/** Any record of a catalog's log: a discriminated union on `type`, narrowing `data`. */
export type EventOf<C extends EventCatalog> = { [K in keyof C & string]: EvidenceRecord<C, K> }[keyof C & string];

/** The keys of the envelope, in the order a writer writes them. */
export const ENVELOPE_KEYS = [
  "format",
  "v",
  "run_id",
  "event_id",
  "t_ms",
  "type",
  "source",
  "proposal",
  "data",
] as const;

/** The one writer's interface: typed by the catalog, so the payload of each type is checked by tsc. */
export interface EvidenceLog<C extends EventCatalog> {
  /** Appends one record; returns its event id. `proposal` is null (or omitted) for a run-level record. */
  append<K extends keyof C & string>(type: K, data: DataOf<C, K>, proposal?: number | null): number;
}

/** The line a writer appends for one record (JSON.stringify: untrusted text is escaped, never concatenated). */
export function encodeRecord<C extends EventCatalog, K extends keyof C & string>(record: EvidenceRecord<C, K>): string {
  const ordered = {
    format: record.format,
    v: record.v,
    run_id: record.run_id,
    event_id: record.event_id,
    t_ms: record.t_ms,
    type: record.type,
    source: record.source,
    proposal: record.proposal,
    data: record.data,
  };
  return `${JSON.stringify(ordered)}\n`;
}

/**
 * The JSON Schema of one record of a catalog's log: the envelope with `type` fixed to each event, one
 * branch per event. schemas/*.schema.json are generated from this (never kept by hand).
 */
export function recordSchema(format: string, catalog: EventCatalog, title: string): TSchema {
  const branches = Object.entries(catalog).map(([type, data]) =>
    Type.Object(
      {
        format: Type.Literal(format),
        v: Type.Literal(EVIDENCE_FORMAT_VERSION),
        run_id: Type.String(),
        event_id: Type.Integer({ minimum: 1 }),
        t_ms: Type.Number({ minimum: 0 }),
        type: Type.Literal(type),
        source: Type.String({ minLength: 1 }),
        proposal: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
        data,
      },
      { additionalProperties: false },
    ),
  );
  return Type.Union(branches, { title });
}

/** What a strict reader says of a line that is not a record of its catalog. */
export type RecordProblemCode =
  | "not_json_object"
  | "wrong_format"
  | "old_format_version"
  | "unknown_format_version"
  | "bad_envelope"
  | "unknown_event"
  | "unknown_field"
  | "missing_field"
  | "wrong_type";

/** A strict reader of one catalog's records: every field known, every type right, or a coded problem. */
export interface EventReader<C extends EventCatalog> {
  readonly format: string;
  /** `value` is one parsed line; `file` and `line` only name where it came from in a problem. */
  read(
    value: unknown,
    file: string,
    line: number,
  ): { ok: true; record: EventOf<C> } | { ok: false; problem: EvidenceProblem<RecordProblemCode> };
}

// One Ajv for every catalog: schemas compiled here are this repository's own definitions, never model
// or program output, so the validation code Ajv generates is derived only from trusted text. The
// build compiles the same schemas with the same options ahead of time (precompiledValidators.ts).
export const ENVELOPE_AJV_OPTIONS = { allErrors: false, strict: true, validateFormats: false } as const;

function problemOf(errors: readonly ErrorObject[] | null | undefined): { code: RecordProblemCode; detail: string } {
  // In a union (anyOf), the branches whose tag did not match say only "must be equal to constant":
  // the error of the branch that did match says what is wrong.
  const telling = errors?.filter((error) => error.keyword !== "anyOf" && error.keyword !== "const") ?? [];
  const first = telling[0] ?? errors?.[0];
  if (first === undefined) return { code: "wrong_type", detail: "data does not match its schema" };
  const where = `data${first.instancePath.replaceAll("/", ".")}`;
  // Keys and keywords only: no value from the file is echoed.
  if (first.keyword === "additionalProperties")
    return {
      code: "unknown_field",
      detail: `${where} has an unknown field "${String(first.params.additionalProperty).slice(0, 60)}"`,
    };
  if (first.keyword === "required")
    return { code: "missing_field", detail: `${where} lacks "${String(first.params.missingProperty).slice(0, 60)}"` };
  return { code: "wrong_type", detail: `${where} ${first.message ?? "is invalid"}`.slice(0, 200) };
}

/**
 * The strict reader of a catalog. `olderVersions` are the versions this format had before 2: a record of
 * one is refused with `old_format_version` (docs/evidence-format.md says what to do), never half-read.
 */
export function eventReader<C extends EventCatalog>(
  format: string,
  catalog: C,
  olderVersions: readonly number[],
): EventReader<C> {
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (type: string): ValidateFunction | undefined => {
    if (!Object.hasOwn(catalog, type)) return undefined;
    let validate = validators.get(type);
    if (validate === undefined) {
      const schema = catalog[type] as TSchema;
      validate = precompiledOr(validatorKey("event", format, type), schema, () =>
        compileWithAjv(ENVELOPE_AJV_OPTIONS, schema),
      );
      validators.set(type, validate);
    }
    return validate;
  };
  return {
    format,
    read(value, file, line) {
      const fail = (code: RecordProblemCode, detail: string, event?: string) =>
        ({ ok: false, problem: { code, file, line, ...(event === undefined ? {} : { event }), detail } }) as const;
      if (!isRecord(value)) return fail("not_json_object", "the line is not a JSON object");
      if (value.format !== format) {
        const older = typeof value.v === "number" && olderVersions.includes(value.v);
        return older
          ? fail("old_format_version", `a record of ${format} version ${String(value.v)}`)
          : fail("wrong_format", `the record is not of ${format}`);
      }
      if (value.v !== EVIDENCE_FORMAT_VERSION) {
        const older = typeof value.v === "number" && olderVersions.includes(value.v);
        return older
          ? fail("old_format_version", `a record of ${format} version ${String(value.v)}`)
          : fail("unknown_format_version", `a record of ${format} of an unknown version`);
      }
      for (const key of Object.keys(value))
        if (!(ENVELOPE_KEYS as readonly string[]).includes(key))
          return fail("bad_envelope", `unknown envelope field "${key.slice(0, 60)}"`);
      for (const key of ENVELOPE_KEYS)
        if (!Object.hasOwn(value, key)) return fail("bad_envelope", `the envelope lacks "${key}"`);
      if (typeof value.run_id !== "string") return fail("bad_envelope", "run_id is not a string");
      if (!Number.isSafeInteger(value.event_id) || (value.event_id as number) < 1)
        return fail("bad_envelope", "event_id is not a positive integer");
      if (typeof value.t_ms !== "number" || !Number.isFinite(value.t_ms) || value.t_ms < 0)
        return fail("bad_envelope", "t_ms is not a non-negative number");
      if (typeof value.type !== "string") return fail("bad_envelope", "type is not a string");
      if (typeof value.source !== "string" || value.source === "")
        return fail("bad_envelope", "source is not a non-empty string");
      if (value.proposal !== null && (!Number.isSafeInteger(value.proposal) || (value.proposal as number) < 1))
        return fail("bad_envelope", "proposal is neither null nor a positive integer");
      const validate = validatorOf(value.type);
      if (validate === undefined) return fail("unknown_event", `unknown event type "${value.type.slice(0, 60)}"`);
      if (!validate(value.data)) {
        const { code, detail } = problemOf(validate.errors);
        return fail(code, detail, value.type);
      }
      return { ok: true, record: value as unknown as EventOf<C> };
    },
  };
}
