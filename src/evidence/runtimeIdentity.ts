// What ran: the Node runtime, the OS and CPU, and hashes of the shipped harness files, so a run
// can be tied to the exact code that produced it.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { arch, cpus, platform, release, totalmem, type } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "../core/digest.ts";

export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export function runtimeIdentity(): Record<string, unknown> {
  const cpuList = cpus();
  return {
    node: process.versions.node,
    v8: process.versions.v8,
    platform: platform(),
    os_type: type(),
    os_release: release(),
    arch: arch(),
    cpu_model: cpuList[0]?.model ?? "unknown",
    cpu_count: cpuList.length,
    total_memory_bytes: totalmem(),
  };
}

export interface HarnessHashes {
  /** sha256 over the sorted "path\0sha256\n" lines of every shipped harness file. */
  readonly aggregate_sha256: string;
  readonly files: Readonly<Record<string, string>>;
}

let cached: HarnessHashes | null = null;

/** Hashes src/**, bin/**, package.json and package-lock.json (the code that decides). */
export function harnessHashes(): HarnessHashes {
  if (cached) return cached;
  const files: Record<string, string> = {};
  const visit = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) files[relative(PACKAGE_ROOT, path)] = sha256Hex(readFileSync(path));
    }
  };
  visit(join(PACKAGE_ROOT, "src"));
  visit(join(PACKAGE_ROOT, "bin"));
  for (const name of ["package.json", "package-lock.json"]) files[name] = sha256Hex(readFileSync(join(PACKAGE_ROOT, name)));
  const names = Object.keys(files).sort();
  const aggregate = createHash("sha256");
  for (const name of names) aggregate.update(`${name}\0${files[name]}\n`);
  const sorted: Record<string, string> = {};
  for (const name of names) sorted[name] = files[name] ?? "";
  const hashes: HarnessHashes = { aggregate_sha256: aggregate.digest("hex"), files: sorted };
  cached = hashes;
  return hashes;
}

