// The bench run's assembly, called directly (issue 32: no CLI between the test and the logic):
// every option conflict refused with its code before anything is touched, the run folder's
// name, the REHEARSAL / PIPELINE CHECK label from the model description and from the endpoint,
// and the data set check cache's events.
import { test } from "node:test";
import { createServer, type AddressInfo, type Socket } from "node:net";
import assert from "node:assert/strict";
import {
  checkRunOptions,
  DEFAULT_PREFLIGHT_TIMEOUT_S,
  openBackend,
  runLabel,
  runOutputFolder,
  unknownPrograms,
  type BenchRunFlags,
  type BenchRunSettings,
} from "../../src/bench/benchRunSetup.ts";
import { PIPELINE_CHECK_LINE, REHEARSAL_LINE } from "../../src/bench/results/resultsSummary.ts";
import { SCRIPTED_MODEL_ID, startRoutedServer } from "./scriptedChatServer.ts";

const OPENAI: BenchRunFlags = { backend: "openai", endpoint: "http://127.0.0.1:9/v1", model: "m", conditions: "A,B" };
const LOCAL: BenchRunFlags = { backend: "local", modelDirectory: "/models/x", conditions: "A" };

function refused(flags: BenchRunFlags, env: Record<string, string> = {}): { error: string; message: string } {
  const r = checkRunOptions(flags, env, 4);
  assert.equal(r.ok, false, `expected a refusal of ${JSON.stringify(flags)}`);
  return r.ok ? { error: "", message: "" } : { error: r.error, message: r.message };
}

function accepted(flags: BenchRunFlags, env: Record<string, string> = {}): BenchRunSettings {
  const r = checkRunOptions(flags, env, 4);
  assert.ok(r.ok, r.ok ? "" : `${r.error}: ${r.message}`);
  return r.value;
}

test("defaults: openai with the core count's jobs, local with one; 60 s tests, greedy, one repeat, the preflight's default", () => {
  const openai = accepted(OPENAI);
  assert.equal(openai.backend, "openai");
  assert.deepEqual(openai.conditions, ["A", "B"]);
  assert.equal(openai.jobs, 4);
  assert.equal(openai.testTimeoutMs, 60_000);
  assert.equal(openai.repeats, 1);
  assert.equal(openai.temperature, 0);
  assert.equal(openai.thinking, "off");
  assert.equal(openai.preflightTimeoutMs, DEFAULT_PREFLIGHT_TIMEOUT_S * 1000);
  assert.equal(openai.shard, undefined);
  assert.equal(openai.apiKey, undefined);
  const local = accepted(LOCAL);
  assert.equal(local.backend, "local");
  assert.equal(local.jobs, 1);
  assert.equal(local.thinking, undefined);
});

test("each option conflict and bad value is refused with invalid_option and a message naming the option", () => {
  const cases: [BenchRunFlags, Record<string, string>, RegExp][] = [
    [{ ...OPENAI, backend: "remote" }, {}, /--backend takes openai or local/],
    [{ backend: "local", conditions: "A" }, {}, /--backend local needs --model-directory/],
    [{ ...LOCAL, endpoint: "http://x/v1" }, {}, /belong to --backend openai/],
    [{ ...LOCAL, model: "m" }, {}, /belong to --backend openai/],
    [{ ...LOCAL, apiKeyEnv: "K" }, {}, /belong to --backend openai/],
    [{ ...LOCAL, thinking: "on" }, {}, /belong to --backend openai/],
    [{ ...LOCAL, disableThinking: true }, {}, /belong to --backend openai/],
    [{ ...LOCAL, pipelineCheck: true }, {}, /belong to --backend openai/],
    [{ ...LOCAL, preflightTimeout: "5" }, {}, /belong to --backend openai/],
    [{ backend: "openai", model: "m", conditions: "A" }, {}, /needs --endpoint URL and --model NAME/],
    [{ backend: "openai", endpoint: "http://x/v1", conditions: "A" }, {}, /needs --endpoint URL and --model NAME/],
    [{ ...OPENAI, modelDirectory: "/m" }, {}, /--model-directory belongs to --backend local/],
    [{ ...OPENAI, conditions: "A,E" }, {}, /--conditions takes a list of A, B, C, D/],
    [{ ...OPENAI, jobs: "0" }, {}, /--jobs and --test-timeout take positive integers/],
    [{ ...OPENAI, testTimeout: "1.5" }, {}, /--jobs and --test-timeout take positive integers/],
    [{ ...OPENAI, shard: "5/4" }, {}, /--shard takes i\/n/],
    [{ ...OPENAI, shard: "1/4", shardCount: "4" }, {}, /--shard and --shard-count exclude each other/],
    [{ ...OPENAI, shardFrom: "slurm" }, {}, /--shard-from needs --shard-count/],
    [{ ...OPENAI, shardCount: "4" }, {}, /neither is set/],
    [{ ...OPENAI, shardCount: "4" }, { SLURM_ARRAY_TASK_ID: "4" }, /outside 0\.\.3/],
    [{ ...OPENAI, repeats: "101" }, {}, /--repeats takes an integer 1\.\.100/],
    [{ ...OPENAI, temperature: "2.5" }, {}, /--temperature takes a number 0\.\.2/],
    [{ ...OPENAI, temperature: "-1" }, {}, /--temperature takes a number 0\.\.2/],
    [{ ...OPENAI, hardware: "a\nb" }, {}, /--hardware takes one line/],
    [{ ...OPENAI, hardware: "  " }, {}, /--hardware takes one line/],
    [{ ...OPENAI, hardware: "x".repeat(201) }, {}, /--hardware takes one line/],
    [{ ...OPENAI, preflightTimeout: "0" }, {}, /--preflight-timeout takes whole seconds/],
    [{ ...OPENAI, preflightTimeout: "3601" }, {}, /--preflight-timeout takes whole seconds/],
    [{ ...OPENAI, apiKeyEnv: "TCA_TEST_KEY" }, {}, /environment variable TCA_TEST_KEY is empty/],
    [{ ...OPENAI, thinking: "maybe" }, {}, /--thinking takes off, on, server-default/],
    [{ ...OPENAI, thinking: "on", disableThinking: true }, {}, /contradicts --thinking on/],
  ];
  for (const [flags, env, message] of cases) {
    const r = refused(flags, env);
    assert.equal(r.error, "invalid_option", JSON.stringify(flags));
    assert.match(r.message, message, JSON.stringify(flags));
  }
});

test("values that parse: the shard from Slurm's environment, the key from its variable or OPENAI_API_KEY, thinking, programs", () => {
  const s = accepted(
    { ...OPENAI, shardCount: "4", shardFrom: "slurm", apiKeyEnv: "K", thinking: "on", programs: "gcd, ,bitcount" },
    { SLURM_ARRAY_TASK_ID: "2", K: "secret" },
  );
  assert.deepEqual(s.shard, { index: 3, count: 4, from: "slurm" });
  assert.equal(s.apiKey, "secret");
  assert.equal(s.thinking, "on");
  assert.deepEqual(s.programs, ["gcd", "bitcount"]);
  assert.equal(accepted(OPENAI, { OPENAI_API_KEY: "k2" }).apiKey, "k2");
  assert.equal(accepted(OPENAI, { OPENAI_API_KEY: "" }).apiKey, undefined);
  assert.equal(accepted({ ...OPENAI, preflightTimeout: "7" }).preflightTimeoutMs, 7000);
  assert.deepEqual(unknownPrograms(["gcd", "gcdd"], { programs: [{ name: "gcd" }] }), ["gcdd"]);
  assert.deepEqual(unknownPrograms(undefined, { programs: [] }), []);
});

test("the run folder: --out as given, else bench-runs/quixbugs-<model>-<time>; --shard-count adds the shard's folder", () => {
  const now = new Date("2026-01-02T03:04:05.678Z");
  assert.deepEqual(runOutputFolder({ backend: "openai", model: "Qwen/Qwen3 8B" }, undefined, now, "/w"), {
    base: "/w/bench-runs/quixbugs-Qwen_Qwen3_8B-2026-01-02T03-04-05-678Z",
    outDir: "/w/bench-runs/quixbugs-Qwen_Qwen3_8B-2026-01-02T03-04-05-678Z",
  });
  assert.equal(
    runOutputFolder({ backend: "local" }, undefined, now, "/w").outDir.startsWith("/w/bench-runs/quixbugs-local-"),
    true,
  );
  const shard = { index: 2, count: 4, from: "slurm" as const };
  assert.deepEqual(
    runOutputFolder({ backend: "openai", model: "m", out: "runs/a", shardCount: "4" }, shard, now, "/w"),
    {
      base: "/w/runs/a",
      outDir: "/w/runs/a/shard-2-of-4",
    },
  );
  // Every array task without --out names the same base folder (no timestamp).
  assert.equal(
    runOutputFolder({ backend: "openai", model: "m", shardCount: "4" }, shard, now, "/w").outDir,
    "/w/bench-runs/quixbugs-m-indexed/shard-2-of-4",
  );
  // --shard i/n (not from a scheduler) writes into --out itself.
  assert.equal(
    runOutputFolder({ backend: "openai", model: "m", out: "/r" }, { ...shard, from: "flag" }, now).outDir,
    "/r",
  );
});

test("each label: a rehearsal, a pipeline check (synthetic), and a model result with none", () => {
  assert.deepEqual(runLabel({ synthetic: true, rehearsal: true }), {
    kind: "rehearsal",
    title: "REHEARSAL",
    line: REHEARSAL_LINE,
  });
  assert.deepEqual(runLabel({ synthetic: true }), {
    kind: "pipeline_check",
    title: "PIPELINE CHECK",
    line: PIPELINE_CHECK_LINE,
  });
  assert.deepEqual(runLabel({ label: "m" }), { kind: "model_result", title: null, line: null });
  // A rehearsal flag alone (without synthetic) is not a label of its own.
  assert.equal(runLabel({ rehearsal: true }).kind, "model_result");
});

test("openBackend against an endpoint: --pipeline-check labels it, a recognized in-project shape labels it, a plain one not", async () => {
  const meta = { n_params: 1234, n_embd: 96, n_vocab: 151936 };
  const server = await startRoutedServer(() => ({ content: "ok" }), { modelMeta: meta });
  try {
    const flags = { ...OPENAI, endpoint: server.endpoint, model: SCRIPTED_MODEL_ID, conditions: "A" };
    const settings = accepted(flags);
    const notes: string[] = [];
    const plain = await openBackend(flags, settings, { notify: (l) => notes.push(l), shapes: [] });
    assert.ok(plain.ok, plain.ok ? "" : plain.message);
    // The one line before the preflight, naming the endpoint and the timeout; the notes below are the rest.
    assert.equal(
      notes.shift(),
      `checking the endpoint ${server.endpoint} (the model list, then one tiny request; timeout 120 s, --preflight-timeout)…`,
    );
    // No flag and no recognized shape; its name says scripted, and the one rule (benchResultSource)
    // calls that a pipeline check, in the terminal and results.md as in the report.
    assert.equal(runLabel(plain.value.description).kind, "pipeline_check");
    assert.equal(runLabel({ ...plain.value.description, label: "served-model" }).kind, "model_result");
    assert.equal(plain.value.modelName, SCRIPTED_MODEL_ID);
    assert.equal(plain.value.thinking, "off");
    assert.equal(plain.value.description.label, SCRIPTED_MODEL_ID);
    assert.equal(notes.length, 0);
    await plain.value.backend.close();

    const checked = await openBackend({ ...flags, pipelineCheck: true }, accepted({ ...flags, pipelineCheck: true }), {
      notify: (l) => notes.push(l),
      shapes: [],
    });
    assert.ok(checked.ok);
    assert.match(notes.shift() ?? "", /^checking the endpoint /);
    assert.equal(runLabel(checked.value.description).kind, "pipeline_check");
    await checked.value.backend.close();

    const shape = { name: "rehearsal-bench", kind: "rehearsal" as const, nParams: 1234, nEmbd: 96, nVocab: 151936 };
    const recognized = await openBackend(flags, settings, { notify: (l) => notes.push(l), shapes: [shape] });
    assert.ok(recognized.ok);
    assert.equal(runLabel(recognized.value.description).kind, "rehearsal");
    assert.equal(notes.length, 2);
    assert.match(notes[0] ?? "", /^checking the endpoint /);
    assert.match(
      notes[1] ?? "",
      /serves this project's rehearsal-bench checkpoint.*labelled REHEARSAL, not a model result/,
    );
    await recognized.value.backend.close();
  } finally {
    await server.close();
  }
});

test("openBackend against nothing: endpoint_unreachable before any task", async () => {
  // Port 9 (discard) on 127.0.0.1: nothing listens in a test environment.
  const flags = { ...OPENAI, endpoint: "http://127.0.0.1:9/v1", conditions: "A" };
  const notes: string[] = [];
  const r = await openBackend(flags, accepted({ ...flags, preflightTimeout: "5" }), {
    notify: (l) => notes.push(l),
    shapes: [],
  });
  assert.equal(r.ok, false);
  assert.equal(r.ok ? "" : r.error, "endpoint_unreachable");
  assert.deepEqual(notes, [
    "checking the endpoint http://127.0.0.1:9/v1 (the model list, then one tiny request; timeout 5 s, --preflight-timeout)…",
  ]);
});

test("a server that accepts the connection and never answers: endpoint_silent naming the timeout, not endpoint_unreachable", async () => {
  // A bare TCP server on 127.0.0.1: it accepts every connection and never writes a byte.
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((ok) => silent.listen(0, "127.0.0.1", ok));
  try {
    const port = (silent.address() as AddressInfo).port;
    const flags = { ...OPENAI, endpoint: `http://127.0.0.1:${port}/v1`, conditions: "A" };
    const r = await openBackend(flags, accepted({ ...flags, preflightTimeout: "1" }), {
      notify: () => undefined,
      shapes: [],
    });
    assert.ok(!r.ok);
    assert.equal(r.error, "endpoint_silent");
    assert.equal(
      r.message,
      `GET http://127.0.0.1:${port}/v1/models: connected but no answer within 1 s (--preflight-timeout); the server may still be loading the model or be hung, or another program listens on that port`,
    );
    assert.ok(sockets.length > 0, "the connection was accepted");
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((ok) => silent.close(ok));
  }
  // The model list answers, the tiny chat request never does: the same code, naming that request.
  const server = await startRoutedServer(() => ({ hang: true }));
  try {
    const flags = { ...OPENAI, endpoint: server.endpoint, model: SCRIPTED_MODEL_ID, conditions: "A" };
    const r = await openBackend(flags, accepted({ ...flags, preflightTimeout: "1" }), {
      notify: () => undefined,
      shapes: [],
    });
    assert.ok(!r.ok);
    assert.equal(r.error, "endpoint_silent");
    assert.match(
      r.message,
      /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: connected but no answer within 1 s /,
    );
  } finally {
    await server.close();
  }
});
