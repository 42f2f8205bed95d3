#!/usr/bin/env python3
"""Trains the rehearsal model: a tiny two-layer Qwen2 (Hugging Face Qwen2 semantics, tied
embeddings) overfit on our own controller's transcripts (transcripts.json), so that greedy
decoding reproduces each trained reply followed by <|im_end|>.

Why it is shaped the way it is (the machine has two shared cores, so training must be cheap):
- Layer 1's attention is fixed, not trained: its q/k weights are zero and its q/k biases are
  constant vectors, so its attention pattern does not depend on the input. Head 0 has zero
  biases (uniform attention: the running mean of the context); heads 1-3 have biases whose
  rotary phases make position m attend to m-1, m-2, m-3 (softmax mass off that position is
  below 1e-12, checked below). So layer 1 can be computed as a running mean and three shifts
  (exact to float32), while the engine computes the very same numbers with ordinary attention.
  Its values, output projection and MLP are trained.
- Layer 2 is fully trained; only the positions whose next token is trained need its queries.
- Only token ids that occur in the transcripts get embedding rows; every other row of the
  151,936-row vocabulary is zero in the exported checkpoint, so its logit is exactly 0. The
  softmax here includes one constant 0 logit standing for all of them, so every trained token
  must beat them by a margin.
- Weights are rounded to BF16 in every forward pass (straight-through): what is trained is what
  the BF16 checkpoint holds.
Deterministic: fixed seed, one thread, no shuffling. Run with low priority on shared machines:
  nice -n 19 /usr/bin/python3 training/rehearsal/train_rehearsal.py [--data DIR] [--out DIR]
--data names the training set's folder (default: this one, the Lab rehearsal model; the bench
rehearsal model's is training/bench-rehearsal): transcripts.json is read from it and, without
--out, weights.bin and weights.json are written into it. Each set has its own PROFILE below.
Writes weights.bin (BF16 little-endian, tensors in the order of weights.json) and weights.json.
A final self-check recomputes every trained example with plain full attention (no shortcuts).
"""
import hashlib
import json
import math
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.abspath(sys.argv[sys.argv.index("--data") + 1]) if "--data" in sys.argv else HERE
# Per training set: the bench set has seven times the Lab's target tokens (whole files to write),
# so it gets two more fixed heads (m-4, m-5: a longer n-gram to continue a file from), a wider
# model and more steps. Head dim stays 16: the fixed heads' sharpness is checked for that size.
PROFILES = {
    "rehearsal": {"hidden": 64, "intermediate": 192, "max_steps": 600, "offsets": [None, 1, 2, 3]},
    "bench-rehearsal": {"hidden": 96, "intermediate": 288, "max_steps": 3000, "offsets": [None, 1, 2, 3, 4, 5]},
}
PROFILE = PROFILES[os.path.basename(DATA)]
SEED = 17
HIDDEN = PROFILE["hidden"]
LAYERS = 2
OFFSETS = PROFILE["offsets"]  # layer-1 heads: running mean, then attend to m-1, m-2, ...
HEADS = len(OFFSETS)
KV_HEADS = HEADS
HEAD_DIM = HIDDEN // HEADS
assert HEAD_DIM == 16, "the fixed heads' pattern is checked for head dim 16"
INTERMEDIATE = PROFILE["intermediate"]
THETA = 1_000_000.0
EPS = 1e-6
MAX_STEPS = PROFILE["max_steps"]
BUCKETS = 4
LR = 1e-2
TARGET_MARGIN = 4.0
PATTERN_CHECK_LENGTH = 2304  # longest sequence the fixed heads are checked for (and training accepts)
GROUP_KEY = 64  # requests whose first 64 tokens agree share one prefix computation
PATTERN_SCALE = 16.0  # bias magnitude of the fixed previous-token heads (sharpness, see module doc)


def bf16(w):
    return w + (w.to(torch.bfloat16).to(torch.float32) - w).detach()


def rms_norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * bf16(w)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def inv_freq():
    return 1.0 / (THETA ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.float64) / HEAD_DIM))


def rope(x, positions):
    """Rotary embedding, rotate-half layout (Hugging Face Qwen2, llama.cpp NEOX). x: [..., T, D]; positions [T] or [B, T]."""
    freqs = positions.to(torch.float64).unsqueeze(-1) * inv_freq()
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().float(), emb.sin().float()
    if positions.dim() == 2:
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return x * cos + rotate_half(x) * sin


def pattern_biases():
    """Layer-1 q/k biases (BF16-exact): zero for the mean head, rotary phase r for head r."""
    q = torch.zeros(HEADS, HEAD_DIM, dtype=torch.float64)
    k = torch.zeros(KV_HEADS, HEAD_DIM, dtype=torch.float64)
    half = HEAD_DIM // 2
    for h, r in enumerate(OFFSETS):
        if r is None:
            continue
        # score(m, n) = c^2 * sum_i cos((m - n - r) * theta_i) / sqrt(D): largest at m - n = r.
        q[h, :half] = PATTERN_SCALE * torch.cos(r * inv_freq())
        q[h, half:] = -PATTERN_SCALE * torch.sin(r * inv_freq())
        k[h, :half] = PATTERN_SCALE
    return q.to(torch.bfloat16).float().flatten(), k.to(torch.bfloat16).float().flatten()


def check_pattern(q_b, k_b, length=PATTERN_CHECK_LENGTH):
    """The fixed heads put all but < 1e-12 of their mass on position m - r, for every m >= r."""
    pos = torch.arange(length)
    q = rope(q_b.view(HEADS, 1, HEAD_DIM).double().float().expand(HEADS, length, HEAD_DIM), pos)
    k = rope(k_b.view(KV_HEADS, 1, HEAD_DIM).float().expand(KV_HEADS, length, HEAD_DIM), pos)
    scores = (q.double() @ k.double().transpose(-1, -2)) / math.sqrt(HEAD_DIM)
    scores = scores + torch.full((length, length), float("-inf"), dtype=torch.float64).triu(1)
    att = scores.softmax(-1)
    for h, r in enumerate(OFFSETS):
        if r is None or r >= length:
            continue
        rows = torch.arange(r, length)
        worst = (1 - att[h, rows, rows - r]).max().item()
        if worst > 1e-12:
            raise SystemExit(f"fixed head {h} leaks {worst} of its mass")
    return att.float()


class Rehearsal(torch.nn.Module):
    def __init__(self, vocab):
        super().__init__()
        g = torch.Generator().manual_seed(SEED)
        kv = KV_HEADS * HEAD_DIM

        def normal(*shape):
            return torch.nn.Parameter(torch.randn(*shape, generator=g) * 0.02)

        self.embed = normal(vocab, HIDDEN)
        self.layers = torch.nn.ModuleList()
        for _ in range(LAYERS):
            layer = torch.nn.Module()
            layer.attn_norm = torch.nn.Parameter(torch.ones(HIDDEN))
            layer.q_w, layer.q_b = normal(HIDDEN, HIDDEN), torch.nn.Parameter(torch.zeros(HIDDEN))
            layer.k_w, layer.k_b = normal(kv, HIDDEN), torch.nn.Parameter(torch.zeros(kv))
            layer.v_w, layer.v_b = normal(kv, HIDDEN), torch.nn.Parameter(torch.zeros(kv))
            layer.o_w = normal(HIDDEN, HIDDEN)
            layer.ffn_norm = torch.nn.Parameter(torch.ones(HIDDEN))
            layer.gate = normal(INTERMEDIATE, HIDDEN)
            layer.up = normal(INTERMEDIATE, HIDDEN)
            layer.down = normal(HIDDEN, INTERMEDIATE)
            self.layers.append(layer)
        self.norm = torch.nn.Parameter(torch.ones(HIDDEN))
        # Layer 1's attention is fixed: zero q/k weights, constant biases (not parameters).
        first = self.layers[0]
        q_b, k_b = pattern_biases()
        for name in ("q_w", "k_w", "q_b", "k_b"):
            delattr(first, name)
        first.register_buffer("q_w", torch.zeros(HIDDEN, HIDDEN))
        first.register_buffer("k_w", torch.zeros(kv, HIDDEN))
        first.register_buffer("q_b", q_b)
        first.register_buffer("k_b", k_b)
        # Layer 1 has no MLP contribution: zero gate/up/down (silu(0) * 0 = 0 exactly), so the
        # layer is attention only and training stays cheap. Its norm weight is then unused.
        for name in ("gate", "up", "down", "ffn_norm"):
            shape = getattr(first, name).shape
            delattr(first, name)
            first.register_buffer(name, torch.ones(shape) if name == "ffn_norm" else torch.zeros(shape))

    def mlp(self, L, x):
        h = rms_norm(x, L.ffn_norm)
        return x + (torch.nn.functional.silu(h @ bf16(L.gate).T) * (h @ bf16(L.up).T)) @ bf16(L.down).T

    def values(self, L, x):
        h = rms_norm(x, L.attn_norm)
        b, t, _ = x.shape
        return (h @ bf16(L.v_w).T + bf16(L.v_b)).view(b, t, KV_HEADS, HEAD_DIM)

    def prefix_pass(self, prefix, prefix_att):
        """Everything the suffixes need from the shared prefix, computed once (batch 1)."""
        L1, L2 = self.layers
        xp = bf16(self.embed)[prefix].unsqueeze(0)
        vp = self.values(L1, xp)  # [1, P, H, D]
        heads = [prefix_att[h] @ vp[:, :, h] for h in range(HEADS)]
        xp = xp + torch.stack(heads, dim=2).reshape(1, -1, HIDDEN) @ bf16(L1.o_w).T  # layer-1 MLP is zero
        hp = rms_norm(xp, L2.attn_norm)
        pos = torch.arange(prefix.shape[0])
        kp = rope((hp @ bf16(L2.k_w).T + bf16(L2.k_b)).view(1, -1, KV_HEADS, HEAD_DIM).transpose(1, 2), pos)
        vp2 = (hp @ bf16(L2.v_w).T + bf16(L2.v_b)).view(1, -1, KV_HEADS, HEAD_DIM).transpose(1, 2)
        return vp, kp, vp2

    def forward(self, prefix_state, suffix, query_cols):
        """Final hidden states at suffix positions query_cols [B, Q], given prefix_pass()."""
        vp, kp, vp2 = prefix_state
        L1, L2 = self.layers
        p = vp.shape[1]
        b, s = suffix.shape
        xs = bf16(self.embed)[suffix]
        vs = self.values(L1, xs)  # [B, S, H, D]
        heads = []
        for h, r in enumerate(OFFSETS):
            if r is None:  # running mean over prefix and suffix so far
                total = vp[:, :, h].sum(1, keepdim=True) + vs[:, :, h].cumsum(1)
                heads.append(total / torch.arange(p + 1, p + s + 1, dtype=torch.float32).view(1, s, 1))
            else:  # exactly the value r positions back (float32-exact, see check_pattern)
                heads.append(torch.cat((vp[:, p - r :, h].expand(b, -1, -1), vs[:, : s - r, h]), dim=1))
        xs = xs + torch.stack(heads, dim=2).reshape(b, s, HIDDEN) @ bf16(L1.o_w).T  # layer-1 MLP is zero
        hs = rms_norm(xs, L2.attn_norm)
        pos = torch.arange(p, p + s)
        ks = rope((hs @ bf16(L2.k_w).T + bf16(L2.k_b)).view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2), pos)
        vs2 = (hs @ bf16(L2.v_w).T + bf16(L2.v_b)).view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        k = torch.cat((kp.expand(b, -1, -1, -1), ks), dim=2)
        v = torch.cat((vp2.expand(b, -1, -1, -1), vs2), dim=2)
        gather = query_cols.unsqueeze(-1).expand(-1, -1, HIDDEN)
        xq, hq = xs.gather(1, gather), hs.gather(1, gather)
        cols = query_cols + p
        q = rope((hq @ bf16(L2.q_w).T + bf16(L2.q_b)).view(b, -1, HEADS, HEAD_DIM).transpose(1, 2), cols)
        mask = torch.where(torch.arange(p + s).view(1, 1, -1) <= cols.unsqueeze(-1), 0.0, float("-inf"))
        att = (q @ k.transpose(-1, -2)) / math.sqrt(HEAD_DIM) + mask.unsqueeze(1)
        o = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, -1, HIDDEN) @ bf16(L2.o_w).T
        return rms_norm(self.mlp(L2, xq + o), self.norm)

    def plain_forward(self, ids):
        """Reference: ordinary causal attention in every layer, every position (no shortcuts)."""
        t = ids.shape[0]
        x = bf16(self.embed)[ids].unsqueeze(0)
        pos = torch.arange(t)
        causal = torch.full((t, t), float("-inf")).triu(1)
        for L in self.layers:
            h = rms_norm(x, L.attn_norm)
            q = rope((h @ bf16(L.q_w).T + bf16(L.q_b)).view(1, t, HEADS, HEAD_DIM).transpose(1, 2), pos)
            k = rope((h @ bf16(L.k_w).T + bf16(L.k_b)).view(1, t, KV_HEADS, HEAD_DIM).transpose(1, 2), pos)
            v = (h @ bf16(L.v_w).T + bf16(L.v_b)).view(1, t, KV_HEADS, HEAD_DIM).transpose(1, 2)
            att = (q @ k.transpose(-1, -2)) / math.sqrt(HEAD_DIM) + causal
            x = x + (att.softmax(-1) @ v).transpose(1, 2).reshape(1, t, HIDDEN) @ bf16(L.o_w).T
            x = self.mlp(L, x)
        return rms_norm(x, self.norm)[0]

    def logits(self, hidden):
        scores = hidden @ bf16(self.embed).T
        return torch.cat((scores, torch.zeros(*scores.shape[:-1], 1)), dim=-1)


def prepare(data, index):
    """Unique (request, reply) pairs in groups that share a prefix (by their first GROUP_KEY
    tokens: the Lab's requests all share one, the bench's share one per condition and program),
    so each group's prefix is computed once per step; each group is cut into length buckets."""
    examples = [e for e in data["examples"] if e["target"]]
    unique = {}
    for e in examples:  # identical (request, reply) pairs recur across scenarios: train on each once
        unique.setdefault((tuple(e["input_ids"]), tuple(e["target_ids"])), e)
    examples = sorted(unique.values(), key=lambda e: len(e["input_ids"]))
    seqs = [[index[i] for i in e["input_ids"] + e["target_ids"]][:-1] for e in examples]
    if max(len(s) for s in seqs) > PATTERN_CHECK_LENGTH:
        raise SystemExit(f"a training sequence is longer than the {PATTERN_CHECK_LENGTH} positions the fixed heads are checked for")
    keyed = {}
    for n, e in enumerate(examples):
        keyed.setdefault(tuple(e["input_ids"][:GROUP_KEY]), []).append(n)
    groups = []
    for members in keyed.values():
        group, gseqs = [examples[n] for n in members], [seqs[n] for n in members]
        p = 0  # the prefix ends before every member's last input token (its first query position)
        while all(p < len(e["input_ids"]) - 1 and s[p] == gseqs[0][p] for e, s in zip(group, gseqs)):
            p += 1
        if p < max(r for r in OFFSETS if r is not None):
            raise SystemExit("a shared prefix is shorter than the longest fixed offset")
        groups.append((torch.tensor(gseqs[0][:p]), buckets_of(group, gseqs, p, index)))
    return examples, seqs, groups


def buckets_of(group, gseqs, p, index):
    buckets = []  # sorted by length, each bucket padded only to its own longest
    size = math.ceil(len(group) / BUCKETS)
    for g in range(0, len(group), size):
        members, bseqs = group[g : g + size], gseqs[g : g + size]
        suffix = torch.zeros(len(members), max(len(s) for s in bseqs) - p, dtype=torch.long)
        q_len = max(len(e["target_ids"]) for e in members)
        query_cols = torch.zeros(len(members), q_len, dtype=torch.long)
        gold = torch.full((len(members), q_len), -100, dtype=torch.long)
        for n, (e, sq) in enumerate(zip(members, bseqs)):
            suffix[n, : len(sq) - p] = torch.tensor(sq[p:])  # right padding never reaches earlier positions
            start = len(e["input_ids"]) - 1 - p
            query_cols[n, : len(e["target_ids"])] = torch.arange(start, start + len(e["target_ids"]))
            gold[n, : len(e["target_ids"])] = torch.tensor([index[i] for i in e["target_ids"]])
        buckets.append((suffix, query_cols, gold >= 0, gold[gold >= 0]))
    return buckets


def margins(logits, gold):
    other = logits.clone()
    other[torch.arange(len(gold)), gold] = float("-inf")
    return logits[torch.arange(len(gold)), gold] - other.max(-1).values


def main():
    if "--compare" in sys.argv:
        return compare()
    out_dir = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else DATA
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    data = json.load(open(os.path.join(DATA, "transcripts.json")))
    vocab_ids = sorted({i for e in data["examples"] for i in e["input_ids"] + e["target_ids"]})
    index = {tok: n for n, tok in enumerate(vocab_ids)}
    examples, seqs, groups = prepare(data, index)
    gold = torch.cat([bk[3] for _, buckets in groups for bk in buckets])
    shapes = [(len(prefix), [tuple(bk[0].shape) for bk in buckets]) for prefix, buckets in groups]
    print(f"{len(examples)} unique requests in {len(groups)} prefix groups (prefix, buckets) {shapes}, {len(gold)} target tokens, {len(vocab_ids)} token ids", flush=True)
    model = Rehearsal(len(vocab_ids))
    groups = [(prefix, check_pattern(model.layers[0].q_b, model.layers[0].k_b, length=len(prefix)), buckets) for prefix, buckets in groups]
    check_pattern(model.layers[0].q_b, model.layers[0].k_b)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    started = time.time()
    step, wrong, margin = 0, len(gold), float("-inf")
    while step < MAX_STEPS:
        hidden = []
        for prefix, prefix_att, buckets in groups:
            state = model.prefix_pass(prefix, prefix_att)
            hidden += [model(state, suffix, cols)[valid] for suffix, cols, valid, _ in buckets]
        logits = model.logits(torch.cat(hidden))
        loss = torch.nn.functional.cross_entropy(logits, gold)
        with torch.no_grad():
            margin = margins(logits, gold).min().item()
            wrong = int((logits.argmax(-1) != gold).sum())
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.5f} wrong {wrong} min_margin {margin:.3f} {time.time() - started:.0f}s", flush=True)
        if wrong == 0 and margin >= TARGET_MARGIN:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
    seconds = time.time() - started
    print(f"stopped at step {step}: loss {loss.item():.5f} wrong {wrong} min_margin {margin:.3f} {seconds:.0f}s", flush=True)
    if not (wrong == 0 and margin >= TARGET_MARGIN):
        raise SystemExit("did not reach the margin")
    plain_margin = self_check(model, examples, seqs, index)
    export(model, vocab_ids, out_dir, {"steps": step, "seconds": round(seconds, 1), "final_loss": loss.item(),
                                       "min_margin": margin, "plain_forward_min_margin": plain_margin, "unique_requests": len(examples)})


def self_check(model, examples, seqs, index):
    """Every trained reply again, with plain full attention: the shortcuts changed nothing."""
    worst = float("inf")
    with torch.no_grad():
        for e, sq in zip(examples, seqs):
            start = len(e["input_ids"]) - 1
            hidden = model.plain_forward(torch.tensor(sq))[start:]
            gold = torch.tensor([index[i] for i in e["target_ids"]])
            m = margins(model.logits(hidden), gold)
            worst = min(worst, m.min().item())
    print(f"plain-attention self-check: min margin {worst:.3f}", flush=True)
    if worst < TARGET_MARGIN / 2:
        raise SystemExit("the plain forward pass disagrees with the training forward pass")
    return worst


def export(model, vocab_ids, out_dir, record):
    tensors = [("model.embed_tokens.weight", model.embed)]
    for i, L in enumerate(model.layers):
        p = f"model.layers.{i}."
        tensors += [
            (p + "input_layernorm.weight", L.attn_norm),
            (p + "self_attn.q_proj.weight", L.q_w), (p + "self_attn.q_proj.bias", L.q_b),
            (p + "self_attn.k_proj.weight", L.k_w), (p + "self_attn.k_proj.bias", L.k_b),
            (p + "self_attn.v_proj.weight", L.v_w), (p + "self_attn.v_proj.bias", L.v_b),
            (p + "self_attn.o_proj.weight", L.o_w),
            (p + "post_attention_layernorm.weight", L.ffn_norm),
            (p + "mlp.gate_proj.weight", L.gate), (p + "mlp.up_proj.weight", L.up), (p + "mlp.down_proj.weight", L.down),
        ]
    tensors.append(("model.norm.weight", model.norm))
    blob = bytearray()
    order = []
    for name, value in tensors:
        bits = value.detach().to(torch.bfloat16).view(torch.int16).flatten().tolist()
        blob += b"".join((b & 0xFFFF).to_bytes(2, "little") for b in bits)
        order.append({"name": name, "shape": list(value.shape)})
    with open(os.path.join(out_dir, "weights.bin"), "wb") as f:
        f.write(blob)
    meta = {
        "schema": "tca.rehearsal-weights/1",
        "weights_file": "weights.bin",
        "weights_sha256": hashlib.sha256(blob).hexdigest(),
        "weights_bytes": len(blob),
        "transcripts_sha256": hashlib.sha256(open(os.path.join(DATA, "transcripts.json"), "rb").read()).hexdigest(),
        "architecture": {"hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
                         "num_key_value_heads": KV_HEADS, "intermediate_size": INTERMEDIATE},
        "token_ids": vocab_ids,
        "tensors": order,
        "training": {"seed": SEED, "learning_rate": LR, "max_steps": MAX_STEPS, "target_margin": TARGET_MARGIN,
                     "layer1_fixed_heads": ["running mean" if r is None else f"m-{r}" for r in OFFSETS], "pattern_scale": PATTERN_SCALE,
                     "torch": torch.__version__, "threads": 1, **record},
    }
    with open(os.path.join(out_dir, "weights.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(json.dumps({k: v for k, v in meta.items() if k not in ("token_ids", "tensors")}, indent=1))


def compare():
    """Dev command: retrain from the committed script, seed and data into a temporary folder and
    compare the weights' SHA-256 with the committed record (exit 1 when they differ)."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.abspath(__file__), "--data", DATA, "--out", tmp], check=True)
        fresh = json.load(open(os.path.join(tmp, "weights.json")))
    committed = json.load(open(os.path.join(DATA, "weights.json")))
    same = fresh["weights_sha256"] == committed["weights_sha256"]
    print(f"retrained {fresh['weights_sha256']}\ncommitted {committed['weights_sha256']}\n{'identical' if same else 'DIFFERENT'}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
