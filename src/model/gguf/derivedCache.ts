// The F32 GGUF is a derived artifact kept in a cache directory NEXT TO the model directory
// (never inside it, so the verified directory keeps exactly its pinned files). Its manifest
// binds the output to the verified source hashes and the converter version; any mismatch,
// including an output file whose SHA256 no longer matches, triggers a rebuild from the
// verified files.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import type { CheckpointDirectory } from "../loader/checkpointDirectory.ts";
import { CONVERTER_VERSION, convertToGguf, type ConversionErrorCode } from "./convertToGguf.ts";

export const GGUF_FILE_NAME = "model-f32.gguf";
export const GGUF_MANIFEST_NAME = "gguf-manifest.json";
const SOURCE_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"] as const;

export interface GgufManifest {
  readonly converter_version: string;
  readonly source_directory_name: string;
  readonly source_sha256: Readonly<Record<string, string>>;
  readonly output: { readonly file: string; readonly bytes: number; readonly sha256: string };
  readonly precision: string;
  readonly synthetic: boolean;
}

export interface DerivedGguf {
  readonly ggufPath: string;
  readonly manifest: GgufManifest;
  readonly rebuilt: boolean;
  readonly conversionMs: number | null;
}

/** `<parent>/<name>.tca-engine-cache`: beside the model directory, not inside it. */
export function cacheDirectoryFor(modelDirectory: string): string {
  const resolved = path.resolve(modelDirectory);
  return path.join(path.dirname(resolved), `${path.basename(resolved)}.tca-engine-cache`);
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 8 * 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function reusable(cache: string, expected: Omit<GgufManifest, "output">): Promise<GgufManifest | null> {
  let manifest: GgufManifest;
  try {
    manifest = JSON.parse(await readFile(path.join(cache, GGUF_MANIFEST_NAME), "utf8")) as GgufManifest;
  } catch {
    return null;
  }
  if (manifest.converter_version !== expected.converter_version || manifest.output?.file !== GGUF_FILE_NAME)
    return null;
  for (const name of SOURCE_FILES) {
    if (manifest.source_sha256?.[name] !== expected.source_sha256[name]) return null;
  }
  const output = path.join(cache, GGUF_FILE_NAME);
  const info = await lstat(output).catch(() => null);
  if (info === null || !info.isFile() || info.size !== manifest.output.bytes) return null;
  if ((await fileSha256(output)) !== manifest.output.sha256) return null;
  return manifest;
}

/** The template string of tokenizer_config.json (the loader already refused a checkpoint without one). */
export function chatTemplateOf(tokenizerConfigJson: Buffer): string | null {
  try {
    const config: unknown = JSON.parse(tokenizerConfigJson.toString("utf8"));
    const template =
      typeof config === "object" && config !== null ? (config as Record<string, unknown>).chat_template : undefined;
    return typeof template === "string" ? template : null;
  } catch {
    return null;
  }
}

export async function ensureDerivedGguf(
  checkpoint: CheckpointDirectory,
  options: { readonly onProgress?: (done: number, total: number) => void; readonly now?: () => number } = {},
): Promise<Result<DerivedGguf, ConversionErrorCode>> {
  const now = options.now ?? (() => performance.now());
  const cache = cacheDirectoryFor(checkpoint.directory);
  const sourceSha256: Record<string, string> = {};
  for (const name of SOURCE_FILES) {
    const hash = checkpoint.sha256[name];
    if (hash === undefined) return err("conversion_failed", `no verified hash for ${name}`);
    sourceSha256[name] = hash;
  }
  const expected = {
    converter_version: CONVERTER_VERSION,
    source_directory_name: path.basename(checkpoint.directory),
    source_sha256: sourceSha256,
    precision: "F32 (exact widening of the stored BF16 weights; load-time override, config.json untouched)",
    synthetic: checkpoint.synthetic !== null,
  };
  await mkdir(cache, { recursive: true, mode: 0o700 });
  const existing = await reusable(cache, expected);
  const ggufPath = path.join(cache, GGUF_FILE_NAME);
  if (existing !== null) return ok({ ggufPath, manifest: existing, rebuilt: false, conversionMs: null });
  const chatTemplate = chatTemplateOf(checkpoint.tokenizerConfigJson);
  if (chatTemplate === null) return err("tokenizer_invalid", "tokenizer_config.json has no chat template");
  const started = now();
  const converted = await convertToGguf({
    arch: checkpoint.arch,
    modelName: checkpoint.modelName,
    tokenizerJson: checkpoint.tokenizerJson,
    chatTemplate,
    safetensorsPath: checkpoint.safetensorsPath,
    expectedSafetensorsSha256: sourceSha256["model.safetensors"] as string,
    outputPath: ggufPath,
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  if (!converted.ok) return converted;
  const manifest: GgufManifest = {
    ...expected,
    output: { file: GGUF_FILE_NAME, bytes: converted.value.bytes, sha256: converted.value.sha256 },
  };
  const temporary = path.join(cache, `${GGUF_MANIFEST_NAME}.partial`);
  await writeFile(temporary, JSON.stringify(manifest, null, 2) + "\n", { mode: 0o600 });
  await rename(temporary, path.join(cache, GGUF_MANIFEST_NAME));
  return ok({ ggufPath, manifest, rebuilt: true, conversionMs: now() - started });
}
