// `tca engine build` up to the compiler (issue 28): node-llama-cpp's CLI is resolved from the
// installed package (its `exports` hide package.json, which once crashed the command), the tools
// are checked first, and the compile is started with exactly these arguments. The compile and
// the verifying load are replaced here; the real ten-minute compile stays outside CI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setActiveCommand } from "../../src/cli/commandError.ts";
import { runEngineBuild, type EngineBuildDeps } from "../../src/cli/commands/engine.ts";
import { ok, err } from "../../src/core/result.ts";
import { PACKAGE_ROOT } from "../../src/model/engine/engineBinary.ts";
import { nodeLlamaCppCli, type CompileInvocation } from "../../src/model/engine/nativeBuild.ts";

// node_modules may be a link (worktrees share one); module resolution returns the real path.
const INSTALLED_CLI = join(realpathSync(join(PACKAGE_ROOT, "node_modules")), "node-llama-cpp", "dist", "cli", "cli.js");
const RECORD = {
  schema: "tca.engine-native/1",
  verified_at: "2026-01-01T00:00:00.000Z",
  build_seconds: 1,
  llama_cpp_release: "ggml-org/llama.cpp@b1",
  system_info: "CPU",
  files: { "llama-addon.node": "ab" },
} as const;

function toolsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tca-build-tools-"));
  for (const name of ["cmake", "g++", "cc"]) {
    writeFileSync(join(dir, name), "#!/bin/sh\n");
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

function collect(stream: PassThrough): () => string {
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  return () => text;
}

async function build(
  overrides: Partial<EngineBuildDeps>,
  options: { force?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; invocations: CompileInvocation[] }> {
  setActiveCommand("engine build");
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const errText = collect(stderr);
  const invocations: CompileInvocation[] = [];
  let code: number | null = null;
  const deps: EngineBuildDeps = {
    pathVariable: "",
    nativePresent: () => false,
    resolveCli: () => nodeLlamaCppCli(),
    compile: (invocation) => {
      invocations.push(invocation);
      return Promise.resolve(0);
    },
    verify: () => Promise.resolve(ok(RECORD)),
    stdout,
    stderr,
    ...overrides,
  };
  await runEngineBuild(options, (c) => (code = c), deps);
  return { code, stdout: out(), stderr: errText(), invocations };
}

test("node-llama-cpp's CLI resolves from the installed package to its bin entry", () => {
  const cli = nodeLlamaCppCli();
  assert.ok(cli.ok, cli.ok ? "" : cli.message);
  assert.equal(cli.value, INSTALLED_CLI);
  assert.ok(existsSync(cli.value));
});

test("node-llama-cpp's CLI: not installed, or a package without the command, is engine_unavailable naming the path", () => {
  const missing = nodeLlamaCppCli(() => {
    throw Object.assign(new Error("Cannot find package"), { code: "ERR_MODULE_NOT_FOUND" });
  });
  assert.equal(missing.ok, false);
  if (!missing.ok) assert.equal(missing.error, "engine_unavailable");
  const pkg = mkdtempSync(join(tmpdir(), "tca-fake-nlc-"));
  try {
    mkdirSync(join(pkg, "dist"));
    writeFileSync(join(pkg, "dist", "index.js"), "");
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "node-llama-cpp", bin: { "node-llama-cpp": "dist/cli/cli.js" } }),
    );
    const noCli = nodeLlamaCppCli(() => join(pkg, "dist", "index.js"));
    assert.equal(noCli.ok, false);
    if (!noCli.ok) assert.match(noCli.message, /dist\/cli\/cli\.js is missing/);
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "node-llama-cpp" }));
    const noBin = nodeLlamaCppCli(() => join(pkg, "dist", "index.js"));
    assert.equal(noBin.ok, false);
    if (!noBin.ok) assert.match(noBin.message, /package\.json names no node-llama-cpp command/);
  } finally {
    rmSync(pkg, { recursive: true, force: true });
  }
});

test("engine build: with the tools present it starts node-llama-cpp's source download with the exact arguments, then verifies", async () => {
  const tools = toolsDir();
  try {
    const r = await build({ pathVariable: tools });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.invocations.length, 1);
    const [invocation] = r.invocations;
    assert.ok(invocation);
    assert.equal(invocation.file, process.execPath);
    assert.deepEqual(invocation.args, [INSTALLED_CLI, "source", "download", "--gpu", "false", "--noUsageExample"]);
    assert.equal(invocation.cwd, PACKAGE_ROOT);
    assert.equal(invocation.env["NODE_LLAMA_CPP_SKIP_DOWNLOAD"], "false");
    assert.match(r.stderr, /^tca engine build: compiling llama\.cpp/);
    const printed = JSON.parse(r.stdout) as { verified: boolean; compiled: boolean };
    assert.equal(printed.verified, true);
    assert.equal(printed.compiled, true);
  } finally {
    rmSync(tools, { recursive: true, force: true });
  }
});

test("engine build: the arguments are ones node-llama-cpp's `source download` accepts (its own --help)", async () => {
  const cli = nodeLlamaCppCli();
  assert.ok(cli.ok);
  const help = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [cli.value, "source", "download", "--help"], { cwd: PACKAGE_ROOT }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });
  assert.match(help, /--gpu\b.*\[choices:[^\]]*\bfalse\b/);
  assert.match(help, /--noUsageExample\b/);
});

test("engine build: missing tools are refused before anything is resolved or compiled", async () => {
  let resolved = false;
  const r = await build({
    pathVariable: "",
    resolveCli: () => {
      resolved = true;
      return ok("/x");
    },
  });
  assert.equal(r.code, 1);
  assert.equal(r.invocations.length, 0);
  assert.equal(resolved, false);
  assert.equal(
    r.stderr,
    "tca engine build: build_tools_missing: install cmake, C++ compiler, C compiler to build llama.cpp natively; the prebuilt binary stays in use\n",
  );
});

test("engine build: an unresolvable CLI, a failed compile and a failed load are one error line each, never a stack trace", async () => {
  const tools = toolsDir();
  try {
    const noCli = await build({
      pathVariable: tools,
      resolveCli: () => err("engine_unavailable", "node-llama-cpp is not installed"),
    });
    assert.equal(noCli.code, 1);
    assert.equal(noCli.invocations.length, 0);
    assert.equal(noCli.stderr, "tca engine build: engine_unavailable: node-llama-cpp is not installed\n");
    const failed = await build({ pathVariable: tools, compile: () => Promise.resolve(2) });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /\ntca engine build: native_build_failed: the llama\.cpp build exited with status 2;/);
    assert.equal(failed.stdout, "");
    const unloadable = await build({
      pathVariable: tools,
      verify: () => Promise.resolve(err("engine_unavailable", "the native build could not be loaded")),
    });
    assert.equal(unloadable.code, 1);
    assert.match(unloadable.stderr, /\ntca engine build: engine_unavailable: the native build could not be loaded\n$/);
  } finally {
    rmSync(tools, { recursive: true, force: true });
  }
});

test("engine build: an existing build is only verified, not recompiled, unless --force", async () => {
  const tools = toolsDir();
  try {
    const kept = await build({ pathVariable: tools, nativePresent: () => true });
    assert.equal(kept.code, 0);
    assert.equal(kept.invocations.length, 0);
    assert.equal((JSON.parse(kept.stdout) as { compiled: boolean }).compiled, false);
    const forced = await build({ pathVariable: tools, nativePresent: () => true }, { force: true });
    assert.equal(forced.code, 0);
    assert.equal(forced.invocations.length, 1);
  } finally {
    rmSync(tools, { recursive: true, force: true });
  }
});
