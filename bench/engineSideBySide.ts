// The side-by-side part of `npm run bench:engine` (issue 18): the prebuilt and the native
// llama.cpp binary, one child process each (two llama.cpp builds are never loaded into one
// process), same checkpoint, same prompt, measured in one run. Each child prints one JSON line;
// the parent prints the table and the native/prebuilt ratios, and whether the greedy tokens of
// the two binaries are identical. Not a test: nothing here asserts.
import { spawn } from "node:child_process";
import os from "node:os";
import { LlamaEngine } from "../src/model/engine/llamaEngine.ts";
import { median } from "../src/bench/results/summaryStatistics.ts";

export interface BinaryFigures {
  readonly label: string;
  readonly binary: string;
  readonly load_s: number;
  readonly prefill_tok_s_1500: number;
  readonly decode_tok_s_128: number;
  readonly end_to_end_s_1500_plus_128: number;
  readonly decode_tok_s_one_busy_core: number;
  readonly busy_core_threads: Record<string, number>;
  readonly peak_rss_gib: number;
  readonly greedy_ids: number[];
}

/** Runs inside a child whose TCA_ENGINE_BINARY (and OpenMP settings) the parent set. */
export async function measureThisBinary(
  label: string,
  ggufPath: string,
  vocabularySize: number,
  prompt: number[],
  busyPrompt: number[],
): Promise<void> {
  // Bench-only: a variant may measure another prefill chunk than the engine's default (the chunk
  // is the abort granularity; larger chunks re-read the weights fewer times per prompt).
  const chunkText = process.env["TCA_BENCH_PREFILL_CHUNK"];
  const prefillChunkTokens = chunkText === undefined ? undefined : Number(chunkText);
  if (prefillChunkTokens !== undefined && (!Number.isSafeInteger(prefillChunkTokens) || prefillChunkTokens < 1))
    throw new Error("TCA_BENCH_PREFILL_CHUNK must be a positive whole number");
  const loaded = await LlamaEngine.load({
    ggufPath,
    vocabularySize,
    ...(prefillChunkTokens === undefined ? {} : { prefillChunkTokens }),
  });
  if (!loaded.ok) throw new Error(loaded.message);
  const engine = loaded.value;
  const binary = String((engine.identity()["binary"] as { kind: string }).kind);
  const run = await engine.generate(prompt, { maxNewTokens: 128, reusePrefix: false, stopTokenIds: [] });
  if (!run.ok) throw new Error(run.message);
  const t = run.value.timings;
  const busy = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  let busyRate: number;
  let busyThreads: Record<string, number>;
  try {
    const d = await engine.generate(busyPrompt, { maxNewTokens: 64, reusePrefix: false, stopTokenIds: [] });
    if (!d.ok) throw new Error(d.message);
    busyRate = ((d.value.rawOutputIds.length - 1) / d.value.timings.decodeMs) * 1000;
    busyThreads = d.value.threadsUsed.decode;
  } finally {
    busy.kill("SIGKILL");
  }
  await engine.dispose();
  const figures: BinaryFigures = {
    label,
    binary,
    load_s: engine.loadMs / 1000,
    prefill_tok_s_1500: (prompt.length / t.prefillMs) * 1000,
    decode_tok_s_128: ((run.value.rawOutputIds.length - 1) / t.decodeMs) * 1000,
    end_to_end_s_1500_plus_128: t.totalMs / 1000,
    decode_tok_s_one_busy_core: busyRate,
    busy_core_threads: busyThreads,
    peak_rss_gib: (process.resourceUsage().maxRSS * 1024) / 2 ** 30,
    greedy_ids: run.value.rawOutputIds,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** One child per variant; returns its figures (or throws with the child's last stderr). */
function runChild(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<BinaryFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let errText = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (errText = (errText + c.toString("utf8")).slice(-2000)));
    child.on("close", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || line === "") reject(new Error(`child failed (${code}): ${errText}`));
      else resolve(JSON.parse(line) as BinaryFigures);
    });
  });
}

export interface Variant {
  readonly label: string;
  readonly env: Record<string, string>;
}

/**
 * Runs every variant once per round, reversing the order each round (A B C, C B A, ...), so a
 * machine whose speed drifts during the run (this one is a shared VM: the same binary varies by
 * ±20% from minute to minute) penalises no variant by its position. Ratios are paired: the
 * ratio within each round, then the median over rounds, with the spread printed beside it.
 */
export async function sideBySide(
  script: string,
  childArgs: string[],
  variants: readonly Variant[],
  log: (line: string) => void,
  rounds = 3,
): Promise<void> {
  const loadStart = os.loadavg()[0] ?? 0;
  const byRound: BinaryFigures[][] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [...variants.keys()] : [...variants.keys()].reverse();
    const figures: BinaryFigures[] = new Array<BinaryFigures>(variants.length);
    for (const index of order) {
      const v = variants[index] as Variant;
      log(`side by side, round ${round + 1}/${rounds}: ${v.label} ...`);
      const base = { ...process.env };
      delete base["OMP_WAIT_POLICY"];
      delete base["GOMP_SPINCOUNT"];
      delete base["TCA_BENCH_PREFILL_CHUNK"];
      const r = await runChild(script, [...childArgs, "--binary-child", v.label], { ...base, ...v.env });
      log(`  ${JSON.stringify({ ...r, greedy_ids: `${r.greedy_ids.length} ids` })}`);
      figures[index] = r;
    }
    byRound.push(figures);
  }
  const f = (n: number, d = 1): string => n.toFixed(d);
  const column = (index: number, pick: (r: BinaryFigures) => number): number[] =>
    byRound.map((figures) => pick(figures[index] as BinaryFigures));
  const reference = (byRound[0] as BinaryFigures[])[0] as BinaryFigures;
  const sameIds = (r: BinaryFigures): boolean =>
    r.greedy_ids.length === reference.greedy_ids.length &&
    r.greedy_ids.every((id, i) => id === reference.greedy_ids[i]);
  process.stdout.write(
    `\nengine binaries side by side (${rounds} rounds, order reversed each round; medians; 1-min load average ${f(loadStart, 2)} at start, ${f(os.loadavg()[0] ?? 0, 2)} at end)\n`,
  );
  process.stdout.write(
    `| variant | binary | prefill 1,500 (tok/s) | decode 128 (tok/s) | 1,500 + 128 end to end (s) | decode, one busy core (tok/s) | peak RSS (GiB) | greedy ids = first row, every round |\n|---|---|---|---|---|---|---|---|\n`,
  );
  const summary = variants.map((v, index) => {
    const all = byRound.map((figures) => figures[index] as BinaryFigures);
    const row = {
      label: v.label,
      binary: (all[0] as BinaryFigures).binary,
      prefill_tok_s_1500: median(column(index, (r) => r.prefill_tok_s_1500)),
      decode_tok_s_128: median(column(index, (r) => r.decode_tok_s_128)),
      end_to_end_s_1500_plus_128: median(column(index, (r) => r.end_to_end_s_1500_plus_128)),
      decode_tok_s_one_busy_core: median(column(index, (r) => r.decode_tok_s_one_busy_core)),
      peak_rss_gib: Math.max(...column(index, (r) => r.peak_rss_gib)),
      greedy_ids_identical_to_first: all.every(sameIds),
      per_round: all.map((r) => ({ ...r, greedy_ids: undefined })),
    };
    process.stdout.write(
      `| ${row.label} | ${row.binary} | ${f(row.prefill_tok_s_1500)} | ${f(row.decode_tok_s_128)} | ${f(row.end_to_end_s_1500_plus_128)} | ${f(row.decode_tok_s_one_busy_core)} | ${f(row.peak_rss_gib, 2)} | ${row.greedy_ids_identical_to_first ? "identical" : "DIFFERENT"} (${reference.greedy_ids.length}) |\n`,
    );
    return row;
  });
  const ratios = variants.slice(1).map((v, offset) => {
    const index = offset + 1;
    const paired = (pick: (r: BinaryFigures) => number, invert = false): number[] =>
      byRound.map((figures) => {
        const a = pick(figures[index] as BinaryFigures);
        const b = pick(figures[0] as BinaryFigures);
        return invert ? b / a : a / b;
      });
    const prefill = paired((r) => r.prefill_tok_s_1500);
    const decode = paired((r) => r.decode_tok_s_128);
    const endToEnd = paired((r) => r.end_to_end_s_1500_plus_128, true);
    const spread = (values: number[]): string => `${f(Math.min(...values), 2)}–${f(Math.max(...values), 2)}`;
    process.stdout.write(
      `ratio ${v.label}/${(variants[0] as Variant).label} (median of ${rounds} paired rounds, range): prefill ${f(median(prefill), 2)}x (${spread(prefill)}), decode ${f(median(decode), 2)}x (${spread(decode)}), end to end ${f(median(endToEnd), 2)}x faster (${spread(endToEnd)})\n`,
    );
    return {
      variant: v.label,
      prefill_median: median(prefill),
      prefill_per_round: prefill,
      decode_median: median(decode),
      decode_per_round: decode,
      end_to_end_median: median(endToEnd),
    };
  });
  process.stdout.write(`${JSON.stringify({ side_by_side: summary, ratios, rounds })}\n`);
}
