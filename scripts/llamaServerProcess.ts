// What the llama-server scripts share: the checkout's tca CLI as a child process, and a
// llama-server child that is waited for until /health answers and stopped on every path.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { freePort } from "./freePort.ts";

export const ROOT = resolve(import.meta.dirname, "..");
export const CACHE = join(ROOT, ".cache/llama-server");
const TCA = join(ROOT, "bin/tca.js");

export function log(line: string): void {
  process.stderr.write(`[llama-server integration] ${line}\n`);
}

export function tca(args: readonly string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [TCA, ...args], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

async function waitHealthy(base: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (server.exitCode !== null) throw new Error(`llama-server exited with ${server.exitCode}`);
    try {
      const r = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((ok) => setTimeout(ok, 500));
  }
  throw new Error("llama-server did not become healthy");
}

export interface RunningServer {
  /** http://127.0.0.1:PORT (the OpenAI routes are under /v1). */
  readonly base: string;
  /** The last 20,000 characters of its stderr (its log). */
  log(): string;
  stop(): Promise<void>;
}

/** Starts `binary` with `args` plus --host/--port on a free port and waits for /health. */
export async function startLlamaServer(binary: string, args: readonly string[]): Promise<RunningServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(binary, [...args, "--host", "127.0.0.1", "--port", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let serverLog = "";
  server.stderr?.on("data", (c: Buffer) => {
    serverLog = (serverLog + c.toString("utf8")).slice(-20_000);
  });
  const stop = async (): Promise<void> => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((ok) => server.once("exit", ok));
    server.kill("SIGTERM");
    await exited;
  };
  try {
    await waitHealthy(base, server, 120_000);
  } catch (error) {
    await stop();
    process.stderr.write(serverLog);
    throw error;
  }
  return { base, log: () => serverLog, stop };
}
