// Reads and validates a safetensors header against the expected tensor table: exactly the
// expected names (no extras such as a separate lm_head), BF16 only, exact shapes, contiguous
// in-bounds offsets. The tensor bytes are read later, in chunks, by the converter.
import type { FileHandle } from "node:fs/promises";
import { err, ok, type Result } from "../../core/result.ts";
import { elementCount, type TensorSpec } from "../qwen2/architecture.ts";

export interface TensorLocation {
  readonly spec: TensorSpec;
  /** Absolute byte offset of the tensor's first byte in the file. */
  readonly fileOffset: number;
  readonly byteLength: number;
}

const MAX_HEADER_BYTES = 16 * 1024 * 1024;

export async function readSafetensorsLayout(
  file: FileHandle,
  fileSize: number,
  specs: readonly TensorSpec[],
): Promise<Result<TensorLocation[], "checkpoint_invalid">> {
  if (fileSize < 8) return err("checkpoint_invalid", "weights file is too short");
  const lengthBytes = Buffer.alloc(8);
  await file.read(lengthBytes, 0, 8, 0);
  const headerLength = lengthBytes.readBigUInt64LE();
  if (headerLength > BigInt(MAX_HEADER_BYTES) || Number(headerLength) + 8 > fileSize) {
    return err("checkpoint_invalid", "weights header length is out of bounds");
  }
  const headerBytes = Buffer.alloc(Number(headerLength));
  await file.read(headerBytes, 0, headerBytes.length, 8);
  let header: unknown;
  try {
    header = JSON.parse(headerBytes.toString("utf8"));
  } catch {
    return err("checkpoint_invalid", "weights header is not JSON");
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    return err("checkpoint_invalid", "weights header is not an object");
  }
  const entries = header as Record<string, unknown>;
  const expected = new Map(specs.map((s) => [s.hfName, s]));
  for (const name of Object.keys(entries)) {
    if (name !== "__metadata__" && !expected.has(name)) {
      return err("checkpoint_invalid", `unexpected tensor in weights file: ${name.slice(0, 80)}`);
    }
  }
  const dataStart = 8 + headerBytes.length;
  const locations: TensorLocation[] = [];
  const ranges: [number, number][] = [];
  for (const spec of specs) {
    const entry = entries[spec.hfName] as Record<string, unknown> | undefined;
    if (entry === undefined || typeof entry !== "object" || entry === null) {
      return err("checkpoint_invalid", `missing tensor ${spec.hfName}`);
    }
    if (entry.dtype !== "BF16") return err("checkpoint_invalid", `tensor ${spec.hfName} is not BF16`);
    const shape = entry.shape;
    if (!Array.isArray(shape) || shape.length !== spec.shape.length || shape.some((d, i) => d !== spec.shape[i])) {
      return err("checkpoint_invalid", `tensor ${spec.hfName} has an unexpected shape`);
    }
    const offsets = entry.data_offsets;
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0)) {
      return err("checkpoint_invalid", `tensor ${spec.hfName} has malformed offsets`);
    }
    const [begin, end] = offsets as [number, number];
    if (end - begin !== elementCount(spec.shape) * 2 || dataStart + end > fileSize) {
      return err("checkpoint_invalid", `tensor ${spec.hfName} has inconsistent offsets`);
    }
    ranges.push([begin, end]);
    locations.push({ spec, fileOffset: dataStart + begin, byteLength: end - begin });
  }
  ranges.sort((a, b) => a[0] - b[0]);
  let cursor = 0;
  for (const [begin, end] of ranges) {
    if (begin !== cursor) return err("checkpoint_invalid", "tensor data is not contiguous");
    cursor = end;
  }
  if (dataStart + cursor !== fileSize) return err("checkpoint_invalid", "weights file has trailing bytes");
  return ok(locations);
}
