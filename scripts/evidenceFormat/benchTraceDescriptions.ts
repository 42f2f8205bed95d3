// What each bench trace event (traces/<task>.ndjson) and its fields mean, for docs/evidence-format.md.
// Typed by the trace's catalog (src/bench/runs/benchTrace.ts): an event added to or removed from it
// without its meaning here fails tsc, and test/docs/evidenceFormatDoc.test.ts fails when a field named
// here is no longer in the event's data. Data keys are camelCase (the trace's since format 1); the model
// turn an event belongs to is the envelope's `proposal`.
import type { BenchTraceEventType } from "../../src/bench/runs/benchTrace.ts";
import type { EventDescription } from "./labAuditDescriptions.ts";

const exchange = {
  exchange: "the raw model exchange, kept verbatim",
  "exchange.request": "the request body as sent (the endpoint's or the local engine's own)",
  "exchange.response": "the response body as parsed",
  "exchange.httpStatus": "the HTTP status; null for the local engine or no response",
  "exchange.elapsedMs": "how long the call took",
  "exchange.retries": "requests retried after a transient failure (429, 502-504, connection refused)",
};

export const BENCH_TRACE_DESCRIPTIONS: Readonly<Record<BenchTraceEventType, EventDescription>> = {
  task_start: {
    meaning: "The task starts: which program under which condition, its budget, and what the run was when it started.",
    fields: {
      taskId: "`<condition>-<program>`",
      budget: "turns, tokens per turn and milliseconds the task may spend",
      target: "the program file the agent may change, relative to the task folder",
      originalSha256: "sha256 of the buggy program as given to the agent",
      original: "the program as the task began, whole (bound by originalSha256): where the bench replay starts",
      testFiles:
        "the files the tool policy lets C and D read, path → sha256: the replay authorizes and rebuilds reads against them",
      heldOutSeed: "the seed of the held-out grading inputs the task is graded with (the grade must name the same)",
      programSha256: "digest of the data set's files for this program (verify-run checks its data set against it)",
      run: "the run's labels when the task started (run.json's fingerprint digest, label, plan); the verdict checks them",
      tools: "the tools offered, by name (none: condition A)",
      attempt: "1, or the next number when --resume redid the task",
      repeat: "which of --repeats k runs this is",
      seed: "the sampling seed sent with every request (repeats only)",
    },
  },
  model_request: {
    meaning: "A request to the model for this turn.",
    fields: {
      messages: "how many chat messages the request holds",
      messageSha256s: "each message's sha256 of its canonical JSON, in order: the replay rebuilds every one",
      requestSha256: "sha256 of the request: the message digests, the tools, the token limit and the seed",
    },
  },
  model_error: {
    meaning: "The model call failed; the task ends (a model error, or out of budget past the deadline).",
    fields: {
      error: "the chat error code (model_http_error, model_timeout, ...)",
      message: "a short message",
      retries: "how many requests were retried",
      ...exchange,
    },
  },
  model_response: {
    meaning: "The model's reply for this turn, as returned.",
    fields: {
      content: "the reply's text, verbatim (tool calls parsed out of it by a local engine are not in it)",
      toolCalls: "the tool calls proposed, arguments unparsed",
      finishReason: "stop, tool_calls, length, ... as reported; null if absent",
      usage: "token counts: by the server, by the local engine, or none",
      servedModel: "the model name the server says answered",
      ...exchange,
    },
  },
  stop_attempt: {
    meaning: "The model asked to stop (or, under condition A, answered); `accepted` is the harness's decision.",
    fields: {
      accepted: "whether the harness accepted the stop (an accepted stop is the claim of done)",
      codeBlock: "condition A: whether the answer held a code block",
      truncated: "the reply was cut at the token limit: never a claim",
      malformedToolCall: "the reply held only malformed tool calls as text",
      refusal: "condition D: the harness's refusal, as sent to the model",
    },
  },
  protocol_finding: {
    meaning: "The reply held tool calls as text: the endpoint did not parse them, or the model's own were malformed.",
    fields: { kind: "tool_calls_as_text or malformed_tool_call_text", blocks: "how many blocks the text held" },
  },
  tool_call: {
    meaning: "A tool call the model proposed, before the policy decides on it.",
    fields: { id: "the call's id", name: "the tool", arguments: "the arguments' JSON text, unparsed" },
  },
  tool_error: {
    meaning: "A tool call that could not run: unparseable arguments, an unknown tool, a file that is not there.",
    fields: { error: "the tool error code", message: "a short message, when the policy gave one" },
  },
  tool_refused: {
    meaning: "A tool call the condition's policy refused (a write to the tests, a read of the reference fix, ...).",
    fields: {
      tool: "the tool",
      path: "the path asked for; null for a tool without one",
      error: "the refusal's code (it moves the guardrail counters)",
      message: "the message the model was sent",
    },
  },
  tool_result: {
    meaning: "A read or a write the policy allowed. The trace keeps sizes and digests, not the file text.",
    fields: {
      path: "the file read or written",
      chars: "its length in characters",
      sha256: "write_file: sha256 of the content written",
    },
  },
  test_run: {
    meaning: "The model's run_tests: pytest on the current file in a fresh sandbox. Feedback only, never the grade.",
    fields: {
      targetSha256: "sha256 of the file the tests ran on",
      outcome: "pytest's outcome",
      counts: "pytest's counts",
      seconds: "how long the run took",
      exitCode: "pytest's exit code; null when it was stopped",
      output: "pytest's full output",
      summary: "pytest's final summary line, from which the replay rebuilds the model's observation",
      timeoutMs: "the timeout the run had, in milliseconds (part of the observation)",
    },
  },
  budget_exhausted: {
    meaning: "The task ran out of turns, time or context.",
    fields: { reason: "which budget", turns: "the turns taken" },
  },
  task_interrupted: {
    meaning: "Cancelled (Ctrl-C): the task is not graded and not recorded; --resume redoes it.",
    fields: { stage: "where the cancellation caught it", seconds: "how long it had run", note: "what happens next" },
  },
  grade: {
    meaning: "The trusted grader's grade of the file the agent left (public and held-out cases), with its output.",
    fields: { output: "the grader's full output" },
  },
  diff: {
    meaning: "The unified diff of the file against the buggy program; only when the task changed it.",
    fields: { diff: "the diff's text (the same bytes as diffs/<task>.diff)" },
  },
  task_end: {
    meaning: "The task's result: the record tasks.ndjson holds, less its paths. Always the trace's last record.",
    fields: {
      result: "the task record (see tasks.ndjson below), without tracePath and diffPath",
      diff: "the diff's text; empty when unchanged",
    },
  },
};
