// Load levels a grade is made under, for the determinism bench (bench/determinism.bench.ts) and
// its fast version in the suite (test/bench/gradingDeterminism.test.ts): each level's processes
// are started by this process and ended by their own pids, never by name. idle starts nothing
// (the machine's ambient load stays); cpu-Nx starts N busy loops per core; memory starts one
// process that holds a share of the free memory and keeps re-touching every page of it.
import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism, freemem } from "node:os";

export interface LoadLevel {
  readonly name: string;
  /** What it starts, in words (printed with the figures). */
  readonly description: string;
  /** Starts the load; the returned function ends it (and waits until every process is gone). */
  start(): Promise<() => Promise<void>>;
}

const started = new Set<ChildProcess>();
let exitHook = false;

/** A load never outlives this process, even when it ends on an exception. */
function track(child: ChildProcess): void {
  started.add(child);
  child.once("exit", () => started.delete(child));
  if (!exitHook) {
    exitHook = true;
    process.once("exit", () => {
      for (const c of started) c.kill("SIGKILL");
    });
  }
}

function ended(children: readonly ChildProcess[]): () => Promise<void> {
  return async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once("exit", () => resolve());
            c.kill("SIGKILL");
          }),
      ),
    );
  };
}

/** `count` busy loops (one Node process each, nothing but a spin). */
export function cpuHogs(count: number): LoadLevel {
  return {
    name: `cpu-${count}`,
    description: `${count} busy-loop processes`,
    start: () => {
      const children = Array.from({ length: count }, () => {
        const c = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
        track(c);
        return c;
      });
      return Promise.resolve(ended(children));
    },
  };
}

// Allocates in 64 MiB chunks, says "ready", then writes one byte in every 4 KiB page, forever:
// the pages stay resident and hot, so the kernel has that much less for the page cache and the
// runs (and the process also keeps one core busy).
const TOUCHER = `
const total = Number(process.argv[1]);
const chunks = [];
for (let n = 0; n < total; n += 64 << 20) chunks.push(Buffer.alloc(Math.min(64 << 20, total - n), 1));
process.stdout.write("ready\\n");
for (let round = 0; ; round++) for (const b of chunks) for (let i = 0; i < b.length; i += 4096) b[i] = round & 255;
`;

/** One process holding `bytes` of memory and re-touching all of it. */
export function memoryPressure(bytes: number): LoadLevel {
  const mib = Math.round(bytes / (1 << 20));
  return {
    name: "memory",
    description: `one process holding ${mib} MiB and re-touching every page`,
    start: () =>
      new Promise((resolve, reject) => {
        const c = spawn(process.execPath, [`--max-old-space-size=64`, "-e", TOUCHER, String(bytes)], {
          stdio: ["ignore", "pipe", "ignore"],
        });
        track(c);
        c.once("error", reject);
        c.once("exit", (code) => reject(new Error(`the memory load ended early (exit ${String(code)})`)));
        c.stdout.once("data", () => resolve(ended([c])));
      }),
  };
}

/** The bench's levels: idle, 2x and 4x the cores in busy loops, memory pressure (a quarter of free memory, at most `maxMemoryBytes`). */
export function standardLevels(maxMemoryBytes: number): LoadLevel[] {
  const cores = availableParallelism();
  return [
    {
      name: "idle",
      description: "nothing started (the machine's own load)",
      start: () => Promise.resolve(() => Promise.resolve()),
    },
    { ...cpuHogs(2 * cores), name: "cpu-2x" },
    { ...cpuHogs(4 * cores), name: "cpu-4x" },
    memoryPressure(Math.min(Math.floor(freemem() / 4), maxMemoryBytes)),
  ];
}
