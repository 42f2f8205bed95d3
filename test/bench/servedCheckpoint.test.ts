// An in-project checkpoint served by an OpenAI-compatible endpoint (llama-server serving the
// bench rehearsal GGUF) is recognized by the shape the server reports at /v1/models and labelled
// as through --backend local: REHEARSAL, never a model result. Under any alias, and with no
// flag to forget.
import { test } from "node:test";
import { sandboxTest } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  inProjectShapes,
  recognizeServedCheckpoint,
  servedCheckpointLabels,
  type InProjectShape,
} from "../../src/bench/endpoint/servedCheckpoint.ts";
import { isPipelineCheck, isRehearsal, runKindTitle } from "../../src/bench/results/resultsSummary.ts";
import { tca } from "../support/tcaCli.ts";
import { benchSetup, MINI_DATASET_DIR, referenceFix } from "./benchFixtures.ts";
import { startRoutedServer } from "./scriptedChatServer.ts";

// The /v1/models meta the llama-server built from node-llama-cpp's llama.cpp (b1-80fb11a)
// reported for the bench rehearsal GGUF (npm run test:llama-server -- --rehearsal), copied as
// it came: computed by llama.cpp from the tensors, not by the code under test.
const BENCH_REHEARSAL_META = {
  vocab_type: true,
  n_vocab: 151936,
  n_ctx: 16384,
  n_ctx_train: 32768,
  n_embd: 96,
  n_params: 14_826_528,
  size: 59_306_112,
  ftype: "all F32",
};

function list(...entries: Record<string, unknown>[]): unknown {
  return { object: "list", data: entries };
}

test("the in-project shapes come from the committed rehearsal weights and the tiny test configuration", async () => {
  const shapes = await inProjectShapes();
  const byName = new Map(shapes.map((s) => [s.name, s]));
  assert.deepEqual(byName.get("rehearsal-bench"), {
    kind: "rehearsal",
    name: "rehearsal-bench",
    nParams: 14_826_528,
    nEmbd: 96,
    nVocab: 151_936,
  });
  assert.deepEqual(byName.get("rehearsal-lab"), {
    kind: "rehearsal",
    name: "rehearsal-lab",
    nParams: 9_831_104,
    nEmbd: 64,
    nVocab: 151_936,
  });
  assert.equal(byName.get("synthetic-tiny")?.kind, "synthetic");
  assert.equal(byName.get("synthetic-tiny")?.nEmbd, 32);
});

test("recognizeServedCheckpoint: a single served model under any name, or the requested one among several; nothing else", async () => {
  const shapes = await inProjectShapes();
  const one = recognizeServedCheckpoint(
    list({ id: "whatever-alias", meta: BENCH_REHEARSAL_META }),
    "qwen2.5-coder",
    shapes,
  );
  assert.equal(
    one?.name,
    "rehearsal-bench",
    "a single-model server answers every request with its model, whatever name was asked for",
  );
  assert.equal(one?.servedId, "whatever-alias");
  const real = { id: "real", meta: { ...BENCH_REHEARSAL_META, n_params: 1_543_714_304, n_embd: 1536 } };
  assert.equal(
    recognizeServedCheckpoint(list(real, { id: "rehearsal", meta: BENCH_REHEARSAL_META }), "rehearsal", shapes)?.name,
    "rehearsal-bench",
  );
  assert.equal(
    recognizeServedCheckpoint(list(real, { id: "other", aliases: ["r"], meta: BENCH_REHEARSAL_META }), "r", shapes)
      ?.name,
    "rehearsal-bench",
    "matched through an alias",
  );
  assert.equal(
    recognizeServedCheckpoint(list(real, { id: "rehearsal", meta: BENCH_REHEARSAL_META }), "real", shapes),
    null,
    "a router serving a real model beside it: the real one is asked for",
  );
  assert.equal(
    recognizeServedCheckpoint(list(real, { id: "rehearsal", meta: BENCH_REHEARSAL_META }), "unlisted", shapes),
    null,
    "several models, none named: nothing is assumed",
  );
  // Every field of the shape must match.
  assert.equal(
    recognizeServedCheckpoint(list({ id: "m", meta: { ...BENCH_REHEARSAL_META, n_params: 14_826_529 } }), "m", shapes),
    null,
  );
  assert.equal(
    recognizeServedCheckpoint(list({ id: "m", meta: { ...BENCH_REHEARSAL_META, n_embd: 64 } }), "m", shapes),
    null,
  );
  assert.equal(
    recognizeServedCheckpoint(list({ id: "m", meta: { ...BENCH_REHEARSAL_META, n_vocab: 152_064 } }), "m", shapes),
    null,
  );
  assert.equal(
    recognizeServedCheckpoint(list({ id: "m", meta: { ...BENCH_REHEARSAL_META, n_params: "14826528" } }), "m", shapes),
    null,
    "numbers, not text",
  );
  // Servers that report no shape, and bodies that are not a model list.
  for (const body of [
    list({ id: "m" }),
    list({ id: "m", meta: null }),
    { data: "x" },
    { httpStatus: 404 },
    null,
    "text",
    list(),
  ]) {
    assert.equal(recognizeServedCheckpoint(body, "m", shapes), null, JSON.stringify(body));
  }
  assert.equal(recognizeServedCheckpoint(list({ id: "m", meta: BENCH_REHEARSAL_META }), "m", []), null);
});

test("servedCheckpointLabels: a rehearsal is labelled REHEARSAL, a random-weight one PIPELINE CHECK, both with how they were recognized", () => {
  const rehearsal: InProjectShape = { kind: "rehearsal", name: "rehearsal-bench", nParams: 1, nEmbd: 2, nVocab: 3 };
  const r = servedCheckpointLabels({ ...rehearsal, servedId: "a" });
  assert.equal(runKindTitle(r), "REHEARSAL");
  assert.equal(r.proposal_source, "rehearsal");
  assert.match(String(r.note), /REHEARSAL .*not a model result/);
  assert.deepEqual(r.served_checkpoint, {
    name: "rehearsal-bench",
    served_id: "a",
    n_params: 1,
    n_embd: 2,
    n_vocab: 3,
    recognized_by: "/v1/models meta",
  });
  const s = servedCheckpointLabels({ ...rehearsal, kind: "synthetic", name: "synthetic-tiny", servedId: "b" });
  assert.equal(runKindTitle(s), "PIPELINE CHECK");
  assert.ok(isPipelineCheck(s) && !isRehearsal(s));
});

sandboxTest(
  "tca bench quixbugs run against an endpoint serving the bench rehearsal's shape: run.json, results.md and the summary say REHEARSAL",
  async () => {
    const { dataset } = benchSetup();
    const fixed = referenceFix(dataset, "gcd");
    const out = mkdtempSync(join(tmpdir(), "tca-served-rehearsal-"));
    const run = async (
      meta: Record<string, unknown> | undefined,
      name: string,
    ): Promise<{ model: Record<string, unknown>; summary: Record<string, unknown>; results: string; err: string }> => {
      const server = await startRoutedServer(
        () => ({ content: "```python\n" + fixed + "```" }),
        meta ? { modelMeta: meta, models: ["served-alias"] } : {},
      );
      try {
        const r = await tca([
          "bench",
          "quixbugs",
          "run",
          "--endpoint",
          server.endpoint,
          "--model",
          "looks-like-a-real-model",
          "--conditions",
          "A",
          "--programs",
          "gcd",
          "--out",
          join(out, name),
          "--json",
          "--jobs",
          "1",
          "--dataset",
          MINI_DATASET_DIR,
        ]);
        assert.equal(r.code, 0, r.err);
        const manifest = JSON.parse(readFileSync(join(out, name, "run.json"), "utf8")) as {
          model: Record<string, unknown>;
        };
        return {
          model: manifest.model,
          summary: JSON.parse(r.out) as Record<string, unknown>,
          results: readFileSync(join(out, name, "results.md"), "utf8"),
          err: r.err,
        };
      } finally {
        await server.close();
      }
    };
    try {
      const served = await run(BENCH_REHEARSAL_META, "rehearsal");
      assert.equal(served.model.rehearsal, true);
      assert.equal(served.model.synthetic, true);
      assert.equal(served.model.proposal_source, "rehearsal");
      assert.equal((served.model.served_checkpoint as Record<string, unknown>).name, "rehearsal-bench");
      assert.equal(served.summary.rehearsal, true);
      assert.equal(served.summary.pipelineCheck, true);
      assert.match(served.results, /^# REHEARSAL — /);
      assert.match(served.results, /\n- result: REHEARSAL · [01] OF 1 TASKS FIXED\n/);
      assert.match(served.err, /serves this project's rehearsal-bench checkpoint/);
      // The same server without the shape: an ordinary model run, no label.
      const plain = await run(undefined, "plain");
      assert.equal(plain.model.rehearsal, undefined);
      assert.equal(plain.model.synthetic, undefined);
      assert.equal(plain.summary.pipelineCheck, false);
      assert.doesNotMatch(plain.results, /REHEARSAL|PIPELINE CHECK/);
      assert.match(plain.results, /\n- result: BENCHMARK RUN · looks-like-a-real-model · [01] OF 1 TASKS FIXED\n/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);
