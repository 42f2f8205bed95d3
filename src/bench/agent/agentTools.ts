// Executes the model's tool calls against the task's files, after toolPolicy.ts allowed them.
// The target lives in memory here; every run_tests copies it into a fresh sandboxed task
// folder with pristine tests, so nothing the program under test does can persist.
// Every refusal and tool error is logged to the trace and counted.
import type { ProposedToolCall } from "../../sources/openaiCompatibleChat.ts";
import type { Condition } from "./conditions.ts";
import { supportFiles, type QuixDataset, type QuixProgram } from "../dataset/dataset.ts";
import type { SandboxConfig } from "../sandbox/sandbox.ts";
import type { TraceSink } from "./taskTrace.ts";
import { runProgramTests } from "./testRunner.ts";
import { sha256Hex } from "../../core/digest.ts";
import { noGuardrailHits, type MutableGuardrails } from "./guardrailCounts.ts";
import {
  afterTestRun,
  appendHarnessEvent,
  applyGuardrailEffect,
  boundObservation,
  decideToolCall,
  testObservation,
} from "./harnessDecisions.ts";

// The observation texts and the tool decisions are harnessDecisions.ts's (the replay's too).
export { OBSERVATION_MAX_CHARS, testObservation } from "./harnessDecisions.ts";

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
    const decision = decideToolCall(this.o.condition, this.o.program.name, this.testFiles, this.target, call, turn);
    for (const event of decision.events) appendHarnessEvent(trace, event);
    applyGuardrailEffect(this.guardrails, decision.effect);
    if (decision.kind === "done") {
      this.target = decision.target;
      return decision.observation;
    }
    const timeoutMs = Math.max(1, Math.ceil(Math.min(this.o.testTimeoutMs, this.o.remainingMs())));
    const hash = sha256Hex(this.target);
    const result = await runProgramTests(this.o.sandbox, this.o.dataset, this.o.program, this.target, {
      includeSlow: this.o.includeSlow,
      timeoutMs,
      ...(this.o.signal ? { signal: this.o.signal } : {}),
    });
    const tests = afterTestRun(hash, result.outcome);
    this.lastRunHash = tests.lastRunHash;
    this.lastPassedHash = tests.lastPassedHash;
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
        // What the replay rebuilds the model's observation from (testObservation).
        summary: result.summary,
        timeoutMs,
      },
      turn,
    );
    return boundObservation(observation);
  }
}
