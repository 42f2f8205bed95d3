// The side-by-side part of `npm run bench:engine` (issue 18): the prebuilt and the native
// llama.cpp binary, one child process each (two llama.cpp builds are never loaded into one
// process), same checkpoint, same prompt, measured in one run. Each child prints one JSON line;
// the parent prints the table and the native/prebuilt ratios, and whether the greedy tokens of
// the two binaries are identical. Not a test: nothing here asserts.
import { spawn } from "node:child_process";
import os from "node:os";
import { LlamaEngine } from "../src/model/engine/llamaEngine.ts";

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
export async function measureThisBinary(label: string, ggufPath: string, vocabularySize: number, prompt: number[], busyPrompt: number[]): Promise<void> {
  const loaded = await LlamaEngine.load({ ggufPath, vocabularySize });
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
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
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

export async function sideBySide(script: string, childArgs: string[], variants: readonly Variant[], log: (line: string) => void): Promise<void> {
  const loadStart = os.loadavg()[0] ?? 0;
  const results: BinaryFigures[] = [];
  for (const v of variants) {
    log(`side by side: ${v.label} ...`);
    const base = { ...process.env };
    delete base["OMP_WAIT_POLICY"];
    delete base["GOMP_SPINCOUNT"];
    const r = await runChild(script, [...childArgs, "--binary-child", v.label], { ...base, ...v.env });
    log(`  ${JSON.stringify({ ...r, greedy_ids: `${r.greedy_ids.length} ids` })}`);
    results.push(r);
  }
  const f = (n: number, d = 1): string => n.toFixed(d);
  const base = results[0] as BinaryFigures;
  process.stdout.write(`\nengine binaries side by side (one run each, 1-min load average ${f(loadStart, 2)} at start, ${f(os.loadavg()[0] ?? 0, 2)} at end)\n`);
  process.stdout.write(`| variant | binary | prefill 1,500 (tok/s) | decode 128 (tok/s) | 1,500 + 128 end to end (s) | decode, one busy core (tok/s) | peak RSS (GiB) | greedy ids = first row |\n|---|---|---|---|---|---|---|---|\n`);
  for (const r of results) {
    const same = r.greedy_ids.length === base.greedy_ids.length && r.greedy_ids.every((id, i) => id === base.greedy_ids[i]);
    process.stdout.write(`| ${r.label} | ${r.binary} | ${f(r.prefill_tok_s_1500)} | ${f(r.decode_tok_s_128)} | ${f(r.end_to_end_s_1500_plus_128)} | ${f(r.decode_tok_s_one_busy_core)} | ${f(r.peak_rss_gib, 2)} | ${same ? "identical" : "DIFFERENT"} (${r.greedy_ids.length}) |\n`);
  }
  for (const r of results.slice(1)) {
    process.stdout.write(`ratio ${r.label}/${base.label}: prefill ${f(r.prefill_tok_s_1500 / base.prefill_tok_s_1500, 2)}x, decode ${f(r.decode_tok_s_128 / base.decode_tok_s_128, 2)}x, end to end ${f(base.end_to_end_s_1500_plus_128 / r.end_to_end_s_1500_plus_128, 2)}x faster\n`);
  }
  process.stdout.write(`${JSON.stringify({ side_by_side: results.map((r) => ({ ...r, greedy_ids: undefined, greedy_ids_identical_to_first: r.greedy_ids.every((id, i) => id === base.greedy_ids[i]) })) })}\n`);
}
