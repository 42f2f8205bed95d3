// The one SHA-256 helper every room uses for the digests it records and compares (strings are
// hashed as their UTF-8 bytes), so a digest of the same bytes is the same wherever it is taken.
import { createHash } from "node:crypto";

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
