// An independent float64 Qwen2 forward pass, written plainly for the numerical check. It
// reads the BF16 safetensors directly (its own minimal reader, not the converter's) and
// follows the Hugging Face Qwen2 definition: RMSNorm, rotary embeddings in the rotate-half
// layout with theta from config, grouped-query attention with q/k/v biases, causal softmax,
// SwiGLU MLP, tied embeddings as the output head. Slow and simple on purpose.
import { readFileSync } from "node:fs";
import path from "node:path";

interface Tensor {
  readonly shape: number[];
  readonly data: Float64Array;
}

export interface ReferenceConfig {
  hidden: number;
  intermediate: number;
  layers: number;
  heads: number;
  kvHeads: number;
  vocab: number;
  eps: number;
  theta: number;
}

export interface ReferenceVariant {
  /** Drop the q/k/v biases (to show the check would catch a missing bias). */
  readonly noBias?: boolean;
  /** Override RoPE theta (to show the check would catch a wrong frequency base). */
  readonly theta?: number;
}

export class Qwen2Reference {
  readonly config: ReferenceConfig;
  private readonly tensors = new Map<string, Tensor>();

  constructor(modelDirectory: string) {
    const cfg = JSON.parse(readFileSync(path.join(modelDirectory, "config.json"), "utf8")) as Record<string, number>;
    this.config = {
      hidden: cfg.hidden_size as number,
      intermediate: cfg.intermediate_size as number,
      layers: cfg.num_hidden_layers as number,
      heads: cfg.num_attention_heads as number,
      kvHeads: cfg.num_key_value_heads as number,
      vocab: cfg.vocab_size as number,
      eps: cfg.rms_norm_eps as number,
      theta: cfg.rope_theta as number,
    };
    const bytes = readFileSync(path.join(modelDirectory, "model.safetensors"));
    const headerLength = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString("utf8")) as Record<
      string,
      { dtype: string; shape: number[]; data_offsets: [number, number] }
    >;
    const start = 8 + headerLength;
    const word = new Uint32Array(1);
    const asFloat = new Float32Array(word.buffer);
    for (const [name, info] of Object.entries(header)) {
      if (name === "__metadata__") continue;
      if (info.dtype !== "BF16") throw new Error("reference expects BF16");
      const [b, e] = info.data_offsets;
      const data = new Float64Array((e - b) / 2);
      for (let i = 0; i < data.length; i++) {
        word[0] = bytes.readUInt16LE(start + b + 2 * i) << 16;
        data[i] = asFloat[0] as number;
      }
      this.tensors.set(name, { shape: info.shape, data });
    }
  }

  private t(name: string): Float64Array {
    const tensor = this.tensors.get(name);
    if (tensor === undefined) throw new Error(`missing ${name}`);
    return tensor.data;
  }

  private rmsNorm(x: Float64Array, weight: Float64Array): Float64Array {
    let sum = 0;
    for (const v of x) sum += v * v;
    const scale = 1 / Math.sqrt(sum / x.length + this.config.eps);
    return x.map((v, i) => v * scale * (weight[i] as number));
  }

  /** y = W x (+ b), W stored row-major [out, in]. */
  private linear(w: Float64Array, x: Float64Array, outDim: number, bias?: Float64Array): Float64Array {
    const inDim = x.length;
    const y = new Float64Array(outDim);
    for (let o = 0; o < outDim; o++) {
      let s = bias === undefined ? 0 : (bias[o] as number);
      const row = o * inDim;
      for (let i = 0; i < inDim; i++) s += (w[row + i] as number) * (x[i] as number);
      y[o] = s;
    }
    return y;
  }

  private rope(vector: Float64Array, heads: number, headDim: number, position: number, theta: number): void {
    const half = headDim / 2;
    for (let h = 0; h < heads; h++) {
      const base = h * headDim;
      for (let i = 0; i < half; i++) {
        const angle = position * Math.pow(theta, (-2 * i) / headDim);
        const c = Math.cos(angle);
        const s = Math.sin(angle);
        const a = vector[base + i] as number;
        const b = vector[base + i + half] as number;
        vector[base + i] = a * c - b * s;
        vector[base + i + half] = b * c + a * s;
      }
    }
  }

  /** Logits at the final position for `ids` (full recomputation, no cache). */
  finalLogits(ids: readonly number[], variant: ReferenceVariant = {}): Float64Array {
    const { hidden, heads, kvHeads, intermediate, layers, vocab } = this.config;
    const headDim = hidden / heads;
    const kvDim = kvHeads * headDim;
    const theta = variant.theta ?? this.config.theta;
    const embed = this.t("model.embed_tokens.weight");
    let xs = ids.map((id) => embed.slice(id * hidden, (id + 1) * hidden));
    for (let l = 0; l < layers; l++) {
      const p = `model.layers.${l}.`;
      const qs: Float64Array[] = [];
      const ks: Float64Array[] = [];
      const vs: Float64Array[] = [];
      xs.forEach((x, pos) => {
        const xn = this.rmsNorm(x, this.t(`${p}input_layernorm.weight`));
        const q = this.linear(
          this.t(`${p}self_attn.q_proj.weight`),
          xn,
          hidden,
          variant.noBias ? undefined : this.t(`${p}self_attn.q_proj.bias`),
        );
        const k = this.linear(
          this.t(`${p}self_attn.k_proj.weight`),
          xn,
          kvDim,
          variant.noBias ? undefined : this.t(`${p}self_attn.k_proj.bias`),
        );
        const v = this.linear(
          this.t(`${p}self_attn.v_proj.weight`),
          xn,
          kvDim,
          variant.noBias ? undefined : this.t(`${p}self_attn.v_proj.bias`),
        );
        this.rope(q, heads, headDim, pos, theta);
        this.rope(k, kvHeads, headDim, pos, theta);
        qs.push(q);
        ks.push(k);
        vs.push(v);
      });
      xs = xs.map((x, pos) => {
        const attended = new Float64Array(hidden);
        for (let h = 0; h < heads; h++) {
          const kvHead = Math.floor(h / (heads / kvHeads));
          const scores: number[] = [];
          for (let j = 0; j <= pos; j++) {
            let s = 0;
            for (let d = 0; d < headDim; d++)
              s += (qs[pos]![h * headDim + d] as number) * (ks[j]![kvHead * headDim + d] as number);
            scores.push(s / Math.sqrt(headDim));
          }
          const max = Math.max(...scores);
          const weights = scores.map((s) => Math.exp(s - max));
          const total = weights.reduce((a, b) => a + b, 0);
          for (let j = 0; j <= pos; j++) {
            const w = (weights[j] as number) / total;
            for (let d = 0; d < headDim; d++)
              attended[h * headDim + d] =
                (attended[h * headDim + d] as number) + w * (vs[j]![kvHead * headDim + d] as number);
          }
        }
        const o = this.linear(this.t(`${p}self_attn.o_proj.weight`), attended, hidden);
        const afterAttention = x.map((v, i) => v + (o[i] as number));
        const xn = this.rmsNorm(afterAttention, this.t(`${p}post_attention_layernorm.weight`));
        const gate = this.linear(this.t(`${p}mlp.gate_proj.weight`), xn, intermediate);
        const up = this.linear(this.t(`${p}mlp.up_proj.weight`), xn, intermediate);
        const act = gate.map((g, i) => (g / (1 + Math.exp(-g))) * (up[i] as number));
        const down = this.linear(this.t(`${p}mlp.down_proj.weight`), act, hidden);
        return afterAttention.map((v, i) => v + (down[i] as number));
      });
    }
    const final = this.rmsNorm(xs[xs.length - 1] as Float64Array, this.t("model.norm.weight"));
    return this.linear(embed, final, vocab);
  }

  /** Greedy continuation by full recomputation, stopping on the Lab's stop ids. */
  greedy(
    ids: readonly number[],
    maxNewTokens: number,
    stopIds: readonly number[],
  ): { tokens: number[]; margins: number[] } {
    const context = [...ids];
    const tokens: number[] = [];
    const margins: number[] = [];
    for (let step = 0; step < maxNewTokens; step++) {
      const logits = this.finalLogits(context);
      let best = 0;
      let second = -Infinity;
      for (let i = 1; i < logits.length; i++) {
        if ((logits[i] as number) > (logits[best] as number)) {
          second = logits[best] as number;
          best = i;
        } else if ((logits[i] as number) > second) {
          second = logits[i] as number;
        }
      }
      margins.push((logits[best] as number) - second);
      tokens.push(best);
      if (stopIds.includes(best)) break;
      context.push(best);
    }
    return { tokens, margins };
  }
}
