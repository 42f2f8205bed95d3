// Evidence that a scripted run started no process and so loaded no model: while the watch is
// on, every way this code base (or a dependency) could start a process or a thread, or load a
// native addon (the inference engine is one), is counted. The model only ever runs in a spawned
// worker process (src/model/worker/supervisor.ts), so zero processes, threads and addons is the
// fact that can fail; a run-level "scripted" label cannot.
//
// How: node:child_process's functions and node:worker_threads' Worker are wrapped on the
// CommonJS objects, and syncBuiltinESMExports() makes named ESM imports follow them. Everything
// is restored by stop(). Only one watch may be on at a time (the CLI runs one run at a time).
import { createRequire, syncBuiltinESMExports } from "node:module";

const PROCESS_FUNCTIONS = ["spawn", "spawnSync", "fork", "exec", "execFile", "execSync", "execFileSync"] as const;
const MAX_RECORDED_CALLS = 20;

export type ProcessWatchReport = {
  readonly watched: readonly string[];
  readonly processes_started: number;
  readonly threads_started: number;
  /** Native addons loaded through process.dlopen (node-llama-cpp's engine is one). */
  readonly native_addons_loaded: number;
  /** The first calls, as function name and the command's base name only (no host paths). */
  readonly calls: readonly string[];
};

export interface ProcessWatch {
  /** What has been seen so far; the watch stays on. */
  report(): ProcessWatchReport;
  /** Restores the originals and returns the final report. Safe to call twice. */
  stop(): ProcessWatchReport;
}

let active = false;

export function watchProcesses(): ProcessWatch {
  if (active) throw new Error("a process watch is already on");
  active = true;
  const require = createRequire(import.meta.url);
  const childProcess = require("node:child_process") as Record<string, unknown>;
  const workerThreads = require("node:worker_threads") as Record<string, unknown>;
  const calls: string[] = [];
  let processes = 0;
  let threads = 0;
  let addons = 0;
  const note = (entry: string): void => {
    if (calls.length < MAX_RECORDED_CALLS) calls.push(entry);
  };

  const originals = new Map<string, unknown>(PROCESS_FUNCTIONS.map((name) => [name, childProcess[name]]));
  for (const name of PROCESS_FUNCTIONS) {
    const original = childProcess[name] as (...args: unknown[]) => unknown;
    childProcess[name] = function watched(this: unknown, ...args: unknown[]): unknown {
      processes += 1;
      note(`${name} ${baseName(args[0])}`);
      return original.apply(this, args);
    };
  }
  const OriginalWorker = workerThreads["Worker"] as new (...args: unknown[]) => object;
  workerThreads["Worker"] = class WatchedWorker extends OriginalWorker {
    constructor(...args: unknown[]) {
      threads += 1;
      note("worker_thread");
      super(...args);
    }
  };
  const originalDlopen = process.dlopen;
  process.dlopen = function watchedDlopen(this: unknown, ...args: Parameters<typeof process.dlopen>): void {
    addons += 1;
    note(`dlopen ${baseName(args[1])}`);
    originalDlopen.apply(this, args);
  };
  syncBuiltinESMExports();

  const report = (): ProcessWatchReport => ({
    watched: [...PROCESS_FUNCTIONS.map((name) => `child_process.${name}`), "worker_threads.Worker", "process.dlopen"],
    processes_started: processes,
    threads_started: threads,
    native_addons_loaded: addons,
    calls: [...calls],
  });
  let stopped: ProcessWatchReport | null = null;
  return {
    report: () => stopped ?? report(),
    stop() {
      if (stopped !== null) return stopped;
      for (const [name, original] of originals) childProcess[name] = original;
      workerThreads["Worker"] = OriginalWorker;
      process.dlopen = originalDlopen;
      syncBuiltinESMExports();
      active = false;
      stopped = report();
      return stopped;
    },
  };
}

function baseName(command: unknown): string {
  const text = typeof command === "string" ? command : "(non-string)";
  return (text.split(/[\\/]/).pop() ?? "").slice(0, 60);
}
