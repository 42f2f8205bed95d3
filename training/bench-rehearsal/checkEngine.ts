// Dev command: greedy token-for-token agreement of the bench rehearsal model through the local
// backend (LocalEngineChat: the same rendering, tokenizer, worker and reply parser as a bench
// run). Every distinct trained request must give exactly the trained ids, stop token included;
// then every request that holds pytest's wall time is asked again with times the model never
// saw, which shows whether those digits can change what it does. Prints n/n and the seconds per
// request; exit status 1 on any disagreement.
// Run: node --import tsx training/bench-rehearsal/checkEngine.ts
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { makeRehearsalCheckpoint } from "../../src/model/rehearsal/makeRehearsalCheckpoint.ts";
import { LocalEngineChat } from "../../src/sources/localEngineChat.ts";
import type { ChatTurnMessage } from "../../src/sources/openaiCompatibleChat.ts";
import { HAS_TIMING, generateBenchTranscripts, withTiming, type BenchTranscriptExample } from "./transcripts.ts";

/** Times no transcript holds: other digits, other lengths. */
const UNSEEN_TIMINGS = ["0.02", "0.04", "0.15", "0.27", "0.99", "1.91", "3.14", "12.75"] as const;

const root = await mkdtemp(path.join(os.tmpdir(), "tca-bench-rehearsal-check-"));
const directory = path.join(root, "model");
let failures = 0;
let asked = 0;
let totalMs = 0;
try {
  const made = await makeRehearsalCheckpoint({ directory, set: "bench" });
  if (!made.ok) throw new Error(`${made.error}: ${made.message}`);
  const created = await LocalEngineChat.create({ modelDirectory: directory });
  if (!created.ok) throw new Error(`${created.error}: ${created.message}`);
  const backend = created.value;
  const ask = async (
    e: BenchTranscriptExample,
    messages: readonly ChatTurnMessage[],
    label: string,
    sameInput: boolean,
  ): Promise<void> => {
    const started = performance.now();
    const reply = await backend.complete({
      messages,
      tools: e.tools,
      maxTokens: 2048,
      signal: AbortSignal.timeout(300_000),
    });
    const ms = performance.now() - started;
    totalMs += ms;
    asked++;
    const response = reply.ok ? (reply.exchange.response as { rawOutputIds: number[] }) : null;
    const inputTokens = (reply.exchange.request as { inputTokens?: number }).inputTokens;
    const ok =
      response !== null &&
      JSON.stringify(response.rawOutputIds) === JSON.stringify(e.target_ids) &&
      (!sameInput || inputTokens === e.input_ids.length);
    if (!ok) failures++;
    process.stdout.write(
      `${ok ? "ok  " : "FAIL"} ${label} turn ${e.proposal}: ${inputTokens ?? "?"} input tokens, ${Math.round(ms)} ms${ok ? "" : reply.ok ? ` got ${JSON.stringify(response?.rawOutputIds.slice(0, 40))}` : ` ${reply.error}`}\n`,
    );
  };
  try {
    const set = await generateBenchTranscripts();
    const seen = new Set<string>();
    for (const e of set.examples) {
      const key = e.input_ids.join(",");
      if (seen.has(key)) continue;
      seen.add(key);
      await ask(e, e.messages, e.scenario, true);
    }
    const trained = asked;
    const withTime = set.examples.filter((e) => e.scenario.endsWith("@0.01s"));
    for (const e of withTime) {
      if (!e.messages.some((m) => m.role === "tool" && HAS_TIMING.test(m.content))) continue;
      for (const seconds of UNSEEN_TIMINGS)
        await ask(e, withTiming(e.messages, seconds), `${e.scenario.replace(/@.*$/, "")}@${seconds}s (unseen)`, false);
    }
    process.stdout.write(
      `${asked - failures}/${asked} requests reproduced token for token (${trained} trained, ${asked - trained} with unseen test times); ${(totalMs / asked / 1000).toFixed(2)} s per request\n`,
    );
  } finally {
    await backend.close();
  }
} finally {
  await rm(root, { recursive: true, force: true });
  await rm(`${directory}.tca-engine-cache`, { recursive: true, force: true });
}
process.exitCode = failures === 0 ? 0 : 1;
