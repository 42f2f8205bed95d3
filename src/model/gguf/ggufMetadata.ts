// GGUF (version 3) encoding of metadata key/values and tensor infos. Only the value types
// the converter needs are implemented. Layout reference: ggml's docs/gguf.md.
export const GGUF_ALIGNMENT = 32;
export const GGML_TYPE_F32 = 0;

export type GgufValue =
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "u32"; readonly value: number }
  | { readonly type: "i32"; readonly value: number }
  | { readonly type: "f32"; readonly value: number }
  | { readonly type: "bool"; readonly value: boolean }
  | { readonly type: "string_array"; readonly value: readonly string[] }
  | { readonly type: "i32_array"; readonly value: readonly number[] };

const TYPE_CODE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;

/** Growable little-endian byte builder. */
class ByteBuilder {
  private parts: Buffer[] = [];
  length = 0;
  push(buffer: Buffer): void {
    this.parts.push(buffer);
    this.length += buffer.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  string(s: string): void {
    const bytes = Buffer.from(s, "utf8");
    this.u64(bytes.length);
    this.push(bytes);
  }
  build(): Buffer {
    return Buffer.concat(this.parts, this.length);
  }
}

function writeValue(out: ByteBuilder, value: GgufValue): void {
  switch (value.type) {
    case "string":
      out.u32(TYPE_CODE.string);
      out.string(value.value);
      return;
    case "u32":
      out.u32(TYPE_CODE.u32);
      out.u32(value.value);
      return;
    case "i32":
      out.u32(TYPE_CODE.i32);
      out.i32(value.value);
      return;
    case "f32":
      out.u32(TYPE_CODE.f32);
      out.f32(value.value);
      return;
    case "bool":
      out.u32(TYPE_CODE.bool);
      out.push(Buffer.from([value.value ? 1 : 0]));
      return;
    case "string_array":
      out.u32(TYPE_CODE.array);
      out.u32(TYPE_CODE.string);
      out.u64(value.value.length);
      for (const s of value.value) out.string(s);
      return;
    case "i32_array":
      out.u32(TYPE_CODE.array);
      out.u32(TYPE_CODE.i32);
      out.u64(value.value.length);
      for (const v of value.value) out.i32(v);
      return;
  }
}

export interface GgufTensorInfo {
  readonly name: string;
  /** Shape in safetensors (row-major) order; GGUF stores the dimensions reversed. */
  readonly shape: readonly number[];
  readonly byteLength: number;
}

export function alignUp(n: number, alignment: number = GGUF_ALIGNMENT): number {
  return Math.ceil(n / alignment) * alignment;
}

/** Everything before the tensor data, padded to the alignment; tensor data offsets follow tensor order. */
export function encodeGgufHeader(
  metadata: ReadonlyArray<readonly [string, GgufValue]>,
  tensors: readonly GgufTensorInfo[],
): Buffer {
  const out = new ByteBuilder();
  out.push(Buffer.from("GGUF", "ascii"));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.shape.length);
    for (const d of [...tensor.shape].reverse()) out.u64(d);
    out.u32(GGML_TYPE_F32);
    out.u64(offset);
    offset = alignUp(offset + tensor.byteLength);
  }
  const padding = alignUp(out.length) - out.length;
  out.push(Buffer.alloc(padding));
  return out.build();
}
