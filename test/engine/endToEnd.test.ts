import { readFileSync } from "node:fs";
// The tiny synthetic checkpoint through the whole path a run uses: the worker process,
// verification gate, conversion, loading, supervised generation, and the ProposalSource.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { ManualClock, systemClock } from "../../src/core/clock.ts";
import { SYSTEM_INSTRUCTION, TASK_TXT } from "../../src/constants/labConstants.ts";
import { LocalModelSource } from "../../src/sources/localModelSource.ts";
import { generateOnce, readInputIdsFile } from "../../src/model/worker/generateOnce.ts";
import { makeTinyCheckpoint, type TinyCheckpoint } from "./tinyCheckpoint.ts";
import { workerFromBuild } from "../support/compiledWorker.ts";

let checkpoint: TinyCheckpoint;
let source: LocalModelSource;

before(async () => {
  checkpoint = await makeTinyCheckpoint(21);
  const created = await LocalModelSource.create({
    modelDirectory: checkpoint.directory,
    overallDeadlineMs: systemClock.now() + 300_000,
    // The compiled worker when lib/ is fresh, as a run through the CLI starts it (no tsx start-up).
    ...workerFromBuild(),
  });
  assert.ok(created.ok, created.ok ? "" : created.message);
  source = created.value;
});

after(async () => {
  await source?.close();
  await source?.close();
  await checkpoint?.cleanup();
});

const request = (user: string, proposalNumber: number) => ({
  proposalNumber,
  messages: [
    { role: "system" as const, content: SYSTEM_INSTRUCTION },
    { role: "user" as const, content: user },
  ],
  deadlineMs: systemClock.now() + 120_000,
});

test("the source is labelled a pipeline check and describes everything a run records", () => {
  assert.equal(source.label, "synthetic-pipeline-check");
  const d = source.describe() as Record<string, unknown>;
  assert.equal(d.proposal_source, "synthetic-pipeline-check");
  assert.equal(d.synthetic, true);
  const engine = d.engine as Record<string, unknown>;
  const versions = engine.versions as Record<string, string>;
  // The recorded versions are the ones the lockfile pins (package.json pins them exactly).
  const pinned = (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
    }
  ).dependencies;
  for (const name of ["node-llama-cpp", "@huggingface/tokenizers", "@huggingface/jinja"])
    assert.equal(versions[name], pinned[name], name);
  for (const key of [
    "llama_cpp_build",
    "host",
    "precision",
    "attention",
    "threads",
    "seed",
    "load_ms",
    "kv_cache_types",
    "flash_attention",
  ]) {
    assert.ok(key in engine, `engine.${key} recorded`);
  }
  assert.equal(engine.flash_attention, false);
  assert.equal(engine.seed, 0);
  for (const key of [
    "generation_config",
    "decoding_rule",
    "derived_gguf",
    "source_sha256",
    "load_time_precision_override",
    "checkpoint_generation_config_ignored",
    "total_load_ms",
  ]) {
    assert.ok(key in d, `${key} recorded`);
  }
  const config = d.generation_config as Record<string, unknown>;
  assert.equal(config.do_sample, false);
  assert.equal(config.max_new_tokens, 128);
  assert.deepEqual(config.eos_token_id, [151645, 151643]);
});

test("two supervised proposals: text and metadata, the second reusing the shared prefix", async () => {
  const controller = new AbortController();
  const first = await source.propose(request(`${TASK_TXT}\nversion 0`, 1), controller.signal);
  assert.equal(first.kind, "text");
  const second = await source.propose(request(`${TASK_TXT}\nversion 1`, 2), controller.signal);
  assert.equal(second.kind, "text");
  if (first.kind !== "text" || second.kind !== "text") return;
  const m = second.metadata;
  assert.equal(m.proposalSource, "synthetic-pipeline-check");
  assert.ok((m.inputTokens ?? 0) > 0 && (m.outputTokens ?? 0) > 0);
  assert.equal(m.rawOutputIds?.length, m.outputTokens);
  assert.ok((m.rawOutputIds?.length ?? 0) <= 128);
  assert.ok((m.prefixTokensReused ?? 0) > 100, "the shared system prompt and task come from the cache");
  assert.ok(typeof m.timingsMs?.prefill === "number" && typeof m.timingsMs?.decode === "number");
});

test("an input over 2,048 tokens comes back as context_limit", async () => {
  const outcome = await source.propose(request("word ".repeat(2500), 3), new AbortController().signal);
  assert.equal(outcome.kind, "context_limit");
  assert.ok(outcome.kind === "context_limit" && outcome.inputTokens > 2048);
});

test("generateOnce with --input-ids skips the template and reports one record", async () => {
  const file = path.join(checkpoint.root, "ids.json");
  await writeFile(file, JSON.stringify([151644, 115, 121, 10]));
  const ids = await readInputIdsFile(file);
  assert.ok(ids.ok);
  // Event-based, not a race against the wall clock (which failed this test on a loaded machine):
  // on a clock that never moves, generateOnce's load and call deadlines (10 min, 120 s) never
  // expire, so the test waits for the worker's "loaded" and "result" messages however slow the
  // machine is. The deadlines themselves are tested on ManualClock in supervisor.test.ts. The
  // compiled worker when lib/ is fresh (what `tca model generate` runs): no tsx start-up here.
  const result = await generateOnce({
    modelDirectory: checkpoint.directory,
    input: { kind: "ids", ids: ids.value },
    clock: new ManualClock(0),
    ...workerFromBuild(),
  });
  assert.ok(result.ok, result.ok ? "" : result.message);
  assert.equal(result.value.label, "synthetic-pipeline-check");
  assert.equal(result.value.input_tokens, 4);
  assert.ok(Array.isArray(result.value.raw_output_ids));
  assert.ok("engine" in result.value && "timings_ms" in result.value && "stop_cause" in result.value);
  await writeFile(file, "[1, -1]");
  assert.equal((await readInputIdsFile(file)).ok, false);
  await writeFile(file, "{}");
  assert.equal((await readInputIdsFile(file)).ok, false);
});

test("a model directory that fails verification is a model_error from loading", async () => {
  const result = await LocalModelSource.create({
    modelDirectory: path.join(checkpoint.root, "missing"),
    overallDeadlineMs: systemClock.now() + 60_000,
    ...workerFromBuild(),
  });
  assert.equal(!result.ok && result.error, "model_error");
});
