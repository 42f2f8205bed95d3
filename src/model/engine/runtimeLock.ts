// The runtime lock written before every model trial (runtime-lock.json): the Node version, the
// exact resolved version and integrity of every installed package (from package-lock.json and
// from what is actually installed), the inference engine's native binaries, OS and CPU. A trial
// refuses to start when the installed tree disagrees with the lockfile.
import { sha256Hex } from "../../core/digest.ts";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runningCode, runtimeIdentity, type RunningCode } from "../../recording/runtimeIdentity.ts";
import { currentEngineBinarySelection, hashBinaryFiles, prebuiltBinaryLocation } from "./engineBinary.ts";

export interface LockedPackage {
  readonly path: string;
  readonly version: string;
  readonly integrity: string | null;
  readonly dev: boolean;
  readonly optional: boolean;
  /** installed: present with the locked version; absent_optional: an optional package for another platform. */
  readonly status: "installed" | "absent_optional" | "missing" | "version_mismatch" | "integrity_mismatch";
  readonly installedVersion: string | null;
}

export interface RuntimeLock {
  readonly schema: "tca.runtime-lock/1";
  readonly created_at: string;
  readonly runtime: Record<string, unknown>;
  readonly lockfile_sha256: string;
  readonly packages: readonly LockedPackage[];
  readonly native_engine: {
    readonly package: string;
    readonly build_metadata: unknown;
    readonly files: Readonly<Record<string, string>>;
  } | null;
  /** Which llama.cpp binary the engine loads (TCA_ENGINE_BINARY and the verified native build), or why none. */
  readonly engine_binary:
    | {
        readonly binary: string;
        readonly requested: string;
        readonly reason: string;
        readonly native_files: Readonly<Record<string, string>> | null;
      }
    | { readonly error: string; readonly message: string };
  readonly mismatches: readonly string[];
}

interface LockfileEntry {
  readonly version?: string;
  readonly integrity?: string;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly devOptional?: boolean;
  readonly link?: boolean;
}

function readLockPackages(path: string): Record<string, LockfileEntry> {
  const parsed = JSON.parse(readFileSync(path, "utf8")) as { packages?: Record<string, LockfileEntry> };
  return parsed.packages ?? {};
}

/** Compares package-lock.json with node_modules (and npm's record of what it installed). */
export function buildRuntimeLock(
  packageRoot: string,
  options: { readonly includeDev?: boolean; readonly code?: RunningCode } = {},
): RuntimeLock {
  const lockfilePath = join(packageRoot, "package-lock.json");
  const locked = readLockPackages(lockfilePath);
  const hiddenPath = join(packageRoot, "node_modules", ".package-lock.json");
  const packages: LockedPackage[] = [];
  const mismatches: string[] = [];
  // npm's record of what it installed is the only integrity evidence for the installed tree:
  // without it nothing can be compared, which is a mismatch, not a pass.
  const installedRecord = existsSync(hiddenPath) ? readLockPackages(hiddenPath) : {};
  if (!existsSync(hiddenPath)) mismatches.push("node_modules/.package-lock.json: missing (run npm ci)");
  for (const [path, entry] of Object.entries(locked)) {
    if (path === "" || entry.link === true || entry.version === undefined) continue;
    const dev = entry.dev === true || entry.devOptional === true;
    if (dev && options.includeDev === false) continue;
    const optional = entry.optional === true || entry.devOptional === true;
    const manifest = join(packageRoot, path, "package.json");
    let installedVersion: string | null = null;
    if (existsSync(manifest))
      installedVersion = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version ?? null;
    let status: LockedPackage["status"];
    if (installedVersion === null) status = optional ? "absent_optional" : "missing";
    else if (installedVersion !== entry.version) status = "version_mismatch";
    else if (
      entry.integrity !== undefined &&
      installedRecord[path]?.integrity !== undefined &&
      installedRecord[path]?.integrity !== entry.integrity
    )
      status = "integrity_mismatch";
    else status = "installed";
    if (status !== "installed" && status !== "absent_optional") mismatches.push(`${path}: ${status}`);
    packages.push({
      path,
      version: entry.version,
      integrity: entry.integrity ?? null,
      dev,
      optional,
      status,
      installedVersion,
    });
  }
  const nativeEngine = nativeEngineIdentity(packageRoot);
  if (nativeEngine === null && locked["node_modules/node-llama-cpp"] !== undefined) {
    mismatches.push(
      `@node-llama-cpp/${process.platform}-${process.arch}: no prebuilt engine binaries for this platform`,
    );
  }
  // Compiled code runs only as a build of exactly the sources the harness hashes name (bin/tca.js
  // checks the sources at start-up; this also checks lib/ itself, once per trial).
  const code = options.code ?? runningCode();
  if (code.mode === "compiled" && !code.sources_match)
    mismatches.push("lib/: compiled from other sources than src/ (npm run prepare rebuilds it)");
  if (code.mode === "compiled" && !code.outputs_match)
    mismatches.push("lib/: differs from what its build wrote (npm run prepare rebuilds it)");
  return {
    schema: "tca.runtime-lock/1",
    created_at: new Date().toISOString(),
    runtime: { ...runtimeIdentity(), code },
    lockfile_sha256: sha256Hex(readFileSync(lockfilePath)),
    packages,
    native_engine: nativeEngine,
    engine_binary: engineBinaryRecord(packageRoot),
    mismatches,
  };
}

function engineBinaryRecord(packageRoot: string): RuntimeLock["engine_binary"] {
  const selected = currentEngineBinarySelection(process.env, packageRoot);
  if (!selected.ok) return { error: selected.error, message: selected.message };
  return {
    binary: selected.value.binary,
    requested: selected.value.requested,
    reason: selected.value.reason,
    native_files: selected.value.nativeFiles,
  };
}

/** Hashes of the prebuilt llama.cpp binaries node-llama-cpp loads on this platform, and their build record. */
function nativeEngineIdentity(packageRoot: string): RuntimeLock["native_engine"] {
  const prebuilt = prebuiltBinaryLocation(packageRoot);
  if (!existsSync(prebuilt.directory)) return null;
  const files = hashBinaryFiles(prebuilt.directory);
  const metadataPath = join(prebuilt.directory, "_nlcBuildMetadata.json");
  const build_metadata: unknown = existsSync(metadataPath) ? JSON.parse(readFileSync(metadataPath, "utf8")) : null;
  return { package: prebuilt.packageName, build_metadata, files };
}
