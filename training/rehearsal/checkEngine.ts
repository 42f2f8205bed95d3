// Dev command: greedy token-for-token agreement of the rehearsal model through the real engine.
// Builds the rehearsal checkpoint from the committed weights, loads it through the unchanged
// loader, converter and supervised worker (LocalModelSource), and asks it every trained request
// of freshly generated transcripts. Every reply must be exactly the trained ids, ending with
// the stop token. Prints n/n and the time per proposal; exit status 1 on any disagreement.
// Run: node --import tsx training/rehearsal/checkEngine.ts
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { systemClock } from "../../src/core/clock.ts";
import { makeRehearsalCheckpoint } from "../../src/model/rehearsal/makeRehearsalCheckpoint.ts";
import { LocalModelSource } from "../../src/sources/localModelSource.ts";
import { generateTranscripts } from "./transcripts.ts";

const root = await mkdtemp(path.join(os.tmpdir(), "tca-rehearsal-check-"));
const directory = path.join(root, "rehearsal");
let failures = 0;
try {
  const made = await makeRehearsalCheckpoint({ directory });
  if (!made.ok) throw new Error(`${made.error}: ${made.message}`);
  const set = await generateTranscripts();
  const seen = new Set<string>();
  const targets = set.examples.filter((e) => {
    const key = e.input_ids.join(",");
    if (!e.target || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const created = await LocalModelSource.create({
    modelDirectory: directory,
    overallDeadlineMs: systemClock.now() + 600_000,
  });
  if (!created.ok) throw new Error(`${created.error}: ${created.message}`);
  const source = created.value;
  let totalMs = 0;
  try {
    for (const e of targets) {
      const started = systemClock.now();
      const outcome = await source.propose(
        { proposalNumber: e.proposal, messages: e.messages ?? [], deadlineMs: systemClock.now() + 120_000 },
        new AbortController().signal,
      );
      const ms = systemClock.now() - started;
      totalMs += ms;
      const got = outcome.kind === "text" ? (outcome.metadata.rawOutputIds ?? []) : [];
      const sameInput =
        outcome.kind === "text" && JSON.stringify(outcome.metadata.inputIds) === JSON.stringify(e.input_ids);
      const ok = sameInput && JSON.stringify(got) === JSON.stringify(e.target_ids);
      if (!ok) failures++;
      process.stdout.write(
        `${ok ? "ok  " : "FAIL"} ${e.scenario} #${e.proposal} input ${e.input_ids.length} tokens, ${Math.round(ms)} ms${ok ? "" : ` got ${JSON.stringify(got)} want ${JSON.stringify(e.target_ids)}${sameInput ? "" : " (input ids differ)"}`}\n`,
      );
    }
  } finally {
    await source.close();
  }
  process.stdout.write(
    `${targets.length - failures}/${targets.length} trained requests reproduced token for token; ${Math.round(totalMs / targets.length)} ms per proposal\n`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
  await rm(`${directory}.tca-engine-cache`, { recursive: true, force: true });
}
process.exitCode = failures === 0 ? 0 : 1;
