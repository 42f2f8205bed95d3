// The live generation counts on the status line: folding progress notices, the decode rate,
// the exact text during prefill and decode (lab model and model generate), and silence when
// stderr is not a terminal or with --json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeRate, describeLiveCounts, foldProgress, groupedCount } from "../../src/cli/liveGeneration.ts";
import {
  describeGenerateProgress,
  describeRunProgress,
  foldAuditLine,
  INITIAL_RUN_PROGRESS,
  watchElapsed,
  watchRunProgress,
} from "../../src/cli/runProgress.ts";
import { auditLine, generationData, REQUEST_DATA } from "../support/auditLines.ts";

function fakeStream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const stream = {
    isTTY,
    columns: 200,
    text: "",
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
  };
  return stream as unknown as NodeJS.WriteStream & { text: string };
}

test("counts are grouped by thousands the same way everywhere", () => {
  assert.equal(groupedCount(0), "0");
  assert.equal(groupedCount(999), "999");
  assert.equal(groupedCount(1024), "1,024");
  assert.equal(groupedCount(32_768), "32,768");
  assert.equal(groupedCount(1_234_567), "1,234,567");
});

test("prefill shows tokens evaluated out of the call's total; decode its tokens and, after 0.2 s, tok/s", () => {
  const prefill = foldProgress(null, {
    phase: "prefill",
    tokens: 1024,
    total: 1500,
    elapsedMs: 3_000,
    proposalNumber: 3,
  });
  assert.equal(describeLiveCounts(prefill), "prefill 1,024/1,500 tokens");
  assert.equal(decodeRate(prefill), null);
  const first = foldProgress(prefill, { phase: "decode", tokens: 1, elapsedMs: 4_000, proposalNumber: 3 });
  assert.equal(describeLiveCounts(first), "generating… 1 token");
  const soon = foldProgress(first, { phase: "decode", tokens: 2, elapsedMs: 4_100, proposalNumber: 3 });
  assert.equal(describeLiveCounts(soon), "generating… 2 tokens", "no rate from under 0.2 s");
  // The rate is the call's: output tokens over the call's time, prefill included, as the kept line measures.
  const later = foldProgress(soon, { phase: "decode", tokens: 45, elapsedMs: 8_731, proposalNumber: 3 });
  assert.equal(later.decodeStart?.tokens, 1);
  assert.equal(describeLiveCounts(later), "generating… 45 tokens, 5.2 tok/s");
  assert.equal(Math.round((decodeRate(later) ?? 0) * 1000), Math.round((45 / 8.731) * 1000));
});

test("a notice for another proposal starts over: its rate does not mix with the last generation's", () => {
  const old = foldProgress(foldProgress(null, { phase: "decode", tokens: 1, elapsedMs: 1_000, proposalNumber: 2 }), {
    phase: "decode",
    tokens: 90,
    elapsedMs: 10_000,
    proposalNumber: 2,
  });
  const next = foldProgress(old, { phase: "decode", tokens: 5, elapsedMs: 2_000, proposalNumber: 3 });
  assert.equal(next.proposal, 3);
  assert.deepEqual(next.decodeStart, { tokens: 5, elapsedMs: 2_000 });
  assert.equal(decodeRate(next), null);
});

test("a notice from the next call starts over even without proposal numbers (the benchmark's calls)", () => {
  const old = foldProgress(foldProgress(null, { phase: "decode", tokens: 1, elapsedMs: 1_000, callId: 7 }), {
    phase: "decode",
    tokens: 90,
    elapsedMs: 10_000,
    callId: 7,
  });
  assert.equal(describeLiveCounts(old), "generating… 90 tokens, 9.0 tok/s");
  const next = foldProgress(old, { phase: "decode", tokens: 3, elapsedMs: 300, callId: 8 });
  assert.deepEqual(next.decodeStart, { tokens: 3, elapsedMs: 300 });
  assert.equal(describeLiveCounts(next), "generating… 3 tokens");
});

test("lab model's line during prefill and decode", () => {
  const requested = foldAuditLine(
    INITIAL_RUN_PROGRESS,
    auditLine("request", REQUEST_DATA, { proposal: 3 }),
    65_000,
  ).state;
  const prefill = foldProgress(null, {
    phase: "prefill",
    tokens: 1024,
    total: 1500,
    elapsedMs: 2_000,
    proposalNumber: 3,
  });
  assert.equal(
    describeRunProgress(requested, 67_000, "lab model", prefill),
    "lab model: proposal 3: prefill 1,024/1,500 tokens, 2 s (run 67 s)",
  );
  const decode = foldProgress(
    foldProgress(prefill, { phase: "decode", tokens: 1, elapsedMs: 3_000, proposalNumber: 3 }),
    { phase: "decode", tokens: 45, elapsedMs: 7_731, proposalNumber: 3 },
  );
  assert.equal(
    describeRunProgress(requested, 70_000, "lab model", decode),
    "lab model: proposal 3: generating… 45 tokens, 5.8 tok/s, 5 s (run 70 s)",
  );
  // Before the watcher has read the request event, the call's own elapsed time is shown.
  assert.equal(
    describeRunProgress(INITIAL_RUN_PROGRESS, 70_000, "lab model", decode),
    "lab model: proposal 3: generating… 45 tokens, 5.8 tok/s, 8 s (run 70 s)",
  );
  // Without progress the line is what it was.
  assert.equal(describeRunProgress(requested, 70_000), "lab model: proposal 3: generating… 5 s (run 70 s)");
});

test("model generate's line: loading, generating, then tokens so far", () => {
  assert.equal(describeGenerateProgress(4_000, false, null), "model generate: verifying and loading the model… 4 s");
  assert.equal(describeGenerateProgress(12_000, true, null), "model generate: generating… 12 s");
  const prefill = foldProgress(null, { phase: "prefill", tokens: 512, total: 1500, elapsedMs: 1_000 });
  assert.equal(
    describeGenerateProgress(13_000, true, prefill),
    "model generate: prefill 512/1,500 tokens, 1 s (total 13 s)",
  );
  const decode = foldProgress(foldProgress(prefill, { phase: "decode", tokens: 1, elapsedMs: 2_000 }), {
    phase: "decode",
    tokens: 21,
    elapsedMs: 4_000,
  });
  assert.equal(
    describeGenerateProgress(16_000, true, decode),
    "model generate: generating… 21 tokens, 5.3 tok/s, 4 s (total 16 s)",
  );
});

test("on a terminal, a progress notice redraws lab model's line at once; the audit's generation event ends it", (t) => {
  const run = mkdtempSync(join(tmpdir(), "tca-live-"));
  t.after(() => rmSync(run, { recursive: true, force: true }));
  const stream = fakeStream(true);
  let clock = 0;
  const watch = watchRunProgress(run, { stream, now: () => clock, pollMs: 60_000 });
  assert.equal(watch.active, true);
  writeFileSync(join(run, "audit.jsonl"), `${auditLine("request", REQUEST_DATA, { proposal: 1 })}\n`);
  clock = 1_000;
  watch.poll();
  clock = 3_000;
  watch.progress({ phase: "prefill", tokens: 300, total: 900, elapsedMs: 2_000, proposalNumber: 1 });
  assert.ok(stream.text.endsWith("\r\x1b[2Klab model: proposal 1: prefill 300/900 tokens, 2 s (run 3 s)"), stream.text);
  clock = 5_000;
  watch.progress({ phase: "decode", tokens: 1, elapsedMs: 4_000, proposalNumber: 1 });
  watch.progress({ phase: "decode", tokens: 11, elapsedMs: 5_000, proposalNumber: 1 });
  assert.ok(
    stream.text.endsWith("lab model: proposal 1: generating… 11 tokens, 2.2 tok/s, 4 s (run 5 s)"),
    stream.text,
  );
  writeFileSync(
    join(run, "audit.jsonl"),
    `${auditLine("generation", generationData(12, 5_000), { event_id: 2, proposal: 1 })}\n`,
    { flag: "a" },
  );
  clock = 6_000;
  watch.poll();
  // The kept line measures what the live one did (tokens over the call's time): 2.2 live, 2.4 kept with the last token.
  assert.ok(
    stream.text.includes("lab model: proposal 1: 12 tokens in 5.0 s (2.4 tok/s)\n"),
    "the kept line comes from the audit",
  );
  assert.ok(
    stream.text.endsWith("lab model: proposal 1: generation (run 6 s)"),
    "the live counts end with their generation",
  );
  watch.stop();
  const after = stream.text;
  watch.progress({ phase: "decode", tokens: 12, elapsedMs: 6_000, proposalNumber: 1 });
  assert.equal(stream.text, after, "nothing after stop");
});

test("model generate's watcher shows the counts as they come", () => {
  const stream = fakeStream(true);
  let clock = 0;
  const watch = watchElapsed((ms, live) => describeGenerateProgress(ms, true, live), {
    stream,
    now: () => clock,
    pollMs: 60_000,
  });
  clock = 9_000;
  watch.progress({ phase: "decode", tokens: 7, elapsedMs: 700 });
  assert.ok(stream.text.endsWith("\r\x1b[2Kmodel generate: generating… 7 tokens, 1 s (total 9 s)"), stream.text);
  watch.stop("model generate: done");
  assert.ok(stream.text.endsWith("\r\x1b[2Kmodel generate: done\n"));
});

test("quiet when stderr is not a terminal, or with --json: inactive (progress is not even asked for) and nothing written", (t) => {
  const run = mkdtempSync(join(tmpdir(), "tca-live-"));
  t.after(() => rmSync(run, { recursive: true, force: true }));
  for (const [stream, json] of [
    [fakeStream(false), false],
    [fakeStream(true), true],
  ] as const) {
    const watch = watchRunProgress(run, { stream, json, pollMs: 1 });
    assert.equal(watch.active, false);
    watch.progress({ phase: "decode", tokens: 3, elapsedMs: 300, proposalNumber: 1 });
    watch.stop();
    const elapsed = watchElapsed(() => "model generate: …", { stream, json, pollMs: 1 });
    assert.equal(elapsed.active, false);
    elapsed.progress({ phase: "prefill", tokens: 3, total: 9, elapsedMs: 300 });
    elapsed.stop("model generate: done");
    assert.equal(stream.text, "");
  }
});
