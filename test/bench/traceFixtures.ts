// Whole data objects of trace events (src/bench/agent/traceEvents.ts), for tests that write a trace
// through the typed writer or build records of the v2 envelope by hand.
import { encodeRecord, EVIDENCE_FORMAT_VERSION, type DataOf } from "../../src/recording/evidenceEnvelope.ts";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  BENCH_TRACE_FORMAT,
  parseBenchTrace,
  type BenchTraceCatalog,
  type BenchTraceEventType,
  type BenchTraceRecord,
} from "../../src/bench/runs/benchTrace.ts";
import { formatProblem } from "../../src/recording/evidenceProblem.ts";
import type { AgentTraceCatalog } from "../../src/bench/agent/traceEvents.ts";

const H0 = "0".repeat(64);

export function taskStartData(
  overrides: Partial<DataOf<AgentTraceCatalog, "task_start">> = {},
): DataOf<AgentTraceCatalog, "task_start"> {
  return {
    taskId: "C-gcd",
    program: "gcd",
    condition: "C",
    budget: { maxTurns: 10, maxTokensPerTurn: 512, taskTimeoutMs: 300_000 },
    target: "python_programs/gcd.py",
    originalSha256: H0,
    programSha256: H0,
    original: "",
    testFiles: {},
    tools: ["read_file", "write_file", "run_tests"],
    attempt: 1,
    repeat: 1,
    ...overrides,
  };
}

const EXCHANGE = { request: {}, response: {}, httpStatus: 200, elapsedMs: 1 };

export function modelResponseData(content: string): DataOf<AgentTraceCatalog, "model_response"> {
  return {
    content,
    toolCalls: [],
    finishReason: "stop",
    usage: { promptTokens: null, completionTokens: null, source: "none" },
    servedModel: null,
    exchange: EXCHANGE,
  };
}

export function testRunData(
  targetSha256: string,
  outcome: "passed" | "failed",
  output = "",
): DataOf<AgentTraceCatalog, "test_run"> {
  return {
    id: "call-1",
    purpose: "run_tests",
    targetSha256,
    outcome,
    counts: { passed: outcome === "passed" ? 1 : 0, failed: outcome === "failed" ? 1 : 0, errors: 0, skipped: 0 },
    seconds: 0.1,
    exitCode: outcome === "passed" ? 0 : 1,
    output,
    summary: "",
    timeoutMs: 60_000,
  };
}

/** A model_request's data for a conversation of `messages` messages (its digests are placeholders). */
export function modelRequestData(messages: number): DataOf<AgentTraceCatalog, "model_request"> {
  return { messages, messageSha256s: Array.from({ length: messages }, () => H0), requestSha256: H0 };
}

/** One trace line of the v2 envelope (a hand-built trace; a run's traces come from FileTrace). */
export function traceLine<K extends keyof BenchTraceCatalog & string>(
  type: K,
  data: DataOf<BenchTraceCatalog, K>,
  envelope: { readonly eventId?: number; readonly tMs?: number; readonly proposal?: number | null } = {},
): string {
  return encodeRecord<BenchTraceCatalog, K>({
    format: BENCH_TRACE_FORMAT,
    v: EVIDENCE_FORMAT_VERSION,
    run_id: "2026-01-01T00:00:00.000Z",
    event_id: envelope.eventId ?? 1,
    t_ms: envelope.tMs ?? 0,
    type,
    source: "scripted",
    proposal: envelope.proposal ?? null,
    data,
  });
}

/** A run's trace file through the one trace reader, which must find no problem in it. */
export function readTraceRecords(path: string): readonly BenchTraceRecord[] {
  const parsed = parseBenchTrace(readFileSync(path, "utf8"), path);
  assert.deepEqual(parsed.problems.map(formatProblem), [], `${path} is a strict trace`);
  return parsed.records;
}

/** The data of a trace's records of one type, in order. */
export function dataOf<K extends BenchTraceEventType>(
  records: readonly BenchTraceRecord[],
  type: K,
): DataOf<BenchTraceCatalog, K>[] {
  return records.flatMap((r) => (r.type === type ? [r.data as DataOf<BenchTraceCatalog, K>] : []));
}
