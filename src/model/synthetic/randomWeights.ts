// Deterministic pseudo-random BF16 weights. Each tensor gets its own stream (seed, tensor
// index), so the bytes do not depend on how the writer chunks them. Uniform values with a
// chosen standard deviation: speed depends only on shapes, and the scales keep logits well
// spread so greedy choices are not near-ties in the numerical check.
import type { TensorSpec } from "../qwen2/architecture.ts";

/** mulberry32: tiny, fast, good enough for test weights (not for anything secret). */
export class WeightStream {
  private state: number;
  constructor(seed: number, tensorIndex: number) {
    this.state = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(tensorIndex + 1, 0xc2b2ae35)) >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** Centre and half-width of the uniform distribution used for one tensor. */
export function tensorDistribution(spec: TensorSpec): { centre: number; halfWidth: number } {
  const sqrt3 = Math.sqrt(3);
  switch (spec.kind) {
    case "embedding":
      return { centre: 0, halfWidth: 0.5 * sqrt3 };
    case "matrix":
      return { centre: 0, halfWidth: sqrt3 / Math.sqrt(spec.shape[1] as number) };
    case "bias":
      return { centre: 0, halfWidth: 0.1 * sqrt3 };
    case "norm":
      return { centre: 1, halfWidth: 0.2 };
  }
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Round a float to BF16 bits, round-to-nearest-even (no NaN or infinity can occur here). */
export function toBf16Bits(value: number): number {
  f32[0] = value;
  const bits = u32[0] as number;
  const rounding = 0x7fff + ((bits >>> 16) & 1);
  return ((bits + rounding) >>> 16) & 0xffff;
}

export function bf16BitsToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0] as number;
}

/**
 * Fill `out` with the next `out.length` BF16 values of the stream; `firstElement` is the
 * index of out[0] within the tensor and `rowScale` (optional) scales whole rows, which the
 * writer uses to shrink the embedding rows of ids the tokenizer does not define, so that a
 * random model still prefers real tokens (as a trained model does) and its output is readable.
 */
export function fillBf16(
  stream: WeightStream,
  spec: TensorSpec,
  out: Uint16Array,
  firstElement = 0,
  rowScale?: (row: number) => number,
): void {
  const { centre, halfWidth } = tensorDistribution(spec);
  const scale = 2 * halfWidth;
  const rowLength = spec.shape[spec.shape.length - 1] as number;
  for (let i = 0; i < out.length; i++) {
    const factor = rowScale === undefined ? 1 : rowScale(Math.floor((firstElement + i) / rowLength));
    out[i] = toBf16Bits((centre + (stream.next() - 0.5) * scale) * factor);
  }
}
