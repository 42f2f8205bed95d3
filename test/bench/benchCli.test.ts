// The `tca bench quixbugs run` command end to end against the scripted local server, as a
// user would call it, plus its option errors.
import { sandboxTest as test } from "../support/systemPackages.ts";
import { dataOf, readTraceRecords } from "./traceFixtures.ts";
import assert from "node:assert/strict";
import { tca } from "../support/tcaCli.ts";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchSetup, MINI_DATASET_DIR, referenceFix } from "./benchFixtures.ts";
import { startRoutedServer } from "./scriptedChatServer.ts";

test("tca bench quixbugs run: scripted model, conditions A and D, writes a complete run directory", async () => {
  const { dataset } = benchSetup();
  const fixed = referenceFix(dataset, "gcd");
  const server = await startRoutedServer((body) => {
    const messages = body.messages as { role: string }[];
    if (!body.tools) return { content: "```python\n" + fixed + "```" };
    const n = messages.filter((m) => m.role === "assistant").length;
    if (n === 0)
      return { toolCalls: [{ name: "write_file", arguments: { path: "python_programs/gcd.py", content: fixed } }] };
    if (n === 1) return { toolCalls: [{ name: "run_tests", arguments: {} }] };
    return { content: "Swapped the recursive call's arguments." };
  });
  const out = mkdtempSync(join(tmpdir(), "tca-cli-run-"));
  try {
    const r = await tca([
      "bench",
      "quixbugs",
      "run",
      "--endpoint",
      server.endpoint,
      "--model",
      "scripted",
      "--conditions",
      "A,D",
      "--programs",
      "gcd",
      "--out",
      join(out, "run"),
      "--json",
      "--jobs",
      "2",
      "--dataset",
      MINI_DATASET_DIR,
    ]);
    assert.equal(r.code, 0, r.err);
    const summary = JSON.parse(r.out) as {
      ok: boolean;
      summary: { condition: string; fixed: number; falseFixed: number }[];
    };
    assert.deepEqual(
      summary.summary.map((s) => [s.condition, s.fixed, s.falseFixed]),
      [
        ["A", 1, 0],
        ["D", 1, 0],
      ],
    );
    for (const f of [
      "run.json",
      "dataset-check.json",
      "results.md",
      "results.json",
      "traces/D-gcd.ndjson",
      "diffs/D-gcd.diff",
    ])
      assert.ok(existsSync(join(out, "run", f)), f);
    const manifest = JSON.parse(readFileSync(join(out, "run", "run.json"), "utf8")) as {
      model: { serverModels: { data: { id: string }[] }; serverProps: { build_info: string } };
      fingerprint: { promptHashes: Record<string, string> };
    };
    assert.equal(manifest.model.serverModels.data[0]?.id, "scripted-model-v1");
    assert.equal(manifest.model.serverProps.build_info, "scripted-server");
    assert.match(manifest.fingerprint.promptHashes.one_shot ?? "", /^[0-9a-f]{64}$/);
    // Every request and response is in the trace.
    const trace = readTraceRecords(join(out, "run", "traces/D-gcd.ndjson"));
    const responses = dataOf(trace, "model_response");
    assert.equal(responses.length, 3);
    assert.ok(responses.every((e) => e.exchange.request !== undefined && e.exchange.response !== undefined));
  } finally {
    await server.close();
    rmSync(out, { recursive: true, force: true });
  }
});

test("tca bench quixbugs run refuses bad options with stable codes and runs nothing", async () => {
  const scratch = mkdtempSync(join(tmpdir(), "tca-cli-bad-"));
  const out = join(scratch, "run");
  try {
    for (const [args, code] of [
      [["--conditions", "A,E"], "invalid_option"],
      [["--shard", "3/2"], "invalid_option"],
      [["--jobs", "0"], "invalid_option"],
    ] as const) {
      const r = await tca([
        "bench",
        "quixbugs",
        "run",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--out",
        out,
        "--json",
        ...args,
      ]);
      assert.equal(r.code, 1);
      assert.equal((JSON.parse(r.out) as { error: string }).error, code);
    }
    const down = await tca([
      "bench",
      "quixbugs",
      "run",
      "--endpoint",
      "http://127.0.0.1:9/v1",
      "--model",
      "m",
      "--out",
      out,
      "--json",
      "--programs",
      "gcd",
      "--dataset",
      MINI_DATASET_DIR,
    ]);
    assert.equal(down.code, 1);
    assert.equal((JSON.parse(down.out) as { error: string }).error, "endpoint_unreachable");
    assert.equal(existsSync(out), false);
    const missing = await tca(["bench", "quixbugs", "run", "--model", "m", "--out", out]);
    assert.equal(missing.code, 2);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
