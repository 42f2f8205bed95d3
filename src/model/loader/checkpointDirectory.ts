// The single gate between a model directory and the engine. A directory is accepted either
// as a verified pinned checkpoint (requireVerifiedModelDirectory re-hashes every file against
// the pins and the acquisition manifest) or as a synthetic checkpoint whose own manifest
// lists every file with its SHA256. In both cases the small files are read once here, their
// bytes are hashed again and must equal the verified hashes, and these exact bytes are what
// the tokenizer, template and converter use. config.json is never rewritten.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { requireVerifiedModelDirectory } from "../artifacts/verifiedDirectory.ts";
import { PREDICTIONS_FILE_NAME } from "../../recording/predictions.ts";
import { PINNED_MODEL } from "../pins.ts";
import type { Qwen2Architecture } from "../qwen2/architecture.ts";
import { checkQwen2Config } from "../qwen2/configCheck.ts";
import {
  REHEARSAL_LABEL,
  SYNTHETIC_MANIFEST_NAME,
  parseSyntheticManifest,
  type SyntheticManifest,
} from "../synthetic/syntheticManifest.ts";
import { sha256Hex } from "../../core/digest.ts";

export type CheckpointErrorCode =
  | "model_directory_invalid"
  | "model_not_verified"
  | "unexpected_file"
  | "config_rejected"
  | "checkpoint_invalid"
  | "tokenizer_invalid";

/** Files a synthetic checkpoint must contain (its manifest lists exactly these). */
const SYNTHETIC_FILES = [
  "config.json",
  "generation_config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "model.safetensors",
] as const;

export interface CheckpointDirectory {
  readonly directory: string;
  readonly synthetic: SyntheticManifest | null;
  readonly modelName: string;
  readonly arch: Qwen2Architecture;
  readonly configBytes: Buffer;
  readonly tokenizerJson: Buffer;
  readonly tokenizerConfigJson: Buffer;
  /** The checkpoint's own generation defaults, recorded only: the engine never inherits them. */
  readonly checkpointGenerationConfig: unknown;
  /** SHA256 of every file the engine depends on (verified). */
  readonly sha256: Readonly<Record<string, string>>;
  readonly safetensorsPath: string;
}

/** The name recorded for a checkpoint: the pinned repository, or a name that says what it is
 *  (a rehearsal or synthetic checkpoint can never be named like the pinned model). */
function checkpointModelName(synthetic: SyntheticManifest | null): string {
  if (synthetic === null) return PINNED_MODEL.repository;
  if (synthetic.label === REHEARSAL_LABEL) return `rehearsal-qwen2-seed${synthetic.seed}`;
  const standIn = synthetic.tokenizer === "qwen2.5-stand-in" ? "-stand-in-tokenizer" : "";
  return `synthetic-qwen2-${synthetic.size}-seed${synthetic.seed}${standIn}`;
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 8 * 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** One file of a synthetic or rehearsal checkpoint against its own manifest's record. */
export interface SyntheticFileCheck {
  readonly name: string;
  /** What synthetic-manifest.json records (null: the manifest could not be read). */
  readonly recordedBytes: number | null;
  readonly observedBytes: number | null;
  readonly ok: boolean;
  readonly issue: { readonly code: CheckpointErrorCode; readonly message: string } | null;
}

/**
 * A synthetic or rehearsal checkpoint checked against its own record (synthetic-manifest.json),
 * never against the pinned model's sizes: every problem found, in the order checked; the first
 * is what the loader refuses with. `tca model verify` prints all of them, `tca lab model`
 * stops at the first, so the two can never disagree about the same folder.
 */
export interface SyntheticInspection {
  readonly manifest: SyntheticManifest | null;
  readonly files: readonly SyntheticFileCheck[];
  readonly issues: readonly { readonly code: CheckpointErrorCode; readonly message: string }[];
  readonly sha256: Readonly<Record<string, string>>;
}

export async function inspectSyntheticCheckpoint(directory: string): Promise<SyntheticInspection> {
  const issues: { code: CheckpointErrorCode; message: string }[] = [];
  const files: SyntheticFileCheck[] = [];
  const sha256: Record<string, string> = {};
  const stop = (code: CheckpointErrorCode, message: string): SyntheticInspection => ({
    manifest: null,
    files,
    issues: [...issues, { code, message }],
    sha256,
  });
  let manifestBytes: Buffer;
  try {
    manifestBytes = await readFile(path.join(directory, SYNTHETIC_MANIFEST_NAME));
  } catch {
    return stop("checkpoint_invalid", `${SYNTHETIC_MANIFEST_NAME} could not be read`);
  }
  const manifest = parseSyntheticManifest(manifestBytes);
  if (!manifest.ok) return stop(manifest.error, manifest.message);
  const listed = Object.keys(manifest.value.files).sort();
  if (listed.join("\n") !== [...SYNTHETIC_FILES].sort().join("\n")) {
    return stop("checkpoint_invalid", "synthetic manifest does not list exactly the checkpoint files");
  }
  const entries = await readdir(directory);
  for (const name of entries.sort()) {
    // predictions.json (tca lab predict) may sit beside the checkpoint: a learner's record, never loaded.
    if (
      name !== SYNTHETIC_MANIFEST_NAME &&
      name !== PREDICTIONS_FILE_NAME &&
      !(SYNTHETIC_FILES as readonly string[]).includes(name)
    ) {
      issues.push({ code: "unexpected_file", message: `unexpected file in model directory: ${name.slice(0, 80)}` });
    }
  }
  for (const name of SYNTHETIC_FILES) {
    const recorded = manifest.value.files[name];
    const recordedBytes = recorded?.bytes ?? null;
    const fail = (code: CheckpointErrorCode, message: string, observedBytes: number | null): void => {
      const issue = { code, message };
      issues.push(issue);
      files.push({ name, recordedBytes, observedBytes, ok: false, issue });
    };
    const file = path.join(directory, name);
    const info = await lstat(file).catch(() => null);
    if (info === null || !info.isFile() || info.isSymbolicLink()) {
      fail("model_directory_invalid", `${name} is missing or not a regular file`, null);
      continue;
    }
    if (recorded === undefined || info.size !== recorded.bytes) {
      fail("model_not_verified", `${name} does not match the synthetic manifest`, info.size);
      continue;
    }
    const observed = await hashFile(file);
    if (observed !== recorded.sha256) {
      fail("model_not_verified", `${name} does not match the synthetic manifest`, info.size);
      continue;
    }
    sha256[name] = observed;
    files.push({ name, recordedBytes, observedBytes: info.size, ok: true, issue: null });
  }
  return { manifest: manifest.value, files, issues, sha256 };
}

async function verifySynthetic(
  directory: string,
): Promise<Result<{ manifest: SyntheticManifest; sha256: Record<string, string> }, CheckpointErrorCode>> {
  const inspection = await inspectSyntheticCheckpoint(directory);
  const first = inspection.issues[0];
  if (first !== undefined) return err(first.code, first.message);
  if (inspection.manifest === null) return err("checkpoint_invalid", "synthetic manifest could not be read");
  return ok({ manifest: inspection.manifest, sha256: { ...inspection.sha256 } });
}

/** Whether a folder labels itself a synthetic or rehearsal checkpoint (it holds synthetic-manifest.json). */
export async function isSyntheticCheckpoint(directory: string): Promise<boolean> {
  return (await lstat(path.join(path.resolve(directory), SYNTHETIC_MANIFEST_NAME)).catch(() => null)) !== null;
}

function checkTokenizerConfig(bytes: Buffer): Result<void, "tokenizer_invalid"> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return err("tokenizer_invalid", "tokenizer_config.json is not JSON");
  }
  const c = value as Record<string, unknown> | null;
  if (c === null || typeof c !== "object") return err("tokenizer_invalid", "tokenizer_config.json is not an object");
  if ("auto_map" in c) return err("tokenizer_invalid", "tokenizer_config.json requests remote code (auto_map)");
  if (c.tokenizer_class !== "Qwen2Tokenizer" && c.tokenizer_class !== "Qwen2TokenizerFast") {
    return err("tokenizer_invalid", "tokenizer_class must be a Qwen2 tokenizer");
  }
  if (typeof c.chat_template !== "string")
    return err("tokenizer_invalid", "tokenizer_config.json has no chat template");
  return ok(undefined);
}

export async function openCheckpointDirectory(
  directoryInput: string,
): Promise<Result<CheckpointDirectory, CheckpointErrorCode>> {
  const directory = path.resolve(directoryInput);
  const info = await lstat(directory).catch(() => null);
  if (info === null || !info.isDirectory())
    return err("model_directory_invalid", "model directory does not exist or is not a directory");
  const syntheticInfo = await lstat(path.join(directory, SYNTHETIC_MANIFEST_NAME)).catch(() => null);
  let synthetic: SyntheticManifest | null = null;
  let hashes: Record<string, string>;
  if (syntheticInfo !== null) {
    const verified = await verifySynthetic(directory);
    if (!verified.ok) return verified;
    synthetic = verified.value.manifest;
    hashes = verified.value.sha256;
  } else {
    const verified = await requireVerifiedModelDirectory(directory);
    if (!verified.ok) {
      const code =
        verified.error === "unexpected_file" || verified.error === "unexpected_executable_file"
          ? "unexpected_file"
          : verified.error === "config_rejected"
            ? "config_rejected"
            : "model_not_verified";
      // The first problem's own words (file names and recorded errors, never a host path), so a
      // failed download is named rather than only "not verified".
      return err(code, `model directory failed verification (${verified.error}: ${verified.message})`);
    }
    hashes = {};
    for (const [name, file] of Object.entries(verified.value.files)) hashes[name] = file.sha256;
  }
  const read = async (name: string): Promise<Result<Buffer, CheckpointErrorCode>> => {
    const bytes = await readFile(path.join(directory, name));
    if (sha256Hex(bytes) !== hashes[name]) return err("model_not_verified", `${name} changed after verification`);
    return ok(bytes);
  };
  const config = await read("config.json");
  if (!config.ok) return config;
  const arch = checkQwen2Config(config.value);
  if (!arch.ok) return arch;
  const tokenizerJson = await read("tokenizer.json");
  if (!tokenizerJson.ok) return tokenizerJson;
  const tokenizerConfig = await read("tokenizer_config.json");
  if (!tokenizerConfig.ok) return tokenizerConfig;
  const tokenizerCheck = checkTokenizerConfig(tokenizerConfig.value);
  if (!tokenizerCheck.ok) return tokenizerCheck;
  const generation = await read("generation_config.json");
  if (!generation.ok) return generation;
  let generationConfig: unknown;
  try {
    generationConfig = JSON.parse(generation.value.toString("utf8"));
  } catch {
    return err("config_rejected", "generation_config.json is not JSON");
  }
  if (hashes["model.safetensors"] === undefined) return err("model_not_verified", "weights were not verified");
  return ok({
    directory,
    synthetic,
    modelName: checkpointModelName(synthetic),
    arch: arch.value,
    configBytes: config.value,
    tokenizerJson: tokenizerJson.value,
    tokenizerConfigJson: tokenizerConfig.value,
    checkpointGenerationConfig: generationConfig,
    sha256: hashes,
    safetensorsPath: path.join(directory, "model.safetensors"),
  });
}
