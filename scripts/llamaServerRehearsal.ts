// npm run test:llama-server -- --rehearsal: the bench rehearsal model (docs/rehearsal-model.md)
// through a real llama-server, against the same model through the local engine. Not part of
// npm test (the server build takes 10-20 minutes of two cores; a cached build is reused).
//
// 1. writes the bench rehearsal checkpoint (tca model make-bench-rehearsal-checkpoint);
// 2. runs conditions A-D on test/fixtures/quixbugs-mini through --backend local, which also
//    converts it to GGUF with the project's converter (tokenizer.chat_template included);
// 3. serves that GGUF with the llama-server built from node-llama-cpp's bundled llama.cpp, with
//    --jinja and no template override, so llama-server renders the template written into the
//    GGUF and its own parser turns the model's <tool_call> text into OpenAI tool calls;
// 4. runs the same A-D against it through --backend openai (greedy: temperature 0, seed 0 and
//    max_tokens 2,048 per turn, what the harness sends; the local engine is greedy with the same
//    per-turn limit), with no labelling flag: the run must be labelled REHEARSAL by itself;
// 5. compares the two runs task by task (outcome, stop reason, claim, false "fixed", refused
//    stops, turns, and every reply's text and tool calls) and against what the model was trained
//    to do (training/bench-rehearsal/scenarios.ts).
// Exit 0 when both paths agree on every task, both end every task as trained and both runs are
// labelled REHEARSAL. The tables are printed; the report is written to
// .cache/llama-server/rehearsal-report.json and the runs are kept under .cache/llama-server/rehearsal/.
// --reuse DIR keeps an earlier folder's checkpoint and local run and runs only llama-server again;
// --server-defaults starts llama-server with its own default numerics instead of the local engine's.
// --regenerate then re-asks llama-server every request of its own run (verify-run --regenerate
// --endpoint), served with --parallel 1 (one request at a time) and with --parallel 4 (four slots,
// --jobs 4: requests batched together), and reports the share of identical responses for each
// (issue 33's reproducibility figure; docs/quixbugs-benchmark.md).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { benchScenarios } from "../training/bench-rehearsal/scenarios.ts";
import { buildLlamaServer } from "./buildLlamaServer.ts";
import { CACHE, ROOT, log, startLlamaServer, tca } from "./llamaServerProcess.ts";
import { compareRuns, readRunTasks, renderComparison, timing } from "./rehearsalComparison.ts";

const DATASET = join(ROOT, "test/fixtures/quixbugs-mini");
const ALIAS = "tca-bench-rehearsal";
const CONDITIONS = "A,B,C,D";
/** The local engine's bench profile context (src/model/engine/generationSettings.ts). */
const CONTEXT = "16384";

function runLabels(runDirectory: string): { rehearsal: boolean; synthetic: boolean; heading: string } {
  const manifest = JSON.parse(readFileSync(join(runDirectory, "run.json"), "utf8")) as {
    model: Record<string, unknown>;
  };
  const heading = readFileSync(join(runDirectory, "results.md"), "utf8").split("\n")[0] ?? "";
  return { rehearsal: manifest.model.rehearsal === true, synthetic: manifest.model.synthetic === true, heading };
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return (await r.json()) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** One regeneration of a run through a freshly started llama-server with `parallel` slots. */
interface ServerRegeneration {
  readonly parallel: number;
  readonly exitCode: number;
  readonly compared: number | null;
  readonly identical: number | null;
  /** `TASK#TURN` of every compared response that differed. */
  readonly differing: readonly string[];
  readonly wallSeconds: number;
}

async function regenerateThroughServer(
  binary: string,
  serverArgs: (parallel: number) => readonly string[],
  runDirectory: string,
  parallel: number,
): Promise<ServerRegeneration> {
  const server = await startLlamaServer(binary, serverArgs(parallel));
  const started = performance.now();
  try {
    log(`regenerating ${runDirectory} through llama-server --parallel ${parallel} (--jobs ${parallel})…`);
    const verified = tca([
      "bench",
      "quixbugs",
      "verify-run",
      runDirectory,
      "--dataset",
      DATASET,
      "--jobs",
      String(parallel),
      "--regenerate",
      "--endpoint",
      `${server.base}/v1`,
      "--json",
    ]);
    const wallSeconds = (performance.now() - started) / 1000;
    let parsed: { regeneration?: { compared?: number; identical?: number; turns?: unknown } | null } = {};
    try {
      parsed = JSON.parse(verified.stdout) as typeof parsed;
    } catch {
      process.stderr.write(verified.stderr.slice(-4000) + "\n");
    }
    const record = parsed.regeneration ?? null;
    const turns = Array.isArray(record?.turns) ? (record.turns as Record<string, unknown>[]) : [];
    return {
      parallel,
      exitCode: verified.code,
      compared: typeof record?.compared === "number" ? record.compared : null,
      identical: typeof record?.identical === "number" ? record.identical : null,
      differing: turns
        .filter((turn) => turn.compared === true && turn.identical !== true)
        .map((turn) => `${String(turn.task)}#${String(turn.turn)}`),
      wallSeconds,
    };
  } finally {
    await server.stop();
  }
}

export async function runRehearsalComparison(): Promise<number> {
  const build = buildLlamaServer();
  log(
    `llama-server ${build.commit.slice(0, 12)} (${build.cached ? "cached" : "built"}; build took ${build.buildSeconds} s)`,
  );
  // --reuse DIR: an earlier invocation's folder; its checkpoint and local run are kept and only
  // the llama-server half runs again (into a new subfolder).
  const reuseAt = process.argv.indexOf("--reuse");
  const reused = reuseAt > 0 ? process.argv[reuseAt + 1] : undefined;
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const work = reused ?? join(CACHE, "rehearsal", stamp);
  mkdirSync(work, { recursive: true });
  const checkpoint = join(work, "bench-rehearsal");
  const localOut = join(work, "local");
  let started = performance.now();
  let local: { code: number; wallSeconds: number | null; reused: boolean };
  if (reused !== undefined && existsSync(join(localOut, "tasks.ndjson"))) {
    log(`reusing the checkpoint and the local run in ${work}`);
    local = { code: 0, wallSeconds: null, reused: true };
  } else {
    const made = tca(["model", "make-bench-rehearsal-checkpoint", "--directory", checkpoint]);
    if (made.code !== 0) throw new Error(`make-bench-rehearsal-checkpoint failed: ${made.stderr}`);
    log("conditions A-D through the local engine…");
    const run = tca([
      "bench",
      "quixbugs",
      "run",
      "--backend",
      "local",
      "--model-directory",
      checkpoint,
      "--dataset",
      DATASET,
      "--conditions",
      CONDITIONS,
      "--out",
      localOut,
      "--json",
    ]);
    if (run.code !== 0) throw new Error(`the local run failed (exit ${run.code}): ${run.stderr.slice(-4000)}`);
    local = { code: run.code, wallSeconds: (performance.now() - started) / 1000, reused: false };
  }

  // The GGUF the local engine just loaded, written by the project's converter.
  const gguf = join(`${checkpoint}.tca-engine-cache`, "model-f32.gguf");
  if (!existsSync(gguf)) throw new Error(`no GGUF at ${gguf} after the local run`);
  const template = (
    JSON.parse(readFileSync(join(checkpoint, "tokenizer_config.json"), "utf8")) as { chat_template: string }
  ).chat_template;
  const info = await readGgufFileInfo(gguf, { logWarnings: false });
  const ggufTemplate = ((info.metadata as unknown as Record<string, Record<string, unknown>>).tokenizer ?? {})
    .chat_template;
  if (ggufTemplate !== template) throw new Error("the GGUF's tokenizer.chat_template is not the checkpoint's template");
  const manifest = JSON.parse(readFileSync(join(checkpoint, "synthetic-manifest.json"), "utf8")) as {
    parameters: number;
  };
  const size = {
    parameters: manifest.parameters,
    safetensorsBytes: statSync(join(checkpoint, "model.safetensors")).size,
    ggufBytes: statSync(gguf).size,
  };

  // No --chat-template-file: llama-server must find the template in the GGUF. The numerics are
  // the local engine's (src/model/engine/generationSettings.ts): F32 KV cache (llama-server's
  // default is F16), no flash attention, 64-token batches, 2 threads, so that what is compared is
  // the template rendering, the tokenization and the tool-call parsing, not rounding.
  // --server-defaults leaves llama-server's own numerics (F16 KV cache, flash attention auto,
  // 2,048/512-token batches), as a user would start it.
  const serverDefaults = process.argv.includes("--server-defaults");
  const numerics = serverDefaults ? [] : ["-ctk", "f32", "-ctv", "f32", "-fa", "off", "-b", "64", "-ub", "64"];
  // llama-server splits -c between its slots: each of `parallel` slots gets the local engine's context.
  const serverArgs = (parallel: number): readonly string[] => [
    "-m",
    gguf,
    "--jinja",
    "-c",
    String(Number(CONTEXT) * parallel),
    "--parallel",
    String(parallel),
    "-t",
    "2",
    ...numerics,
    "--alias",
    ALIAS,
  ];
  const server = await startLlamaServer(build.binary, serverArgs(1));
  const serverOut = join(work, reused !== undefined ? `llama-server-${stamp}` : "llama-server");
  let serverRun: ReturnType<typeof tca>;
  let serverWallSeconds: number;
  let props: Record<string, unknown>;
  let models: Record<string, unknown>;
  try {
    log(`serving ${gguf} at ${server.base}`);
    props = await getJson(`${server.base}/props`);
    models = await getJson(`${server.base}/v1/models`);
    log("conditions A-D through llama-server…");
    started = performance.now();
    serverRun = tca([
      "bench",
      "quixbugs",
      "run",
      "--endpoint",
      `${server.base}/v1`,
      "--model",
      ALIAS,
      "--dataset",
      DATASET,
      "--conditions",
      CONDITIONS,
      "--jobs",
      "1",
      "--out",
      serverOut,
      "--json",
    ]);
    serverWallSeconds = (performance.now() - started) / 1000;
  } finally {
    await server.stop();
    if (process.env.TCA_SHOW_SERVER_LOG === "1") process.stderr.write(server.log());
  }
  if (!existsSync(join(serverOut, "tasks.ndjson"))) {
    process.stderr.write(serverRun.stderr.slice(-4000) + "\n");
    throw new Error(`the llama-server run wrote no tasks (exit ${serverRun.code})`);
  }

  const regenerations: ServerRegeneration[] = [];
  if (process.argv.includes("--regenerate"))
    for (const parallel of [1, 4])
      regenerations.push(await regenerateThroughServer(build.binary, serverArgs, serverOut, parallel));

  const localTasks = readRunTasks(localOut);
  const serverTasks = readRunTasks(serverOut);
  const comparisons = compareRuns(localTasks, serverTasks, benchScenarios(DATASET));
  const labels = { local: runLabels(localOut), server: runLabels(serverOut) };
  // /props reports the template as llama.cpp's Jinja lexer keeps it: like Jinja's default
  // (keep_trailing_newline=False, which @huggingface/jinja follows too), it drops one trailing
  // newline before rendering (common/jinja/lexer.cpp), so that newline is never rendered by either.
  const templateServed = props.chat_template === (template.endsWith("\n") ? template.slice(0, -1) : template);
  const checks = {
    agreeTaskByTask: comparisons.every((c) => c.differences.length === 0),
    bothAsTrained: comparisons.every((c) => c.untrained.length === 0),
    bothLabelledRehearsal: [labels.local, labels.server].every(
      (l) => l.rehearsal && l.synthetic && l.heading.startsWith("# REHEARSAL"),
    ),
    serverUsedTheGgufTemplate: templateServed,
    // Regenerated: verify-run exited 0 and compared every response (identity is the figure, not a check).
    regenerationsCompleted: regenerations.every((r) => r.exitCode === 0 && r.compared !== null && r.compared > 0),
  };
  const report = {
    ok: Object.values(checks).every(Boolean),
    checks,
    llamaServer: {
      numerics: serverDefaults
        ? "llama-server defaults"
        : "the local engine's (F32 KV, no flash attention, 64-token batches)",
      commit: build.commit,
      buildSeconds: build.buildSeconds,
      cached: build.cached,
      buildInfo: props.build_info ?? null,
      chatTemplateCaps: props.chat_template_caps ?? null,
      models: models.data ?? null,
      exitCode: serverRun.code,
      wallSeconds: serverWallSeconds,
    },
    local,
    regenerations,
    model: size,
    timing: { local: timing(localTasks), llamaServer: timing(serverTasks) },
    labels,
    comparisons: comparisons.map((c) => ({ taskId: c.taskId, differences: c.differences, untrained: c.untrained })),
    runs: { local: localOut, llamaServer: serverOut },
  };
  writeFileSync(join(CACHE, "rehearsal-report.json"), JSON.stringify(report, null, 2) + "\n");
  process.stdout.write(
    "REHEARSAL: a model trained in-project on scripted transcripts; these numbers are NOT a model result\n\n",
  );
  process.stdout.write(renderComparison(comparisons, localTasks, serverTasks));
  const t = report.timing;
  process.stdout.write(
    `\nmodel: ${size.parameters.toLocaleString("en-US")} parameters; model.safetensors ${size.safetensorsBytes.toLocaleString("en-US")} bytes (BF16), GGUF ${size.ggufBytes.toLocaleString("en-US")} bytes (F32)\n`,
  );
  process.stdout.write(
    `local engine: ${t.local.tasks} tasks, ${t.local.turns} turns, ${t.local.secondsPerTask.toFixed(2)} s per task, ${t.local.secondsPerTurn.toFixed(2)} s per turn (agent time); ${local.wallSeconds === null ? "reused run" : `whole run ${local.wallSeconds.toFixed(0)} s with load and conversion`}\n`,
  );
  process.stdout.write(
    `llama-server: ${t.llamaServer.tasks} tasks, ${t.llamaServer.turns} turns, ${t.llamaServer.secondsPerTask.toFixed(2)} s per task, ${t.llamaServer.secondsPerTurn.toFixed(2)} s per turn (agent time); whole run ${serverWallSeconds.toFixed(0)} s\n`,
  );
  process.stdout.write(
    `llama-server build: ${build.buildSeconds} s (${build.cached ? "cached" : "built now"}), ${String(props.build_info ?? "?")}\n`,
  );
  for (const r of regenerations)
    process.stdout.write(
      `regenerated through llama-server --parallel ${r.parallel} (--jobs ${r.parallel}): ${r.identical ?? "?"}/${r.compared ?? "?"} responses identical${r.compared ? ` (${((100 * (r.identical ?? 0)) / r.compared).toFixed(1)}%)` : ""}, ${r.wallSeconds.toFixed(0)} s, verify-run exit ${r.exitCode}${r.differing.length > 0 ? `; differing: ${r.differing.join(", ")}` : ""}\n`,
    );
  for (const c of comparisons) for (const u of c.untrained) process.stdout.write(`not as trained: ${c.taskId}: ${u}\n`);
  process.stdout.write(`checks: ${JSON.stringify(checks)}\nreport: ${join(CACHE, "rehearsal-report.json")}\n`);
  return report.ok ? 0 : 1;
}
