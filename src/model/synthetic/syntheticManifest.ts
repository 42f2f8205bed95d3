// The manifest that marks a directory as a synthetic (random-weight) checkpoint. It is
// written last, so its presence means the checkpoint is complete; it carries the SHA256 of
// every file so the loader can verify a synthetic directory before converting it.
import { err, ok, type Result } from "../../lab/result.ts";

export const SYNTHETIC_MANIFEST_NAME = "synthetic-manifest.json";
export const SYNTHETIC_LABEL = "synthetic-pipeline-check";
export const SYNTHETIC_FORMAT_VERSION = 1;

export const SYNTHETIC_SIZES = ["tiny", "full"] as const;
export type SyntheticSize = (typeof SYNTHETIC_SIZES)[number];

export interface SyntheticManifest {
  readonly synthetic: true;
  readonly label: typeof SYNTHETIC_LABEL;
  readonly format_version: number;
  readonly size: SyntheticSize;
  readonly seed: number;
  readonly parameters: number;
  readonly note: string;
  readonly files: Readonly<Record<string, { readonly bytes: number; readonly sha256: string }>>;
}

export function parseSyntheticManifest(bytes: Buffer): Result<SyntheticManifest, "checkpoint_invalid"> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return err("checkpoint_invalid", "synthetic manifest is not JSON");
  }
  if (typeof value !== "object" || value === null) return err("checkpoint_invalid", "synthetic manifest is not an object");
  const m = value as Record<string, unknown>;
  if (m.synthetic !== true || m.label !== SYNTHETIC_LABEL || m.format_version !== SYNTHETIC_FORMAT_VERSION) {
    return err("checkpoint_invalid", "synthetic manifest has the wrong marker or version");
  }
  if (!SYNTHETIC_SIZES.includes(m.size as SyntheticSize) || !Number.isSafeInteger(m.seed) || !Number.isSafeInteger(m.parameters)) {
    return err("checkpoint_invalid", "synthetic manifest fields are malformed");
  }
  const files = m.files;
  if (typeof files !== "object" || files === null) return err("checkpoint_invalid", "synthetic manifest lists no files");
  for (const entry of Object.values(files as Record<string, unknown>)) {
    const e = entry as Record<string, unknown> | null;
    if (e === null || typeof e !== "object" || !Number.isSafeInteger(e.bytes) || typeof e.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(e.sha256)) {
      return err("checkpoint_invalid", "synthetic manifest file entry is malformed");
    }
  }
  return ok(value as SyntheticManifest);
}
