// One task, start to end: the agent runs (agent/agentLoop.ts) and stops; then the harness grades
// the file it left with the trusted grader (grading/) in a fresh sandbox, diffs it against the
// buggy program, checks a passing fix for special-casing, and classifies the outcome
// (results/taskOutcome.ts), never from what the model said. The grade, the diff and the result
// are written to the task's trace after the agent's own events.
import { sha256Hex } from "../core/digest.ts";
import type { StepHook } from "../core/stepHook.ts";
import { runAgentLoop, type AgentTaskContext } from "./agent/agentLoop.ts";
import { TeeTrace, type TraceLog } from "./agent/taskTrace.ts";
import type { AgentTraceCatalog } from "./agent/traceEvents.ts";
import type { BenchTraceCatalog } from "./runs/benchTrace.ts";
import { referenceFixSource, supportFiles, targetPath } from "./dataset/dataset.ts";
import { heldOutCases, processHeldOutSeed } from "./grading/heldOutCases.ts";
import { gradeProgram, gradeRecordOf } from "./grading/trustedGrader.ts";
import { checkSpecialCasing } from "./results/specialCasing.ts";
import { analyzeClaim, ClaimRecorder } from "./results/claimAnalysis.ts";
import { statementsOf } from "./results/claimStatements.ts";
import { measureFixSize } from "./results/fixSize.ts";
import { classifyTask, FIXED_MEANS, type TaskResult } from "./results/taskOutcome.ts";
import { sameModuloTrailingWhitespace, unifiedDiff } from "./results/unifiedDiff.ts";

export interface TaskContext extends Omit<AgentTaskContext, "hook" | "trace"> {
  /** The task's trace: the agent's events, then the grade, the diff and the result (runs/benchTrace.ts). */
  readonly trace: TraceLog<BenchTraceCatalog>;
  /** Seed of the held-out grading inputs (default: one per process, recorded in every grade). */
  readonly heldOutSeed?: number;
  /** Crash injection for tests: a model call or the grading run in flight (src/core/stepHook.ts). */
  readonly hook?: StepHook<"modelCall" | "grading">;
}

/** A task stopped by cancellation: not a result. The run does not record it, so --resume redoes it. */
export interface TaskInterruption {
  readonly interrupted: true;
  readonly taskId: string;
  /** Where the cancellation caught the task. */
  readonly stage: "agent" | "grading";
  readonly seconds: number;
}

export function isInterruption(x: TaskResult | TaskInterruption): x is TaskInterruption {
  return "interrupted" in x;
}

export async function runTask(ctx: TaskContext): Promise<TaskResult | TaskInterruption> {
  const { program, trace, clock } = ctx;
  // The claim analysis reads the agent's own trace events, kept in memory beside the trace file.
  const claimEvents = new ClaimRecorder();
  const heldOutSeed = ctx.heldOutSeed ?? processHeldOutSeed();
  const agent = await runAgentLoop({
    ...ctx,
    heldOutSeed,
    trace: new TeeTrace<AgentTraceCatalog>([trace, claimEvents]),
  });
  if ("interrupted" in agent) return agent;
  const { original, final, stopReason } = agent;
  // Grading gets the full test timeout, not what is left of the task's budget; only a
  // cancellation (Ctrl-C) cuts it short, and a cancelled task is not recorded.
  // The grade is the trusted grader's (grading/): public and held-out cases, compared outside
  // the sandbox; the model's run_tests (pytest) is feedback only.
  const heldOut = await heldOutCases(ctx.sandbox, ctx.dataset, program, heldOutSeed);
  const grading = gradeProgram(ctx.sandbox, ctx.dataset, program, final, {
    includeSlow: ctx.includeSlow,
    timeoutMs: ctx.testTimeoutMs,
    heldOut,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (ctx.hook) await ctx.hook("grading", agent.taskId);
  const grade = await grading;
  // Cancelled while grading: the grade is not a grade (the run was cut short), so nothing is recorded.
  if (ctx.signal?.aborted) {
    const seconds = Math.round((clock() - agent.startedAt) / 10) / 100;
    trace.append("task_interrupted", {
      stage: "grading",
      seconds,
      note: "cancelled: not graded, not recorded; --resume redoes this task",
    });
    return { interrupted: true, taskId: agent.taskId, stage: "grading", seconds };
  }
  const gradeRecord = gradeRecordOf(grade);
  trace.append("grade", { ...gradeRecord, output: grade.output });
  const changed = !sameModuloTrailingWhitespace(original, final);
  const diff = unifiedDiff(targetPath(program.name), original, final);
  if (changed) trace.append("diff", { diff });
  // "fixed" is the document's: every public case passes; held-out is a finding beside it.
  const { outcome, falseFixed, falseFixedHeldOut } = classifyTask(
    gradeRecord,
    stopReason,
    changed,
    agent.claimedFixed,
    FIXED_MEANS,
  );
  const testTexts = supportFiles(ctx.dataset, program)
    .filter((f) => f.path !== "conftest.py")
    .map((f) => f.content.toString("utf8"));
  const result: TaskResult = {
    taskId: agent.taskId,
    program: agent.program,
    condition: agent.condition,
    outcome,
    stopReason,
    claimedFixed: agent.claimedFixed,
    falseFixed,
    fixedMeans: FIXED_MEANS,
    falseFixedHeldOut,
    claim: analyzeClaim(claimEvents.events),
    statements: statementsOf(claimEvents.events),
    // Measured in the harness after grading; the reference fix never enters the sandbox.
    fixSize: changed
      ? measureFixSize(original, final, referenceFixSource(ctx.dataset, program.name).toString("utf8"))
      : null,
    turns: agent.turns,
    promptTokens: agent.promptTokens,
    completionTokens: agent.completionTokens,
    tokens: agent.promptTokens + agent.completionTokens,
    usageReported: agent.usageReported,
    seconds: agent.seconds,
    guardrails: agent.guardrails,
    grade: gradeRecord,
    changed,
    finalSha256: sha256Hex(final),
    specialCasing: outcome === "fixed" && changed ? checkSpecialCasing(original, final, testTexts) : null,
    servedModel: agent.servedModel,
    modelRetries: agent.modelRetries,
    protocolFindings: agent.protocolFindings,
    attempt: ctx.attempt ?? 1,
    repeat: ctx.repeat ?? 1,
  };
  const { tracePath: _tracePath, diffPath: _diffPath, ...recorded } = result;
  trace.append("task_end", { result: recorded, diff });
  return result;
}
