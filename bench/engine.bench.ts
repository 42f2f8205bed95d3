// npm run bench:engine — speed and memory of the local engine on the full-size synthetic
// checkpoint (exact pinned shapes; speed depends on shapes, not weight values). Writes the
// checkpoint and its GGUF once under .cache/ and reuses them. Prints each figure as the
// median of 3 runs next to this machine's decode ceiling (read bandwidth / bytes per token).
// Not a test: nothing here asserts; figures taken on a busy machine say so.
//   --size tiny   quick smoke run on a tiny checkpoint (figures meaningless)
//   --runs N      repetitions per figure (default 3)
//   --side-by-side  only the prebuilt vs native table (engineSideBySide.ts); also the default
//                   first part of a run when a verified native build exists
//   --rounds N      side-by-side rounds, variant order reversed each round (default 3)
import { spawn } from "node:child_process";
import { lstat, mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { LlamaEngine } from "../src/model/engine/llamaEngine.ts";
import { convertToGguf } from "../src/model/gguf/convertToGguf.ts";
import { chatTemplateOf, ensureDerivedGguf } from "../src/model/gguf/derivedCache.ts";
import { openCheckpointDirectory, type CheckpointDirectory } from "../src/model/loader/checkpointDirectory.ts";
import { parameterCount } from "../src/model/qwen2/architecture.ts";
import { makeTestCheckpoint } from "../src/model/synthetic/makeTestCheckpoint.ts";
import { SYNTHETIC_MANIFEST_NAME, type SyntheticSize } from "../src/model/synthetic/syntheticManifest.ts";
import { buildSyntheticTokenizer } from "../src/model/synthetic/syntheticTokenizer.ts";
import { generateOnce } from "../src/model/worker/generateOnce.ts";
import { nativeBuildStatus } from "../src/model/engine/engineBinary.ts";
import { measureThisBinary, sideBySide } from "./engineSideBySide.ts";
import { median } from "../src/bench/results/summaryStatistics.ts";

const args = process.argv.slice(2);
const size: SyntheticSize = args.includes("--size") && args[args.indexOf("--size") + 1] === "tiny" ? "tiny" : "full";
const runs = args.includes("--runs") ? Math.max(1, Number(args[args.indexOf("--runs") + 1])) : 3;
const roundsArgument = args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 3;
if (!Number.isSafeInteger(roundsArgument) || roundsArgument < 1)
  throw new Error("--rounds takes a positive whole number");
const rounds = roundsArgument;
const root = path.resolve(".cache", "engine-bench");
const modelDirectory = path.join(root, `synthetic-${size}-seed0`);

const loadAverageAtStart = os.loadavg()[0] ?? 0;
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const fmt = (n: number, digits = 1): string => n.toFixed(digits);

/** Deterministic token ids from the tokenizer's defined (non-special) range. */
function syntheticIds(count: number, seed: number): number[] {
  const defined = buildSyntheticTokenizer().normalVocabSize;
  const ids: number[] = [];
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    ids.push(state % defined);
  }
  return ids;
}

async function ensureCheckpoint(): Promise<CheckpointDirectory> {
  const complete = await lstat(path.join(modelDirectory, SYNTHETIC_MANIFEST_NAME)).catch(() => null);
  if (complete === null) {
    await rm(modelDirectory, { recursive: true, force: true });
    await mkdir(root, { recursive: true });
    log(`writing the ${size} synthetic checkpoint (once) ...`);
    const t0 = performance.now();
    const made = await makeTestCheckpoint({ directory: modelDirectory, size, seed: 0 });
    if (!made.ok) throw new Error(made.message);
    log(`  written in ${fmt((performance.now() - t0) / 1000)} s`);
  }
  const opened = await openCheckpointDirectory(modelDirectory);
  if (!opened.ok) throw new Error(opened.message);
  return opened.value;
}

async function readBandwidth(threads: number): Promise<number> {
  const rates = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(new URL("./readBandwidthProbe.mjs", import.meta.url), {
            workerData: { bytes: 256 * 1024 * 1024, seconds: 2 },
          });
          worker.once("message", (rate: number) => resolve(rate));
          worker.once("error", reject);
        }),
    ),
  );
  return rates.reduce((a, b) => a + b, 0);
}

async function main(): Promise<void> {
  const childIndex = args.indexOf("--binary-child");
  if (childIndex >= 0) {
    const checkpoint = await ensureCheckpoint();
    const derived = await ensureDerivedGguf(checkpoint);
    if (!derived.ok) throw new Error(derived.message);
    await measureThisBinary(
      args[childIndex + 1] ?? "",
      derived.value.ggufPath,
      checkpoint.arch.vocabSize,
      syntheticIds(1500, 1),
      syntheticIds(16, 20),
    );
    return;
  }
  if (nativeBuildStatus().verified) {
    const checkpoint = await ensureCheckpoint();
    const derived = await ensureDerivedGguf(checkpoint);
    if (!derived.ok) throw new Error(derived.message);
    const childArgs = ["--size", size];
    // The native build uses OpenMP: its default wait policy spins, passive parks idle threads.
    await sideBySide(
      new URL(import.meta.url).pathname,
      childArgs,
      [
        { label: "prebuilt", env: { TCA_ENGINE_BINARY: "prebuilt" } },
        { label: "native", env: { TCA_ENGINE_BINARY: "native" } },
        { label: "native-omp-passive", env: { TCA_ENGINE_BINARY: "native", OMP_WAIT_POLICY: "passive" } },
        ...(args.includes("--chunk-variants")
          ? [
              { label: "prebuilt-chunk256", env: { TCA_ENGINE_BINARY: "prebuilt", TCA_BENCH_PREFILL_CHUNK: "256" } },
              { label: "native-chunk256", env: { TCA_ENGINE_BINARY: "native", TCA_BENCH_PREFILL_CHUNK: "256" } },
            ]
          : []),
      ],
      log,
      rounds,
    );
    if (args.includes("--side-by-side")) return;
  } else {
    log(
      `no verified native build (${nativeBuildStatus().reason ?? ""}): only the selected binary is measured; run tca engine build for the side-by-side table`,
    );
  }
  log(
    `engine bench: ${size} synthetic checkpoint, ${runs} runs per figure, ${os.cpus().length} CPUs, 1-min load average ${fmt(loadAverageAtStart, 2)}`,
  );
  const checkpoint = await ensureCheckpoint();
  const derived = await ensureDerivedGguf(checkpoint);
  if (!derived.ok) throw new Error(derived.message);

  // Conversion: timed once per bench run into a scratch file (2 GB of output for the full size).
  const scratch = path.join(root, `scratch-${size}.gguf`);
  const c0 = performance.now();
  const converted = await convertToGguf({
    arch: checkpoint.arch,
    modelName: checkpoint.modelName,
    tokenizerJson: checkpoint.tokenizerJson,
    chatTemplate: chatTemplateOf(checkpoint.tokenizerConfigJson) ?? "",
    safetensorsPath: checkpoint.safetensorsPath,
    expectedSafetensorsSha256: checkpoint.sha256["model.safetensors"] as string,
    outputPath: scratch,
  });
  const conversionMs = performance.now() - c0;
  await rm(scratch, { force: true });
  if (!converted.ok) throw new Error(converted.message);
  log(`conversion: ${fmt(conversionMs / 1000)} s`);

  const loadMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const e = await LlamaEngine.load({ ggufPath: derived.value.ggufPath, vocabularySize: checkpoint.arch.vocabSize });
    if (!e.ok) throw new Error(e.message);
    loadMs.push(e.value.loadMs);
    if (i < runs - 1) await e.value.dispose();
    else await measureGeneration(e.value, loadMs, conversionMs, checkpoint.arch);
  }
}

async function measureGeneration(
  engine: LlamaEngine,
  loadMs: number[],
  conversionMs: number,
  arch: CheckpointDirectory["arch"],
): Promise<void> {
  const promptA = syntheticIds(1500, 1);
  const promptB = [...promptA.slice(0, 1000), ...syntheticIds(500, 2)];
  const prefillRate: number[] = [];
  const saving: number[] = [];
  const decodeRate: number[] = [];
  const busyDecodeRate: number[] = [];
  const cancelMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const coldA = await engine.generate(promptA, { maxNewTokens: 1, reusePrefix: false });
    if (!coldA.ok) throw new Error(coldA.message);
    prefillRate.push((promptA.length / coldA.value.timings.prefillMs) * 1000);
    const warmB = await engine.generate(promptB, { maxNewTokens: 1 });
    const coldB = await engine.generate(promptB, { maxNewTokens: 1, reusePrefix: false });
    if (!warmB.ok || !coldB.ok) throw new Error("prefix run failed");
    saving.push(1 - warmB.value.timings.prefillMs / coldB.value.timings.prefillMs);
    log(
      `run ${i + 1}: prefill ${fmt(prefillRate.at(-1) as number)} tok/s, prefix saving ${fmt(100 * (saving.at(-1) as number))}% (reused ${warmB.value.prefixTokensReused})`,
    );
  }
  for (let i = 0; i < runs; i++) {
    const d = await engine.generate(syntheticIds(16, 3 + i), { reusePrefix: false, stopTokenIds: [] });
    if (!d.ok) throw new Error(d.message);
    decodeRate.push(((d.value.rawOutputIds.length - 1) / d.value.timings.decodeMs) * 1000);
    log(`run ${i + 1}: decode ${fmt(decodeRate.at(-1) as number)} tok/s over ${d.value.rawOutputIds.length} tokens`);
  }
  for (let i = 0; i < runs; i++) {
    // Cooperative cancellation: request an abort 300 ms into a 1,500-token prefill.
    let requestedAt = 0;
    const timer = setTimeout(() => (requestedAt = performance.now()), 300);
    const r = await engine.generate(syntheticIds(1500, 10 + i), {
      reusePrefix: false,
      shouldAbort: () => requestedAt > 0,
    });
    clearTimeout(timer);
    const latency = requestedAt > 0 ? performance.now() - requestedAt : 0;
    cancelMs.push(r.ok ? Number.NaN : latency);
    log(`run ${i + 1}: cancellation latency ${fmt(latency)} ms (${r.ok ? "finished before the abort" : r.error})`);
  }
  const busy = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  try {
    for (let i = 0; i < runs; i++) {
      const d = await engine.generate(syntheticIds(16, 20 + i), { reusePrefix: false, stopTokenIds: [] });
      if (!d.ok) throw new Error(d.message);
      busyDecodeRate.push(((d.value.rawOutputIds.length - 1) / d.value.timings.decodeMs) * 1000);
      log(
        `run ${i + 1}: decode with one busy core ${fmt(busyDecodeRate.at(-1) as number)} tok/s, threads ${JSON.stringify(d.value.threadsUsed.decode)}`,
      );
    }
  } finally {
    busy.kill("SIGKILL");
  }
  const threadChoice = engine.threadRecord();
  await engine.dispose();

  // Peak RSS of the real worker process (load + short prompt + 128 new tokens), 3 fresh workers.
  const rss: number[] = [];
  const workerLoad: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await generateOnce({ modelDirectory, input: { kind: "ids", ids: syntheticIds(64, 30 + i) } });
    if (!r.ok) throw new Error(r.message);
    rss.push(r.value.worker_peak_rss_bytes as number);
    workerLoad.push(Number((r.value.engine as Record<string, unknown>).total_load_ms));
    log(`run ${i + 1}: worker peak RSS ${fmt((rss.at(-1) as number) / 2 ** 30, 2)} GiB`);
  }
  const bandwidth = await readBandwidth(2);
  // Greedy decode reads every F32 weight once per token (the tied matrix in full as the output head).
  const bytesPerToken = parameterCount(arch) * 4;
  const ceiling = bandwidth / bytesPerToken;
  const figures = {
    checkpoint: `${size} synthetic (seed 0)`,
    runs_per_figure: runs,
    load_average_1min_at_start: loadAverageAtStart,
    load_average_1min_at_end: os.loadavg()[0],
    conversion_s: conversionMs / 1000,
    load_s: median(loadMs) / 1000,
    worker_total_load_s_with_verification: median(workerLoad) / 1000,
    prefill_tok_s_1500: median(prefillRate),
    decode_tok_s_128: median(decodeRate),
    prefix_reuse_saving_1000_shared: median(saving),
    cancellation_latency_prefill_ms: median(cancelMs),
    decode_tok_s_one_busy_core: median(busyDecodeRate),
    worker_peak_rss_gib: median(rss) / 2 ** 30,
    read_bandwidth_gb_s_2_threads: bandwidth / 1e9,
    bytes_read_per_token_gb: bytesPerToken / 1e9,
    decode_ceiling_tok_s: ceiling,
    decode_fraction_of_ceiling: median(decodeRate) / ceiling,
    thread_choice: threadChoice,
  };
  const table = [
    ["conversion (1 run)", `${fmt(figures.conversion_s)} s`],
    ["load (engine)", `${fmt(figures.load_s, 2)} s`],
    ["load (worker: verify + cache check + engine)", `${fmt(figures.worker_total_load_s_with_verification, 2)} s`],
    ["prefill, 1,500 tokens", `${fmt(figures.prefill_tok_s_1500)} tok/s`],
    [
      "decode, 128 tokens",
      `${fmt(figures.decode_tok_s_128)} tok/s (${fmt(100 * figures.decode_fraction_of_ceiling)}% of ceiling)`,
    ],
    [
      "decode ceiling",
      `${fmt(ceiling)} tok/s = ${fmt(figures.read_bandwidth_gb_s_2_threads)} GB/s / ${fmt(figures.bytes_read_per_token_gb, 3)} GB per token`,
    ],
    ["prefix reuse saving, 1,000 shared", `${fmt(100 * figures.prefix_reuse_saving_1000_shared)}%`],
    ["cancellation latency in prefill", `${fmt(figures.cancellation_latency_prefill_ms)} ms`],
    ["decode, one core busy", `${fmt(figures.decode_tok_s_one_busy_core)} tok/s`],
    ["worker peak RSS", `${fmt(figures.worker_peak_rss_gib, 2)} GiB`],
  ];
  process.stdout.write(
    `\nlocal engine, ${size} synthetic checkpoint (a pipeline check, random weights), median of ${runs}\n`,
  );
  for (const [name, value] of table) process.stdout.write(`  ${(name as string).padEnd(46)} ${value}\n`);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

await main();
