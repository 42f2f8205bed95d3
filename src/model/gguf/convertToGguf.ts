// The TypeScript BF16 safetensors -> F32 GGUF converter. BF16 -> F32 is exact (the 16 BF16
// bits become the high half of the F32 bits). Tensor names and metadata follow llama.cpp's
// qwen2 loader: tied embeddings mean there is no output.weight (llama.cpp reuses
// token_embd.weight as the output head). The checkpoint's chat template is written as
// tokenizer.chat_template, byte for byte, so a llama-server started with --jinja on this file
// renders the same prompts as the local engine (which renders them itself from
// tokenizer_config.json and never reads the GGUF's template). The weights' SHA256 is computed over the bytes
// actually converted and must equal the verified hash, or the output is discarded.
import { createHash } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { endianness } from "node:os";
import { err, ok, type Result } from "../../core/result.ts";
import { qwen2TensorSpecs, type Qwen2Architecture } from "../qwen2/architecture.ts";
import { readSafetensorsLayout } from "../safetensors/safetensorsReader.ts";
import { GGUF_ALIGNMENT, alignUp, encodeGgufHeader, type GgufValue } from "./ggufMetadata.ts";
import { buildGgufVocabulary } from "./tokenizerMetadata.ts";

/** Bump whenever the output bytes for the same inputs could change. */
// 2: tokenizer.chat_template is written (issue 26).
export const CONVERTER_VERSION = "tca-gguf-f32/2";

export interface ConversionInput {
  readonly arch: Qwen2Architecture;
  readonly modelName: string;
  readonly tokenizerJson: Buffer;
  /** tokenizer_config.json's chat_template, written unchanged as tokenizer.chat_template. */
  readonly chatTemplate: string;
  readonly safetensorsPath: string;
  /** The verified SHA256 of model.safetensors; conversion fails if the bytes read differ. */
  readonly expectedSafetensorsSha256: string;
  readonly outputPath: string;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface ConversionOutput {
  readonly sha256: string;
  readonly bytes: number;
}

export type ConversionErrorCode = "conversion_failed" | "checkpoint_invalid" | "tokenizer_invalid";

export function qwen2GgufMetadata(
  arch: Qwen2Architecture,
  name: string,
  vocab: { tokens: string[]; tokenTypes: number[]; merges: string[] },
  chatTemplate: string,
): [string, GgufValue][] {
  return [
    ["general.architecture", { type: "string", value: "qwen2" }],
    ["general.name", { type: "string", value: name }],
    ["general.file_type", { type: "u32", value: 0 }],
    ["general.alignment", { type: "u32", value: GGUF_ALIGNMENT }],
    ["qwen2.context_length", { type: "u32", value: arch.maxPositionEmbeddings }],
    ["qwen2.embedding_length", { type: "u32", value: arch.hiddenSize }],
    ["qwen2.block_count", { type: "u32", value: arch.numHiddenLayers }],
    ["qwen2.feed_forward_length", { type: "u32", value: arch.intermediateSize }],
    ["qwen2.attention.head_count", { type: "u32", value: arch.numAttentionHeads }],
    ["qwen2.attention.head_count_kv", { type: "u32", value: arch.numKeyValueHeads }],
    ["qwen2.attention.layer_norm_rms_epsilon", { type: "f32", value: arch.rmsNormEps }],
    ["qwen2.rope.freq_base", { type: "f32", value: arch.ropeTheta }],
    ["tokenizer.ggml.model", { type: "string", value: "gpt2" }],
    ["tokenizer.ggml.pre", { type: "string", value: "qwen2" }],
    ["tokenizer.ggml.tokens", { type: "string_array", value: vocab.tokens }],
    ["tokenizer.ggml.token_type", { type: "i32_array", value: vocab.tokenTypes }],
    ["tokenizer.ggml.merges", { type: "string_array", value: vocab.merges }],
    ["tokenizer.ggml.bos_token_id", { type: "u32", value: 151643 }],
    ["tokenizer.ggml.eos_token_id", { type: "u32", value: 151645 }],
    ["tokenizer.ggml.padding_token_id", { type: "u32", value: 151643 }],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: false }],
    ["tokenizer.chat_template", { type: "string", value: chatTemplate }],
  ];
}

const CHUNK_BYTES = 8 * 1024 * 1024;

export async function convertToGguf(input: ConversionInput): Promise<Result<ConversionOutput, ConversionErrorCode>> {
  if (endianness() !== "LE") return err("conversion_failed", "the converter requires a little-endian host");
  const vocab = buildGgufVocabulary(input.tokenizerJson, input.arch.vocabSize);
  if (!vocab.ok) return vocab;
  const specs = qwen2TensorSpecs(input.arch);
  const source = await open(input.safetensorsPath, "r");
  const temporary = `${input.outputPath}.partial`;
  let target: Awaited<ReturnType<typeof open>> | undefined;
  try {
    const size = (await source.stat()).size;
    const layout = await readSafetensorsLayout(source, size, specs);
    if (!layout.ok) return layout;
    const ordered = [...layout.value].sort((a, b) => a.fileOffset - b.fileOffset);
    const header = encodeGgufHeader(
      qwen2GgufMetadata(input.arch, input.modelName, vocab.value, input.chatTemplate),
      ordered.map((l) => ({ name: l.spec.ggufName, shape: l.spec.shape, byteLength: l.byteLength * 2 })),
    );
    await rm(temporary, { force: true });
    target = await open(temporary, "wx", 0o600);
    const outHash = createHash("sha256");
    let position = 0;
    const put = async (bytes: Uint8Array): Promise<void> => {
      outHash.update(bytes);
      let done = 0;
      while (done < bytes.length) {
        const { bytesWritten } = await (target as NonNullable<typeof target>).write(
          bytes,
          done,
          bytes.length - done,
          position + done,
        );
        done += bytesWritten;
      }
      position += bytes.length;
    };
    await put(header);
    const dataStart = position;
    // The source is hashed over exactly the bytes converted: tensors are walked in file
    // order and the layout check guarantees they tile the file after the header.
    const sourceHash = createHash("sha256");
    const firstTensorOffset = ordered[0]?.fileOffset ?? size;
    const headerBytes = Buffer.alloc(firstTensorOffset);
    await source.read(headerBytes, 0, firstTensorOffset, 0);
    sourceHash.update(headerBytes);
    const inBuffer = new ArrayBuffer(CHUNK_BYTES);
    const inBytes = new Uint8Array(inBuffer);
    const outBuffer = new ArrayBuffer(CHUNK_BYTES * 2);
    const outWords = new Uint32Array(outBuffer);
    const bf16 = new Uint16Array(inBuffer);
    const totalOut = ordered.reduce((s, l) => s + l.byteLength * 2, 0);
    let converted = 0;
    for (const location of ordered) {
      const padTo = dataStart + alignUp(position - dataStart);
      if (padTo > position) await put(new Uint8Array(padTo - position));
      let read = 0;
      while (read < location.byteLength) {
        const n = Math.min(CHUNK_BYTES, location.byteLength - read);
        const { bytesRead } = await source.read(inBytes, 0, n, location.fileOffset + read);
        if (bytesRead !== n) return err("conversion_failed", "weights file shrank while reading");
        sourceHash.update(inBytes.subarray(0, n));
        for (let i = 0; i < n / 2; i++) outWords[i] = (bf16[i] as number) << 16;
        await put(new Uint8Array(outBuffer, 0, n * 2));
        read += n;
        converted += n * 2;
        input.onProgress?.(converted, totalOut);
      }
    }
    if (sourceHash.digest("hex") !== input.expectedSafetensorsSha256) {
      return err("conversion_failed", "weights bytes changed after verification");
    }
    await target.sync();
    await target.close();
    target = undefined;
    await rename(temporary, input.outputPath);
    return ok({ sha256: outHash.digest("hex"), bytes: position });
  } finally {
    await source.close();
    if (target !== undefined) await target.close();
    await rm(temporary, { force: true });
  }
}
