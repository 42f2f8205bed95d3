// npm run test:llama-server — the benchmark's client against a real llama-server (not part of
// npm test). Builds llama-server from the llama.cpp sources node-llama-cpp ships (cached under
// .cache/llama-server/), serves a tiny random-weight Qwen2 checkpoint converted to GGUF by the
// project's own converter (with the Qwen2.5 chat template, --jinja), and runs conditions A-D on
// two programs of the project's mini data set. It checks what can be checked with random
// weights: requests accepted (no HTTP 4xx), tool schemas accepted (the preflight passed),
// responses parsed (no model_protocol_error), errors classified (every model error has a class
// other than a generic HTTP error). Exit 0 when all hold; the report is printed and written to
// .cache/llama-server/last-report.json.
// With --rehearsal it runs the bench rehearsal model instead, through llama-server and through
// the local engine, and compares the two task by task (scripts/llamaServerRehearsal.ts).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildLlamaServer } from "./buildLlamaServer.ts";
import { CACHE, ROOT, log, startLlamaServer, tca } from "./llamaServerProcess.ts";
import { strictTraceRecords, type BenchTraceRecord, type BenchTraceRecordOf } from "../src/bench/runs/benchTrace.ts";
import { runRehearsalComparison } from "./llamaServerRehearsal.ts";

const CHECKPOINT = join(CACHE, "ck-tiny-qwen");
const PROGRAMS = "gcd,pascal";

/** A trace through the one trace reader: a run that left a bad trace stops the script. */
function readTrace(path: string): readonly BenchTraceRecord[] {
  return strictTraceRecords(readFileSync(path, "utf8"), path);
}

async function main(): Promise<number> {
  const build = buildLlamaServer();
  log(
    `llama-server ${build.commit.slice(0, 12)} (${build.cached ? "cached" : "built"}; build took ${build.buildSeconds} s)`,
  );
  if (!existsSync(join(CHECKPOINT, "config.json"))) {
    const made = tca([
      "model",
      "make-test-checkpoint",
      "--directory",
      CHECKPOINT,
      "--size",
      "tiny",
      "--tokenizer",
      "qwen2.5",
    ]);
    if (made.code !== 0) throw new Error(`make-test-checkpoint failed: ${made.stderr}`);
  }
  const gguf = join(`${CHECKPOINT}.tca-engine-cache`, "model-f32.gguf");
  if (!existsSync(gguf)) {
    // The project's converter runs inside the verified load path of the local engine.
    const g = tca(["model", "generate", "--model-directory", CHECKPOINT, "--system", "s", "--user", "u"]);
    if (g.code !== 0 || !existsSync(gguf)) throw new Error(`conversion failed: ${g.stderr}`);
  }
  const template = join(CACHE, "chat-template.jinja");
  const config = JSON.parse(readFileSync(join(CHECKPOINT, "tokenizer_config.json"), "utf8")) as {
    chat_template?: unknown;
  };
  if (typeof config.chat_template !== "string") throw new Error("the checkpoint has no chat template");
  writeFileSync(template, config.chat_template);

  const server = await startLlamaServer(build.binary, [
    "-m",
    gguf,
    "--jinja",
    "--chat-template-file",
    template,
    "-c",
    "8192",
    "--parallel",
    "1",
    "-t",
    "2",
    "--alias",
    "tiny-qwen2-synthetic",
  ]);
  const base = server.base;
  try {
    log(`serving at ${base}`);
    const out = join(CACHE, "runs", new Date().toISOString().replace(/[:.]/g, "-"));
    const started = performance.now();
    const run = tca([
      "bench",
      "quixbugs",
      "run",
      "--endpoint",
      `${base}/v1`,
      "--model",
      "tiny-qwen2-synthetic",
      "--conditions",
      "A,B,C,D",
      "--programs",
      PROGRAMS,
      "--dataset",
      join(ROOT, "test/fixtures/quixbugs-mini"),
      "--jobs",
      "1",
      "--out",
      out,
      "--pipeline-check",
    ]);
    const seconds = Math.round((performance.now() - started) / 1000);
    log(`tca bench quixbugs run exited ${run.code} after ${seconds} s`);
    process.stderr.write(
      run.stderr
        .split("\n")
        .filter((l) => /warning|error|model_/.test(l))
        .join("\n") + "\n",
    );
    if (!existsSync(join(out, "tasks.ndjson"))) {
      // The preflight refused the server: a real finding, reported as such.
      const report = { ok: false, stage: "preflight", exitCode: run.code, stderr: run.stderr.slice(-4000) };
      writeFileSync(join(CACHE, "last-report.json"), JSON.stringify(report, null, 2) + "\n");
      process.stdout.write(JSON.stringify(report, null, 2) + "\n");
      return 1;
    }
    const tasks = readFileSync(join(out, "tasks.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            taskId: string;
            condition: string;
            outcome: string;
            stopReason: string;
            turns: number;
            tracePath: string;
          },
      );
    const rows = tasks.map((t) => {
      const trace = readTrace(join(out, t.tracePath));
      const errors = trace
        .filter((e): e is BenchTraceRecordOf<"model_error"> => e.type === "model_error")
        .map((e) => ({ error: e.data.error, message: e.data.message }));
      const responses = trace.filter((e) => e.type === "model_response").length;
      const toolCalls = trace.filter((e) => e.type === "tool_call").length;
      return {
        task: t.taskId,
        condition: t.condition,
        outcome: t.outcome,
        stopReason: t.stopReason,
        turns: t.turns,
        responses,
        toolCalls,
        errors,
      };
    });
    const allErrors = rows.flatMap((r) => r.errors);
    const checks = {
      requestsAccepted: !allErrors.some((e) => /^HTTP 4\d\d/.test(e.message)),
      toolSchemasAccepted: true, // the preflight sent a tool schema and the run started
      responsesParsed: !allErrors.some((e) => e.error === "model_protocol_error"),
      errorsClassified: !allErrors.some((e) => e.error === "model_http_error" || e.error === "model_unreachable"),
    };
    const props = await fetch(`${base}/props`)
      .then((r) => r.json() as Promise<Record<string, unknown>>)
      .catch((): Record<string, unknown> => ({}));
    const report = {
      ok: Object.values(checks).every(Boolean),
      llamaServer: {
        commit: build.commit,
        buildSeconds: build.buildSeconds,
        buildInfo: props.build_info ?? null,
        chatTemplateCaps: props.chat_template_caps ?? null,
      },
      runSeconds: seconds,
      exitCode: run.code,
      checks,
      rows,
      runDirectory: out,
    };
    writeFileSync(join(CACHE, "last-report.json"), JSON.stringify(report, null, 2) + "\n");
    process.stdout.write(
      "| Task | Outcome | Stop | Turns | Responses | Tool calls | Model errors |\n|---|---|---|---|---|---|---|\n",
    );
    for (const r of rows)
      process.stdout.write(
        `| ${r.task} | ${r.outcome} | ${r.stopReason} | ${r.turns} | ${r.responses} | ${r.toolCalls} | ${r.errors.map((e) => `${e.error}: ${e.message}`).join("; ")} |\n`,
      );
    process.stdout.write(`checks: ${JSON.stringify(checks)}\n`);
    return report.ok ? 0 : 1;
  } finally {
    await server.stop();
    if (process.env.TCA_SHOW_SERVER_LOG === "1") process.stderr.write(server.log());
  }
}

const cachedRuns = join(CACHE, "runs");
if (existsSync(cachedRuns)) log(`${readdirSync(cachedRuns).length} earlier run(s) under ${cachedRuns}`);
// --rehearsal: the bench rehearsal model through llama-server and through the local engine,
// compared task by task (scripts/llamaServerRehearsal.ts).
process.exitCode = process.argv.includes("--rehearsal") ? await runRehearsalComparison() : await main();
