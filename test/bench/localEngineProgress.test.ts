// The benchmark's local backend passes the worker's progress to its optional onGenerationProgress
// (the CLI's progress bar): counts rise and end at the call's completion tokens, each call with
// its own id.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { SupervisedProgress } from "../../src/model/worker/supervisor.ts";
import { LocalEngineChat } from "../../src/sources/localEngineChat.ts";
import { makeTinyCheckpoint, type TinyCheckpoint } from "../engine/tinyCheckpoint.ts";

let checkpoint: TinyCheckpoint;
let backend: LocalEngineChat;
const seen: SupervisedProgress[] = [];

before(async () => {
  checkpoint = await makeTinyCheckpoint(13);
  const created = await LocalEngineChat.create({
    modelDirectory: checkpoint.directory,
    supervisor: { progressIntervalMs: 10 },
    onGenerationProgress: (p) => seen.push(p),
  });
  assert.ok(created.ok, created.ok ? "" : `${created.error}: ${created.message}`);
  backend = created.value;
});

after(async () => {
  await backend?.close();
  await checkpoint?.cleanup();
});

test("each local call's progress ends at its completion tokens; the next call has its own id", async () => {
  const ask = () =>
    backend.complete({
      messages: [{ role: "user", content: "fix the bug in gcd" }],
      tools: [],
      maxTokens: 300,
      signal: AbortSignal.timeout(60_000),
    });
  const first = await ask();
  assert.ok(first.ok, first.ok ? "" : first.message);
  const firstCounts = [...seen];
  assert.ok(firstCounts.length >= 1);
  const last = firstCounts.at(-1);
  assert.deepEqual(last && [last.phase, last.tokens], ["decode", first.usage.completionTokens]);
  const firstId = firstCounts[0]?.callId;
  assert.ok(firstCounts.every((p) => p.callId === firstId));
  seen.length = 0;
  const second = await ask();
  assert.ok(second.ok);
  assert.ok(seen.length >= 1 && seen.every((p) => p.callId !== firstId), "a new call id");
});
