// tca engine (issue 18): `info` prints which llama.cpp binary the engine will load (native or
// prebuilt) and why, its llama.cpp release, system info and file hashes (a table; --json: one
// JSON object);
// `build` compiles the native binary from the llama.cpp source bundled in node-llama-cpp
// (offline) and verifies it. Selection and building live in src/model/engine/; this file only
// reads options and prints.
import type { Command } from "commander";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { refusal } from "../commandError.ts";
import {
  ENGINE_BINARY_ENV,
  getLlamaBinaryOptions,
  hashPrebuiltFiles,
  nativeBuildStatus,
  parseEngineBinaryRequest,
  selectEngineBinary,
  type VerifiedNativeRecord,
} from "../../model/engine/engineBinary.ts";
import type { Result } from "../../core/result.ts";
import {
  compileNative,
  missingBuildTools,
  nativeCompileInvocation,
  nodeLlamaCppCli,
  verifyNativeBuild,
  type CompileInvocation,
} from "../../model/engine/nativeBuild.ts";
import type { SetExitCode } from "./index.ts";
import { MAX_COLUMNS, wrapLine } from "../../core/textWidth.ts";

/**
 * `engine info` for a person: one fact a line, within 100 columns; the system info's flags and
 * the file hashes each on their own lines (a 64-digit hash and its file name fit).
 */
export function formatEngineInfo(body: Readonly<Record<string, unknown>>): string {
  const text = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));
  const release = body["llama_cpp_release"] as { repo?: unknown; release?: unknown } | undefined;
  const native = body["native_build"] as { present?: unknown; verified?: unknown; reason?: unknown } | undefined;
  const missing = Array.isArray(body["build_tools_missing"])
    ? (body["build_tools_missing"] as unknown[]).map(text)
    : [];
  const lines = [
    `binary:        ${text(body["binary"])} (requested: ${text(body["requested"])}; build type ${text(body["build_type"])})`,
    ...wrapLine(`why:           ${text(body["reason"])}`, MAX_COLUMNS, " ".repeat(15)),
    `llama.cpp:     ${text(release?.repo)} ${text(release?.release)}`,
    `native build:  ${native?.present === true ? "present" : "absent"}, ${native?.verified === true ? "verified" : "not verified"} (${text(native?.reason)})`,
    `build tools:   ${missing.length === 0 ? "all present (tca engine build can compile)" : `missing ${missing.join(", ")}`}`,
    "system info:",
    // "CPU : SSE3 = 1 | AVX = 1 | …": the flags wrapped, not one 200-column line.
    ...wrapLine(
      text(body["system_info"])
        .replace(/\s*\|\s*/g, " | ")
        .trim(),
      MAX_COLUMNS - 2,
      "  ",
    ).map((line, i) => (i === 0 ? `  ${line}` : line)),
    "files (sha256):",
  ];
  const files = Object.entries((body["files_sha256"] ?? {}) as Record<string, unknown>);
  const width = Math.min(32, Math.max(0, ...files.map(([name]) => name.length)));
  for (const [name, hash] of files)
    lines.push(
      name.length > width
        ? `  ${name}\n  ${" ".repeat(width)}  ${text(hash)}`
        : `  ${name.padEnd(width)}  ${text(hash)}`,
    );
  lines.push("(--json prints this as one JSON object)");
  return lines.join("\n") + "\n";
}

async function info(setExitCode: SetExitCode, json: boolean): Promise<void> {
  // The build is hashed once, for both the selection and the report below.
  const native = nativeBuildStatus();
  const requested = parseEngineBinaryRequest(process.env[ENGINE_BINARY_ENV]);
  const selection = requested.ok ? selectEngineBinary(requested.value, native) : requested;
  if (!selection.ok) {
    return refusal(setExitCode, 1)(selection.error, selection.message);
  }
  const options = getLlamaBinaryOptions(selection.value.binary);
  let loaded: Record<string, unknown>;
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
    loaded = {
      build_type: llama.buildType,
      llama_cpp_release: llama.llamaCppRelease,
      system_info: llama.systemInfo.trim(),
    };
    await llama.dispose();
    if (loaded["build_type"] !== options.expectedBuildType) throw new Error("wrong binary");
  } catch {
    return refusal(setExitCode, 1)(
      "engine_unavailable",
      `the ${selection.value.binary} llama.cpp binary could not be loaded`,
    );
  }
  const body = {
    binary: selection.value.binary,
    requested: selection.value.requested,
    reason: selection.value.reason,
    ...loaded,
    files_sha256: selection.value.binary === "native" ? native.files : hashPrebuiltFiles(),
    native_build: { present: native.present, verified: native.verified, reason: native.reason },
    build_tools_missing: missingBuildTools(process.env["PATH"]),
  };
  process.stdout.write(json ? JSON.stringify(body) + "\n" : formatEngineInfo(body));
  setExitCode(0);
}

/** What `engine build` touches outside itself; tests replace the compile and the load. */
export interface EngineBuildDeps {
  readonly pathVariable: string | undefined;
  readonly nativePresent: () => boolean;
  readonly resolveCli: () => Result<string, "engine_unavailable">;
  readonly compile: (invocation: CompileInvocation, onOutput: (chunk: Buffer) => void) => Promise<number>;
  readonly verify: (buildSeconds: number | null) => Promise<Result<VerifiedNativeRecord, "engine_unavailable">>;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

function defaultBuildDeps(): EngineBuildDeps {
  return {
    pathVariable: process.env["PATH"],
    nativePresent: () => nativeBuildStatus().present,
    resolveCli: () => nodeLlamaCppCli(),
    compile: compileNative,
    verify: (buildSeconds) => verifyNativeBuild(buildSeconds),
    stdout: process.stdout,
    stderr: process.stderr,
  };
}

/** `tca engine build`: tools, then node-llama-cpp's CLI, then the compile (when needed), then the verifying load. */
export async function runEngineBuild(
  options: { force?: boolean },
  setExitCode: SetExitCode,
  deps: EngineBuildDeps = defaultBuildDeps(),
): Promise<void> {
  const refuse = refusal(setExitCode, 1);
  const fail = (code: string, message: string): void => refuse(code, message, { stream: deps.stderr });
  const missing = missingBuildTools(deps.pathVariable);
  if (missing.length > 0)
    return fail(
      "build_tools_missing",
      `install ${missing.join(", ")} to build llama.cpp natively; the prebuilt binary stays in use`,
    );
  let buildSeconds: number | null = null;
  if (options.force === true || !deps.nativePresent()) {
    const cli = deps.resolveCli();
    if (!cli.ok) return fail(cli.error, cli.message);
    deps.stderr.write(
      "tca engine build: compiling llama.cpp for the CPU from node-llama-cpp's bundled source (about 10 minutes on 2 cores)\n",
    );
    const started = performance.now();
    const status = await deps.compile(nativeCompileInvocation(cli.value), (chunk) => deps.stderr.write(chunk));
    buildSeconds = Math.round((performance.now() - started) / 100) / 10;
    if (status !== 0)
      return fail(
        "native_build_failed",
        `the llama.cpp build exited with status ${status}; the prebuilt binary stays in use`,
      );
  }
  const verified = await deps.verify(buildSeconds);
  if (!verified.ok) return fail(verified.error, verified.message);
  deps.stdout.write(
    JSON.stringify({
      verified: true,
      compiled: buildSeconds !== null,
      build_seconds: buildSeconds,
      llama_cpp_release: verified.value.llama_cpp_release,
      system_info: verified.value.system_info,
      files_sha256: verified.value.files,
    }) + "\n",
  );
  setExitCode(0);
}

export function registerEngineCommands(program: Command, setExitCode: SetExitCode): void {
  const engine = program
    .command("engine")
    .description("the llama.cpp binary of the local engine: native build or prebuilt");
  engine
    .command("info")
    .description(
      "print which llama.cpp binary the engine will load (TCA_ENGINE_BINARY=auto|prebuilt|native), with hashes",
    )
    .option("--json", "print one JSON object")
    .action(async (options: { json?: boolean }) => info(setExitCode, options.json === true));
  engine
    .command("build")
    .description(
      "compile llama.cpp for this CPU from the source bundled in node-llama-cpp (offline; needs cmake and a C++ compiler) and verify it",
    )
    .option("--force", "recompile even when a build exists")
    .action(async (options: { force?: boolean }) => runEngineBuild(options, setExitCode));
}
