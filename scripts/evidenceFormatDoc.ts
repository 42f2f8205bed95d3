// npm run evidence-doc: writes the generated sections of docs/evidence-format.md (the envelope, the
// reader's problem codes, every event of every catalog with its fields, the run folder's JSON files)
// from the same TypeBox definitions the writers are typed by and the readers validate with.
// test/docs/evidenceFormatDoc.test.ts fails when the committed doc differs from what this generates.
// Usage: node --import tsx scripts/evidenceFormatDoc.ts [--check]
import { readFileSync, writeFileSync } from "node:fs";
import {
  ENVELOPE_KEYS,
  recordSchema,
  type EventCatalog,
  type RecordProblemCode,
} from "../src/recording/evidenceEnvelope.ts";
import {
  ActionSchema,
  LAB_AUDIT_EVENTS,
  LAB_AUDIT_FORMAT,
  ObservationSchema,
} from "../src/recording/labAuditEvents.ts";
import { LabFinalSchema, LabManifestSchema } from "../src/recording/labRunFiles.ts";
import {
  BenchRegenerationJsonSchema,
  ResultsJsonSchema,
  RunJsonSchema,
  TaskRecordSchema,
  VerificationJsonSchema,
} from "../src/bench/runs/runFileSchemas.ts";
import {
  LAB_ACTION_DESCRIPTION,
  LAB_AUDIT_DESCRIPTIONS,
  LAB_OBSERVATION_DESCRIPTION,
  type EventDescription,
} from "./evidenceFormat/labAuditDescriptions.ts";
import { BENCH_TRACE_DESCRIPTIONS } from "./evidenceFormat/benchTraceDescriptions.ts";
import { BENCH_TRACE_EVENTS, BENCH_TRACE_FORMAT } from "../src/bench/runs/benchTrace.ts";
import { BENCH_PROBLEM_MEANINGS } from "../src/verdicts/benchProblems.ts";
import { LAB_PROBLEM_MEANINGS } from "../src/verdicts/labProblems.ts";
import {
  BENCH_RESULTS_FIELDS,
  BENCH_RUN_FIELDS,
  BENCH_TASK_FIELDS,
  BENCH_REGENERATION_FIELDS,
  BENCH_VERIFICATION_FIELDS,
  LAB_FINAL_FIELDS,
  LAB_MANIFEST_FIELDS,
} from "./evidenceFormat/runFileDescriptions.ts";
import { fieldPaths, shapesTable, typeText, type NamedType, type TableContext } from "./evidenceFormat/schemaTables.ts";

/** One room's event log, as the doc lists it. */
export interface DocumentedCatalog {
  readonly heading: string;
  /** Where the log lives in a run folder. */
  readonly file: string;
  readonly format: string;
  /** The module that declares the catalog (the one definition). */
  readonly definedIn: string;
  readonly catalog: EventCatalog;
  readonly descriptions: Readonly<Record<string, EventDescription>>;
  /** Shared types of this catalog, printed once and linked from every field that has one. */
  readonly named: readonly NamedType[];
  /** The events' anchor prefix (default `event-`): two catalogs may have an event of the same name. */
  readonly anchorPrefix?: string;
}

/** Every catalog the doc lists, in this order. */
export const DOCUMENTED_CATALOGS: readonly DocumentedCatalog[] = [
  {
    heading: "Lab audit (audit.jsonl)",
    file: "audit.jsonl",
    format: LAB_AUDIT_FORMAT,
    definedIn: "src/recording/labAuditEvents.ts",
    catalog: LAB_AUDIT_EVENTS,
    descriptions: LAB_AUDIT_DESCRIPTIONS,
    named: [
      { name: "Action", anchor: "type-action", schema: ActionSchema, ...LAB_ACTION_DESCRIPTION },
      { name: "Observation", anchor: "type-observation", schema: ObservationSchema, ...LAB_OBSERVATION_DESCRIPTION },
    ],
  },
  {
    heading: "Bench trace (traces/<task>.ndjson)",
    file: "traces/<task>.ndjson",
    format: BENCH_TRACE_FORMAT,
    definedIn:
      "src/bench/agent/traceEvents.ts (the agent's events) and src/bench/runs/traceResultEvents.ts (grade, diff, task_end)",
    catalog: BENCH_TRACE_EVENTS,
    descriptions: BENCH_TRACE_DESCRIPTIONS,
    named: [],
    anchorPrefix: "trace-event-",
  },
];

/** One JSON file of a run folder, as the doc lists it. */
export interface DocumentedFile {
  readonly name: string;
  readonly room: "Lab" | "bench";
  readonly definedIn: string;
  readonly schemaFile: string;
  readonly schema: unknown;
  readonly descriptions: Readonly<Record<string, string>>;
}

export const DOCUMENTED_FILES: readonly DocumentedFile[] = [
  {
    name: "manifest.json",
    room: "Lab",
    definedIn: "src/recording/labRunFiles.ts",
    schemaFile: "schemas/manifest.schema.json",
    schema: LabManifestSchema,
    descriptions: LAB_MANIFEST_FIELDS,
  },
  {
    name: "final.json",
    room: "Lab",
    definedIn: "src/recording/labRunFiles.ts",
    schemaFile: "schemas/final.schema.json",
    schema: LabFinalSchema,
    descriptions: LAB_FINAL_FIELDS,
  },
  ...(
    [
      ["run.json", "bench-run", RunJsonSchema, BENCH_RUN_FIELDS],
      ["one record of tasks.ndjson", "bench-task-record", TaskRecordSchema, BENCH_TASK_FIELDS],
      ["results.json", "bench-results", ResultsJsonSchema, BENCH_RESULTS_FIELDS],
      ["verification.json", "bench-verification", VerificationJsonSchema, BENCH_VERIFICATION_FIELDS],
      ["regeneration.json", "bench-regeneration", BenchRegenerationJsonSchema, BENCH_REGENERATION_FIELDS],
    ] as const
  ).map(([name, schemaName, schema, descriptions]) => ({
    name,
    room: "bench" as const,
    definedIn: "src/bench/runs/runFileSchemas.ts",
    schemaFile: `schemas/${schemaName}.schema.json`,
    schema,
    descriptions,
  })),
];

type EnvelopeKey = (typeof ENVELOPE_KEYS)[number];
/** What each envelope field means (typed by ENVELOPE_KEYS: a field added to the envelope without its meaning fails tsc). */
const ENVELOPE_MEANINGS: Readonly<Record<EnvelopeKey, string>> = {
  format: "the log's format id: `tca.audit` (Lab) or the bench trace's; a reader refuses any other (wrong_format)",
  v: "the format version; this document describes version 2 (older: old_format_version, newer: unknown_format_version)",
  run_id:
    "the run's id: a UUID in the Lab (as manifest.json has it), run.json's createdAt in a bench trace; every record of a file carries the same one",
  event_id: "the sequence number: 1, 2, 3, … in append order, no gap, no repeat",
  t_ms: "monotonic milliseconds from the writer's injected clock; never decreases within a file (not wall-clock time)",
  type: "the event type: one of the catalog's events below; it fixes the shape of `data`",
  source:
    "the proposal-source label (`scripted`, a model's label); in a bench trace, the backend the model answered through " +
    "(`openai-compatible`, `local-engine`, `unnamed`); the same on every record of a run",
  proposal: "the 1-based proposal (Lab) or model turn (bench) the record belongs to; null for run-level records",
  data: "the event's payload, an object whose fields are listed per event below; nothing of it is spread over the envelope",
};

/** What each code of the strict reader means (typed by RecordProblemCode: a code added without its meaning fails tsc). */
const PROBLEM_MEANINGS: Readonly<Record<RecordProblemCode, string>> = {
  not_json_object: "the line is not a JSON object (not JSON, an array, a string, …)",
  wrong_format: "`format` is not this log's format id",
  old_format_version:
    "a record of an older version of this format (version 1): refused, never half-read; rerun with this tca",
  unknown_format_version: "`v` is not 2 and not a known older version (a newer tca wrote it, or it was edited)",
  bad_envelope: "an envelope field is missing, unknown, or of the wrong type (see the envelope table)",
  unknown_event: "`type` is not an event of this catalog",
  unknown_field: "`data` (or an object inside it) has a field the event does not declare",
  missing_field: "`data` lacks a required field",
  wrong_type: "a field of `data` has the wrong type or value (an enum, a bound, a pattern)",
};

const escapeCell = (text: string): string => text.replaceAll("|", "\\|");

function envelopeSection(): string {
  const [first] = DOCUMENTED_CATALOGS;
  const schema = recordSchema(first?.format ?? LAB_AUDIT_FORMAT, first?.catalog ?? LAB_AUDIT_EVENTS, "envelope") as {
    anyOf: { properties: Record<string, unknown> }[];
  };
  const properties = schema.anyOf[0]?.properties ?? {};
  const context: TableContext = { named: [], descriptions: {} };
  const lines = ["| # | field | type | meaning |", "| --- | --- | --- | --- |"];
  ENVELOPE_KEYS.forEach((key, i) => {
    const type =
      key === "format"
        ? "string"
        : key === "type"
          ? "string (an event type)"
          : key === "data"
            ? "object"
            : typeText(properties[key], context);
    lines.push(`| ${i + 1} | \`${key}\` | ${escapeCell(type)} | ${escapeCell(ENVELOPE_MEANINGS[key])} |`);
  });
  return `${lines.join("\n")}\n`;
}

/** A verdict's codes with their meanings, as one table. */
function codeTable(meanings: Readonly<Record<string, string>>): string {
  const lines = ["| code | meaning |", "| --- | --- |"];
  for (const [code, meaning] of Object.entries(meanings)) lines.push(`| \`${code}\` | ${escapeCell(meaning)} |`);
  return `${lines.join("\n")}\n`;
}

function eventsSection(catalogs: readonly DocumentedCatalog[]): string {
  const parts: string[] = [];
  for (const documented of catalogs) {
    const events = Object.keys(documented.catalog);
    const prefix = documented.anchorPrefix ?? "event-";
    parts.push(
      `### ${documented.heading}\n\n` +
        `Format id \`${documented.format}\`, version 2, in \`${documented.file}\`; declared in \`${documented.definedIn}\`. ` +
        `${events.length} events: ${events.map((e) => `[\`${e}\`](#${prefix}${e.replaceAll("_", "-")})`).join(", ")}.\n`,
    );
    for (const event of events) {
      const description = documented.descriptions[event];
      const context: TableContext = { named: documented.named, descriptions: description?.fields ?? {} };
      parts.push(
        `<a id="${prefix}${event.replaceAll("_", "-")}"></a>\n#### \`${event}\`\n\n${description?.meaning ?? ""}\n\n` +
          shapesTable(documented.catalog[event], context),
      );
    }
    for (const named of documented.named)
      parts.push(
        `<a id="${named.anchor}"></a>\n#### Type \`${named.name}\`\n\n${named.meaning}\n\n` +
          shapesTable(named.schema, {
            named: documented.named.filter((n) => n !== named),
            descriptions: named.descriptions,
          }),
      );
  }
  return parts.join("\n");
}

function filesSection(files: readonly DocumentedFile[]): string {
  return files
    .map(
      (file) =>
        `#### ${file.name} (${file.room})\n\nDeclared in \`${file.definedIn}\`; schema \`${file.schemaFile}\`.\n\n` +
        shapesTable(file.schema, { named: [], descriptions: file.descriptions }),
    )
    .join("\n");
}

/** The generated sections by name: the doc holds each between its BEGIN and END markers. */
export function generatedSections(
  catalogs: readonly DocumentedCatalog[] = DOCUMENTED_CATALOGS,
  files: readonly DocumentedFile[] = DOCUMENTED_FILES,
): Readonly<Record<string, string>> {
  return {
    envelope: envelopeSection(),
    "problem-codes": codeTable(PROBLEM_MEANINGS),
    "bench-problem-codes": codeTable(BENCH_PROBLEM_MEANINGS),
    "lab-problem-codes": codeTable(LAB_PROBLEM_MEANINGS),
    events: eventsSection(catalogs),
    "run-files": filesSection(files),
  };
}

/** Field paths named in a file's descriptions that its definition no longer has (a stale description). */
export function staleFileDescriptions(files: readonly DocumentedFile[] = DOCUMENTED_FILES): string[] {
  return files.flatMap((file) => {
    const paths = new Set(fieldPaths(file.schema, { named: [], descriptions: {} }));
    return Object.keys(file.descriptions)
      .filter((path) => !paths.has(path))
      .map((path) => `${file.name}: ${path}`);
  });
}

/** Field paths named in a catalog's descriptions that its events no longer have (a stale description). */
export function staleDescriptions(catalogs: readonly DocumentedCatalog[] = DOCUMENTED_CATALOGS): string[] {
  const stale: string[] = [];
  for (const documented of catalogs)
    for (const [event, description] of Object.entries(documented.descriptions)) {
      if (!Object.hasOwn(documented.catalog, event)) {
        stale.push(`${event} (no such event)`);
        continue;
      }
      const paths = new Set(fieldPaths(documented.catalog[event], { named: documented.named, descriptions: {} }));
      for (const path of Object.keys(description.fields ?? {})) if (!paths.has(path)) stale.push(`${event}.${path}`);
    }
  return stale;
}

const BEGIN = (name: string): string =>
  `<!-- BEGIN GENERATED ${name}: npm run evidence-doc writes this section from the definitions; do not edit -->`;
const END = (name: string): string => `<!-- END GENERATED ${name} -->`;

/** The doc with every generated section replaced; an error names a section whose markers are missing. */
export function withGeneratedSections(doc: string, sections: Readonly<Record<string, string>>): string {
  let out = doc;
  for (const [name, body] of Object.entries(sections)) {
    const begin = out.indexOf(BEGIN(name));
    const end = out.indexOf(END(name));
    if (begin < 0 || end < begin) throw new Error(`docs/evidence-format.md lacks the markers of section "${name}"`);
    out = `${out.slice(0, begin + BEGIN(name).length)}\n\n${body}\n${out.slice(end)}`;
  }
  return out;
}

export const EVIDENCE_FORMAT_DOC = new URL("../docs/evidence-format.md", import.meta.url);

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split("/").pop() ?? "\0")) {
  const doc = readFileSync(EVIDENCE_FORMAT_DOC, "utf8");
  const generated = withGeneratedSections(doc, generatedSections());
  if (process.argv.includes("--check")) {
    if (generated !== doc) {
      process.stderr.write("tca evidence-doc: doc_stale: docs/evidence-format.md (run npm run evidence-doc)\n");
      process.exit(1);
    }
  } else {
    writeFileSync(EVIDENCE_FORMAT_DOC, generated);
    process.stdout.write("tca evidence-doc: docs/evidence-format.md written\n");
  }
}
