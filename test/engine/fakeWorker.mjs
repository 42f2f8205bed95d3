// A stand-in for the model worker with scripted behaviour, so supervisor tests control
// timing and message shapes exactly. Mode comes from argv[2]; argv[3] is a file where the
// worker writes the pid of a grandchild it starts (to prove the whole group is killed).
// Plain JavaScript, run by plain node: a test starts one per supervisor, and tsx's loader would be
// most of what each start costs.
import { spawn } from "node:child_process";
import { createWriteStream, writeFileSync } from "node:fs";
const mode = process.argv[2] ?? "normal";
const pidFile = process.argv[3];
const out = createWriteStream("", { fd: 3 });
const send = (value) => {
  out.write(JSON.stringify(value) + "\n");
};
const report = (id) => ({
  inputIds: [1, 2, 3],
  inputTokens: 3,
  rawOutputIds: [7, 151645],
  outputTokens: 2,
  text: "x",
  stopCause: "stop_token",
  prefixTokensReused: 0,
  timingsMs: { prefill: 1, decode: 1 },
  threads: { id },
  peakRssBytes: 1000,
});
if (pidFile !== undefined) {
  const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  writeFileSync(pidFile, String(grandchild.pid));
}
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk.toString("utf8");
  let newline;
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const request = JSON.parse(buffer.slice(0, newline));
    buffer = buffer.slice(newline + 1);
    if (request.type === "load") {
      if (mode === "hang_load") continue;
      if (mode === "fail_load") {
        send({ type: "error", id: null, error: "model_not_verified", message: "bad" });
        continue;
      }
      send({ type: "loaded", label: "synthetic-pipeline-check", synthetic: true, identity: { engine: "fake" } });
      continue;
    }
    if (request.type === "cancel") {
      if (mode === "cancellable") send({ type: "cancelled", id: request.id });
      continue;
    }
    const id = request.id;
    switch (mode) {
      case "normal":
        send({ type: "result", id, report: report(id) });
        break;
      case "late":
        // A stale answer for an earlier call arrives first; it must be discarded.
        send({ type: "result", id: id - 1, report: report(id - 1) });
        send({ type: "result", id, report: report(id) });
        break;
      case "oversized":
        out.write("{" + "x".repeat(400 * 1024));
        break;
      case "malformed":
        send({ type: "result", id, report: { ...report(id), rawOutputIds: "not ids" } });
        break;
      case "garbage":
        out.write("this is not json\n");
        break;
      case "crash":
        process.exit(3);
        break;
      case "context_limit":
        send({ type: "context_limit", id, inputTokens: 4000 });
        break;
      case "error":
        send({ type: "error", id, error: "model_error", message: "engine failed" });
        break;
      default:
        // hang, cancellable: never answer the generate request
        break;
    }
  }
});
