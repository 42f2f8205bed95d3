// Progress from a real generation: the tiny synthetic checkpoint in the real worker process,
// through the supervisor and the local-model source. Counts rise and end at the output token
// count, arrive before the result, and asking for them changes nothing the model produces.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { systemClock } from "../../src/core/clock.ts";
import { SYSTEM_INSTRUCTION, TASK_TXT } from "../../src/constants/labConstants.ts";
import { ModelSupervisor, type SupervisedProgress } from "../../src/model/worker/supervisor.ts";
import { LocalModelSource, type GenerationProgressNotice } from "../../src/sources/localModelSource.ts";
import { makeTinyCheckpoint, type TinyCheckpoint } from "./tinyCheckpoint.ts";

let checkpoint: TinyCheckpoint;
let supervisor: ModelSupervisor;

before(async () => {
  checkpoint = await makeTinyCheckpoint(23);
  // 10 ms (the protocol's minimum) so the tiny model's quick generation still sends several counts.
  supervisor = new ModelSupervisor({ progressIntervalMs: 10 });
  const loaded = await supervisor.load(checkpoint.directory, systemClock.now() + 300_000);
  assert.ok(loaded.ok, loaded.ok ? "" : loaded.message);
});

after(async () => {
  await supervisor?.close();
  await checkpoint?.cleanup();
});

/** Every count after the first is later in the generation than the one before it. */
function assertRising(seen: readonly SupervisedProgress[]): void {
  for (let i = 1; i < seen.length; i++) {
    const [a, b] = [seen[i - 1], seen[i]];
    if (a === undefined || b === undefined) continue;
    const rises = a.phase === b.phase ? b.tokens > a.tokens : a.phase === "prefill" && b.phase === "decode";
    assert.ok(rises, `count ${i}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`);
    assert.ok(b.elapsedMs >= a.elapsedMs);
  }
}

test("a real generation's progress rises and ends at its output token count; the output is the same without progress", async () => {
  // 600 input ids: several prefill chunks; no prefix reuse, so both calls evaluate them all.
  const input = { kind: "ids" as const, ids: Array.from({ length: 600 }, (_, i) => 200 + (i % 50)) };
  const seen: SupervisedProgress[] = [];
  const deadline = systemClock.now() + 120_000;
  const withProgress = await supervisor.generate(input, {
    overallDeadlineMs: deadline,
    reusePrefix: false,
    onProgress: (p) => seen.push(p),
  });
  assert.equal(withProgress.kind, "result");
  if (withProgress.kind !== "result") return;
  assert.ok(seen.length >= 1);
  assertRising(seen);
  const last = seen.at(-1);
  assert.deepEqual(last && { phase: last.phase, tokens: last.tokens }, {
    phase: "decode",
    tokens: withProgress.report.outputTokens,
  });
  assert.ok(
    seen.every((p) => p.elapsedMs <= withProgress.elapsedMs),
    "every count came before the result",
  );
  for (const p of seen) if (p.phase === "prefill") assert.equal(p.total, 600);

  const without = await supervisor.generate(input, {
    overallDeadlineMs: systemClock.now() + 120_000,
    reusePrefix: false,
  });
  assert.equal(without.kind, "result");
  if (without.kind !== "result") return;
  assert.deepEqual(without.report.rawOutputIds, withProgress.report.rawOutputIds);
  assert.equal(without.report.text, withProgress.report.text);
  assert.deepEqual(without.report.inputIds, withProgress.report.inputIds);
  process.stderr.write(
    `# progress counts from the tiny checkpoint: ${JSON.stringify(seen.map((p) => [p.phase, p.tokens]))}\n`,
  );
});

test("the local-model source passes each count with its proposal number; its outcome is unchanged", async () => {
  const notices: GenerationProgressNotice[] = [];
  const created = await LocalModelSource.create({
    modelDirectory: checkpoint.directory,
    overallDeadlineMs: systemClock.now() + 300_000,
    supervisor: { progressIntervalMs: 10 },
    onGenerationProgress: (n) => notices.push(n),
  });
  assert.ok(created.ok, created.ok ? "" : created.message);
  const plain = await LocalModelSource.create({
    modelDirectory: checkpoint.directory,
    overallDeadlineMs: systemClock.now() + 300_000,
  });
  assert.ok(plain.ok, plain.ok ? "" : plain.message);
  try {
    const request = {
      proposalNumber: 4,
      messages: [
        { role: "system" as const, content: SYSTEM_INSTRUCTION },
        { role: "user" as const, content: TASK_TXT },
      ],
      deadlineMs: systemClock.now() + 120_000,
    };
    const outcome = await created.value.propose(request, new AbortController().signal);
    const reference = await plain.value.propose(request, new AbortController().signal);
    assert.equal(outcome.kind, "text");
    assert.equal(reference.kind, "text");
    if (outcome.kind !== "text" || reference.kind !== "text") return;
    assert.equal(outcome.text, reference.text);
    const { callElapsedMs: _a, timingsMs: _b, threads: _c, workerPeakRssBytes: _d, ...same } = outcome.metadata;
    const {
      callElapsedMs: _e,
      timingsMs: _f,
      threads: _g,
      workerPeakRssBytes: _h,
      ...sameReference
    } = reference.metadata;
    assert.deepEqual(same, sameReference, "the metadata a run records has no trace of progress");
    assert.ok(notices.length >= 1);
    assert.ok(notices.every((n) => n.proposalNumber === 4));
    assert.deepEqual(notices.at(-1) && [notices.at(-1)?.phase, notices.at(-1)?.tokens], [
      "decode",
      outcome.metadata.outputTokens,
    ]);
  } finally {
    await created.value.close();
    await plain.value.close();
  }
});
