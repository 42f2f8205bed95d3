// Entry point of the model worker child process. Requests arrive as lines on stdin,
// responses leave as lines on file descriptor 3 (stdout and stderr stay free for library
// logs, which the supervisor keeps only as bounded diagnostics). One load, then generate
// and cancel requests; a malformed request is answered with an error and ignored.
import { createWriteStream } from "node:fs";
import {
  LineSplitter,
  MAX_REQUEST_BYTES,
  parseWorkerRequest,
  type GenerationProgress,
  type WorkerResponse,
} from "./protocol.ts";
import { loadSession } from "./loadSession.ts";
import type { ModelSession } from "./modelSession.ts";

const out = createWriteStream("", { fd: 3 });
const send = (message: WorkerResponse): void => {
  out.write(JSON.stringify(message) + "\n");
};

let session: ModelSession | null = null;
let loading = false;
let generating = false;
const splitter = new LineSplitter(MAX_REQUEST_BYTES);

async function handle(line: string): Promise<void> {
  const request = parseWorkerRequest(line);
  if (request === null) {
    send({ type: "error", id: null, error: "input_invalid", message: "malformed request" });
    return;
  }
  if (request.type === "load") {
    if (session !== null || loading) {
      send({ type: "error", id: null, error: "input_invalid", message: "already loaded" });
      return;
    }
    loading = true;
    const loaded = await loadSession(request.modelDirectory, undefined, request.profile ?? "lab");
    loading = false;
    if (!loaded.ok) {
      send({ type: "error", id: null, error: loaded.error, message: loaded.message });
      return;
    }
    session = loaded.value;
    send(session.loadedMessage());
    return;
  }
  if (request.type === "cancel") {
    session?.cancel(request.id);
    return;
  }
  if (session === null || generating) {
    send({ type: "error", id: request.id, error: "model_error", message: session === null ? "not loaded" : "busy" });
    return;
  }
  generating = true;
  try {
    send(
      await session.generate(request.id, request.input, request.reusePrefix, {
        ...(request.profile !== undefined ? { profile: request.profile } : {}),
        ...(request.maxNewTokens !== undefined ? { maxNewTokens: request.maxNewTokens } : {}),
        // Progress only when the supervisor asked for it; written on the same channel, so it always precedes the result.
        ...(request.progressIntervalMs !== undefined
          ? {
              progressIntervalMs: request.progressIntervalMs,
              onProgress: (progress: GenerationProgress) => send({ type: "progress", id: request.id, ...progress }),
            }
          : {}),
      }),
    );
  } finally {
    generating = false;
  }
}

process.stdin.on("data", (chunk: Buffer) => {
  const lines = splitter.push(chunk);
  if (lines === "oversized") {
    send({ type: "error", id: null, error: "input_invalid", message: "request too large" });
    process.exit(2);
  }
  for (const line of lines) {
    handle(line).catch(() => {
      send({ type: "error", id: null, error: "model_error", message: "worker failure" });
    });
  }
});
process.stdin.on("end", () => {
  void (session?.close() ?? Promise.resolve()).finally(() => process.exit(0));
});
