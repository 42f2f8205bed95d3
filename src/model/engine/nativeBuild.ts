// Building and verifying the native llama.cpp binary (`tca engine build`). The compile itself is
// node-llama-cpp's own `source download --gpu false`, which takes the llama.cpp source from the
// git bundle shipped in the package (llama/gitRelease.bundle), so nothing is downloaded. We only
// check the tools first, run it, then load the result once and record its file hashes: that
// record is what makes a build "verified" for engine selection (engineBinary.ts).
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join, resolve as resolvePath } from "node:path";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { err, ok, type Result } from "../../core/result.ts";
import {
  getLlamaBinaryOptions,
  hashNativeBuildFiles,
  nativeBuildDirectory,
  PACKAGE_ROOT,
  verifiedRecordPath,
  type VerifiedNativeRecord,
} from "./engineBinary.ts";

/** Tools the CPU build needs; any one name of each group is enough. */
export const BUILD_TOOLS: ReadonlyArray<{ readonly tool: string; readonly names: readonly string[] }> = [
  { tool: "cmake", names: ["cmake"] },
  { tool: "C++ compiler", names: ["c++", "g++", "clang++"] },
  { tool: "C compiler", names: ["cc", "gcc", "clang"] },
];

/** The tools missing from PATH (pure over the given PATH, so tests can pass an empty one). */
export function missingBuildTools(pathVariable: string | undefined): string[] {
  const dirs = (pathVariable ?? "").split(delimiter).filter((d) => d !== "");
  const found = (name: string): boolean =>
    dirs.some((dir) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  return BUILD_TOOLS.filter((group) => !group.names.some(found)).map((group) => group.tool);
}

const require = createRequire(import.meta.url);

/** How the compile is started: the program, its exact arguments, where and with which environment. */
export interface CompileInvocation {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * node-llama-cpp's CLI entry point: the `node-llama-cpp` entry of its package.json `bin`. The
 * package's `exports` do not export package.json, so it is found by walking up from the
 * package's main entry (which `exports` does allow) to the folder whose package.json names it.
 */
export function nodeLlamaCppCli(
  resolveMain: () => string = () => require.resolve("node-llama-cpp"),
): Result<string, "engine_unavailable"> {
  let main: string;
  try {
    main = resolveMain();
  } catch {
    return err("engine_unavailable", "node-llama-cpp is not installed (run npm install in the checkout)");
  }
  for (let dir = dirname(main); dir !== dirname(dir); dir = dirname(dir)) {
    const manifestPath = join(dir, "package.json");
    if (!existsSync(manifestPath)) continue;
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    } catch {
      return err("engine_unavailable", `${manifestPath} is not readable JSON`);
    }
    if (typeof manifest !== "object" || manifest === null || (manifest as { name?: unknown }).name !== "node-llama-cpp")
      continue;
    const bin = (manifest as { bin?: unknown }).bin;
    const entry =
      typeof bin === "object" && bin !== null ? (bin as Record<string, unknown>)["node-llama-cpp"] : undefined;
    if (typeof entry !== "string")
      return err("engine_unavailable", `${manifestPath} names no node-llama-cpp command in its "bin"`);
    const cli = resolvePath(dir, entry);
    if (!existsSync(cli))
      return err("engine_unavailable", `node-llama-cpp's command ${cli} is missing (reinstall the package)`);
    return ok(cli);
  }
  return err("engine_unavailable", `no node-llama-cpp package.json above ${main}`);
}

/** The compile: node-llama-cpp's `source download` from its bundled source, CPU only, no example printed. */
export function nativeCompileInvocation(
  cli: string,
  env: NodeJS.ProcessEnv = process.env,
  packageRoot: string = PACKAGE_ROOT,
): CompileInvocation {
  return {
    file: process.execPath,
    args: [cli, "source", "download", "--gpu", "false", "--noUsageExample"],
    cwd: packageRoot,
    env: { ...env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: "false" },
  };
}

/** Runs the compile with progress on our stderr; resolves with the exit status. */
export function compileNative(invocation: CompileInvocation, onOutput: (chunk: Buffer) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(invocation.file, [...invocation.args], {
      cwd: invocation.cwd,
      env: invocation.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", onOutput);
    child.stderr.on("data", onOutput);
    child.on("error", () => resolve(127));
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/** Loads the native build once (it must load as a local build) and writes the verification record. */
export async function verifyNativeBuild(
  buildSeconds: number | null,
  packageRoot: string = PACKAGE_ROOT,
): Promise<Result<VerifiedNativeRecord, "engine_unavailable">> {
  const files = hashNativeBuildFiles(nativeBuildDirectory(packageRoot));
  if (!Object.keys(files).some((name) => name.endsWith(".node")))
    return err("engine_unavailable", "no native build to verify");
  const options = getLlamaBinaryOptions("native");
  try {
    const llama = await getLlama({
      gpu: false,
      build: "never",
      skipDownload: true,
      progressLogs: false,
      logLevel: LlamaLogLevel.error,
      usePrebuiltBinaries: options.usePrebuiltBinaries,
      cmakeOptions: options.cmakeOptions,
    });
    const buildType = llama.buildType;
    const record: VerifiedNativeRecord = {
      schema: "tca.engine-native/1",
      verified_at: new Date().toISOString(),
      build_seconds: buildSeconds,
      llama_cpp_release: `${llama.llamaCppRelease.repo}@${llama.llamaCppRelease.release}`,
      system_info: llama.systemInfo.trim(),
      files,
    };
    await llama.dispose();
    if (buildType !== options.expectedBuildType)
      return err("engine_unavailable", "the native build did not load as a local build");
    const path = verifiedRecordPath(packageRoot);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.partial`, JSON.stringify(record, null, 2) + "\n");
    renameSync(`${path}.partial`, path);
    return ok(record);
  } catch {
    return err("engine_unavailable", "the native build could not be loaded");
  }
}
