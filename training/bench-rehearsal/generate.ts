// Dev command: writes training/bench-rehearsal/transcripts.json, the bench rehearsal model's
// training data, from the benchmark's own agent loop (see transcripts.ts).
// Run: node --import tsx training/bench-rehearsal/generate.ts
import { writeFile } from "node:fs/promises";
import { generateBenchTranscripts, serializableBenchTranscripts } from "./transcripts.ts";

export const BENCH_TRANSCRIPTS_FILE = new URL("./transcripts.json", import.meta.url);

const set = await generateBenchTranscripts();
await writeFile(BENCH_TRANSCRIPTS_FILE, serializableBenchTranscripts(set));
for (const o of set.outcomes)
  process.stdout.write(
    `${o.scenario}: ${o.stop_reason} claimed=${o.claimed} refused_stops=${o.refused_stops} turns=${o.turns} request_tokens=${o.request_tokens.join(",")}\n`,
  );
const distinct = new Set(set.examples.map((e) => e.input_ids.join(","))).size;
const targetTokens = set.examples.reduce((n, e) => n + e.target_ids.length, 0);
const ids = new Set(set.examples.flatMap((e) => [...e.input_ids, ...e.target_ids])).size;
process.stdout.write(
  `${set.examples.length} requests (${distinct} distinct), ${targetTokens} target tokens, ${ids} token ids\n`,
);
