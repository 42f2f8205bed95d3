// Progress of `tca lab model` and `tca model generate` on stderr: rendered from the run's audit,
// quiet (nothing written, no timer) when stderr is not a terminal or with --json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  describeGeneratedCall,
  describeGeneration,
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

const request = (proposal: number) => auditLine("request", REQUEST_DATA, { proposal, t_ms: 10 });
const generation = (proposal: number, tokens: number, ms: number) =>
  auditLine("generation", generationData(tokens, ms), { proposal, t_ms: 20 });

test("the status line: loading before any event, then the running generation, then the last event", () => {
  assert.equal(
    describeRunProgress(INITIAL_RUN_PROGRESS, 11_400),
    "lab model: verifying, converting and loading the model… 11 s",
  );
  // The run folder and its first event exist while the model still loads; source_load ends loading.
  const started = foldAuditLine(
    INITIAL_RUN_PROGRESS,
    auditLine("run_started", {
      run_kind: "model_trial",
      labels: {},
      initial_state: {
        version: 0,
        sourceSha256: "0".repeat(64),
        taskSha256: "1".repeat(64),
        expressions: { clamp: "x", total: "y" },
      },
      overall_deadline_ms: 1,
    }),
    100,
  ).state;
  assert.equal(describeRunProgress(started, 5_000), "lab model: verifying, converting and loading the model… 5 s");
  const loaded = foldAuditLine(
    started,
    auditLine("source_load", { ok: true, error: null, message: null, elapsed_ms: 1 }),
    11_000,
  ).state;
  assert.equal(describeRunProgress(loaded, 11_500), "lab model: model loaded (run 12 s)");
  const generating = foldAuditLine(INITIAL_RUN_PROGRESS, request(2), 12_000);
  assert.equal(generating.finished, null);
  assert.equal(describeRunProgress(generating.state, 20_000), "lab model: proposal 2: generating… 8 s (run 20 s)");
  const done = foldAuditLine(generating.state, generation(2, 150, 12_500), 24_500);
  assert.deepEqual(done.finished, { proposal: 2, outputTokens: 150, elapsedMs: 12_500 });
  assert.equal(describeRunProgress(done.state, 25_000), "lab model: proposal 2: generation (run 25 s)");
});

test("each generation: tokens, seconds and tok/s; without a token count, only the seconds", () => {
  assert.equal(
    describeGeneration({ proposal: 3, outputTokens: 120, elapsedMs: 12_000 }),
    "lab model: proposal 3: 120 tokens in 12.0 s (10.0 tok/s)",
  );
  assert.equal(
    describeGeneration({ proposal: 1, outputTokens: null, elapsedMs: 1_500 }),
    "lab model: proposal 1: 1.5 s",
  );
  assert.equal(
    describeGeneration({ proposal: 1, outputTokens: 5, elapsedMs: 0 }),
    "lab model: proposal 1: 5 tokens in 0 ms",
  );
  // Counts with separators and durations in the one format, as everywhere (src/core/numberFormat.ts).
  assert.equal(
    describeGeneration({ proposal: 2, outputTokens: 7151, elapsedMs: 2_000_000 }),
    "lab model: proposal 2: 7,151 tokens in 33 min 20 s (3.6 tok/s)",
  );
  assert.equal(
    describeGeneratedCall({ output_tokens: 40, timings_ms: { supervised_load: 11_000, call: 8_000 } }),
    "model generate: loaded in 11.0 s; 40 tokens in 8.0 s (5.0 tok/s)",
  );
});

test("a line that is not JSON, not an object, or not a record of the catalog changes nothing", () => {
  assert.deepEqual(foldAuditLine(INITIAL_RUN_PROGRESS, "{not json", 1), {
    state: INITIAL_RUN_PROGRESS,
    finished: null,
  });
  assert.deepEqual(foldAuditLine(INITIAL_RUN_PROGRESS, "42", 1), { state: INITIAL_RUN_PROGRESS, finished: null });
  // A record the strict reader refuses (format 1, an unknown field) is not counted either.
  const v1 = JSON.stringify({
    schema: "tca.audit/1",
    run_id: "r",
    event_id: 1,
    t_ms: 0,
    source: "m",
    proposal: 1,
    type: "request",
    data: {},
  });
  assert.deepEqual(foldAuditLine(INITIAL_RUN_PROGRESS, v1, 1), { state: INITIAL_RUN_PROGRESS, finished: null });
  const drifted = request(1).replace('"call_deadline_ms":1', '"call_deadline_ms":1,"extra":true');
  assert.notEqual(drifted, request(1));
  assert.deepEqual(foldAuditLine(INITIAL_RUN_PROGRESS, drifted, 1), { state: INITIAL_RUN_PROGRESS, finished: null });
});

test("on a terminal, the watcher reads the audit as it grows and keeps one line per generation", (t) => {
  const run = mkdtempSync(join(tmpdir(), "tca-progress-"));
  t.after(() => rmSync(run, { recursive: true, force: true }));
  const stream = fakeStream(true);
  let clock = 0;
  const watch = watchRunProgress(run, { stream, now: () => clock, pollMs: 60_000 });
  watch.poll(); // no audit yet: loading
  assert.ok(stream.text.endsWith("\r\x1b[2Klab model: verifying, converting and loading the model… 0 s"), stream.text);
  writeFileSync(join(run, "audit.jsonl"), `${request(1)}\n${generation(1, 60, 6_000)}\n`);
  clock = 7_000;
  watch.poll();
  assert.ok(stream.text.includes("lab model: proposal 1: 60 tokens in 6.0 s (10.0 tok/s)\n"), stream.text);
  // A half-written line waits for its end.
  appendFileSync(join(run, "audit.jsonl"), request(2).slice(0, 10));
  watch.poll();
  appendFileSync(join(run, "audit.jsonl"), `${request(2).slice(10)}\n`);
  clock = 9_000;
  watch.poll();
  assert.match(stream.text, /proposal 2: generating… 0 s \(run 9 s\)$/);
  watch.stop();
  assert.ok(stream.text.endsWith("\r\x1b[2K"), "stop clears the status line");
});

test("quiet when stderr is not a terminal, or with --json: nothing is written", (t) => {
  const run = mkdtempSync(join(tmpdir(), "tca-progress-"));
  t.after(() => rmSync(run, { recursive: true, force: true }));
  writeFileSync(join(run, "audit.jsonl"), `${request(1)}\n${generation(1, 60, 6_000)}\n`);
  for (const [stream, json] of [
    [fakeStream(false), false],
    [fakeStream(true), true],
  ] as const) {
    const watch = watchRunProgress(run, { stream, json, pollMs: 1 });
    watch.poll();
    watch.stop();
    const elapsed = watchElapsed(() => "model generate: …", { stream, json, pollMs: 1 });
    elapsed.stop("model generate: done");
    assert.equal(stream.text, "");
  }
});

test("watchElapsed on a terminal: a status line, then the kept final line", () => {
  const stream = fakeStream(true);
  const watch = watchElapsed((ms) => `model generate: … ${ms} ms`, { stream, now: () => 0, pollMs: 60_000 });
  watch.stop("model generate: 40 tokens in 8.0 s (5.0 tok/s)");
  assert.equal(stream.text, "\r\x1b[2Kmodel generate: … 0 ms\r\x1b[2Kmodel generate: 40 tokens in 8.0 s (5.0 tok/s)\n");
});
