// Builds llama-server (CPU only) from the llama.cpp sources that node-llama-cpp ships as a git
// bundle (node_modules/node-llama-cpp/llama/gitRelease.bundle), so the integration test runs
// the same llama.cpp the local engine uses, with nothing fetched from the internet. The binary
// is cached under .cache/llama-server/<commit>/ (gitignored) with build-info.json; a second
// call reuses it. About 10 minutes on 2 cores; runs at the lowest CPU priority (nice 19).
// Never part of npm test: npm run test:llama-server calls it.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";

export interface LlamaServerBuild {
  readonly binary: string;
  readonly commit: string;
  readonly buildSeconds: number;
  readonly cached: boolean;
}

const ROOT = resolve(import.meta.dirname, "..");
const BUNDLE = join(ROOT, "node_modules/node-llama-cpp/llama/gitRelease.bundle");
const CACHE = join(ROOT, ".cache/llama-server");

function log(line: string): void {
  process.stderr.write(`[llama-server build] ${line}\n`);
}

function run(cmd: string, args: readonly string[], cwd: string): void {
  log(`${cmd} ${args.join(" ")}`);
  const r = spawnSync("nice", ["-n", "19", cmd, ...args], { cwd, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) throw new Error(`${cmd} failed with exit ${String(r.status)}`);
}

export function buildLlamaServer(): LlamaServerBuild {
  if (!existsSync(BUNDLE)) throw new Error(`no llama.cpp sources at ${BUNDLE} (npm ci installs node-llama-cpp)`);
  const head = execFileSync("git", ["bundle", "list-heads", BUNDLE], { encoding: "utf8" }).trim().split(/\s+/)[0] ?? "";
  if (!/^[0-9a-f]{40}$/.test(head)) throw new Error("the llama.cpp bundle has no readable HEAD");
  const dir = join(CACHE, head.slice(0, 12));
  const binary = join(dir, "llama-server");
  const infoPath = join(dir, "build-info.json");
  if (existsSync(binary) && existsSync(infoPath)) {
    const info = JSON.parse(readFileSync(infoPath, "utf8")) as { buildSeconds: number };
    log(`cached: ${binary}`);
    return { binary, commit: head, buildSeconds: info.buildSeconds, cached: true };
  }
  mkdirSync(dir, { recursive: true });
  const src = join(dir, "src");
  const build = join(dir, "build");
  const started = performance.now();
  if (!existsSync(join(src, "CMakeLists.txt"))) run("git", ["clone", "--quiet", BUNDLE, src], dir);
  const jobs = String(Math.max(1, Math.min(availableParallelism(), 16)));
  run(
    "cmake",
    [
      "-S",
      src,
      "-B",
      build,
      "-G",
      "Ninja",
      "-DCMAKE_BUILD_TYPE=Release",
      "-DBUILD_SHARED_LIBS=OFF",
      "-DGGML_NATIVE=ON",
      "-DLLAMA_CURL=OFF",
      "-DLLAMA_BUILD_TESTS=OFF",
      "-DLLAMA_BUILD_EXAMPLES=OFF",
      "-DLLAMA_BUILD_SERVER=ON",
    ],
    dir,
  );
  run("cmake", ["--build", build, "--target", "llama-server", "-j", jobs], dir);
  const built = join(build, "bin", "llama-server");
  if (!existsSync(built)) throw new Error(`the build finished without ${built}`);
  copyFileSync(built, binary);
  execFileSync("chmod", ["755", binary]);
  const buildSeconds = Math.round((performance.now() - started) / 1000);
  writeFileSync(
    infoPath,
    JSON.stringify(
      {
        commit: head,
        buildSeconds,
        jobs: Number(jobs),
        builtAt: new Date().toISOString(),
        flags: "Release, CPU, GGML_NATIVE, static, no curl",
      },
      null,
      2,
    ) + "\n",
  );
  log(`built ${binary} in ${buildSeconds} s`);
  return { binary, commit: head, buildSeconds, cached: false };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const b = buildLlamaServer();
  process.stdout.write(JSON.stringify(b) + "\n");
}
