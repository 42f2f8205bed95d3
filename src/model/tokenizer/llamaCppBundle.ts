// Reads files out of the llama.cpp source tree that node-llama-cpp ships as a git bundle
// (node_modules/node-llama-cpp/llama/gitRelease.bundle). The bundle is unpacked with the
// system `git` into a fresh temporary bare repository (never into the project), the wanted
// blobs are read with `git cat-file`, and the temporary repository is removed. Nothing from
// the bundle is copied into our sources: callers derive what they need at run time.
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { err, ok, type Result } from "../../core/result.ts";

const run = promisify(execFile);

/** The files of the bundle this project reads (paths inside llama.cpp's tree). */
export const LLAMA_CPP_BUNDLE_FILES = {
  qwen25ChatTemplate: "models/templates/Qwen-Qwen2.5-7B-Instruct.jinja",
  qwen2VocabGguf: "models/ggml-vocab-qwen2.gguf",
  qwen2VocabInputs: "models/ggml-vocab-qwen2.gguf.inp",
  qwen2VocabOutputs: "models/ggml-vocab-qwen2.gguf.out",
} as const;

export type BundleErrorCode = "tokenizer_source_unavailable";

export interface BundleRead {
  /** The commit the bundle's HEAD names (recorded as provenance). */
  readonly commit: string;
  readonly files: ReadonlyMap<string, Buffer>;
}

export function llamaCppBundlePath(): string {
  // The package's exports map hides package.json: walk up from its entry point to its folder.
  let folder = path.dirname(createRequire(import.meta.url).resolve("node-llama-cpp"));
  while (path.basename(folder) !== "node-llama-cpp" && path.dirname(folder) !== folder) folder = path.dirname(folder);
  return path.join(folder, "llama", "gitRelease.bundle");
}

/** Reads `paths` from the bundle's single head; every path must exist. */
export async function readLlamaCppBundle(
  paths: readonly string[],
  bundle: string = llamaCppBundlePath(),
): Promise<Result<BundleRead, BundleErrorCode>> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), "tca-llama-bundle-"));
  const git = (args: readonly string[], encoding: "buffer" | "utf8") =>
    run("git", ["-C", scratch, ...args], {
      encoding,
      maxBuffer: 64 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", HOME: scratch },
    });
  try {
    await git(["init", "--quiet", "--bare"], "utf8");
    const heads = await git(["bundle", "list-heads", bundle], "utf8");
    const commit = /^([0-9a-f]{40}) /m.exec(String(heads.stdout))?.[1];
    if (commit === undefined) return err("tokenizer_source_unavailable", "the llama.cpp bundle names no commit");
    await git(["bundle", "unbundle", bundle], "utf8");
    const files = new Map<string, Buffer>();
    for (const wanted of paths) {
      const blob = await git(["cat-file", "blob", `${commit}:${wanted}`], "buffer");
      files.set(wanted, blob.stdout as unknown as Buffer);
    }
    return ok({ commit, files });
  } catch {
    return err(
      "tokenizer_source_unavailable",
      "could not read node-llama-cpp's llama.cpp bundle with git (is git installed and node-llama-cpp present?)",
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
