// Which llama.cpp binary the engine loads: node-llama-cpp's prebuilt one, or a native build
// compiled on this machine from the llama.cpp source bundled in node-llama-cpp (`tca engine
// build`). A native build counts only when it is *verified*: `tca engine build` loaded it once
// and wrote a record of its files' SHA256 under .cache/engine-native/; the files must still hash
// to that record. TCA_ENGINE_BINARY=prebuilt|native|auto (default auto) forces a choice; auto
// prefers a verified native build and falls back to the prebuilt one, so the project works the
// same when no build exists (CI never builds).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "../../core/digest.ts";
import { err, ok, type Result } from "../../core/result.ts";

export const ENGINE_BINARY_REQUESTS = ["auto", "prebuilt", "native"] as const;
export type EngineBinaryRequest = (typeof ENGINE_BINARY_REQUESTS)[number];
export type EngineBinaryKind = "prebuilt" | "native";
export const ENGINE_BINARY_ENV = "TCA_ENGINE_BINARY";

export const PACKAGE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** What is known about the native build on disk. */
export interface NativeBuildStatus {
  readonly present: boolean;
  readonly verified: boolean;
  /** Why the build is not usable (null when verified). */
  readonly reason: string | null;
  /** SHA256 of every file of the build's Release folder (present builds only). */
  readonly files: Readonly<Record<string, string>>;
}

export interface EngineBinarySelection {
  readonly requested: EngineBinaryRequest;
  readonly binary: EngineBinaryKind;
  readonly reason: string;
  /** The native build's file hashes when it is the one selected, else null. */
  readonly nativeFiles: Readonly<Record<string, string>> | null;
}

export interface VerifiedNativeRecord {
  readonly schema: "tca.engine-native/1";
  readonly verified_at: string;
  readonly build_seconds: number | null;
  readonly llama_cpp_release: string;
  readonly system_info: string;
  readonly files: Readonly<Record<string, string>>;
}

/** Parses TCA_ENGINE_BINARY; unset or empty means auto. Any other value is refused, never guessed. */
export function parseEngineBinaryRequest(value: string | undefined): Result<EngineBinaryRequest, "input_invalid"> {
  if (value === undefined || value === "") return ok("auto");
  const found = ENGINE_BINARY_REQUESTS.find((r) => r === value);
  if (found === undefined) return err("input_invalid", `${ENGINE_BINARY_ENV} must be auto, prebuilt or native`);
  return ok(found);
}

/** The decision itself, pure: tests drive it with any status. */
export function selectEngineBinary(
  requested: EngineBinaryRequest,
  native: NativeBuildStatus,
): Result<EngineBinarySelection, "engine_unavailable"> {
  if (requested === "prebuilt")
    return ok({ requested, binary: "prebuilt", reason: "forced by TCA_ENGINE_BINARY=prebuilt", nativeFiles: null });
  if (native.verified) {
    return ok({
      requested,
      binary: "native",
      reason: requested === "native" ? "forced by TCA_ENGINE_BINARY=native" : "a verified native build is present",
      nativeFiles: native.files,
    });
  }
  if (requested === "native")
    return err("engine_unavailable", `no verified native build (${native.reason ?? "unknown"}); run tca engine build`);
  return ok({
    requested,
    binary: "prebuilt",
    reason: `no verified native build (${native.reason ?? "unknown"}); using the prebuilt binary`,
    nativeFiles: null,
  });
}

/** node-llama-cpp's local build folder for a CPU-only build on this platform. */
export function nativeBuildDirectory(packageRoot: string = PACKAGE_ROOT): string {
  return join(
    packageRoot,
    "node_modules",
    "node-llama-cpp",
    "llama",
    "localBuilds",
    `${process.platform}-${process.arch}`,
  );
}

export function verifiedRecordPath(packageRoot: string = PACKAGE_ROOT): string {
  return join(packageRoot, ".cache", "engine-native", "verified.json");
}

/** Name → SHA256 of each regular file directly in `directory`, sorted by name (empty when it does not exist). */
export function hashBinaryFiles(directory: string): Record<string, string> {
  const files: Record<string, string> = {};
  if (!existsSync(directory)) return files;
  for (const name of readdirSync(directory).sort()) {
    const path = join(directory, name);
    if (statSync(path).isFile()) files[name] = sha256Hex(readFileSync(path));
  }
  return files;
}

/** SHA256 of each regular file in the build's Release folder (the addon and its shared libraries). */
export function hashNativeBuildFiles(buildDirectory: string): Record<string, string> {
  return hashBinaryFiles(join(buildDirectory, "Release"));
}

function parseVerifiedRecord(text: string): VerifiedNativeRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  if (record["schema"] !== "tca.engine-native/1") return null;
  const files = record["files"];
  if (typeof files !== "object" || files === null || Array.isArray(files)) return null;
  for (const hash of Object.values(files)) if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) return null;
  if (
    typeof record["llama_cpp_release"] !== "string" ||
    typeof record["system_info"] !== "string" ||
    typeof record["verified_at"] !== "string"
  )
    return null;
  const seconds = record["build_seconds"];
  if (seconds !== null && typeof seconds !== "number") return null;
  return value as VerifiedNativeRecord;
}

/** Compares the build on disk with the record `tca engine build` wrote after loading it. */
export function nativeBuildStatus(packageRoot: string = PACKAGE_ROOT): NativeBuildStatus {
  const files = hashNativeBuildFiles(nativeBuildDirectory(packageRoot));
  const present = Object.keys(files).some((name) => name.endsWith(".node"));
  if (!present) return { present: false, verified: false, reason: "no native build", files };
  const recordPath = verifiedRecordPath(packageRoot);
  if (!existsSync(recordPath))
    return { present, verified: false, reason: "the native build was never verified", files };
  const record = parseVerifiedRecord(readFileSync(recordPath, "utf8"));
  if (record === null) return { present, verified: false, reason: "the verification record is malformed", files };
  const same = JSON.stringify(Object.entries(record.files).sort()) === JSON.stringify(Object.entries(files).sort());
  if (!same)
    return { present, verified: false, reason: "the native build's files differ from the verified ones", files };
  return { present, verified: true, reason: null, files };
}

/** The selection for this process: environment plus the build on disk. */
export function currentEngineBinarySelection(
  env: NodeJS.ProcessEnv = process.env,
  packageRoot: string = PACKAGE_ROOT,
): Result<EngineBinarySelection, "engine_unavailable" | "input_invalid"> {
  const requested = parseEngineBinaryRequest(env[ENGINE_BINARY_ENV]);
  if (!requested.ok) return requested;
  // Forcing the prebuilt binary must not even read the build folder.
  if (requested.value === "prebuilt")
    return selectEngineBinary("prebuilt", { present: false, verified: false, reason: null, files: {} });
  return selectEngineBinary(requested.value, nativeBuildStatus(packageRoot));
}

/**
 * getLlama options that load exactly the selected binary. node-llama-cpp always tries its local
 * build folder first; for the prebuilt binary a marker cmake option names a build folder that
 * never exists, so the lookup falls through to the prebuilt package (which ignores custom cmake
 * options when existingPrebuiltBinaryMustMatchBuildOptions is false). For native, prebuilt
 * binaries are disabled so a missing build fails instead of silently running the prebuilt one.
 * After loading, the caller checks llama.buildType against the expectation.
 */
export function getLlamaBinaryOptions(binary: EngineBinaryKind): {
  readonly usePrebuiltBinaries: boolean;
  readonly cmakeOptions: Record<string, string>;
  readonly expectedBuildType: "prebuilt" | "localBuild";
} {
  if (binary === "prebuilt")
    return {
      usePrebuiltBinaries: true,
      cmakeOptions: { TCA_ENGINE_BINARY_PREBUILT: "1" },
      expectedBuildType: "prebuilt",
    };
  return { usePrebuiltBinaries: false, cmakeOptions: {}, expectedBuildType: "localBuild" };
}

/** The prebuilt binary package for this platform, and the folder of its binaries. */
export function prebuiltBinaryLocation(packageRoot: string = PACKAGE_ROOT): {
  readonly packageName: string;
  readonly directory: string;
} {
  const platform = `${process.platform}-${process.arch}`;
  return {
    packageName: `@node-llama-cpp/${platform}`,
    directory: join(packageRoot, "node_modules", "@node-llama-cpp", platform, "bins", platform),
  };
}

/** SHA256 of each file of the prebuilt binary package for this platform (empty when not installed). */
export function hashPrebuiltFiles(packageRoot: string = PACKAGE_ROOT): Record<string, string> {
  return hashBinaryFiles(prebuiltBinaryLocation(packageRoot).directory);
}
