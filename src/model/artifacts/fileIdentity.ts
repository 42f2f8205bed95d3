// Streaming identities of one file: SHA256 of the bytes, and the Git blob id
// (SHA-1 over "blob <len>\0" + bytes) that the hub publishes for small files. The blob
// header needs the length up front, so the hasher is built for an expected length and
// reports no blob id if the observed length differs.
import { createHash, type Hash } from "node:crypto";
import { open } from "node:fs/promises";

export interface ObservedIdentity {
  readonly bytes: number;
  readonly sha256: string;
  /** null when the observed length differs from the length the header was built for. */
  readonly gitBlobSha1: string | null;
}

export class StreamingIdentity {
  private readonly sha256: Hash = createHash("sha256");
  private readonly blob: Hash = createHash("sha1");
  private length = 0;

  constructor(private readonly expectedLength: number) {
    this.blob.update(`blob ${expectedLength}\0`, "ascii");
  }

  update(chunk: Uint8Array): void {
    this.sha256.update(chunk);
    this.blob.update(chunk);
    this.length += chunk.length;
  }

  get observedLength(): number {
    return this.length;
  }

  digest(): ObservedIdentity {
    return {
      bytes: this.length,
      sha256: this.sha256.digest("hex"),
      gitBlobSha1: this.length === this.expectedLength ? this.blob.digest("hex") : null,
    };
  }
}

/** The Git blob id of a whole buffer (used by tests and for pinning fixtures). */
export function gitBlobSha1(data: Uint8Array): string {
  return createHash("sha1").update(`blob ${data.length}\0`, "ascii").update(data).digest("hex");
}

/** Re-reads a file from disk (never from a cache of ours) and returns its identities. */
export async function hashFileOnDisk(path: string, expectedLength: number): Promise<ObservedIdentity> {
  const identity = new StreamingIdentity(expectedLength);
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      identity.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return identity.digest();
}
