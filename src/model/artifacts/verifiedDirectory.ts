// The loader's gate: nothing loads model files except through this check. It re-reads every
// byte from disk and accepts a directory only when the manifest records it as verified, the
// files match the pins and the manifest, nothing unexpected is present, and the configs
// request no custom or remote code. Partial or failed acquisitions are refused here.
import { join } from "node:path";
import { err, ok, type Result } from "../../core/result.ts";
import { PINNED_FILES, type PinSet } from "../pins.ts";
import { inspectModelDirectory } from "./directoryInspection.ts";
import type { ArtifactErrorCode } from "./errorCodes.ts";
import { manifestPath } from "./manifest.ts";

export interface VerifiedFile {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly gitBlobSha1?: string;
}

export interface VerifiedModelDirectory {
  readonly directory: string;
  readonly manifestPath: string;
  readonly files: Record<string, VerifiedFile>;
  /** The config.json bytes as read during verification (preserve them; record overrides separately). */
  readonly configBytes: Buffer;
  readonly pins: PinSet;
}

export async function requireVerifiedModelDirectory(
  directory: string,
  pins: PinSet = PINNED_FILES,
): Promise<Result<VerifiedModelDirectory, ArtifactErrorCode>> {
  const report = await inspectModelDirectory(directory, pins, { requireManifest: true });
  const first = report.issues[0];
  if (first !== undefined) return err(first.code, first.message);
  if (report.configBytes === null && pins.files.some((file) => file.name === "config.json")) {
    return err("file_missing", "config.json was not read during verification");
  }
  const files: Record<string, VerifiedFile> = {};
  for (const check of report.files) {
    if (check.observedSha256 === null || check.observedBytes === null)
      return err("io_error", `${check.name} was not hashed`);
    const entry: VerifiedFile =
      check.observedGitBlobSha1 !== null && check.expectedIdentity.kind === "git_blob_sha1"
        ? {
            path: join(directory, check.name),
            bytes: check.observedBytes,
            sha256: check.observedSha256,
            gitBlobSha1: check.observedGitBlobSha1,
          }
        : { path: join(directory, check.name), bytes: check.observedBytes, sha256: check.observedSha256 };
    files[check.name] = entry;
  }
  return ok({
    directory,
    manifestPath: manifestPath(directory),
    files,
    configBytes: report.configBytes ?? Buffer.alloc(0),
    pins,
  });
}
