// What each bench trace event (traces/<task>.ndjson) and its fields mean, for docs/evidence-format.md.
// Kept beside the generator, as the Lab's are (labAuditDescriptions.ts says why). Typed by the catalog:
// an event added to or removed from BENCH_TRACE_EVENTS without its meaning here fails tsc, and
// test/docs/evidenceFormatDoc.test.ts fails when a field named here is no longer in the event's data.
import type { BenchTraceEventType } from "../../src/bench/runs/benchTrace.ts";
import type { EventDescription } from "./labAuditDescriptions.ts";

export const BENCH_TRACE_DESCRIPTIONS: Readonly<Record<BenchTraceEventType, EventDescription>> = {
  task_start: {
    meaning:
      "The first record of every trace: which task, under which condition and budget, on which file. `proposal` " +
      "is null. Everything a replay of the task needs that is not a model response is named here or in run.json.",
    fields: {
      taskId: "`<condition>-<program>`",
      condition: "A (one-shot), B (no tests), C (with tests) or D (verified completion)",
      budget: "the turn, token and time budget the task was held to",
      target: "the path of the program in the task folder, as the tools name it",
      originalSha256: "sha256 of the program as the task began (the data set's buggy version)",
      programSha256: "the data set program's digest (programDigest), bound to run.json's dataset identity",
      original: "the program as the task began, whole (bound by originalSha256): where the bench replay starts",
      testFiles:
        "the files the tool policy lets C and D read, path → sha256: the replay authorizes and rebuilds reads against them",
      run: "the run's labels when the task started: a trace copied into another run does not match it",
      tools: "the tools offered to the model under this condition, by name",
      attempt: "1, or the attempt number when --resume redid the task",
      repeat: "1, or k under --repeats",
      seed: "the sampling seed sent with each request, when the run set one",
      heldOutSeed: "the seed of the held-out grading inputs the task is graded with (the grade must name the same)",
    },
  },
  model_request: {
    meaning: "A request is about to be sent to the model. `proposal` is the turn (1-based).",
    fields: {
      messages: "how many messages the request holds",
      messageSha256s: "each message's sha256 of its canonical JSON, in order: the replay rebuilds every one",
      requestSha256: "sha256 of the request: the message digests, the tools, the token limit and the seed",
    },
  },
  model_error: {
    meaning: "The model call failed (transport, HTTP status, timeout, context limit); the task stops.",
    fields: {
      error: "the stable error code",
      message: "a short explanation",
      exchange: "the raw exchange, verbatim",
      retries: "how many retries were made before giving up",
    },
  },
  model_response: {
    meaning: "The model's reply to the turn's request, as received. `proposal` is the turn.",
    fields: {
      content: "the reply's text",
      toolCalls: "the tool calls the reply made, arguments as the text the model wrote",
      finishReason: "the server's finish reason (`length`: cut off at the token limit)",
      usage: "token counts, and who counted them (server, local engine, or none)",
      servedModel: "the model name the server reported",
      exchange: "the raw exchange: request and response bodies, HTTP status, time, retries",
    },
  },
  stop_attempt: {
    meaning:
      "The model asked to stop (a reply without tool calls), or condition A answered; `accepted` is the harness's " +
      "decision. Under D a stop before a passing test run on the current file is refused with `refusal`.",
    fields: {
      accepted: "whether the harness ended the task on this stop",
      codeBlock: "condition A: whether the answer held a code block (the file A is graded on)",
      truncated: "the reply was cut off at the token limit: never a claim",
      malformedToolCall: "the reply held tool-call text the harness could not parse",
      refusal: "condition D: the harness's refusal, exactly as sent to the model",
    },
  },
  protocol_finding: {
    meaning: "The reply held tool calls written as text instead of tool calls; counted, never executed.",
    fields: { kind: "what was found", blocks: "how many such blocks" },
  },
  tool_call: {
    meaning: "One tool call of the turn's reply, before the policy decides on it.",
    fields: { id: "the call's id", name: "the tool named", arguments: "the arguments, as the text the model wrote" },
  },
  tool_error: {
    meaning: "The call could not run: bad arguments, unknown tool, a missing file.",
    fields: { id: "the call's id", error: "the stable error code", message: "a short explanation" },
  },
  tool_refused: {
    meaning:
      "The condition's tool policy refused the call (a path outside the task folder, a test file, a tool not offered).",
    fields: {
      id: "the call's id",
      tool: "the tool named",
      path: "the path asked for, when the call named one",
      error: "the stable refusal code",
      message: "the refusal, as sent to the model",
    },
  },
  tool_result: {
    meaning: "The call ran: a read (how much was returned) or a write (the new file's digest).",
    fields: {
      id: "the call's id",
      tool: "read_file or write_file",
      path: "the file read or written",
      chars: "characters read or written",
      sha256: "write_file: sha256 of the file written",
    },
  },
  test_run: {
    meaning:
      "The model's run_tests call (conditions C and D): the public tests on the current file in a fresh sandbox, " +
      "and what the model was shown. D's stop rule is decided from these.",
    fields: {
      id: "the call's id",
      purpose: "always run_tests (the trusted grade is the grade event)",
      targetSha256: "sha256 of the file tested",
      outcome: "passed, failed, timeout or error",
      counts: "the tests' counts",
      seconds: "the run's wall time",
      exitCode: "pytest's exit code, null when it was killed",
      output: "pytest's output as shown to the model (bounded)",
      summary: "pytest's final summary line, from which the replay rebuilds the model's observation",
      timeoutMs: "the timeout the run had, in milliseconds (part of the observation)",
    },
  },
  budget_exhausted: {
    meaning: "The task ran out of turns, time or context before the model stopped.",
    fields: { reason: "which budget", turns: "turns used" },
  },
  task_interrupted: {
    meaning: "The run was cancelled during the task: not graded, not recorded; --resume redoes it (a new attempt).",
    fields: { stage: "agent or grading", seconds: "time into the task", note: "what happens next" },
  },
  grade: {
    meaning:
      "The trusted grade of the file the agent left: public tests and held-out cases in the grader's sandbox, " +
      "never the model's own test runs.",
    fields: {
      outcome: "passed, failed, timeout or error",
      counts: "the public tests' counts",
      seconds: "the grade's wall time",
      summary: "one line for people",
      grader: "the grader's id (GRADER_ID)",
      reason: "why the grade is not a pass, when known",
      fixedPublic: "the headline: every public test passed",
      fixedWithHeldOut: "the public tests and every held-out case passed (null: held-out not run)",
      heldOut: "the held-out cases: seed, passed, total, dropped",
      excluded: "public tests excluded from the count, by name (a slow test without --include-slow)",
      output: "the grader's full output",
    },
  },
  diff: {
    meaning: "The unified diff from the original program to the file the agent left (only when it changed).",
    fields: { diff: "the diff's text; diffs/<task>.diff holds the same bytes" },
  },
  task_end: {
    meaning: "The last record: the task record as appended to tasks.ndjson (less its paths) and the diff.",
    fields: {
      result: "the task record; the verdict requires it to equal the one in tasks.ndjson",
      diff: "the diff again",
    },
  },
};
