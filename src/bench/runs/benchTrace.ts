// The one reader of a task trace (traces/<task>.ndjson): every reader of a trace (the bench verdict
// and its snapshot, verify-run, the report, merge, the scripts) takes its records from here, typed by
// the trace's whole catalog (the agent's events and the task runner's), or the coded problems that
// kept a line from being one. Strict: an unknown event or field, a wrong type, a missing field is a
// problem; a trace of format 1 is refused as old_format_version (made by an older tca: rerun the run;
// docs/evidence-format.md says why there is no reader of format 1 kept).
import { parseBoundedJson } from "../../core/boundedJson.ts";
import { eventReader, type EventOf, type RecordProblemCode } from "../../recording/evidenceEnvelope.ts";
import { formatProblem, type EvidenceProblem } from "../../recording/evidenceProblem.ts";
import { BENCH_TRACE_FORMAT, BENCH_TRACE_OLDER_VERSIONS } from "../agent/taskTrace.ts";
import { AGENT_TRACE_EVENTS } from "../agent/traceEvents.ts";
import { TRACE_RESULT_EVENTS } from "./traceResultEvents.ts";

export { BENCH_TRACE_FORMAT } from "../agent/taskTrace.ts";

/** Every event of a task trace: the agent's, then the task runner's. */
export const BENCH_TRACE_EVENTS = { ...AGENT_TRACE_EVENTS, ...TRACE_RESULT_EVENTS } as const;
export type BenchTraceCatalog = typeof BENCH_TRACE_EVENTS;
export type BenchTraceEventType = keyof BenchTraceCatalog & string;
/** One record of a trace, narrowed by `type`. */
export type BenchTraceRecord = EventOf<BenchTraceCatalog>;
export type BenchTraceRecordOf<K extends BenchTraceEventType> = Extract<BenchTraceRecord, { type: K }>;

/** What keeps a trace line from being a record: the envelope reader's codes, and the file's own. */
export type TraceProblemCode = RecordProblemCode | "truncated_trace" | "not_json" | "json_too_deep";

export interface ParsedTrace {
  /** The lines that are records of the catalog, in order. */
  readonly records: readonly BenchTraceRecord[];
  readonly problems: readonly EvidenceProblem<TraceProblemCode>[];
}

const reader = eventReader(BENCH_TRACE_FORMAT, BENCH_TRACE_EVENTS, BENCH_TRACE_OLDER_VERSIONS);

/**
 * A trace's text as records. `file` names it in problems (its path in the run directory). A torn
 * last line (a kill mid-write) is a problem, never dropped silently; a trace of an older format is
 * one problem for the whole file, not one per line.
 */
export function parseBenchTrace(text: string, file: string): ParsedTrace {
  const records: BenchTraceRecord[] = [];
  const problems: EvidenceProblem<TraceProblemCode>[] = [];
  const lines = text.split("\n");
  const tail = lines.pop();
  for (const [index, line] of lines.entries()) {
    const parsed = parseBoundedJson(line, `${file} line ${index + 1}`);
    if (!parsed.ok) {
      problems.push(
        parsed.error === "json_too_deep"
          ? { code: "json_too_deep", file, line: index + 1, detail: parsed.message }
          : { code: "not_json", file, line: index + 1, detail: "the line is not JSON" },
      );
      continue;
    }
    const read = reader.read(parsed.value, file, index + 1);
    if (read.ok) records.push(read.record);
    else if (read.problem.code === "old_format_version") {
      problems.push({ ...read.problem, detail: `${read.problem.detail}: made by an older tca; rerun the run` });
      return { records: [], problems };
    } else problems.push(read.problem);
  }
  if (tail !== undefined && tail !== "")
    problems.push({
      code: "truncated_trace",
      file,
      line: lines.length + 1,
      detail: "the last line is incomplete (truncated trace)",
    });
  return { records, problems };
}

/** A trace's records, or an error naming every problem (for scripts that stop at the first bad run). */
export function strictTraceRecords(text: string, file: string): readonly BenchTraceRecord[] {
  const parsed = parseBenchTrace(text, file);
  if (parsed.problems.length > 0) throw new Error(parsed.problems.map(formatProblem).join("; "));
  return parsed.records;
}
