// Streaming safetensors writer: the header is computed from the tensor table first, then
// each tensor's bytes are produced chunk by chunk, so a 988 MB checkpoint never sits in
// memory twice. Returns the SHA256 of everything written.
import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { elementCount, type TensorSpec } from "../qwen2/architecture.ts";

export function safetensorsHeader(specs: readonly TensorSpec[]): Buffer {
  const header: Record<string, unknown> = { __metadata__: { format: "pt" } };
  let offset = 0;
  for (const spec of specs) {
    const bytes = elementCount(spec.shape) * 2;
    header[spec.hfName] = { dtype: "BF16", shape: [...spec.shape], data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  // Pad with spaces so the data section starts 8-byte aligned, as the reference writer does.
  while ((8 + Buffer.byteLength(json)) % 8 !== 0) json += " ";
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([length, Buffer.from(json, "utf8")]);
}

export type ChunkFiller = (spec: TensorSpec, tensorIndex: number, out: Uint16Array, isFirstChunk: boolean) => void;

const CHUNK_ELEMENTS = 1 << 22;

export async function writeSafetensors(
  file: FileHandle,
  specs: readonly TensorSpec[],
  fill: ChunkFiller,
  onProgress?: (bytesWritten: number, totalBytes: number) => void,
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  const header = safetensorsHeader(specs);
  const total = header.length + specs.reduce((s, t) => s + elementCount(t.shape) * 2, 0);
  let written = 0;
  const put = async (bytes: Uint8Array): Promise<void> => {
    hash.update(bytes);
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await file.write(bytes, done, bytes.length - done, written + done);
      done += bytesWritten;
    }
    written += bytes.length;
    onProgress?.(written, total);
  };
  await put(header);
  const chunk = new Uint16Array(CHUNK_ELEMENTS);
  for (let index = 0; index < specs.length; index++) {
    const spec = specs[index] as TensorSpec;
    let remaining = elementCount(spec.shape);
    let first = true;
    while (remaining > 0) {
      const n = Math.min(remaining, CHUNK_ELEMENTS);
      const view = chunk.subarray(0, n);
      fill(spec, index, view, first);
      first = false;
      await put(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
      remaining -= n;
    }
  }
  return { sha256: hash.digest("hex"), bytes: written };
}
