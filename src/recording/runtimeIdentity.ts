// What ran: the Node runtime, the OS and CPU, hashes of the shipped harness files, and whether
// the process runs src/ through tsx or the compiled lib/ (with proof that lib/ is a build of
// exactly these sources), so a run can be tied to the exact code that produced it.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { arch, cpus, platform, release, totalmem, type } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "../core/digest.ts";
// bin/compiledBuild.js is plain JavaScript (bin/tca.js loads it before any transpiler); the
// evidence uses its tree hashing and digest comparison so both judge a build by one rule.
import { COMPILED_DIRECTORY, hashSourceTree, hashTree, sameDigests, STAMP_NAME } from "../../bin/compiledBuild.js";

export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export function runtimeIdentity() {
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
    code: runningCode(),
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
  // The same tree hashing (and the same "src/…" keys) as the build stamp that bin/tca.js checks.
  const files: Record<string, string> = { ...hashTree(PACKAGE_ROOT, "src"), ...hashTree(PACKAGE_ROOT, "bin") };
  for (const name of ["package.json", "package-lock.json"])
    files[name] = sha256Hex(readFileSync(join(PACKAGE_ROOT, name)));
  const names = Object.keys(files).sort();
  const aggregate = createHash("sha256");
  for (const name of names) aggregate.update(`${name}\0${files[name]}\n`);
  const sorted: Record<string, string> = {};
  for (const name of names) sorted[name] = files[name] ?? "";
  const hashes: HarnessHashes = { aggregate_sha256: aggregate.digest("hex"), files: sorted };
  cached = hashes;
  return hashes;
}

/**
 * Which code this process runs. "compiled": this module is lib/recording/runtimeIdentity.js, built
 * by scripts/compile.mjs; sources_match says its build stamp's source hashes equal src/ now (the
 * harness hashes above stay those of src/, the truth), outputs_match that lib/ holds exactly the
 * files that build wrote. bin/tca.js only starts lib/ when both hold (bin/compiledBuild.js); the
 * runtime lock checks again before a trial, since the evidence names src/ and a long-lived
 * process may outlive its checkout's state.
 */
export type RunningCode =
  | { readonly mode: "source_via_tsx" }
  | {
      readonly mode: "compiled";
      readonly build_stamp_sha256: string | null;
      readonly compiler: unknown;
      readonly sources_match: boolean;
      readonly outputs_match: boolean;
    };

const BUILD_STAMP = `${COMPILED_DIRECTORY}/${STAMP_NAME}`;
let runningCached: RunningCode | null = null;

/** `moduleUrl` and `root` are this module's own location and checkout; tests point them at a copy. */
export function runningCode(moduleUrl: string = import.meta.url, root: string = PACKAGE_ROOT): RunningCode {
  const isDefault = moduleUrl === import.meta.url && root === PACKAGE_ROOT;
  if (isDefault && runningCached) return runningCached;
  let code: RunningCode;
  if (!moduleUrl.endsWith(".js")) {
    code = { mode: "source_via_tsx" };
  } else {
    code = compiledCode(root);
  }
  if (isDefault) runningCached = code;
  return code;
}

function compiledCode(root: string): RunningCode {
  let stampBytes: Buffer;
  try {
    stampBytes = readFileSync(join(root, BUILD_STAMP));
  } catch {
    return { mode: "compiled", build_stamp_sha256: null, compiler: null, sources_match: false, outputs_match: false };
  }
  let stamp: { readonly compiler?: unknown; readonly sources?: unknown; readonly outputs?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(stampBytes.toString("utf8"));
    if (parsed !== null && typeof parsed === "object") stamp = parsed;
  } catch {
    // an unparsable stamp proves nothing: both matches stay false
  }
  const outputs = hashTree(root, COMPILED_DIRECTORY);
  delete outputs[BUILD_STAMP];
  return {
    mode: "compiled",
    build_stamp_sha256: sha256Hex(stampBytes),
    compiler: stamp.compiler ?? null,
    sources_match: sameDigests(stamp.sources, hashSourceTree(root)),
    outputs_match: sameDigests(stamp.outputs, outputs),
  };
}
