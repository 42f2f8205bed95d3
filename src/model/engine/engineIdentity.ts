// What the run records about the engine: library versions read from the installed
// packages, the llama.cpp build, the host, and the settings. Versions are read from the
// package.json files on disk so the record matches what actually ran.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")) as { version?: string };
    if (typeof pkg.version === "string") return pkg.version;
  } catch {
    // the package may not export its package.json; walk up from its entry point instead
  }
  try {
    let dir = path.dirname(require.resolve(name));
    for (let i = 0; i < 6; i++) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
          name?: string;
          version?: string;
        };
        if (pkg.name === name && typeof pkg.version === "string") return pkg.version;
      } catch {
        // keep walking up
      }
      dir = path.dirname(dir);
    }
  } catch {
    // fall through
  }
  return "unknown";
}

export function libraryVersions(): Record<string, string> {
  return {
    "node-llama-cpp": packageVersion("node-llama-cpp"),
    "@node-llama-cpp/linux-x64": packageVersion("@node-llama-cpp/linux-x64"),
    "@huggingface/tokenizers": packageVersion("@huggingface/tokenizers"),
    "@huggingface/jinja": packageVersion("@huggingface/jinja"),
    node: process.versions.node,
  };
}

export function hostDescription(): Record<string, string | number> {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    cpu_model: cpus[0]?.model ?? "unknown",
    logical_cpus: cpus.length,
    total_memory_bytes: os.totalmem(),
  };
}
