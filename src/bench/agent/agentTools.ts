// Executes the model's tool calls against the task's files, after toolPolicy.ts allowed them.
// The target lives in memory here; every run_tests copies it into a fresh sandboxed task
// folder with pristine tests, so nothing the program under test does can persist.
// Every refusal and tool error is logged to the trace and counted.
import type { ProposedToolCall } from "../../sources/openaiCompatibleChat.ts";
import type { Condition } from "./conditions.ts";
import { supportFiles, targetPath, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import type { TraceSink } from "./taskTrace.ts";
import { fillTemplate, PROMPT_TEMPLATES } from "./prompts.ts";
import { progressLine, runProgramTests, type TestRunResult } from "./testRunner.ts";
import { authorizeToolCall, parseToolCall } from "./toolPolicy.ts";
import { sha256Hex } from "../../core/digest.ts";
import { countRefusal, noGuardrailHits, type MutableGuardrails } from "./guardrailCounts.ts";

/** Longest tool result returned to the model (characters); the trace keeps the full text. */
export const OBSERVATION_MAX_CHARS = 12_000;

function bound(text: string): string {
  return text.length <= OBSERVATION_MAX_CHARS
    ? text
    : `${text.slice(0, OBSERVATION_MAX_CHARS)}\n[truncated: ${text.length - OBSERVATION_MAX_CHARS} more characters]`;
}

export function testObservation(result: TestRunResult, timeoutMs: number): string {
  if (result.outcome === "passed")
    return fillTemplate(PROMPT_TEMPLATES.run_tests_passed, {
      progress: progressLine(result.output),
      summary: result.summary,
    }).replace(/ {2,}/g, " ");
  if (result.outcome === "timeout")
    return fillTemplate(PROMPT_TEMPLATES.run_tests_timeout, { seconds: String(Math.round(timeoutMs / 1000)) });
  const tail = result.output.length > 4000 ? result.output.slice(-4000) : result.output;
  return fillTemplate(PROMPT_TEMPLATES.run_tests_failed, { output: tail });
}

export interface AgentToolsOptions {
  readonly dataset: QuixDataset;
  readonly program: QuixProgram;
  readonly condition: Condition;
  readonly sandbox: SandboxConfig;
  readonly trace: TraceSink;
  readonly clock: () => number;
  readonly startedAt: number;
  readonly testTimeoutMs: number;
  readonly includeSlow: boolean;
  /** Milliseconds left in the task's time budget. */
  readonly remainingMs: () => number;
  readonly signal?: AbortSignal;
}

export class AgentTools {
  readonly guardrails: MutableGuardrails = noGuardrailHits();
  private readonly testFiles: ReadonlyMap<string, string>;
  /** Hash of the target content for which run_tests last passed, if any. */
  lastPassedHash: string | undefined;
  /** Hash of the target content for which run_tests last ran. */
  lastRunHash: string | undefined;

  constructor(
    private readonly o: AgentToolsOptions,
    public target: string,
  ) {
    this.testFiles = new Map(supportFiles(o.dataset, o.program).map((f) => [f.path, f.content.toString("utf8")]));
  }

  async execute(call: ProposedToolCall, turn: number): Promise<string> {
    const { trace } = this.o;
    trace.append("tool_call", { id: call.id, name: call.name, arguments: call.argumentsText }, turn);
    const parsed = parseToolCall(call.name, call.argumentsText);
    if (!parsed.ok) {
      this.guardrails.toolErrors++;
      trace.append("tool_error", { id: call.id, error: parsed.error, message: parsed.message }, turn);
      return `Error (${parsed.error}): ${parsed.message}`;
    }
    const decision = authorizeToolCall(this.o.condition, this.o.program.name, [...this.testFiles.keys()], parsed.call);
    if (!decision.allow) {
      countRefusal(this.guardrails, decision.error);
      trace.append(
        "tool_refused",
        {
          id: call.id,
          tool: parsed.call.tool,
          path: "path" in parsed.call ? parsed.call.path : null,
          error: decision.error,
          message: decision.message,
        },
        turn,
      );
      return `Error (${decision.error}): ${decision.message}`;
    }
    const call2 = parsed.call;
    if (call2.tool === "read_file") {
      const path = decision.path ?? "";
      const text = path === targetPath(this.o.program.name) ? this.target : this.testFiles.get(path);
      if (text === undefined) {
        this.guardrails.toolErrors++;
        trace.append("tool_error", { id: call.id, error: "file_not_found" }, turn);
        return "Error (file_not_found): no such file.";
      }
      trace.append("tool_result", { id: call.id, tool: "read_file", path, chars: text.length }, turn);
      return bound(text);
    }
    if (call2.tool === "write_file") {
      this.target = call2.content;
      trace.append(
        "tool_result",
        {
          id: call.id,
          tool: "write_file",
          path: decision.path ?? "",
          chars: call2.content.length,
          sha256: sha256Hex(call2.content),
        },
        turn,
      );
      return `Wrote ${call2.content.length} characters to ${decision.path}.`;
    }
    this.guardrails.testRuns++;
    const timeoutMs = Math.max(1, Math.ceil(Math.min(this.o.testTimeoutMs, this.o.remainingMs())));
    const hash = sha256Hex(this.target);
    const result = await runProgramTests(this.o.sandbox, this.o.dataset, this.o.program, this.target, {
      includeSlow: this.o.includeSlow,
      timeoutMs,
      ...(this.o.signal ? { signal: this.o.signal } : {}),
    });
    this.lastRunHash = hash;
    this.lastPassedHash = result.outcome === "passed" ? hash : undefined;
    const observation = testObservation(result, timeoutMs);
    trace.append(
      "test_run",
      {
        id: call.id,
        purpose: "run_tests",
        targetSha256: hash,
        outcome: result.outcome,
        counts: result.counts,
        seconds: result.seconds,
        exitCode: result.exitCode,
        output: result.output,
      },
      turn,
    );
    return bound(observation);
  }
}
