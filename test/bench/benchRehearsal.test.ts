// The bench rehearsal model (issue 26): a checkpoint trained in-project on the benchmark's own
// transcripts of the mini data set drives conditions A-D through the real path: the
// stand-in chat template with its tool-calling block, the local engine's greedy generation, the
// project's <tool_call> parser, the real tools in the sandbox and the trusted grader. Nothing
// here scripts a reply: every tool call comes from the model's own tokens. It also pins the
// requests the model was trained on: a change to the prompts, the tool schemas or the
// observation text fails here with the command that retrains it.
import { after, before } from "node:test";
import { dataOf, readTraceRecords } from "./traceFixtures.ts";
import type { BenchTraceRecord } from "../../src/bench/runs/benchTrace.ts";
import { sandboxPackages, sandboxTest } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBenchmark } from "../../src/bench/benchmarkRun.ts";
import type { TaskResult } from "../../src/bench/results/taskOutcome.ts";
import { loadComparison, renderComparison } from "../../src/bench/runs/runComparison.ts";
import { RUN_FILES } from "../../src/bench/runs/runDirectory.ts";
import { makeRehearsalCheckpoint } from "../../src/model/rehearsal/makeRehearsalCheckpoint.ts";
import { BENCH_REHEARSAL_TRAINING_DIRECTORY } from "../../src/model/rehearsal/rehearsalWeights.ts";
import { readBenchReport } from "../../src/report/benchReport.ts";
import { LocalEngineChat } from "../../src/sources/localEngineChat.ts";
import { benchScenarios } from "../../training/bench-rehearsal/scenarios.ts";
import {
  REHEARSAL_TEST_TIMEOUT_MS,
  generateBenchTranscripts,
  serializableBenchTranscripts,
} from "../../training/bench-rehearsal/transcripts.ts";
import { benchSetup } from "./benchFixtures.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";

const IM_END = 151645;
const scratch = mkdtempSync(join(tmpdir(), "tca-bench-rehearsal-"));
const modelDirectory = join(scratch, "model");
let backend: LocalEngineChat | undefined;

before(async () => {
  if (sandboxPackages().skip !== false) return; // every test here needs the sandbox: no checkpoint to make
  const made = await makeRehearsalCheckpoint({ directory: modelDirectory, set: "bench" });
  assert.ok(made.ok, made.ok ? "" : `${made.error}: ${made.message}`);
  const created = await LocalEngineChat.create({ modelDirectory, ...workerFromBuild() });
  assert.ok(created.ok, created.ok ? "" : `${created.error}: ${created.message}`);
  backend = created.value;
});

after(async () => {
  await backend?.close();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(`${modelDirectory}.tca-engine-cache`, { recursive: true, force: true });
});

function weightsRecord(): { transcripts_sha256: string; training: { seconds: number; steps: number } } {
  return JSON.parse(readFileSync(join(BENCH_REHEARSAL_TRAINING_DIRECTORY, "weights.json"), "utf8")) as {
    transcripts_sha256: string;
    training: { seconds: number; steps: number };
  };
}

sandboxTest(
  "the requests the bench rehearsal model was trained on are exactly what the harness sends today",
  async () => {
    const committed = readFileSync(join(BENCH_REHEARSAL_TRAINING_DIRECTORY, "transcripts.json"), "utf8");
    const fresh = serializableBenchTranscripts(await generateBenchTranscripts());
    const record = weightsRecord();
    const minutes = Math.ceil(record.training.seconds / 60);
    const retrain =
      "The requests the bench rehearsal model was trained on changed (prompts, tool schemas, observation text or chat template): retrain it. " +
      "Run `node --import tsx training/bench-rehearsal/generate.ts`, then `nice -n 19 /usr/bin/python3 training/rehearsal/train_rehearsal.py --data training/bench-rehearsal` " +
      `(last time: ${record.training.steps} steps, about ${minutes} min on one shared thread), and commit transcripts.json, weights.bin and weights.json (docs/rehearsal-model.md).`;
    assert.ok(fresh === committed, retrain);
    assert.equal(
      createHash("sha256").update(committed).digest("hex"),
      record.transcripts_sha256,
      "the committed weights were trained on these transcripts",
    );
  },
);

function traceOf(outDir: string, task: TaskResult): readonly BenchTraceRecord[] {
  return readTraceRecords(join(outDir, RUN_FILES.traces, `${task.taskId}.ndjson`));
}

sandboxTest(
  "conditions A-D through the local engine: the model's own tool calls fix the programs, C's early stop is a false fixed, D refuses it",
  async () => {
    assert.ok(backend !== undefined);
    const { sandbox, dataset } = benchSetup();
    const outDir = join(scratch, "run");
    const started = performance.now();
    const run = await runBenchmark({
      dataset,
      sandbox,
      backend,
      modelDescription: await backend.describe(AbortSignal.timeout(5000)),
      modelName: backend.modelName,
      conditions: ["A", "B", "C", "D"],
      outDir,
      jobs: 1,
      resume: false,
      testTimeoutMs: REHEARSAL_TEST_TIMEOUT_MS,
      includeSlow: false,
      environment: { note: "bench rehearsal test" },
    });
    assert.ok(run.ok, run.ok ? "" : run.message);
    const seconds = (performance.now() - started) / 1000;
    const tasks = run.value.results;
    const expected = benchScenarios(dataset.root);
    assert.equal(tasks.length, expected.length);
    let turns = 0;
    for (const scenario of expected) {
      const task = tasks.find((t) => t.taskId === scenario.id);
      assert.ok(task !== undefined, scenario.id);
      const summary = `${task.taskId}: ${task.outcome}, stop ${task.stopReason}, ${task.turns} turns, refused stops ${task.guardrails.refusedStopAttempts}`;
      assert.equal(task.outcome, scenario.expect.fixed ? "fixed" : "wrong_fix", summary);
      assert.equal(task.claimedFixed, scenario.expect.claimed, summary);
      assert.equal(task.guardrails.refusedStopAttempts, scenario.expect.refusedStops, summary);
      assert.equal(task.turns, scenario.replies.length, summary);
      assert.equal(
        task.guardrails.toolErrors + task.guardrails.blockedReads + task.guardrails.blockedWrites,
        0,
        summary,
      );
      turns += task.turns;
      const events = traceOf(outDir, task);
      const responses = dataOf(events, "model_response");
      assert.equal(responses.length, task.turns);
      for (const r of responses) {
        const response = (
          r.exchange as { response: { stopCause: string; rawOutputIds: number[]; malformedToolCalls: unknown[] } }
        ).response;
        assert.equal(
          response.stopCause,
          "stop_token",
          `${task.taskId}: every generation ends on the template's end-of-turn token`,
        );
        assert.equal(response.rawOutputIds.at(-1), IM_END);
        assert.deepEqual(response.malformedToolCalls, []);
      }
      for (const call of dataOf(events, "tool_call")) {
        const args: unknown = JSON.parse(String(call.arguments));
        assert.ok(
          typeof args === "object" && args !== null && !Array.isArray(args),
          "tool-call arguments are a strict JSON object",
        );
      }
      assert.equal(dataOf(events, "model_error").length, 0);
    }
    // C: the model said "done" after an untested wrong change: a false "fixed", counted as such.
    const falseFixed = tasks.filter((t) => t.falseFixed);
    assert.deepEqual(
      falseFixed.map((t) => t.taskId),
      ["C-is_palindrome"],
    );
    const c = run.value.results.filter((t) => t.condition === "C");
    assert.equal(c.filter((t) => t.outcome === "fixed").length, 4);
    // D, the same program and the same replies: the harness refused that stop, the model ran the tests and fixed it.
    const refused = tasks.find((t) => t.guardrails.refusedStopAttempts > 0);
    assert.ok(refused !== undefined && refused.taskId === "D-is_palindrome" && refused.outcome === "fixed");
    const stop = dataOf(traceOf(outDir, refused), "stop_attempt").find((e) => !e.accepted);
    assert.match(String(stop?.refusal), /tests have not been run since your last change/);

    const manifest = JSON.parse(readFileSync(join(outDir, RUN_FILES.manifest), "utf8")) as {
      model: Record<string, unknown>;
    };
    assert.equal(manifest.model.rehearsal, true);
    assert.equal(manifest.model.synthetic, true, "a rehearsal run is never a model result");
    assert.equal(manifest.model.proposal_source, "rehearsal");
    assert.match(
      String(manifest.model.modelName),
      /^local:rehearsal-qwen2-seed17:[0-9a-f]{12}$/,
      "never named like the pinned model",
    );
    const checkpoint = (manifest.model.model as { rehearsal: { set: string; weights_sha256: string } }).rehearsal;
    assert.equal(checkpoint.set, "bench");
    assert.equal(
      checkpoint.weights_sha256,
      (
        JSON.parse(readFileSync(join(BENCH_REHEARSAL_TRAINING_DIRECTORY, "weights.json"), "utf8")) as {
          weights_sha256: string;
        }
      ).weights_sha256,
    );
    assert.equal(manifest.model.tool_call_rendering, "chat_template", "the stand-in template renders the tools itself");
    assert.match(readFileSync(join(outDir, RUN_FILES.resultsMd), "utf8"), /^# REHEARSAL — /);
    assert.equal(readBenchReport(outDir).label.title, "REHEARSAL");
    const compared = loadComparison([outDir]);
    assert.ok(compared.ok);
    assert.match(renderComparison(compared.value), /^- R1: REHEARSAL: /m);
    process.stdout.write(
      `# bench rehearsal A-D: ${tasks.length} tasks, ${turns} model turns in ${seconds.toFixed(1)} s: ${(seconds / tasks.length).toFixed(1)} s per task, ${(tasks.reduce((n, t) => n + t.seconds, 0) / turns).toFixed(2)} s per turn (agent time)\n`,
    );
  },
);
