// The client machine a run was measured from, as the document records its GPU: the CPU model
// and count, memory, and the GPUs nvidia-smi reports where it exists. A remote server's hardware
// cannot be seen from here, so the user names it with --hardware "…" (recorded beside this).
import { spawnSync } from "node:child_process";
import { cpus, totalmem } from "node:os";

export interface HostHardware {
  readonly cpu: string;
  readonly cpuCount: number;
  readonly memoryGiB: number;
  /** One entry per GPU ("name, memory, driver"); null when nvidia-smi is absent or failed. */
  readonly gpus: readonly string[] | null;
}

/** Runs nvidia-smi's query; returns its stdout, or null when it is missing or fails. */
export type GpuQuery = () => string | null;

export const nvidiaSmiQuery: GpuQuery = () => {
  const r = spawnSync("nvidia-smi", ["--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  return r.status === 0 && typeof r.stdout === "string" ? r.stdout : null;
};

export function describeHostHardware(queryGpus: GpuQuery = nvidiaSmiQuery): HostHardware {
  const list = cpus();
  const out = queryGpus();
  const gpus =
    out === null
      ? null
      : out
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => l !== "");
  return {
    cpu: list[0]?.model.trim() ?? "unknown",
    cpuCount: list.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    gpus,
  };
}

/** The results.md line: the --hardware label, then the client's own hardware. */
export function hardwareLine(label: unknown, host: unknown): string | null {
  const parts: string[] = [];
  if (typeof label === "string" && label !== "") parts.push(`${label} (--hardware)`);
  if (typeof host === "object" && host !== null) {
    const h = host as Partial<Record<keyof HostHardware, unknown>>;
    const gpus = Array.isArray(h.gpus) ? (h.gpus.length > 0 ? h.gpus.join("; ") : "none") : "no nvidia-smi";
    parts.push(`client: ${String(h.cpu)} × ${String(h.cpuCount)}, ${String(h.memoryGiB)} GiB, GPU: ${gpus}`);
  }
  return parts.length === 0 ? null : `hardware: ${parts.join("; ")}`;
}
