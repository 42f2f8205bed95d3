// --thinking off|on|server-default: off by default (the document's method), sent as
// chat_template_kwargs, in the run's fingerprint; a server that refuses the field is told apart
// in the preflight with the fix; the older --disable-thinking still works.
import { test } from "node:test";
import { sandboxTest } from "../support/systemPackages.ts";
import assert from "node:assert/strict";
import { tca as runTca, type CliResult } from "../support/tcaCli.ts";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseThinking, thinkingRequestFields } from "../../src/bench/endpoint/thinkingMode.ts";
import { MINI_DATASET_DIR } from "./benchFixtures.ts";
import { SCRIPTED_MODEL_ID, startRoutedServer, type ScriptedServer, type ScriptedTurn } from "./scriptedChatServer.ts";

/** The CLI without an API key in its environment. */
function tca(args: string[]): Promise<CliResult> {
  return runTca(args, Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "OPENAI_API_KEY")));
}

async function withServer(
  server: Promise<ScriptedServer>,
  fn: (s: ScriptedServer, out: string) => Promise<void>,
): Promise<void> {
  const s = await server;
  const scratch = mkdtempSync(join(tmpdir(), "tca-thinking-"));
  try {
    await fn(s, join(scratch, "run"));
  } finally {
    await s.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const run = (endpoint: string, out: string, extra: string[]): Promise<{ code: number; out: string; err: string }> =>
  tca([
    "bench",
    "quixbugs",
    "run",
    "--endpoint",
    endpoint,
    "--model",
    SCRIPTED_MODEL_ID,
    "--programs",
    "gcd",
    "--conditions",
    "A",
    "--out",
    out,
    "--dataset",
    MINI_DATASET_DIR,
    "--jobs",
    "1",
    ...extra,
  ]);

/** A server that refuses any request carrying chat_template_kwargs, as strict OpenAI-style APIs do. */
const strict = (body: Record<string, unknown>): ScriptedTurn =>
  "chat_template_kwargs" in body
    ? {
        httpStatus: 400,
        errorBody: { error: { message: "Unrecognized request argument supplied: chat_template_kwargs" } },
      }
    : { content: "ok" };

test("parseThinking: off by default; --disable-thinking is off; contradictions and unknown modes are refused", () => {
  assert.deepEqual(parseThinking(undefined, false), { ok: true, value: "off" });
  assert.deepEqual(parseThinking(undefined, true), { ok: true, value: "off" });
  assert.deepEqual(parseThinking("off", true), { ok: true, value: "off" });
  assert.deepEqual(parseThinking("server-default", false), { ok: true, value: "server-default" });
  const contradiction = parseThinking("on", true);
  assert.equal(contradiction.ok ? "" : contradiction.error, "invalid_option");
  const unknown = parseThinking("maybe", false);
  assert.equal(unknown.ok ? "" : unknown.error, "invalid_option");
  assert.deepEqual(thinkingRequestFields("off"), { chat_template_kwargs: { enable_thinking: false } });
  assert.deepEqual(thinkingRequestFields("on"), { chat_template_kwargs: { enable_thinking: true } });
  assert.equal(thinkingRequestFields("server-default"), undefined);
});

sandboxTest(
  "default run: every request says enable_thinking false, and the fingerprint records thinking off",
  async () => {
    await withServer(
      startRoutedServer(() => ({ content: "```python\ndef gcd(a, b):\n    return a\n```" })),
      async (s, out) => {
        const r = await run(s.endpoint, out, []);
        assert.equal(r.code, 0, r.err);
        assert.ok(s.requests.length >= 2);
        for (const body of s.requests) assert.deepEqual(body.chat_template_kwargs, { enable_thinking: false });
        const manifest = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
          fingerprint: { thinking?: string };
        };
        assert.equal(manifest.fingerprint.thinking, "off");
        assert.match(
          readFileSync(join(out, "results.md"), "utf8"),
          /- thinking: off \(chat_template_kwargs enable_thinking: false\)/,
        );
      },
    );
  },
);

sandboxTest(
  "a server that refuses the field: thinking_field_rejected with the fix; server-default then runs without the field",
  async () => {
    await withServer(startRoutedServer(strict), async (s, out) => {
      const refused = await run(s.endpoint, out, ["--json"]);
      assert.equal(refused.code, 1);
      const e = JSON.parse(refused.out) as { error: string; message: string };
      assert.equal(e.error, "thinking_field_rejected");
      assert.match(e.message, /Unrecognized request argument supplied: chat_template_kwargs/);
      assert.match(e.message, /Pass --thinking server-default/);
      assert.equal(existsSync(out), false);
      const plain = await run(s.endpoint, out, ["--thinking", "server-default"]);
      assert.equal(plain.code, 0, plain.err);
      const manifest = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
        fingerprint: { thinking?: string };
      };
      assert.equal(manifest.fingerprint.thinking, "server-default");
    });
  },
);

sandboxTest("a server that refuses every request is not blamed on the thinking field", async () => {
  await withServer(
    startRoutedServer(() => ({ httpStatus: 400, errorBody: { error: { message: "bad request" } } })),
    async (s, out) => {
      const r = await run(s.endpoint, out, ["--json"]);
      assert.equal((JSON.parse(r.out) as { error: string }).error, "endpoint_rejected");
    },
  );
});

sandboxTest("--disable-thinking with --thinking on is refused before anything runs", async () => {
  await withServer(
    startRoutedServer(() => ({ content: "ok" })),
    async (s, out) => {
      const r = await run(s.endpoint, out, ["--disable-thinking", "--thinking", "on", "--json"]);
      assert.equal(r.code, 1);
      assert.equal((JSON.parse(r.out) as { error: string }).error, "invalid_option");
      assert.equal(s.requests.length, 0);
    },
  );
});
