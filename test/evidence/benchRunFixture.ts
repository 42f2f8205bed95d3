// A bench run folder of any size, written through the bench's own writers (writeManifest,
// appendTaskResult, writeResults, the trace's FileTrace), for the bench verdict's tests
// and for its speed figure (bench/verdict.bench.ts: 40 programs x 4 conditions = 160 tasks).
// The traces carry model replies and test output of realistic size (a few kB per event).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONDITION_IDS, type ConditionId } from "../../src/bench/agent/conditions.ts";
import {
  appendTaskResult,
  prepareRunDir,
  RUN_FILES,
  runBinding,
  writeManifest,
  writeResults,
  type RunManifest,
} from "../../src/bench/runs/runDirectory.ts";
import { classifyOutcome, type TaskResult } from "../../src/bench/results/taskOutcome.ts";
import type { TestOutcome } from "../../src/bench/agent/testRunner.ts";
import { sha256Hex } from "../../src/core/digest.ts";
import { FileTrace } from "../../src/bench/agent/taskTrace.ts";
import type { BenchTraceCatalog } from "../../src/bench/runs/benchTrace.ts";
import type { ClaimEvent } from "../../src/bench/results/claimAnalysis.ts";
import { statementsOf } from "../../src/bench/results/claimStatements.ts";
import { measureFixSize } from "../../src/bench/results/fixSize.ts";
import { modelRequestData, modelResponseData, taskStartData, testRunData } from "../bench/traceFixtures.ts";

export interface BenchFixtureOptions {
  readonly programs: number;
  /** Turns per task (each: a request, a reply, a tool call and its result). */
  readonly turns: number;
  /** Guardrail counts of the task with this id (default: one test run, nothing refused). */
  readonly guardrails?: (taskId: string) => Partial<TaskResult["guardrails"]>;
  /**
   * Records carry the document's statements along the way and a fix size: task k's first reply
   * says, by k % 4, nothing, "was already correct", "the tests are wrong" or announces a fix it
   * never makes; its statements are computed from the trace by the bench's statementsOf, and a
   * changed task's fix size by measureFixSize (one buggy line, or, every third, a rewrite).
   */
  readonly alongTheWay?: boolean;
}

/** The prose of task k's first reply when alongTheWay is set (see BenchFixtureOptions). */
export const ALONG_THE_WAY_PROSE = [
  "",
  "\nThe original code was already correct.",
  "\nThe tests are wrong.",
  "\nI will fix the function now.",
] as const;

/** A function of four lines replaced whole: a rewrite by measureFixSize's rule. */
const REWRITE_ORIGINAL = "def f(a, b):\n    x = a\n    y = b\n    return x\n";
const REWRITE_FINAL = "def f(a, b):\n    p = b\n    q = a\n    return p\n";

const FILLER = "def gcd(a, b):\n    if b == 0:\n        return a\n    return gcd(b, a % b)\n".repeat(24);

/** Writes the run into `dir` (created) and returns the task records written to tasks.ndjson. */
export function writeBenchRun(dir: string, options: BenchFixtureOptions): TaskResult[] {
  mkdirSync(dir, { recursive: true });
  prepareRunDir(dir);
  const programs = Array.from({ length: options.programs }, (_, i) => `program_${String(i).padStart(2, "0")}`);
  const manifest: RunManifest = {
    schema: 1,
    kind: "quixbugs-run",
    createdAt: "2026-01-01T00:00:00.000Z",
    fingerprint: { model: "scripted", promptSetVersion: 1, budget: { turns: options.turns } },
    model: { label: "scripted" },
    conditions: [...CONDITION_IDS],
    programs,
    shard: null,
    environment: { note: "verdict fixture" },
  };
  writeManifest(dir, manifest);
  const results: TaskResult[] = [];
  let index = 0;
  for (const program of programs) {
    for (const condition of CONDITION_IDS as readonly ConditionId[]) {
      index += 1;
      const taskId = `${condition}-${program}`;
      const grade: TestOutcome = index % 3 === 0 ? "failed" : "passed";
      const changed = index % 5 !== 0;
      const stopReason = "agent_done" as const;
      const diff = changed
        ? `--- a/${program}.py\n+++ b/${program}.py\n@@ -1 +1 @@\n-    return a\n+    return b\n`
        : "";
      const tracePath = `${RUN_FILES.traces}/${taskId}.ndjson`;
      let result: TaskResult = {
        taskId,
        program,
        condition,
        outcome: classifyOutcome(grade, stopReason, changed),
        stopReason,
        claimedFixed: true,
        falseFixed: grade !== "passed",
        turns: options.turns,
        promptTokens: 900,
        completionTokens: 300,
        tokens: 1200,
        usageReported: true,
        seconds: 12.5,
        guardrails: {
          testRuns: options.turns,
          blockedWrites: 0,
          blockedReads: 0,
          testEditAttempts: 0,
          referenceReadAttempts: 0,
          toolErrors: 0,
          refusedStopAttempts: 0,
          ...options.guardrails?.(taskId),
        },
        grade: {
          outcome: grade,
          counts: { passed: grade === "passed" ? 8 : 5, failed: grade === "passed" ? 0 : 3, errors: 0, skipped: 0 },
          seconds: 1.2,
          summary: "graded",
        },
        changed,
        finalSha256: sha256Hex(`${program}${index}`),
        specialCasing: null,
        servedModel: "scripted",
      };
      // Through the typed writer (src/bench/agent/taskTrace.ts), on a clock set before each event.
      let now = 0;
      const trace = new FileTrace<BenchTraceCatalog>(join(dir, tracePath), {
        runId: manifest.createdAt,
        source: "scripted",
        clock: () => now,
      });
      const at = (t: number): void => {
        now = t;
      };
      // The events the statements are computed from, as the verdict reads them back from the trace.
      const events: ClaimEvent[] = [];
      const startData = taskStartData({ taskId, program, condition, run: runBinding(manifest) });
      trace.append("task_start", startData);
      events.push({ type: "task_start", data: startData });
      for (let turn = 1; turn <= options.turns; turn++) {
        at(turn * 10);
        trace.append("model_request", modelRequestData(turn * 2), turn);
        at(turn * 10 + 5);
        const prose = options.alongTheWay === true && turn === 1 ? ALONG_THE_WAY_PROSE[index % 4]! : "";
        const response = {
          ...modelResponseData(FILLER + prose),
          toolCalls: [{ id: `call-${turn}`, name: "run_tests", argumentsText: "{}" }],
        };
        trace.append("model_response", response, turn);
        events.push({ type: "model_response", data: response });
        at(turn * 10 + 6);
        trace.append("tool_call", { id: `call-${turn}`, name: "run_tests", arguments: "{}" }, turn);
        at(turn * 10 + 8);
        trace.append("test_run", { ...testRunData(sha256Hex(FILLER), "failed", FILLER), id: `call-${turn}` }, turn);
      }
      // The events the record's counts and claim stand for: the verdict recounts them from here.
      const g = result.guardrails;
      at(900);
      const refused = (tool: string, error: string, n: number): void => {
        for (let k = 0; k < n; k++)
          trace.append("tool_refused", { id: "call-1", tool, path: null, error, message: "refused" }, 1);
      };
      refused("read_file", "read_reference_fix", g.referenceReadAttempts);
      refused("read_file", "read_not_allowed", g.blockedReads - g.referenceReadAttempts);
      refused("write_file", "write_to_tests", g.testEditAttempts);
      refused("write_file", "write_not_allowed", g.blockedWrites - g.testEditAttempts);
      at(901);
      for (let k = 0; k < g.toolErrors; k++)
        trace.append("tool_error", { id: "call-1", error: "invalid_arguments" }, 1);
      at(902);
      for (let k = 0; k < g.refusedStopAttempts; k++)
        trace.append("stop_attempt", { accepted: false, refusal: "run the tests first" }, 1);
      at(903);
      trace.append("stop_attempt", { accepted: true }, options.turns);
      at(1000);
      trace.append("grade", { ...result.grade, output: "graded" });
      at(1001);
      if (changed) trace.append("diff", { diff });
      if (options.alongTheWay === true) {
        result = {
          ...result,
          statements: statementsOf(events),
          fixSize: changed
            ? measureFixSize(
                index % 3 === 1 ? REWRITE_ORIGINAL : "def f(a, b):\n    return a\n",
                index % 3 === 1 ? REWRITE_FINAL : "def f(a, b):\n    return b\n",
                "def f(a, b):\n    return b\n",
              )
            : null,
        };
      }
      at(1002);
      trace.append("task_end", { result: { ...result }, diff });
      let recorded: TaskResult = { ...result, tracePath };
      if (changed) {
        const diffPath = `${RUN_FILES.diffs}/${taskId}.diff`;
        writeFileSync(join(dir, diffPath), diff);
        recorded = { ...recorded, diffPath };
      }
      appendTaskResult(dir, recorded);
      results.push(recorded);
    }
  }
  writeResults(dir, manifest, results, results.length);
  return results;
}
