// The bench replay: one task made again from its start with the harness's own decisions
// (src/bench/agent/harnessDecisions.ts, the functions the agent loop calls) and only what cannot be
// recomputed: the model's recorded replies, the recorded test runs (their counts and output, which
// verify-run re-runs) and the task's original file. Every recorded request must be, digest for
// digest, the request the harness builds from the condition's prompts and tools and the conversation
// so far; every tool call's refusal, error or result, every stop attempt and D's refusals must be
// the decision replayed; the final file, its diff, the claim, the guardrail counts and the stop are
// the replay's, and the record must agree. The trace is read through benchTraceAdapter.ts only.
import { canonicalJson } from "../core/canonicalJson.ts";
import { sha256Hex } from "../core/digest.ts";
import { isRecord } from "../core/isRecord.ts";
import type { ChatTurnMessage, ProposedToolCall } from "../sources/openaiCompatibleChat.ts";
import { CONDITIONS, type AgentBudget, type ConditionId } from "../bench/agent/conditions.ts";
import { noGuardrailHits, type MutableGuardrails } from "../bench/agent/guardrailCounts.ts";
import {
  afterTestRun,
  applyGuardrailEffect,
  assistantMessage,
  boundObservation,
  buildModelRequest,
  decideReply,
  decideStop,
  decideToolCall,
  initialMessages,
  messageSha256,
  NO_TEST_RUN,
  requestSha256,
  testObservation,
  toolMessage,
  TRACE_REPLAY_FORMAT,
  type HarnessEvent,
  type HarnessRequest,
  type TaskStopReason,
  type TestState,
} from "../bench/agent/harnessDecisions.ts";
import { classifyExit, type TestOutcome } from "../bench/agent/testRunner.ts";
import { buggySource, supportFiles, targetPath, type QuixDataset } from "../bench/dataset/dataset.ts";
import { analyzeClaim, type ClaimEvent } from "../bench/results/claimAnalysis.ts";
import { statementsOf } from "../bench/results/claimStatements.ts";
import type { TaskResult } from "../bench/results/taskOutcome.ts";
import { sameModuloTrailingWhitespace, unifiedDiff } from "../bench/results/unifiedDiff.ts";
import type { BenchTraceRecord } from "../bench/runs/benchTrace.ts";
import type { RunManifest } from "../bench/runs/runDirectory.ts";
import type { RecordedTestRun } from "../bench/runRegrade.ts";
import type { RecordedModelTurn } from "../bench/runs/runRegeneration.ts";
import type { EvidenceProblem } from "../recording/evidenceProblem.ts";
import { asClaimEvent, traceEntries, type TraceEntry, type TraceFields } from "./benchTraceAdapter.ts";

export const BENCH_REPLAY_CODES = [
  "replay_inputs_missing",
  "replay_original_invalid",
  "replay_test_files_invalid",
  "replay_budget_differs",
  "replay_seed_differs",
  "replay_event_differs",
  "replay_event_missing",
  "replay_event_extra",
  "replay_request_differs",
  "replay_response_invalid",
  "replay_test_run_invalid",
  "replay_final_differs",
  "replay_diff_differs",
  "replay_stop_differs",
  "replay_guardrails_differ",
  "replay_claim_differs",
  "replay_held_out_seed_differs",
  "replay_grader_differs",
] as const;
export type BenchReplayCode = (typeof BENCH_REPLAY_CODES)[number];
export type BenchReplayProblem = EvidenceProblem<BenchReplayCode>;

/** Events the agent writes; after its stop only the task runner's grade, diff and task_end follow. */
const AFTER_AGENT: ReadonlySet<string> = new Set(["grade", "diff", "task_end"]);

/** What one task's replay gives: whether it ran, and its problems. */
export type TaskReplay =
  | {
      readonly state: "replayed";
      readonly problems: readonly BenchReplayProblem[];
      /** Each run_tests with the version of the file it ran on (verify-run re-runs them). */
      readonly testRuns: readonly RecordedTestRun[];
      /** Each model turn's request as replayed, with what the run recorded for it (verify-run --regenerate re-asks them). */
      readonly modelTurns: readonly RecordedModelTurn[];
    }
  /** The trace predates the replay (its run's fingerprint does not name TRACE_REPLAY_FORMAT). */
  | { readonly state: "predates_replay" };

/** Where the task's files come from: the data set when the caller has it (verify-run), else the trace's own copies. */
export interface ReplayOptions {
  readonly dataset?: QuixDataset;
}

/** A run made by a harness that writes replayable traces (its fingerprint says so). */
export function runIsReplayable(manifest: RunManifest | null): boolean {
  return manifest !== null && manifest.fingerprint.traceReplay === TRACE_REPLAY_FORMAT;
}

class ReplayAbort extends Error {}

/** The replay of one task, with its problems; stops at the first divergence (everything after would differ). */
class TaskReplayer {
  readonly problems: BenchReplayProblem[] = [];
  private cursor = 0;
  /** The events as replayed, in the flat form the claim analysis reads. */
  readonly replayed: ClaimEvent[] = [];
  readonly testRuns: RecordedTestRun[] = [];
  readonly modelTurns: RecordedModelTurn[] = [];

  constructor(
    private readonly file: string,
    private readonly entries: readonly TraceEntry[],
  ) {}

  problem(code: BenchReplayCode, detail: string, entry?: TraceEntry): void {
    this.problems.push({
      code,
      file: this.file,
      ...(entry ? { line: entry.line, event: entry.type } : {}),
      detail,
    });
  }

  /** A problem after which nothing further can be replayed. */
  abort(code: BenchReplayCode, detail: string, entry?: TraceEntry): never {
    this.problem(code, detail, entry);
    throw new ReplayAbort(detail);
  }

  peek(): TraceEntry | undefined {
    return this.entries[this.cursor];
  }

  take(type: string, why: string): TraceEntry {
    const entry = this.entries[this.cursor];
    if (entry === undefined)
      this.abort("replay_event_missing", `the trace ends where the replay expects ${type} (${why})`);
    if (entry.type !== type)
      this.abort("replay_event_missing", `the replay expects ${type} (${why}), the trace has ${entry.type}`, entry);
    this.cursor += 1;
    return entry;
  }

  /** The next recorded event must be exactly the replayed one. */
  expect(event: HarnessEvent, why: string): void {
    const entry = this.take(event.type, why);
    if (canonicalJson(entry.data) !== canonicalJson(event.data))
      this.abort("replay_event_differs", `the recorded ${event.type} is not the harness's decision (${why})`, entry);
    this.replayed.push(asClaimEvent(event));
  }

  /** Whatever the trace holds after the agent stopped must be the task runner's own events. */
  rest(): readonly TraceEntry[] {
    const rest = this.entries.slice(this.cursor);
    const extra = rest.find((entry) => !AFTER_AGENT.has(entry.type));
    if (extra !== undefined)
      this.problem("replay_event_extra", `${extra.type} after the replayed stop of the agent`, extra);
    return rest;
  }
}

function replyOf(
  data: TraceFields,
): { content: string; toolCalls: ProposedToolCall[]; finishReason: string | null } | null {
  if (typeof data.content !== "string" || !Array.isArray(data.toolCalls)) return null;
  if (data.finishReason !== null && typeof data.finishReason !== "string") return null;
  const toolCalls: ProposedToolCall[] = [];
  for (const call of data.toolCalls) {
    if (!isRecord(call) || typeof call.id !== "string" || typeof call.name !== "string") return null;
    if (typeof call.argumentsText !== "string") return null;
    toolCalls.push({ id: call.id, name: call.name, argumentsText: call.argumentsText });
  }
  return { content: data.content, toolCalls, finishReason: data.finishReason };
}

const TEST_OUTCOMES: readonly TestOutcome[] = ["passed", "failed", "timeout", "error"];

function countsOf(value: unknown): { passed: number; failed: number; errors: number; skipped: number } | null {
  if (!isRecord(value)) return null;
  const { passed, failed, errors, skipped } = value;
  return [passed, failed, errors, skipped].every((n) => typeof n === "number" && Number.isInteger(n) && n >= 0)
    ? { passed: passed as number, failed: failed as number, errors: errors as number, skipped: skipped as number }
    : null;
}

interface ReplayStart {
  readonly condition: ConditionId;
  readonly program: string;
  readonly budget: AgentBudget;
  readonly original: string;
  /** Readable test files: path → text when known (the data set), else only their names. */
  readonly testFiles: ReadonlyMap<string, string | undefined>;
  readonly seed: number | undefined;
}

function budgetOf(value: unknown): AgentBudget | null {
  if (!isRecord(value)) return null;
  const { maxTurns, maxTokensPerTurn, taskTimeoutMs } = value;
  return [maxTurns, maxTokensPerTurn, taskTimeoutMs].every((n) => typeof n === "number" && Number.isInteger(n) && n > 0)
    ? {
        maxTurns: maxTurns as number,
        maxTokensPerTurn: maxTokensPerTurn as number,
        taskTimeoutMs: taskTimeoutMs as number,
      }
    : null;
}

/** task_start's replay inputs, checked against the run (budget, seed) and, when given, the data set. */
function startOf(
  r: TaskReplayer,
  start: TraceEntry,
  task: TaskResult,
  manifest: RunManifest,
  options: ReplayOptions,
): ReplayStart {
  const data = start.data;
  if (typeof data.original !== "string" || !isRecord(data.testFiles))
    r.abort("replay_inputs_missing", "task_start records no original file or test files to replay from", start);
  const original = data.original;
  if (sha256Hex(original) !== data.originalSha256)
    r.abort("replay_original_invalid", "the recorded original file does not match its recorded SHA-256", start);
  const program = options.dataset?.programs.find((p) => p.name === task.program);
  if (options.dataset !== undefined && program === undefined)
    r.abort("replay_original_invalid", `the data set has no program ${task.program}`, start);
  if (options.dataset !== undefined && buggySource(options.dataset, task.program).toString("utf8") !== original)
    r.abort("replay_original_invalid", "the recorded original file is not the data set's", start);
  const recordedFiles = data.testFiles;
  if (!Object.values(recordedFiles).every((sha) => typeof sha === "string"))
    r.abort("replay_test_files_invalid", "task_start's test files are not path → SHA-256", start);
  const testFiles = new Map<string, string | undefined>(Object.keys(recordedFiles).map((path) => [path, undefined]));
  if (options.dataset !== undefined && program !== undefined) {
    const files = supportFiles(options.dataset, program);
    const same = files.length === testFiles.size && files.every((f) => recordedFiles[f.path] === sha256Hex(f.content));
    if (!same) r.abort("replay_test_files_invalid", "task_start's test files are not the data set's", start);
    for (const f of files) testFiles.set(f.path, f.content.toString("utf8"));
  }
  const budget = budgetOf(data.budget);
  if (budget === null || canonicalJson(budget) !== canonicalJson(manifest.fingerprint.budget))
    r.abort("replay_budget_differs", "task_start's budget is not run.json's", start);
  // The sampling seed is the plan's: repeat r of a repeated run uses seed r - 1 (benchmarkRun.ts).
  const repeat = task.repeat ?? 1;
  const repeated = (manifest.repeats ?? 1) > 1 || repeat > 1;
  const seed = data.seed;
  if (seed !== undefined && seed !== repeat - 1)
    r.abort("replay_seed_differs", `task_start's seed is not repeat ${repeat}'s`, start);
  if (seed === undefined && repeated && repeat > 1)
    r.abort("replay_seed_differs", `repeat ${repeat} records no sampling seed`, start);
  return {
    condition: task.condition,
    program: task.program,
    budget,
    original,
    testFiles,
    seed: typeof seed === "number" ? seed : undefined,
  };
}

/** What the replay made of the agent: the file it left, its stop, claim and counts. */
interface AgentReplay {
  final: string;
  stopReasons: readonly TaskStopReason[];
  claimed: boolean;
  turns: number;
  protocolFindings: number;
  guardrails: MutableGuardrails;
}

/** The conversation so far, with each message's digest (null: a test file read whose bytes only the data set has). */
interface Conversation {
  readonly messages: ChatTurnMessage[];
  readonly digests: (string | null)[];
}

function push(conversation: Conversation, message: ChatTurnMessage, known = true): void {
  conversation.messages.push(message);
  conversation.digests.push(known ? messageSha256(message) : null);
}

/** model_request: every message digest the replay can rebuild equals the recorded one, and so does the request's. */
function checkRequest(
  r: TaskReplayer,
  entry: TraceEntry,
  conversation: Conversation,
  start: ReplayStart,
  turn: number,
): HarnessRequest {
  const data = entry.data;
  const recorded = data.messageSha256s;
  if (!Array.isArray(recorded) || typeof data.requestSha256 !== "string")
    r.abort("replay_inputs_missing", `turn ${turn}'s model_request records no request digest`, entry);
  if (
    data.turn !== turn ||
    data.messages !== conversation.messages.length ||
    recorded.length !== conversation.messages.length
  )
    r.abort("replay_request_differs", `turn ${turn}'s request is not the conversation replayed so far`, entry);
  const digests = conversation.digests.map((digest, index) => {
    const at = recorded[index];
    if (typeof at !== "string")
      r.abort("replay_request_differs", `turn ${turn}'s message digest ${index} is not a digest`, entry);
    if (digest !== null && digest !== at)
      r.abort(
        "replay_request_differs",
        `turn ${turn}'s message ${index} (${conversation.messages[index]!.role}) is not the replayed one`,
        entry,
      );
    return at;
  });
  // A message the replay could not rebuild takes the recorded digest, which every later request must repeat.
  digests.forEach((digest, index) => (conversation.digests[index] = digest));
  const condition = CONDITIONS[start.condition];
  const request = buildModelRequest(condition, conversation.messages, start.budget, start.seed);
  if (requestSha256(digests, request) !== data.requestSha256)
    r.abort("replay_request_differs", `turn ${turn}'s request digest is not the request the harness builds`, entry);
  return request;
}

/** test_run: on the replayed version, its outcome the one its exit code and counts give; the observation rebuilt. */
function testRunOf(
  r: TaskReplayer,
  entry: TraceEntry,
  call: ProposedToolCall,
  target: string,
  turn: number,
): { tests: TestState; observation: string } {
  const data = entry.data;
  const hash = sha256Hex(target);
  if (data.turn !== turn || data.id !== call.id || data.purpose !== "run_tests")
    r.abort("replay_test_run_invalid", `the test run is not the one of call ${call.id}`, entry);
  if (data.targetSha256 !== hash)
    r.abort("replay_test_run_invalid", "the test run is not of the replayed version of the file", entry);
  const outcome = TEST_OUTCOMES.find((o) => o === data.outcome);
  const counts = countsOf(data.counts);
  const exitCode = data.exitCode === null || typeof data.exitCode === "number" ? data.exitCode : undefined;
  if (outcome === undefined || counts === null || exitCode === undefined || typeof data.output !== "string")
    r.abort("replay_test_run_invalid", "the test run records no outcome, counts, exit code or output", entry);
  // D's decisions rest on this outcome: it must follow from the recorded counts and exit code.
  if (outcome !== "timeout" && classifyExit(exitCode, false, counts) !== outcome)
    r.abort(
      "replay_test_run_invalid",
      `outcome ${outcome} does not follow from the recorded counts and exit code`,
      entry,
    );
  if (typeof data.summary !== "string" || typeof data.timeoutMs !== "number")
    r.abort(
      "replay_inputs_missing",
      "the test run records no summary or timeout to rebuild its observation from",
      entry,
    );
  r.replayed.push(asClaimEvent(entry));
  r.testRuns.push({ id: call.id, target, outcome, counts, timeoutMs: data.timeoutMs });
  return {
    tests: afterTestRun(hash, outcome),
    observation: boundObservation(
      testObservation({ outcome, output: data.output, summary: data.summary }, data.timeoutMs),
    ),
  };
}

function withRecordedLength(r: TaskReplayer, event: HarnessEvent): HarnessEvent {
  const chars = r.peek()?.data.chars;
  // The recorded length stands in for the read's (a test file's bytes are not in the trace); the
  // event is compared, never written, so the widened data is only read by canonicalJson.
  return typeof chars === "number" ? ({ type: event.type, data: { ...event.data, chars } } as HarnessEvent) : event;
}

/** The model_error's stop reasons the agent loop may have chosen (one of them depends on the clock). */
function stopsAfterModelError(error: unknown): readonly TaskStopReason[] {
  if (error === "model_timeout") return ["time_budget"];
  if (error === "model_context_limit") return ["context_limit", "time_budget"];
  return ["model_error", "time_budget"];
}

function replayAgent(r: TaskReplayer, start: ReplayStart, startEntry: TraceEntry): AgentReplay {
  const condition = CONDITIONS[start.condition];
  const conversation: Conversation = { messages: [], digests: [] };
  for (const message of initialMessages(condition, start.program, start.original)) push(conversation, message);
  r.replayed.push(asClaimEvent(startEntry));
  const state: AgentReplay = {
    final: start.original,
    stopReasons: [],
    claimed: false,
    turns: 0,
    protocolFindings: 0,
    guardrails: noGuardrailHits(),
  };
  let tests = NO_TEST_RUN;
  let incomplete = false;
  const known = new Map([...start.testFiles].filter((e): e is [string, string] => e[1] !== undefined));
  const readable = new Map([...start.testFiles.keys()].map((path) => [path, known.get(path) ?? ""]));
  for (;;) {
    if (state.turns >= start.budget.maxTurns) {
      state.stopReasons = ["turn_budget"];
      break;
    }
    const next = r.peek();
    // The loop stops before a request only on its clock (or a cancellation, never recorded as a result).
    if (next?.type !== "model_request") {
      state.stopReasons = ["time_budget"];
      break;
    }
    const turn = state.turns + 1;
    const request = checkRequest(r, r.take("model_request", `turn ${turn}`), conversation, start, turn);
    // A copy: the conversation grows after this turn. A message the replay could not rebuild (a test
    // file read without the data set) leaves the request incomplete: it cannot be sent again.
    const asked = { ...request, messages: [...request.messages] };
    const complete = !incomplete;
    const replyEntry = r.peek();
    if (replyEntry?.type === "model_error") {
      r.take("model_error", `turn ${turn}`);
      r.modelTurns.push({
        turn,
        request: asked,
        complete,
        recorded: { kind: "error", error: String(replyEntry.data.error) },
      });
      state.turns = turn;
      state.stopReasons = stopsAfterModelError(replyEntry.data.error);
      break;
    }
    const response = r.take("model_response", `turn ${turn}`);
    const reply = replyOf(response.data);
    if (reply === null || response.data.turn !== turn)
      r.abort(
        "replay_response_invalid",
        `turn ${turn}'s model response has no content, tool calls or finish reason`,
        response,
      );
    state.turns = turn;
    r.modelTurns.push({
      turn,
      request: asked,
      complete,
      recorded: {
        kind: "response",
        ...reply,
        exchangeRequest: isRecord(response.data.exchange) ? response.data.exchange.request : undefined,
      },
    });
    r.replayed.push(asClaimEvent(response));
    push(conversation, assistantMessage(condition, reply));
    const meaning = decideReply(condition, reply, turn);
    if (meaning.kind === "end") {
      for (const event of meaning.events) r.expect(event, `turn ${turn}'s reply`);
      if (meaning.file !== undefined) state.final = meaning.file;
      if (meaning.protocolFinding) state.protocolFindings++;
      state.claimed = meaning.claimed;
      state.stopReasons = [meaning.stopReason];
      break;
    }
    if (meaning.kind === "tool_calls") {
      for (const call of reply.toolCalls) {
        const decision = decideToolCall(condition, start.program, readable, state.final, call, turn);
        // A test file read without the data set: its bytes (and so its length) are the data set's, taken as recorded.
        const unknown = decision.kind === "done" && decision.readPath !== undefined && !known.has(decision.readPath);
        for (const event of decision.events)
          r.expect(
            unknown && event.type === "tool_result" ? withRecordedLength(r, event) : event,
            `call ${call.id} of turn ${turn}`,
          );
        applyGuardrailEffect(state.guardrails, decision.effect);
        if (decision.kind === "done") {
          state.final = decision.target;
          push(conversation, toolMessage(call, decision.observation), !unknown);
          if (unknown) incomplete = true;
          continue;
        }
        const run = testRunOf(r, r.take("test_run", `call ${call.id} of turn ${turn}`), call, state.final, turn);
        tests = run.tests;
        push(conversation, toolMessage(call, run.observation));
      }
      continue;
    }
    const stop = decideStop(condition, state.final, tests, turn);
    for (const event of stop.events) r.expect(event, `turn ${turn}'s stop`);
    if (!stop.accepted) {
      applyGuardrailEffect(state.guardrails, stop.effect);
      push(conversation, stop.message);
      continue;
    }
    state.claimed = true;
    state.stopReasons = ["agent_done"];
    break;
  }
  const reason = state.stopReasons[0];
  if (
    state.stopReasons.length === 1 &&
    (reason === "turn_budget" || reason === "time_budget" || reason === "context_limit")
  )
    r.expect({ type: "budget_exhausted", data: { reason, turns: state.turns } }, "the budget's end");
  else if (r.peek()?.type === "budget_exhausted") {
    const entry = r.take("budget_exhausted", "the budget's end");
    if (!state.stopReasons.includes(entry.data.reason as TaskStopReason) || entry.data.turns !== state.turns)
      r.abort("replay_event_differs", "the recorded budget end is not the replayed stop", entry);
  }
  return state;
}

/** The record's claims about the agent against the replay's. */
function compareWithRecord(
  r: TaskReplayer,
  agent: AgentReplay,
  original: string,
  task: TaskResult,
  rest: readonly TraceEntry[],
): void {
  if (sha256Hex(agent.final) !== task.finalSha256)
    r.problem("replay_final_differs", "the recorded final SHA-256 is not the replayed final file's");
  const changed = !sameModuloTrailingWhitespace(original, agent.final);
  const diffs = rest.filter((entry) => entry.type === "diff");
  const endEntry = rest.find((entry) => entry.type === "task_end");
  const recordedDiffs = [...diffs.map((entry) => entry.data.diff), ...(endEntry ? [endEntry.data.diff] : [])];
  const replayedDiff = unifiedDiff(targetPath(task.program), original, agent.final);
  if (changed !== task.changed)
    r.problem(
      "replay_diff_differs",
      `the replayed file is ${changed ? "" : "not "}changed, the record says ${String(task.changed)}`,
    );
  else if (recordedDiffs.some((diff) => diff !== replayedDiff))
    r.problem("replay_diff_differs", "the recorded diff is not the diff of the replayed final file");
  if (!agent.stopReasons.includes(task.stopReason))
    r.problem(
      "replay_stop_differs",
      `the record stops on ${task.stopReason}, the replay on ${agent.stopReasons.join(" or ")}`,
    );
  if (agent.claimed !== task.claimedFixed)
    r.problem(
      "replay_stop_differs",
      `the record says claimedFixed ${String(task.claimedFixed)}, the replay ${String(agent.claimed)}`,
    );
  if (agent.turns !== task.turns)
    r.problem("replay_stop_differs", `the record has ${task.turns} turns, the replay ${agent.turns}`);
  if (task.protocolFindings !== undefined && task.protocolFindings !== agent.protocolFindings)
    r.problem(
      "replay_stop_differs",
      `the record has ${task.protocolFindings} protocol findings, the replay ${agent.protocolFindings}`,
    );
  const recorded = task.guardrails as Readonly<Record<string, unknown>>;
  const differing = Object.entries(agent.guardrails).filter(([name, n]) => recorded[name] !== n);
  if (differing.length > 0)
    r.problem(
      "replay_guardrails_differ",
      `the replayed guardrail counts differ (${differing.map(([name, n]) => `${name} ${n}, recorded ${String(recorded[name])}`).join("; ")})`,
    );
  const claim = analyzeClaim(r.replayed);
  if (task.claim !== undefined && canonicalJson(claim) !== canonicalJson(task.claim))
    r.problem(
      "replay_claim_differs",
      `the replayed claim is ${claim?.kind ?? "none"}, the record's ${task.claim?.kind ?? "none"}`,
    );
  if (task.statements !== undefined && canonicalJson(statementsOf(r.replayed)) !== canonicalJson(task.statements))
    r.problem("replay_claim_differs", "the statements of the replayed events differ from the record's");
}

/** The grade's held-out seed and grader are the run's: task_start's seed, and run.json's when it records one. */
function compareGrading(r: TaskReplayer, start: TraceEntry, task: TaskResult, manifest: RunManifest): void {
  const seed = task.grade.heldOut?.seed;
  const environment = manifest.environment;
  if (seed !== undefined && start.data.heldOutSeed !== seed)
    r.problem("replay_held_out_seed_differs", "the grade's held-out seed is not the one the task started with", start);
  const single = manifest.resumedAt === undefined && manifest.mergedFrom === undefined;
  if (single && typeof environment.heldOutSeed === "number" && start.data.heldOutSeed !== environment.heldOutSeed)
    r.problem("replay_held_out_seed_differs", "the task's held-out seed is not run.json's", start);
  if (
    typeof environment.grader === "string" &&
    task.grade.grader !== undefined &&
    task.grade.grader !== environment.grader
  )
    r.problem("replay_grader_differs", `graded by ${task.grade.grader}, run.json's grader is ${environment.grader}`);
}

/**
 * Replays the task whose trace records are `records` (file: its path in the run folder). A run whose
 * fingerprint predates the replay is not replayed (the caller shows it); any other trace must replay.
 */
export function replayTask(
  file: string,
  records: readonly BenchTraceRecord[],
  task: TaskResult,
  manifest: RunManifest,
  options: ReplayOptions = {},
): TaskReplay {
  if (!runIsReplayable(manifest)) return { state: "predates_replay" };
  const r = new TaskReplayer(file, traceEntries(records));
  try {
    const startEntry = r.take("task_start", "the task's start");
    const start = startOf(r, startEntry, task, manifest, options);
    const agent = replayAgent(r, start, startEntry);
    compareWithRecord(r, agent, start.original, task, r.rest());
    compareGrading(r, startEntry, task, manifest);
  } catch (error) {
    if (!(error instanceof ReplayAbort)) throw error;
  }
  return { state: "replayed", problems: r.problems, testRuns: r.testRuns, modelTurns: r.modelTurns };
}
