// The endpoint preflight and the run's exit codes, through `tca bench quixbugs run` as a user
// calls it: a wrong model name, a missing /v1, a missing API key, a server without tool support
// or without tool parsing stop the command before any task with the server's message and the
// likely fix; a run whose every task is a model error exits non-zero.
import { sandboxTest as test } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchSetup, MINI_DATASET_DIR, referenceFix } from "./benchFixtures.ts";
import {
  SCRIPTED_MODEL_ID,
  startRoutedServer,
  startScriptedServer,
  type ScriptedServer,
  type ScriptedServerOptions,
  type ScriptedTurn,
} from "./scriptedChatServer.ts";

const TCA = fileURLToPath(new URL("../../bin/tca.js", import.meta.url));

function tca(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "OPENAI_API_KEY"));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TCA, ...args],
      { maxBuffer: 16 * 1024 * 1024, env: { ...base, ...env } },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, out: stdout, err: stderr });
      },
    );
  });
}

async function withServer<T>(
  server: Promise<ScriptedServer>,
  fn: (s: ScriptedServer, out: string) => Promise<T>,
): Promise<T> {
  const s = await server;
  const scratch = mkdtempSync(join(tmpdir(), "tca-preflight-"));
  try {
    return await fn(s, join(scratch, "run"));
  } finally {
    await s.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function run(
  endpoint: string,
  out: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  return tca(
    [
      "bench",
      "quixbugs",
      "run",
      "--endpoint",
      endpoint,
      "--model",
      SCRIPTED_MODEL_ID,
      "--programs",
      "gcd",
      "--out",
      out,
      "--dataset",
      MINI_DATASET_DIR,
      "--jobs",
      "1",
      ...extra,
    ],
    env,
  );
}

function jsonError(r: { out: string }): { error: string; message: string } {
  return JSON.parse(r.out) as { error: string; message: string };
}

const okServer = (
  options: ScriptedServerOptions = {},
  turn: ScriptedTurn = { content: "Done." },
): Promise<ScriptedServer> => startScriptedServer([], turn, options);

test("preflight: a model name the server does not list stops the run with the ids it offers; nothing runs", async () => {
  await withServer(okServer({ models: ["qwen3-8b", "qwen3-14b"] }), async (s, out) => {
    const r = await run(s.endpoint, out, ["--json"]);
    assert.equal(r.code, 1);
    const e = jsonError(r);
    assert.equal(e.error, "model_not_served");
    assert.match(e.message, /offers: qwen3-8b, qwen3-14b/);
    assert.equal(s.requests.length, 0);
    assert.equal(existsSync(out), false);
  });
});

test("preflight: a one-model server that answers 404 for the name is model_not_served; one that answers any name is a warning", async () => {
  const route = (body: Record<string, unknown>): ScriptedTurn =>
    body.model === "other"
      ? { httpStatus: 404, errorBody: { error: { message: "The model `other` does not exist." } } }
      : { content: "ok" };
  await withServer(startRoutedServer(route, { models: ["served"] }), async (s, out) => {
    const r = await tca([
      "bench",
      "quixbugs",
      "run",
      "--endpoint",
      s.endpoint,
      "--model",
      "other",
      "--programs",
      "gcd",
      "--out",
      out,
      "--dataset",
      MINI_DATASET_DIR,
      "--json",
    ]);
    assert.equal(jsonError(r).error, "model_not_served");
    assert.match(jsonError(r).message, /offers: served.*HTTP 404: The model `other` does not exist\./);
    const any = await tca([
      "bench",
      "quixbugs",
      "run",
      "--endpoint",
      s.endpoint,
      "--model",
      "my-label",
      "--programs",
      "gcd",
      "--conditions",
      "A",
      "--out",
      out,
      "--dataset",
      MINI_DATASET_DIR,
    ]);
    assert.equal(any.code, 0, any.err);
    assert.match(any.err, /warning: the server lists only "served" but answered a request for "my-label"/);
  });
});

test("preflight: a server without tool support (HTTP 400 for a request with tools) stops B-D runs with its message and --jinja", async () => {
  await withServer(okServer({ toolsStatus: 400 }), async (s, out) => {
    const r = await run(s.endpoint, out, ["--conditions", "A,C", "--json"]);
    assert.equal(r.code, 1);
    const e = jsonError(r);
    assert.equal(e.error, "endpoint_rejected");
    assert.match(e.message, /HTTP 400: tools param requires --jinja flag/);
    assert.match(e.message, /llama-server: start it with --jinja/);
    assert.match(e.message, /--enable-auto-tool-choice --tool-call-parser hermes/);
    assert.equal(existsSync(out), false);
    // Condition A alone needs no tools: the same server passes.
    const a = await run(s.endpoint, out, ["--conditions", "A", "--json"]);
    assert.equal(a.code, 0, a.err);
  });
});

test("preflight: tool calls returned as text stop the run with tool_calls_not_parsed", async () => {
  await withServer(
    okServer({}, { content: '<tool_call>\n{"name": "run_tests", "arguments": {}}\n</tool_call>' }),
    async (s, out) => {
      const r = await run(s.endpoint, out, ["--conditions", "B", "--json"]);
      assert.equal(r.code, 1);
      assert.equal(jsonError(r).error, "tool_calls_not_parsed");
      assert.match(jsonError(r).message, /--jinja/);
    },
  );
});

test("a chat template that reports no tool support in /props gets a warning for B-D runs", async () => {
  await withServer(
    okServer({
      props: { build_info: "b1", chat_template_caps: { supports_tools: false, supports_tool_calls: false } },
    }),
    async (s, out) => {
      const r = await run(s.endpoint, out, ["--conditions", "B"]);
      assert.match(
        r.err,
        /warning: the server's chat template reports supports_tools: false, supports_tool_calls: false/,
      );
      // A run shaped like a real model's (a label that names no scripted or synthetic source).
      const a = await run(s.endpoint, join(out, "a"), ["--conditions", "A", "--label", "served-model"]);
      assert.doesNotMatch(a.err, /chat template reports/);
      const aResults = readFileSync(join(out, "a", "results.md"), "utf8");
      assert.doesNotMatch(aResults, /PIPELINE CHECK/);
      assert.doesNotMatch(a.out, /PIPELINE CHECK/);
      // The result line names the model first, the same words in the terminal and results.md.
      const aLine = /^bench run: BENCHMARK RUN · served-model · [01] OF 1 TASKS FIXED$/m.exec(a.out)?.[0];
      assert.ok(aLine !== undefined && a.out.startsWith(`${aLine}\n`), a.out);
      assert.ok(aResults.includes(`\n- result: ${aLine.slice("bench run: ".length)}\n`), aResults);
      const p = await run(s.endpoint, join(out, "p"), ["--conditions", "A", "--pipeline-check"]);
      assert.equal(p.code, 0, p.err);
      assert.match(readFileSync(join(out, "p", "results.md"), "utf8"), /^# PIPELINE CHECK — /);
      // The terminal summary: the result line with its label first, then the label's line, wrapped within 100 columns.
      assert.match(
        p.out,
        /^bench run: PIPELINE CHECK · [01] OF 1 TASKS FIXED\nPIPELINE CHECK: synthetic random-weight checkpoint; these numbers check the benchmark pipeline and\n {2}are NOT a model result\n/,
      );
      assert.match(
        readFileSync(join(out, "p", "results.md"), "utf8"),
        /\n- result: PIPELINE CHECK · [01] OF 1 TASKS FIXED\n/,
      );
      assert.equal(
        (JSON.parse(readFileSync(join(out, "p", "run.json"), "utf8")) as { model: { synthetic: boolean } }).model
          .synthetic,
        true,
      );
    },
  );
});

test("preflight: an endpoint without /v1 is told to add it", async () => {
  await withServer(okServer(), async (s, out) => {
    const bare = s.endpoint.replace(/\/v1$/, "");
    const r = await run(bare, out, ["--json"]);
    assert.equal(r.code, 1);
    assert.equal(jsonError(r).error, "endpoint_rejected");
    assert.match(jsonError(r).message, /HTTP 404.*add the API prefix: --endpoint http:\/\/127\.0\.0\.1:\d+\/v1/);
  });
});

test("preflight: OPENAI_API_KEY is honored without --api-key-env, and never recorded", async () => {
  const secret = "sk-test-0123456789abcdef";
  const { dataset } = benchSetup();
  await withServer(
    okServer({ apiKey: secret }, { content: "```python\n" + referenceFix(dataset, "gcd") + "```" }),
    async (s, out) => {
      const missing = await run(s.endpoint, out, ["--conditions", "A", "--json"]);
      assert.equal(missing.code, 1);
      assert.equal(jsonError(missing).error, "endpoint_rejected");
      assert.match(jsonError(missing).message, /HTTP 401: Invalid API Key; .*OPENAI_API_KEY/);
      const r = await run(s.endpoint, out, ["--conditions", "A", "--json"], { OPENAI_API_KEY: secret });
      assert.equal(r.code, 0, r.err);
      const files = (dir: string): string[] =>
        readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
      for (const f of files(out)) assert.doesNotMatch(readFileSync(f, "utf8"), /sk-test-0123456789abcdef/, f);
    },
  );
});

test("a run in which every task is a model error exits non-zero with model_errors_only", async () => {
  // The preflight request passes; every task's request fails.
  const route = (body: Record<string, unknown>): ScriptedTurn =>
    JSON.stringify(body.messages).includes("connection check")
      ? { content: "ok" }
      : { httpStatus: 500, errorBody: { error: { message: "CUDA out of memory" } } };
  await withServer(startRoutedServer(route), async (s, out) => {
    const r = await run(s.endpoint, out, ["--conditions", "A"]);
    assert.equal(r.code, 1);
    assert.match(r.err, /model_errors_only/);
    assert.match(r.out, /fixed 0\.0% \(0\/0 graded\), false fixed 0, model errors 1 \(not graded\)/);
    assert.match(readFileSync(join(out, "traces/A-gcd.ndjson"), "utf8"), /HTTP 500: CUDA out of memory/);
  });
});
