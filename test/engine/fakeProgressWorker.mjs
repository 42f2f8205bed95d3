// A stand-in model worker that sends scripted progress messages, so the supervisor's handling
// of progress (order, rate, ids, timing against the result and the deadline) is tested exactly.
// Mode comes from argv[2]. Each result's `threads` field echoes the generate request it answers,
// so tests can see what the supervisor sent.
// Plain JavaScript, run by plain node: a test starts one per supervisor, and tsx's loader would be
// most of what each start costs.
import { createWriteStream } from "node:fs";
const mode = process.argv[2] ?? "progress";
const out = createWriteStream("", { fd: 3 });
const send = (value) => {
  out.write(JSON.stringify(value) + "\n");
};
const report = (request, outputTokens = 2) => ({
  inputIds: [1, 2, 3],
  inputTokens: 3,
  rawOutputIds: Array.from({ length: outputTokens }, (_, i) => 7 + i),
  outputTokens,
  text: "x",
  stopCause: "max_new_tokens",
  prefixTokensReused: 0,
  timingsMs: { prefill: 1, decode: 1 },
  threads: { request },
  peakRssBytes: 1000,
});
const progress = (id, phase, tokens, total) => ({
  type: "progress",
  id,
  phase,
  tokens,
  ...(total === undefined ? {} : { total }),
});
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk.toString("utf8");
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const request = JSON.parse(buffer.slice(0, newline));
    buffer = buffer.slice(newline + 1);
    if (request.type === "load") {
      if (mode === "progress_during_load") send(progress(1, "decode", 1));
      send({ type: "loaded", label: "synthetic-pipeline-check", synthetic: true, identity: { engine: "fake" } });
      continue;
    }
    const id = request.id;
    if (request.type === "cancel") {
      // Progress may still be on its way when the cancel arrives; the call must wait for "cancelled".
      send(progress(id, "decode", 3));
      setTimeout(() => send({ type: "cancelled", id }), 50);
      continue;
    }
    switch (mode) {
      case "progress":
      case "progress_during_load":
        send(progress(id, "prefill", 4, 10));
        send(progress(id, "prefill", 8, 10));
        send(progress(id, "decode", 1));
        send(progress(id, "decode", 2));
        send({ type: "result", id, report: report(request) });
        break;
      case "malformed":
        send({ type: "progress", id, phase: "decode", tokens: "5" });
        break;
      case "extra_key":
        send({ ...progress(id, "decode", 1), text: "smuggled" });
        break;
      case "oversized":
        out.write(`{"type":"progress","id":${id},"phase":"decode","tokens":1,"x":"${"x".repeat(300 * 1024)}"}\n`);
        break;
      case "wrong_id":
        send(progress(id + 100, "decode", 1));
        send(progress(id - 1, "decode", 1));
        send({ type: "result", id, report: report(request) });
        break;
      case "after_result":
        send(progress(id, "decode", 1));
        send({ type: "result", id, report: report(request, 1) });
        send(progress(id, "decode", 2));
        break;
      case "flood":
        for (let i = 1; i <= 1000; i++) send(progress(id, "decode", i % 128 === 0 ? 128 : i % 128));
        send({ type: "result", id, report: report(request) });
        break;
      case "flood_rising":
        for (let i = 1; i <= 100; i++) send(progress(id, "decode", i));
        // A supervisor that missed the flood would take this result.
        send({ type: "result", id, report: report(request, 100) });
        break;
      case "repeated":
        send(progress(id, "decode", 3));
        send(progress(id, "decode", 3));
        break;
      case "decreasing":
        send(progress(id, "decode", 3));
        send(progress(id, "decode", 2));
        break;
      case "prefill_after_decode":
        send(progress(id, "decode", 1));
        send(progress(id, "prefill", 5, 10));
        break;
      case "total_changed":
        send(progress(id, "prefill", 5, 10));
        send(progress(id, "prefill", 6, 12));
        break;
      case "beyond_bound":
        // Parses (the bench profile allows more new tokens) but exceeds a Lab call's 128.
        send(progress(id, "decode", 129));
        break;
      case "progress_then_hang":
      case "cancellable":
        send(progress(id, "prefill", 1, 4));
        send(progress(id, "decode", 1));
        send(progress(id, "decode", 2));
        break;
      case "echo":
        send({ type: "result", id, report: report(request) });
        break;
      case "unasked":
        // Progress whether or not the request asked for it.
        send(progress(id, "decode", 1));
        send({ type: "result", id, report: report(request, 1) });
        break;
      default:
        break;
    }
  }
});
