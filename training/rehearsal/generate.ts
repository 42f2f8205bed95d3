// Dev command: writes training/rehearsal/transcripts.json, the rehearsal model's training data,
// from our own controller (see transcripts.ts). Run: node --import tsx training/rehearsal/generate.ts
import { writeFile } from "node:fs/promises";
import { generateTranscripts, serializableTranscripts } from "./transcripts.ts";

export const TRANSCRIPTS_FILE = new URL("./transcripts.json", import.meta.url);

const set = await generateTranscripts();
await writeFile(
  TRANSCRIPTS_FILE,
  JSON.stringify({ schema: "tca.rehearsal-transcripts/1", ...serializableTranscripts(set) }) + "\n",
);
for (const o of set.outcomes)
  process.stdout.write(
    `${o.scenario}: ${o.stop_reason} verified_success=${o.verified_success} request_tokens=${o.request_tokens.join(",")}\n`,
  );
process.stdout.write(
  `${set.examples.filter((e) => e.target).length} training targets of ${set.examples.length} requests\n`,
);
