// Resource checks before any byte is requested (Part 1): free disk at the destination and
// installed/available memory against the plan's estimates. Readings are injectable so
// tests can present any machine; the real reader uses fs.statfs and the os module.
import { formatBytes as formatSize, formatCount } from "../../core/numberFormat.ts";
import { statfs } from "node:fs/promises";
import { freemem, totalmem } from "node:os";
import { err, ok, type Result } from "../../core/result.ts";
import { RESOURCE_ESTIMATES } from "../pins.ts";
import type { ArtifactErrorCode } from "./errorCodes.ts";

export interface ResourceReadings {
  readonly freeDiskBytes: number;
  readonly totalMemoryBytes: number;
  readonly availableMemoryBytes: number;
}

export type ResourceReader = (existingDirectory: string) => Promise<ResourceReadings>;

export interface ResourceThresholds {
  readonly minimumFreeDiskBytes: number;
  readonly minimumTotalMemoryBytes: number;
  readonly minimumAvailableMemoryBytes: number;
}

export const DEFAULT_RESOURCE_THRESHOLDS: ResourceThresholds = {
  minimumFreeDiskBytes: RESOURCE_ESTIMATES.minimumFreeDiskBytes,
  minimumTotalMemoryBytes: RESOURCE_ESTIMATES.minimumTotalMemoryBytes,
  minimumAvailableMemoryBytes: RESOURCE_ESTIMATES.minimumAvailableMemoryBytes,
};

/** Reads the machine: blocks available to an unprivileged user, and the smaller of free and cgroup-available memory. */
export const readMachineResources: ResourceReader = async (existingDirectory) => {
  const fsStats = await statfs(existingDirectory);
  const processWithMemory = process as NodeJS.Process & {
    availableMemory?: () => number;
    constrainedMemory?: () => number;
  };
  let available = freemem();
  if (typeof processWithMemory.availableMemory === "function") {
    available = Math.min(available, processWithMemory.availableMemory());
  }
  let total = totalmem();
  if (typeof processWithMemory.constrainedMemory === "function") {
    const constrained = processWithMemory.constrainedMemory();
    if (constrained > 0) total = Math.min(total, constrained);
  }
  return { freeDiskBytes: fsStats.bavail * fsStats.bsize, totalMemoryBytes: total, availableMemoryBytes: available };
};

export function checkResources(
  readings: ResourceReadings,
  thresholds: ResourceThresholds,
): Result<ResourceReadings, ArtifactErrorCode> {
  if (readings.freeDiskBytes < thresholds.minimumFreeDiskBytes) {
    return err(
      "insufficient_disk",
      `free disk at the destination is ${formatBytes(readings.freeDiskBytes)}; the plan needs at least ${formatBytes(thresholds.minimumFreeDiskBytes)}`,
    );
  }
  if (readings.totalMemoryBytes < thresholds.minimumTotalMemoryBytes) {
    return err(
      "insufficient_memory",
      `installed memory is ${formatBytes(readings.totalMemoryBytes)}; the plan needs at least ${formatBytes(thresholds.minimumTotalMemoryBytes)}`,
    );
  }
  if (readings.availableMemoryBytes < thresholds.minimumAvailableMemoryBytes) {
    return err(
      "insufficient_memory",
      `available memory is ${formatBytes(readings.availableMemoryBytes)}; the plan needs at least ${formatBytes(thresholds.minimumAvailableMemoryBytes)}`,
    );
  }
  return ok(readings);
}

/** Exact bytes with thousands separators plus the binary-unit gloss, e.g. "999,597,691 bytes (953.29 MiB)". */
export function formatBytes(bytes: number): string {
  // The exact count, then the project's one size format (binary units: src/core/numberFormat.ts).
  return `${formatCount(bytes)} bytes (${formatSize(bytes)})`;
}
