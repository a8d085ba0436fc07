"""
reference.py -- an independent PyTorch (float32) implementation of the math
in SPEC.md, used to cross-check the numbers mixbench prints.

It is written from the SPEC text (not from the C sources) so that the two
implementations can disagree when one of them is wrong.  What it covers:

  section 1  model skeleton: tok_emb, pos = learned | sinusoidal | none,
             norm = pre | post | none, act = gelu | relu | none, tie, ffn_mult
  section 2  token mixers, one function each in MIXERS (arch -> (params, fn)):
             attention, mixer (masked mixer), dispatcher, pairconnect, fft,
             cumsum and conv, each in the modes of MIXER_MODES; and the
             mixers of docs/mixers.md and docs/mixers-ssm.md (linattn, swa,
             gla, ema, mamba, hyena) written from those pages
  section 3  tasks clm, mlm, bidir, autoencode, complete (TASKS; the model's
             stacks and their name prefixes per task_stacks, the pairs the
             SPEC refuses per task_refusal); mlm_loss = masked | all, and an
             mlm evaluation's loss_all (every position a target)
  section 4  windows of an ids token stream, order = sequential
  section 5  AdamW exactly as torch.optim.AdamW (decay group = 2-D+ weights
             except tok_emb, pos_emb and pair tables), warmup + constant |
             linear | cosine | wsd schedule, global-norm clipping
  section 7  safetensors read/write with struct + json + numpy; stack
             prefixes fwd./rev. (bidir) and enc./dec. (autoencode)

Where the SPEC leaves a choice open, this file follows mixbench's documented
choice and says so at the place (search for "SPEC is silent"):
  - mlm training masks: the SPEC only says "from the run's seeded
    generator".  The generator and its draw order are mixbench's
    (engine/rng.c: xoshiro256** seeded through splitmix64 with
    seed XOR 0x747261696e000000, engine/trainer.c; per sequence in batch
    order one uniform for "masked?", then one uniform per position, then,
    if none was chosen, one rng_below(n) index: engine/tasks/mlm.c).
    Replicated bit for bit in Rng below.  With order = sequential the
    trainer draws nothing else from it.
  - fft_mode: the SPEC names only "fnet"; the default mode's name is
    mixbench's "nd" (engine/config.c).
  - wsd when S - C < W: the SPEC says only that the cool-down never starts
    before the warm-up has ended.  mixbench's reading (docs/spec-choices.md, "Choices
    where the SPEC is silent"): the cool-down is then the S - W steps after
    the warm-up, lr*(S-1-s)/(S-W), still 0 at the last step.

Init (section 5) is not reproduced draw for draw: weights always come from
a checkpoint, so both sides start from the same numbers.  What the SPEC
fixes about init is its distribution per tensor (init_std: emb_std for
tok_emb, by default 1.0 for mixer and ema, 2*sqrt(n_ctx) for cumsum and
0.02 otherwise; linear weights 0.02, or 1/sqrt(fan_in) under init = fan_in),
which crosscheck.py's init cases compare with mixbench's fresh weights.

Dropout must be 0 (the reference has no random stream to share with
mixbench); level_dropout likewise.
"""

import json
import math
import struct

import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float32)

PAD, MASK = 0, 1

# --------------------------------------------------------------------------
# Configuration (section 1 keys, section 5 training keys) with SPEC defaults
# --------------------------------------------------------------------------

MODEL_DEFAULTS = {
    "arch": "attention", "task": "clm", "vocab": 256, "d": 64, "layers": 2,
    "heads": 2, "n_ctx": 64, "ffn_mult": 4, "act": "gelu", "norm": "pre",
    "pos": None,  # per-arch (and task) default, see default_pos
    "tie": False, "dropout": 0.0, "hash_size": 1000, "hash_seed": 0,
    "pair_reduce": "mean", "d_pair": None, "fft_mode": "nd",
    "level_dropout": 0.0,
    "feature_map": "taylor", "feature_dim": 16,   # linattn (docs/mixers.md)
    "emb_std": None,  # per-arch default, see default_emb_std (section 5)
    "init": "gpt2",   # gpt2 | fan_in: linear weights' init (section 5)
    "state": 16, "expand": 2,  # mamba (docs/mixers-ssm.md)
    "ema_span": 256,  # ema (docs/mixers.md)
    "gate": "data", "gate_rank": 16,  # gla (docs/mixers.md)
    "window": 32,  # swa (docs/mixers.md)
}
TRAIN_DEFAULTS = {
    "lr": 1e-3, "warmup": 0, "decay": "cosine", "cooldown": 0.2, "weight_decay": 0.01,
    "clip": 1.0, "batch": 8, "steps": 1, "order": "sequential",
    "table_optim": "adamw", "seed": 1, "mlm_loss": "masked",
}
TASKS = ("clm", "mlm", "bidir", "autoencode", "complete")  # section 3
DEFAULT_POS = {"attention": "learned", "dispatcher": "sinusoidal",
               "pairconnect": "learned", "mixer": "none", "fft": "none",
               "cumsum": "none", "conv": "none", "linattn": "learned", "mamba": "none",
               "hyena": "none", "gla": "learned", "swa": "learned",
               "ema": "none"}

INT_KEYS = {"vocab", "d", "layers", "heads", "n_ctx", "ffn_mult", "hash_size", "feature_dim",
            "hash_seed", "d_pair", "warmup", "batch", "steps", "seed", "state", "expand",
            "gate_rank", "window",
            "ema_span"}
FLOAT_KEYS = {"dropout", "level_dropout", "lr", "weight_decay", "clip", "emb_std",
              "cooldown"}
BOOL_KEYS = {"tie"}


def default_pos(arch, task):
    """Section 1: the arch's default, except the dispatcher's autoencoder,
    which learns only with learned positions."""
    if arch == "dispatcher" and task == "autoencode":
        return "learned"
    return DEFAULT_POS[arch]


def default_emb_std(arch, n_ctx):
    """Section 5: PyTorch's nn.Embedding N(0, 1) for the masked mixer (its
    own code) and ema (docs/mixers.md), 2*sqrt(n_ctx) for cumsum (its
    prefix sums grow like sqrt(t+1)), N(0, 0.02) for every other
    architecture."""
    if arch == "mixer":
        return 1.0
    if arch == "cumsum":
        return 2.0 * math.sqrt(n_ctx)
    if arch == "ema":
        return 1.0  # as the masked mixer's (docs/mixers.md, "ema")
    return 0.02


# Section 5's linear layers, by the name under blocks.{i}.: attention's wq
# wk wv wo, the dispatcher's win and wout, PairConnect's mlpx and mlpp, the
# FFN's w1 w2 (and the head, lm_head.w).
LINEAR_IN_BLOCK = {
    "attention": ("mix.wq", "mix.wk", "mix.wv", "mix.wo"),
    "dispatcher": ("mix.win", "mix.wout"),
    "pairconnect": ("mix.mlpx.w1", "mix.mlpx.w2", "mix.mlpp.w1", "mix.mlpp.w2"),
    "linattn": ("mix.wqkv", "mix.wo"),
    "mamba": ("mix.in_proj.w", "mix.x_proj.w", "mix.dt_proj.w", "mix.out_proj.w"),
    "hyena": ("mix.in_proj.w", "mix.out_proj.w"),
    "gla": ("mix.wqkvg", "mix.wo", "mix.gate.w1", "mix.gate.w2"),
    "swa": ("mix.wq", "mix.wk", "mix.wv", "mix.wo"),
}


def is_linear_weight(c, name):
    """1 for a linear layer's weight [out, in] (section 5's list)."""
    if name == "lm_head.w":
        return True
    if "blocks." not in name:
        return False
    tail = name.split("blocks.", 1)[1].split(".", 1)[1]  # "ffn.w1", "mix.wq"
    return tail in ("ffn.w1", "ffn.w2") or tail in LINEAR_IN_BLOCK.get(c["arch"], ())


def init_std(c, name, shape=None):
    """The standard deviation section 5 gives the initial values of a
    parameter (None: not a random init): tok_emb N(0, emb_std); linear
    weights N(0, 0.02), or N(0, 1/sqrt(fan_in)) with init = fan_in (fan_in:
    the last dimension of the [out, in] weight); positional embeddings,
    the dispatcher's wc and pair tables N(0, 0.02); mixer matrices
    U(-1/sqrt n, 1/sqrt n), whose std is 1/sqrt(3n); biases, LN shifts and
    conv kernels 0, LN gains 1."""
    last = name.split(".")[-1]
    if name == "tok_emb":
        return c["emb_std"]
    if c["init"] == "fan_in" and is_linear_weight(c, name):
        fan_in = (shape if shape is not None else param_shapes(c)[name])[-1]
        return 1.0 / math.sqrt(fan_in)
    if ".ln" in name or name.startswith("ln_f") or ".ln_f" in name:
        return None
    if last.startswith("b") or c["arch"] == "conv" and ".mix.w" in name:
        return None
    if c["arch"] == "linattn" and ".mix.conv" in name:
        return None   # docs/mixers.md: lag 0 ones, lags 1 and 2 zeros
    if c["arch"] == "gla" and ".mix.norm." in name:
        return None   # docs/mixers.md: GroupNorm's gain 1 and shift 0
    if c["arch"] == "mixer" and ".mix.w" in name:
        return 1.0 / math.sqrt(3.0 * c["n_ctx"])
    if c["arch"] == "mamba" and last in ("A_log", "D"):
        return None  # S4D-real log(1..N) and ones (docs/mixers-ssm.md)
    if c["arch"] == "mamba" and name.endswith(".mix.conv.w"):
        return 1.0 / math.sqrt(3.0 * MAMBA_K)  # U(-1/sqrt K, 1/sqrt K)
    if c["arch"] == "hyena" and last in ("freq", "D"):
        return None  # ones (docs/mixers-ssm.md)
    if c["arch"] == "ema" and last == "decay":
        return None  # zeros (docs/mixers.md)
    if c["arch"] == "hyena" and (".mix.filter.w" in name or name.endswith(".mix.short.w")):
        fan = HYENA_SHORT if name.endswith("short.w") else (HYENA_Z if name.endswith("w1") else HYENA_F)
        return 1.0 / math.sqrt(3.0 * fan)  # U(-1/sqrt fan, 1/sqrt fan)
    return 0.02


def make_config(**kw):
    c = dict(MODEL_DEFAULTS)
    c.update(TRAIN_DEFAULTS)
    for k, v in kw.items():
        if isinstance(v, str):
            if k in INT_KEYS:
                v = int(v)
            elif k in FLOAT_KEYS:
                v = float(v)
            elif k in BOOL_KEYS:
                v = v.lower() in ("1", "true", "yes")
        c[k] = v
    if c["arch"] not in DEFAULT_POS:
        raise ValueError("reference: unknown arch %r" % c["arch"])
    if c["task"] not in TASKS:
        raise ValueError("reference: unknown task %r" % c["task"])
    if c["pos"] is None:
        c["pos"] = default_pos(c["arch"], c["task"])
    if c["d_pair"] is None:
        c["d_pair"] = c["d"]
    if c["emb_std"] is None or c["emb_std"] == 0:
        c["emb_std"] = default_emb_std(c["arch"], c["n_ctx"])
    if not 0 < c["cooldown"] <= 1:
        raise ValueError("reference: cooldown %r is not in (0, 1]" % c["cooldown"])
    if c["init"] not in ("gpt2", "fan_in"):
        raise ValueError("reference: init %r is not gpt2 or fan_in" % c["init"])
    if c["mlm_loss"] not in ("masked", "all"):
        raise ValueError("reference: mlm_loss %r is not masked or all" % c["mlm_loss"])
    assert c["d"] % c["heads"] == 0
    if c["table_optim"] != "adamw":
        raise ValueError("reference: table_optim=lazy (SparseAdam) is not implemented")
    if c["dropout"] != 0 or c["level_dropout"] != 0:
        raise ValueError("reference: dropout must be 0 (no shared random stream)")
    return c


# --------------------------------------------------------------------------
# safetensors (section 7)
# --------------------------------------------------------------------------

def load_safetensors(path):
    """Returns (tensors: name -> np.float32 array, metadata: dict)."""
    with open(path, "rb") as f:
        raw = f.read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + hlen].decode("utf-8"))
    base = 8 + hlen
    meta = header.pop("__metadata__", {}) or {}
    out = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError("%s: dtype %s, expected F32" % (name, info["dtype"]))
        b, e = info["data_offsets"]
        shape = tuple(info["shape"])
        arr = np.frombuffer(raw[base + b:base + e], dtype="<f4").copy()
        if arr.size != int(np.prod(shape, dtype=np.int64)):
            raise ValueError("%s: %d floats for shape %s" % (name, arr.size, shape))
        out[name] = arr.reshape(shape)
    return out, meta


def save_safetensors(path, tensors, metadata=None):
    header = {}
    if metadata is not None:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs, off = [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(np.asarray(tensors[name], dtype="<f4"))
        data = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def metadata_for(cfg):
    """Section 7 metadata: every section 1 model key as a string."""
    m = {"format": "mixbench"}
    for k in MODEL_DEFAULTS:
        v = cfg[k]
        if isinstance(v, bool):
            v = "true" if v else "false"
        m[k] = str(v)
    return m


DOMAINS = {
    "arch": set(DEFAULT_POS), "task": set(TASKS),
    "act": {"gelu", "relu", "none"}, "norm": {"pre", "post", "none"},
    "pos": {"learned", "sinusoidal", "none"}, "tie": {"true", "false"},
    "pair_reduce": {"mean", "sum"}, "fft_mode": {"nd", "fnet"},
    "init": {"gpt2", "fan_in"},
    "feature_map": {"elu1", "taylor"},
    "gate": {"fixed", "data"},
}


def config_from_metadata(meta):
    """Model config from a checkpoint's __metadata__ (section 7): missing keys
    take their defaults, unknown keys are ignored.  Returns (cfg, problems):
    problems lists values outside the SPEC's domains (they are resolved as
    leniently as possible so that the weights still load)."""
    problems = []
    kw = {}
    for k in MODEL_DEFAULTS:
        if k not in meta:
            continue
        v = meta[k]
        if k in DOMAINS and v not in DOMAINS[k]:
            problems.append("%s=%r is not one of %s" % (k, v, "|".join(sorted(DOMAINS[k]))))
            if k == "pos" and v == "default":
                continue  # per-arch default
        try:
            if k in INT_KEYS:
                iv = int(v)
                if iv <= 0 and k != "hash_seed" and \
                        (k != "d_pair" or meta.get("arch") == "pairconnect"):
                    problems.append("%s=%r is not a positive integer" % (k, v))
                    continue
            elif k in FLOAT_KEYS:
                float(v)
        except ValueError:
            problems.append("%s=%r is not a number" % (k, v))
            continue
        if not (k == "d_pair" and int(v) <= 0):
            kw[k] = v
    if meta.get("format") != "mixbench":
        problems.append("format=%r, expected 'mixbench'" % meta.get("format"))
    kw.pop("dropout", None)  # inference-only use here
    kw.pop("level_dropout", None)
    return make_config(**kw), problems


def load_checkpoint(path, dtype=torch.float32):
    """(cfg, P, problems) for a mixbench checkpoint of any task."""
    arrays, meta = load_safetensors(path)
    cfg, problems = config_from_metadata(meta)
    return cfg, params_from_arrays(cfg, arrays, dtype), problems


# --------------------------------------------------------------------------
# murmur3_32 (MurmurHash3_x86_32), for pairconnect and the mlm eval masks
# --------------------------------------------------------------------------

def murmur3_32(data, seed):
    c1, c2 = 0xcc9e2d51, 0x1b873593
    h = seed & 0xffffffff
    nblocks = len(data) // 4
    for i in range(nblocks):
        (k,) = struct.unpack_from("<I", data, 4 * i)
        k = (k * c1) & 0xffffffff
        k = ((k << 15) | (k >> 17)) & 0xffffffff
        k = (k * c2) & 0xffffffff
        h ^= k
        h = ((h << 13) | (h >> 19)) & 0xffffffff
        h = (h * 5 + 0xe6546b64) & 0xffffffff
    tail = data[4 * nblocks:]
    k = 0
    if len(tail) >= 3:
        k ^= tail[2] << 16
    if len(tail) >= 2:
        k ^= tail[1] << 8
    if len(tail) >= 1:
        k ^= tail[0]
        k = (k * c1) & 0xffffffff
        k = ((k << 15) | (k >> 17)) & 0xffffffff
        k = (k * c2) & 0xffffffff
        h ^= k
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85ebca6b) & 0xffffffff
    h ^= h >> 13
    h = (h * 0xc2b2ae35) & 0xffffffff
    h ^= h >> 16
    return h


# --------------------------------------------------------------------------
# Token mixers (section 2).  Each entry: (params(cfg) -> {name: shape},
# fn(P, prefix, x, ctx) -> y).  P maps full parameter names to tensors,
# prefix is "blocks.{i}.mix.", ctx holds cfg, causal, block, tokens.
# --------------------------------------------------------------------------

def _split_heads(x, h):
    B, n, d = x.shape
    return x.view(B, n, h, d // h).transpose(1, 2)  # [B, h, n, dh]


def _merge_heads(x):
    B, h, n, dh = x.shape
    return x.transpose(1, 2).reshape(B, n, h * dh)


def attention_params(c):
    d = c["d"]
    p = {k: (d, d) for k in ("wq", "wk", "wv", "wo")}
    p.update({k: (d,) for k in ("bq", "bk", "bv", "bo")})
    return p


def attention_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    h = c["heads"]
    B, n, d = x.shape
    dh = d // h
    q = _split_heads(F.linear(x, P[pre + "wq"], P[pre + "bq"]), h)
    k = _split_heads(F.linear(x, P[pre + "wk"], P[pre + "bk"]), h)
    v = _split_heads(F.linear(x, P[pre + "wv"], P[pre + "bv"]), h)
    s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh)
    if ctx["causal"]:
        m = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        s = s.masked_fill(m, float("-inf"))
    a = torch.softmax(s, dim=-1)
    o = _merge_heads(torch.matmul(a, v))
    return F.linear(o, P[pre + "wo"], P[pre + "bo"])


def swa_mix(P, pre, x, ctx):
    """docs/mixers.md, swa: attention's parameters, projections and heads
    (attention_params), the softmax over the keys in the window only: query
    i sees j with i - window < j <= i (causal; itself included) or
    |i - j| < window (bidirectional).  The naive masked [n, n] form."""
    c = ctx["cfg"]
    h, w = c["heads"], c["window"]
    B, n, d = x.shape
    dh = d // h
    q = _split_heads(F.linear(x, P[pre + "wq"], P[pre + "bq"]), h)
    k = _split_heads(F.linear(x, P[pre + "wk"], P[pre + "bk"]), h)
    v = _split_heads(F.linear(x, P[pre + "wv"], P[pre + "bv"]), h)
    i = torch.arange(n).unsqueeze(1)
    j = torch.arange(n).unsqueeze(0)
    seen = ((j <= i) & (j > i - w)) if ctx["causal"] else (i - j).abs() < w
    s = (torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh)).masked_fill(~seen, float("-inf"))
    o = _merge_heads(torch.matmul(torch.softmax(s, dim=-1), v))
    return F.linear(o, P[pre + "wo"], P[pre + "bo"])


def mixer_params(c):
    n = c["n_ctx"]
    p = {}
    for k in range(c["heads"]):
        p["w%d" % k] = (n, n)
        p["b%d" % k] = (n,)
    return p


def mixer_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    h = c["heads"]
    B, n, d = x.shape
    dh = d // h
    mask = torch.tril(torch.ones(n, n, dtype=x.dtype)) if ctx["causal"] else None
    outs = []
    for k in range(h):
        W = P[pre + "w%d" % k]
        if mask is not None:
            W = W * mask  # masked in forward and (hence) in the gradient
        xs = x[:, :, k * dh:(k + 1) * dh]
        outs.append(torch.matmul(W, xs) + P[pre + "b%d" % k].view(n, 1))
    return torch.cat(outs, dim=-1)


def dispatcher_levels(n):
    return int(math.ceil(math.log2(n))) if n > 1 else 0


def dispatcher_params(c):
    dh = c["d"] // c["heads"]
    return {"win": (dh, dh), "wc": (dispatcher_levels(c["n_ctx"]), dh),
            "wout": (dh, dh)}


def dispatcher_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    assert ctx["causal"]
    h = c["heads"]
    B, n, d = x.shape
    xh = _split_heads(x, h)                           # [B, h, n, dh]
    V = F.linear(xh, P[pre + "win"])
    levels = dispatcher_levels(n)
    t = torch.arange(n).view(n, 1)
    sh = (2 ** torch.arange(levels)).view(1, levels)
    mask = (t >= sh).to(x.dtype)                      # [n, levels]
    C = torch.sigmoid(F.linear(xh, P[pre + "wc"])) * mask
    for l in range(levels):
        s = 2 ** l
        shifted = torch.cat([torch.zeros_like(V[:, :, :s]), V[:, :, :n - s]], dim=2)
        V = V + C[..., l:l + 1] * shifted
    return _merge_heads(F.linear(V, P[pre + "wout"]))


def pairconnect_params(c):
    d, h, K, dp = c["d"], c["heads"], c["hash_size"], c["d_pair"]
    p = {"table%d" % k: (K, d) for k in range(h)}
    p.update({"mlpx.w1": (dp, d), "mlpx.b1": (dp,), "mlpx.w2": (d, dp), "mlpx.b2": (d,),
              "mlpp.w1": (dp, h * d), "mlpp.b1": (dp,), "mlpp.w2": (d, dp),
              "mlpp.b2": (d,)})
    return p


def _pair_slots(tokens, seed, K):
    """slots[b, i, j] = murmur3(le32(t_i)||le32(t_j), seed) mod K."""
    B, n = tokens.shape
    out = np.zeros((B, n, n), dtype=np.int64)
    cache = {}
    for b in range(B):
        for i in range(n):
            for j in range(n):
                key = (int(tokens[b, i]), int(tokens[b, j]))
                v = cache.get(key)
                if v is None:
                    v = murmur3_32(struct.pack("<II", key[0] & 0xffffffff,
                                               key[1] & 0xffffffff), seed) % K
                    cache[key] = v
                out[b, i, j] = v
    return out


def pairconnect_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    h, K = c["heads"], c["hash_size"]
    B, n, d = x.shape
    toks = np.asarray(ctx["tokens"])
    if ctx["causal"]:
        nb = np.tril(np.ones((n, n)), k=-1)
    else:
        nb = np.ones((n, n)) - np.eye(n)
    cnt = nb.sum(axis=1)
    if c["pair_reduce"] == "mean":
        wts = nb / np.where(cnt > 0, cnt, 1)[:, None]
    else:
        wts = nb
    wts = torch.tensor(wts, dtype=x.dtype)            # [n(i), n(j)]
    parts = []
    for k in range(h):
        seed = (c["hash_seed"] + 1000 * ctx["block"] + k) & 0xffffffff
        slots = torch.tensor(_pair_slots(toks, seed, K))
        T = P[pre + "table%d" % k]
        rows = T[slots.view(-1)].view(B, n, n, d)      # [B, i, j, d]
        parts.append(torch.einsum("ij,bijd->bid", wts, rows))
    p = torch.cat(parts, dim=-1)

    def mlp(z, name):
        z = F.gelu(F.linear(z, P[pre + name + ".w1"], P[pre + name + ".b1"]))
        return F.linear(z, P[pre + name + ".w2"], P[pre + name + ".b2"])
    return mlp(x, "mlpx") + mlp(p, "mlpp")


def fft_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    assert not ctx["causal"]
    B, n, d = x.shape
    if c["fft_mode"] == "fnet":
        cplx = torch.complex128 if x.dtype == torch.float64 else torch.complex64
        return torch.fft.fft2(x.to(cplx), dim=(1, 2)).real
    z = torch.view_as_complex(x.reshape(B, n * d // 2, 2).contiguous())
    y = torch.fft.fft(z, norm="ortho")
    return torch.view_as_real(y).reshape(B, n, d)


def cumsum_mix(P, pre, x, ctx):
    assert ctx["causal"]
    n = x.shape[1]
    scale = (torch.arange(n, dtype=x.dtype) + 1).pow(-0.5).view(1, n, 1)
    return torch.cumsum(x, dim=1) * scale


def conv_params(c):
    return {"w%d" % k: (c["n_ctx"],) for k in range(c["heads"])}


def conv_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    assert ctx["causal"]
    h = c["heads"]
    B, n, d = x.shape
    dh = d // h
    t = torch.arange(n).view(n, 1)
    s = torch.arange(n).view(1, n)
    lag = (t - s).clamp(min=0)
    low = (t >= s).to(x.dtype)
    scale = (torch.arange(n, dtype=x.dtype) + 1).pow(-0.5).view(n, 1)
    outs = []
    for k in range(h):
        w = P[pre + "w%d" % k]
        T = w[lag] * low * scale                      # [n, n] Toeplitz
        outs.append(torch.matmul(T, x[:, :, k * dh:(k + 1) * dh]))
    return torch.cat(outs, dim=-1)


def linattn_params(c):
    """docs/mixers.md, linattn: wqkv [2 h dq + d, d] (q rows, k rows, v
    rows), wo [d, d]; taylor adds the short convolution's taps conv0..conv2
    [d]."""
    d, h = c["d"], c["heads"]
    taylor = c["feature_map"] == "taylor"
    dq = c["feature_dim"] if taylor else d // h
    p = {"wqkv": (2 * h * dq + d, d), "wo": (d, d)}
    if taylor:
        p.update({"conv%d" % j: (d,) for j in range(3)})
    return p


def linattn_phi(c, u):
    """The feature map of docs/mixers.md on the last axis of u."""
    if c["feature_map"] == "elu1":
        return F.elu(u) + 1
    dq = u.shape[-1]
    u2 = (u.unsqueeze(-1) * u.unsqueeze(-2)).flatten(start_dim=-2)
    one = torch.ones(u.shape[:-1] + (1,), dtype=u.dtype)
    return torch.cat([one, u / dq ** 0.25, u2 / (math.sqrt(2) * math.sqrt(dq))], dim=-1)


def linattn_mix(P, pre, x, ctx):
    """The masked quadratic form: o_t = sum_{s in W(t)} (a_t.b_s) v_s /
    (sum_{s in W(t)} a_t.b_s + 1e-6), heads concatenated, then wo."""
    c = ctx["cfg"]
    h = c["heads"]
    B, n, d = x.shape
    if c["feature_map"] == "taylor":
        xc = P[pre + "conv0"] * x
        for j in (1, 2):
            shifted = torch.cat([torch.zeros_like(x[:, :j]), x[:, :n - j]], dim=1)
            xc = xc + P[pre + "conv%d" % j] * shifted
    else:
        xc = x
    hq = (P[pre + "wqkv"].shape[0] - d) // 2
    q, k, v = torch.split(F.linear(xc, P[pre + "wqkv"]), [hq, hq, d], dim=-1)
    a = linattn_phi(c, _split_heads(q, h))                               # [B, h, n, F]
    b = linattn_phi(c, _split_heads(k, h))
    v = _split_heads(v, h)                                               # [B, h, n, dh]
    scores = torch.matmul(a, b.transpose(-1, -2))                         # [B, h, n, n]
    if ctx["causal"]:
        scores = scores * torch.tril(torch.ones(n, n, dtype=x.dtype))
    o = torch.matmul(scores, v) / (scores.sum(-1, keepdim=True) + 1e-6)
    return F.linear(_merge_heads(o), P[pre + "wo"])

# mamba (docs/mixers-ssm.md, "mamba"): S6 with its short convolution and
# gate, written from that page as a plain recurrence over positions.
MAMBA_K = 4


def _mamba_dims(c):
    E = c["expand"] * c["d"]
    return E, c["state"], (c["d"] + 15) // 16


def mamba_params(c):
    d = c["d"]
    E, N, R = _mamba_dims(c)
    return {"in_proj.w": (2 * E, d), "conv.w": (E, MAMBA_K), "conv.b": (E,),
            "x_proj.w": (R + 2 * N, E), "dt_proj.w": (E, R), "dt_proj.b": (E,),
            "A_log": (E, N), "D": (E,), "out_proj.w": (d, E)}


def mamba_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    assert ctx["causal"]
    B, n, d = x.shape
    E, N, R = _mamba_dims(c)
    xz = F.linear(x, P[pre + "in_proj.w"])
    xi, z = xz[..., :E], xz[..., E:]
    # causal depthwise convolution: weight k meets position t - K + 1 + k
    padded = torch.cat([torch.zeros(B, MAMBA_K - 1, E, dtype=x.dtype), xi], dim=1)
    w = P[pre + "conv.w"]
    conv = P[pre + "conv.b"].view(1, 1, E).expand(B, n, E)
    for k in range(MAMBA_K):
        conv = conv + padded[:, k:k + n, :] * w[:, k].view(1, 1, E)
    u = F.silu(conv)
    dbl = F.linear(u, P[pre + "x_proj.w"])
    q, Bm, Cm = dbl[..., :R], dbl[..., R:R + N], dbl[..., R + N:]
    delta = F.softplus(F.linear(q, P[pre + "dt_proj.w"], P[pre + "dt_proj.b"]))
    A = -torch.exp(P[pre + "A_log"])                              # [E, N]
    h = torch.zeros(B, E, N, dtype=x.dtype)
    ys = []
    for t in range(n):
        dt = delta[:, t, :].unsqueeze(-1)                         # [B, E, 1]
        h = torch.exp(dt * A) * h + dt * Bm[:, t, :].unsqueeze(1) * u[:, t, :].unsqueeze(-1)
        ys.append((h * Cm[:, t, :].unsqueeze(1)).sum(-1) + P[pre + "D"] * u[:, t, :])
    yss = torch.stack(ys, dim=1)
    return F.linear(yss * F.silu(z), P[pre + "out_proj.w"])


# hyena (docs/mixers-ssm.md, "hyena"): order 2, the long convolution as a
# direct causal sum (not an FFT), the implicit filter from that page.
HYENA_SHORT, HYENA_F, HYENA_Z = 3, 64, 33


def hyena_params(c):
    d, F = c["d"], HYENA_F
    return {"in_proj.w": (3 * d, d), "in_proj.b": (3 * d,), "short.w": (3 * d, HYENA_SHORT),
            "short.b": (3 * d,), "filter.w1": (F, HYENA_Z), "filter.b1": (F,),
            "filter.w2": (F, F), "filter.b2": (F,), "filter.w3": (F, F), "filter.b3": (F,),
            "filter.w4": (d, F), "filter.freq": (F,), "filter.D": (d,),
            "out_proj.w": (d, d), "out_proj.b": (d,)}


def hyena_tables(n, d, dtype):
    """z [n, 33]: t/(n-1), cos(f_b w_t), -sin(f_b w_t) with w_t = 2 pi t/n and
    16 bands f_b evenly from 1e-4 to 15; decay [n, d] = exp(-t/(n-1) |delta_c|),
    delta_c evenly from ln(0.01)/1.5 to ln(0.01)/0.3."""
    bands = (HYENA_Z - 1) // 2
    t = np.arange(n, dtype=np.float64)
    tl = t / (n - 1) if n > 1 else np.zeros(n)
    f = np.linspace(1e-4, bands - 1, bands)
    ang = f[None, :] * (2 * math.pi * t / n)[:, None]
    z = np.concatenate([tl[:, None], np.cos(ang), -np.sin(ang)], axis=1)
    deltas = np.linspace(math.log(1e-2) / 1.5, math.log(1e-2) / 0.3, d)
    decay = np.exp(-tl[:, None] * np.abs(deltas)[None, :])
    return torch.tensor(z, dtype=dtype), torch.tensor(decay, dtype=dtype)


def hyena_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    assert ctx["causal"]
    B, n, d = x.shape
    u = F.linear(x, P[pre + "in_proj.w"], P[pre + "in_proj.b"])     # [B, n, 3d]
    padded = torch.cat([torch.zeros(B, HYENA_SHORT - 1, 3 * d, dtype=x.dtype), u], dim=1)
    w = P[pre + "short.w"]
    uc = P[pre + "short.b"].view(1, 1, 3 * d).expand(B, n, 3 * d)
    for k in range(HYENA_SHORT):
        uc = uc + padded[:, k:k + n, :] * w[:, k].view(1, 1, 3 * d)
    x0, x1, v = uc[..., :d], uc[..., d:2 * d], uc[..., 2 * d:]
    z, decay = hyena_tables(c["n_ctx"], d, x.dtype)
    h = z
    for l in (1, 2, 3):
        h = torch.sin(P[pre + "filter.freq"] * F.linear(h, P[pre + "filter.w%d" % l],
                                                          P[pre + "filter.b%d" % l]))
    k = F.linear(h, P[pre + "filter.w4"]) * decay                     # [n_ctx, d]
    p = v * x1
    t = torch.arange(n).view(n, 1)
    s = torch.arange(n).view(1, n)
    low = (t >= s).to(x.dtype).unsqueeze(-1)                          # [n, n, 1]
    T = k[(t - s).clamp(min=0)] * low                                 # [t, s, d]
    q = torch.einsum("tsd,bsd->btd", T, p) + P[pre + "filter.D"] * p
    return F.linear(q * x0, P[pre + "out_proj.w"], P[pre + "out_proj.b"])


# ema (docs/mixers.md, "ema"): y_t = sum_{s<=t} (1 - lam) lam^(t-s) x_s per
# channel, the whole [n, n] weighting written out (not the recurrence).
def ema_params(c):
    return {"decay": (c["d"],)}


def ema_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    assert ctx["causal"]
    B, n, d = x.shape
    f = torch.arange(d, dtype=torch.float64)
    tau = 2.0 * (c["ema_span"] / 2.0) ** (f / max(d - 1, 1))
    lam = torch.sigmoid(P[pre + "decay"] + torch.log(tau - 1.0).to(x.dtype))    # [d]
    t = torch.arange(n).view(n, 1)
    s = torch.arange(n).view(1, n)
    lag = (t - s).clamp(min=0).unsqueeze(-1).to(x.dtype)                     # [n, n, 1]
    low = (t >= s).to(x.dtype).unsqueeze(-1)
    T = (1.0 - lam) * lam ** lag * low                                          # [t, s, d]
    return torch.einsum("tsd,bsd->btd", T, x)
# gla (docs/mixers.md, "gla"): gated linear attention written from that
# page as the plain recurrence S_t = diag(alpha_t) S_{t-1} + k_t^T v_t,
# o_t = q_t S_t per head (no chunks), then GroupNorm per head and the swish
# output gate.
def _gla_dims(c):
    d, h = c["d"], c["heads"]
    dk = (d // h + 1) // 2
    return h, d // h, dk, h * dk


def gla_params(c):
    d = c["d"]
    h, dh, dk, K = _gla_dims(c)
    p = {"wqkvg": (2 * K + 2 * d, d), "wo": (d, d), "norm.w": (d,), "norm.b": (d,)}
    if c["gate"] == "data":
        r = c["gate_rank"]
        p.update({"gate.w1": (r, d), "gate.w2": (K, r), "gate.b": (K,)})
    return p


def gla_mix(P, pre, x, ctx):
    c = ctx["cfg"]
    assert ctx["causal"]
    B, n, d = x.shape
    h, dh, dk, K = _gla_dims(c)
    q, k, v, g = torch.split(F.linear(x, P[pre + "wqkvg"]), [K, K, d, d], dim=-1)
    q = q / math.sqrt(dk)
    q, k = q.view(B, n, h, dk), k.view(B, n, h, dk)
    v = v.view(B, n, h, dh)
    if c["gate"] == "data":
        z = F.linear(F.linear(x, P[pre + "gate.w1"]), P[pre + "gate.w2"], P[pre + "gate.b"])
        alpha = torch.exp(F.logsigmoid(z) / 16).view(B, n, h, dk)
    else:
        gamma = torch.tensor([1 - 2.0 ** (-5 - i) for i in range(h)], dtype=x.dtype)
        alpha = gamma.view(1, 1, h, 1).expand(B, n, h, dk)
    S = torch.zeros(B, h, dk, dh, dtype=x.dtype)
    outs = []
    for t in range(n):
        S = alpha[:, t].unsqueeze(-1) * S + k[:, t].unsqueeze(-1) * v[:, t].unsqueeze(-2)
        outs.append(torch.einsum("bhf,bhfe->bhe", q[:, t], S))
    o = torch.stack(outs, dim=1)                                       # [B, n, h, dh]
    on = F.group_norm(o.reshape(B * n, d), h, P[pre + "norm.w"], P[pre + "norm.b"], eps=1e-5)
    return F.linear(F.silu(g) * on.view(B, n, d), P[pre + "wo"])


MIXERS = {
    "attention": (attention_params, attention_mix),
    "mixer": (mixer_params, mixer_mix),
    "dispatcher": (dispatcher_params, dispatcher_mix),
    "pairconnect": (pairconnect_params, pairconnect_mix),
    "fft": (lambda c: {}, fft_mix),
    "cumsum": (lambda c: {}, cumsum_mix),
    "conv": (conv_params, conv_mix),
    "linattn": (linattn_params, linattn_mix),
    "mamba": (mamba_params, mamba_mix),
    "hyena": (hyena_params, hyena_mix),
    "ema": (ema_params, ema_mix),
    "gla": (gla_params, gla_mix),
    "swa": (attention_params, swa_mix),
}

# (has a causal mode, has a bidirectional mode), section 2: dispatcher,
# cumsum and conv are causal only, fft bidirectional only.
MIXER_MODES = {
    "attention": (True, True), "mixer": (True, True), "pairconnect": (True, True),
    "dispatcher": (True, False), "cumsum": (True, False), "conv": (True, False),
    "fft": (False, True), "linattn": (True, True), "mamba": (True, False),
    "hyena": (True, False), "gla": (True, False), "swa": (True, True),
    "ema": (True, False),
}


# Which mixer parameters are "tables" (no weight decay, like embeddings).
def _is_table(name):
    last = name.split(".")[-1]
    return ".mix." in name and last.startswith("table")


# --------------------------------------------------------------------------
# Tasks: the model's stacks and the pairs the SPEC refuses (section 3)
# --------------------------------------------------------------------------

def task_stacks(c):
    """[(prefix, causal)] of the model's stacks, in order (sections 3, 7)."""
    t, arch = c["task"], c["arch"]
    if t in ("clm", "complete"):
        return [("", True)]
    if t == "mlm":
        return [("", False)]
    if t == "bidir":
        return [("fwd.", True), ("rev.", True)]
    if t == "autoencode":
        # "causal mode where the mixer has one, else bidirectional"
        causal = MIXER_MODES[arch][0]
        return [("enc.", causal), ("dec.", causal)]
    raise ValueError("task " + t)


def task_refusal(c):
    """Why section 3 refuses the arch/task pair, or None when it is allowed."""
    t, arch = c["task"], c["arch"]
    causal, bidir = MIXER_MODES[arch]
    if t in ("clm", "bidir", "complete") and not causal:
        return "%s needs a causal mixer" % t
    if t == "mlm" and not bidir:
        return "mlm needs a bidirectional mixer"
    if t in ("autoencode", "complete") and arch == "pairconnect":
        return "%s excludes pairconnect" % t
    return None


# --------------------------------------------------------------------------
# Model skeleton (section 1), per stack
# --------------------------------------------------------------------------

def param_shapes(c):
    """name -> shape of every parameter of the model for c's task: tok_emb,
    per stack (prefix from task_stacks) pos_emb, blocks and ln_f, then the
    shared head."""
    V, d, n, L = c["vocab"], c["d"], c["n_ctx"], c["layers"]
    dff = c["ffn_mult"] * d
    s = {"tok_emb": (V, d)}
    mix_params = MIXERS[c["arch"]][0](c)
    for pre, _causal in task_stacks(c):
        if c["pos"] == "learned":
            s[pre + "pos_emb"] = (n, d)
        for i in range(L):
            b = pre + "blocks.%d." % i
            if c["norm"] != "none":
                s[b + "ln1.w"] = (d,); s[b + "ln1.b"] = (d,)
                s[b + "ln2.w"] = (d,); s[b + "ln2.b"] = (d,)
            for k, shp in mix_params.items():
                s[b + "mix." + k] = tuple(shp)
            s[b + "ffn.w1"] = (dff, d); s[b + "ffn.b1"] = (dff,)
            s[b + "ffn.w2"] = (d, dff); s[b + "ffn.b2"] = (d,)
        if c["norm"] != "none":
            s[pre + "ln_f.w"] = (d,); s[pre + "ln_f.b"] = (d,)
    if not c["tie"]:
        s["lm_head.w"] = (V, d)
    s["lm_head.b"] = (V,)
    return s


def stack_of(c, name):
    """(prefix, causal) of the stack a parameter belongs to, or None."""
    for pre, causal in task_stacks(c):
        if pre and name.startswith(pre):
            return pre, causal
    for pre, causal in task_stacks(c):
        if not pre and (name.startswith("blocks.") or name in ("pos_emb", "ln_f.w", "ln_f.b")):
            return pre, causal
    return None


def masked_entries(c, name):
    """Boolean numpy mask of stored-but-ignored entries of a parameter
    (section 7: the masked mixer's upper triangle in a causal stack), or
    None."""
    if c["arch"] == "mixer" and ".mix.w" in name:
        st = stack_of(c, name)
        if st is not None and st[1]:
            n = c["n_ctx"]
            return np.triu(np.ones((n, n), dtype=bool), k=1)
    return None


def sinusoidal_table(n, d, dtype=torch.float32):
    pe = np.zeros((n, d), dtype=np.float64)
    t = np.arange(n, dtype=np.float64)[:, None]
    i2 = np.arange(0, d, 2, dtype=np.float64)[None, :]
    ang = t / np.power(10000.0, i2 / d)
    pe[:, 0::2] = np.sin(ang)
    pe[:, 1::2] = np.cos(ang)[:, :d // 2]
    return torch.tensor(pe, dtype=dtype)


def _act(c, z):
    a = c["act"]
    if a == "gelu":
        return F.gelu(z)  # exact erf form
    if a == "relu":
        return F.relu(z)
    if a == "none":
        return z
    raise ValueError("act " + a)


def _ln(P, name, x):
    return F.layer_norm(x, (x.shape[-1],), P[name + ".w"], P[name + ".b"], eps=1e-5)


def pos_table(P, c, prefix, n, dtype):
    """The stack's positional embedding [n, d] (learned: its own
    prefix + 'pos_emb'; sinusoidal: the fixed table), or None."""
    if c["pos"] == "learned":
        return P[prefix + "pos_emb"][:n]
    if c["pos"] == "sinusoidal":
        return sinusoidal_table(n, c["d"], dtype)
    return None


def embed(P, c, tokens, prefix=""):
    x = P["tok_emb"][tokens]
    pe = pos_table(P, c, prefix, tokens.shape[1], x.dtype)
    return x if pe is None else x + pe


def run_stack(P, c, x, prefix, causal, tokens, zero=None):
    """The blocks of one stack and its final LN.  tokens: the stack's input
    ids (numpy [B, n], read by pairconnect).  zero = (block, from): before
    that block the hidden states at positions >= from are set to zero."""
    mix = MIXERS[c["arch"]][1]
    for i in range(c["layers"]):
        b = prefix + "blocks.%d." % i
        if zero is not None and i == zero[0]:
            keep = torch.ones(x.shape[1], 1, dtype=x.dtype)
            keep[zero[1]:] = 0
            x = x * keep
        ctx = {"cfg": c, "causal": causal, "block": i, "tokens": tokens}

        def M(z):
            return mix(P, b + "mix.", z, ctx)

        def FF(z):
            z = _act(c, F.linear(z, P[b + "ffn.w1"], P[b + "ffn.b1"]))
            return F.linear(z, P[b + "ffn.w2"], P[b + "ffn.b2"])

        if c["norm"] == "pre":
            x = x + M(_ln(P, b + "ln1", x))
            x = x + FF(_ln(P, b + "ln2", x))
        elif c["norm"] == "post":
            x = _ln(P, b + "ln1", x + M(x))
            x = _ln(P, b + "ln2", x + FF(x))
        elif c["norm"] == "none":
            x = x + M(x)
            x = x + FF(x)
        else:
            raise ValueError("norm " + c["norm"])
    if c["norm"] != "none":
        x = _ln(P, prefix + "ln_f", x)
    return x


def head(P, c, rows):
    W = P["tok_emb"] if c["tie"] else P["lm_head.w"]
    return F.linear(rows, W, P["lm_head.b"])


def forward(P, c, tokens, causal):
    """Single stack (prefix ''): tokens LongTensor [B, n] -> logits [B, n, V]."""
    x = embed(P, c, tokens, "")
    return head(P, c, run_stack(P, c, x, "", causal, tokens.numpy()))


# --------------------------------------------------------------------------
# The run's generator (mlm training masks).  The SPEC is silent on which
# generator: this is mixbench's engine/rng.c, bit for bit.
# --------------------------------------------------------------------------

M64 = (1 << 64) - 1
TRAIN_RNG_XOR = 0x747261696e000000  # "train" << 24: engine/trainer.c


def _rotl64(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Rng:
    """xoshiro256** seeded through splitmix64."""

    def __init__(self, seed):
        x = seed & M64
        self.s = []
        for _ in range(4):
            x = (x + 0x9e3779b97f4a7c15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
            z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
            self.s.append(z ^ (z >> 31))

    def next(self):
        s = self.s
        result = (_rotl64((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl64(s[3], 45)
        return result

    def double(self):
        """Uniform in [0, 1) with 53 bits: (next >> 11) * 2^-53."""
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)

    def below(self, n):
        """Uniform in [0, n): rejection sampling as engine/rng.c codes it."""
        limit = M64 - M64 % n
        while True:
            x = self.next()
            if x < limit:
                return x % n


def train_rng(c):
    return Rng((c["seed"] & M64) ^ TRAIN_RNG_XOR)


# --------------------------------------------------------------------------
# Data and tasks (sections 3, 4)
# --------------------------------------------------------------------------

def read_ids(path, vocab):
    with open(path) as f:
        s = np.array([int(t) for t in f.read().split()], dtype=np.int64)
    if s.size and (s.min() < 0 or s.max() >= vocab):
        raise ValueError("%s: id outside the vocabulary %d" % (path, vocab))
    return s


def window_len(c):
    """n + 1 for the next-token tasks (clm, complete), else n."""
    return c["n_ctx"] + (1 if c["task"] in ("clm", "complete") else 0)


def num_windows(c, T):
    """floor((T-1)/n) for clm and complete, floor(T/n) otherwise (section 4)."""
    n, extra = c["n_ctx"], window_len(c) - c["n_ctx"]
    return max(0, (T - extra) // n) if T >= n + extra else 0


def windows_of(c, stream, widx):
    """[B, window_len]: window w starts at w*n."""
    n, wl = c["n_ctx"], window_len(c)
    return np.stack([stream[w * n:w * n + wl] for w in widx]).astype(np.int64)


MLM_SEED, MLM_SEED_FALLBACK = 0x6d6c6d, 0x6d6c6e


def mlm_eval_positions(w, n):
    """Chosen positions of evaluation window w (section 3's fixed rule)."""
    if murmur3_32(struct.pack("<I", w & 0xffffffff), MLM_SEED) % 10 == 0:
        return []
    ch = [p for p in range(n)
          if murmur3_32(struct.pack("<II", w & 0xffffffff, p), MLM_SEED) % 10000 < 1500]
    if not ch:
        ch = [murmur3_32(struct.pack("<I", w & 0xffffffff), MLM_SEED_FALLBACK) % n]
    return ch


def mlm_train_positions(rng, n):
    """Chosen positions of one training sequence.  Draw order (SPEC is
    silent; engine/tasks/mlm.c): masked iff double() < 0.9; then per
    position in order chosen iff double() < 0.15; if none, below(n)."""
    if not rng.double() < 0.9:
        return []
    ch = [p for p in range(n) if rng.double() < 0.15]
    if not ch:
        ch = [rng.below(n)]
    return ch


def prepare(c, win, training, rng, widx):
    """windows [B, window_len] -> (inputs [B, n], targets [B, n]) numpy
    int64, -1 = no target at that position (section 3)."""
    t, n = c["task"], c["n_ctx"]
    if t in ("clm", "complete"):
        inputs, targets = win[:, :n].copy(), win[:, 1:n + 1].copy()
        if t == "complete":
            cpos = (n + 1) // 2                    # c = ceil(n/2)
            targets[:, :cpos - 1] = -1             # predictions at c-1 .. n-1
        return inputs, targets
    if t in ("bidir", "autoencode"):
        return win.copy(), win.copy()
    if t == "mlm":
        inputs, targets = win.copy(), np.full(win.shape, -1, dtype=np.int64)
        for b in range(win.shape[0]):
            ch = mlm_train_positions(rng, n) if training else mlm_eval_positions(widx[b], n)
            for p in ch:
                targets[b, p] = win[b, p]
                inputs[b, p] = MASK                 # always MASK, no 80/10/10
        if training and c["mlm_loss"] == "all":
            # every position a target: chosen ones their original token,
            # the others their own (unchanged) input token
            targets = np.where(targets >= 0, targets, inputs)
        return inputs, targets
    raise ValueError("task " + t)


def _shift(x, k):
    """y[:, t] = x[:, t - k] (zero where t - k is outside)."""
    z = torch.zeros_like(x[:, :abs(k)])
    return torch.cat([z, x[:, :-k]], 1) if k > 0 else torch.cat([x[:, -k:], z], 1)


def hidden_rows(P, c, inputs):
    """inputs numpy [B, n] -> the rows [B, n, d] the head reads (section 3)."""
    t, n, L = c["task"], c["n_ctx"], c["layers"]
    tok = torch.tensor(inputs)
    if t in ("clm", "mlm", "complete"):
        (pre, causal), = task_stacks(c)
        zero = (L // 2, (n + 1) // 2) if t == "complete" else None
        return run_stack(P, c, embed(P, c, tok, pre), pre, causal, inputs, zero)
    if t == "bidir":
        rev_in = np.ascontiguousarray(inputs[:, ::-1])
        f = run_stack(P, c, embed(P, c, tok, "fwd."), "fwd.", True, inputs)
        r = run_stack(P, c, embed(P, c, torch.tensor(rev_in), "rev."), "rev.", True, rev_in)
        r = torch.flip(r, [1])                      # back to window order
        return _shift(f, 1) + _shift(r, -1)         # f[t-1] + r[t+1]
    if t == "autoencode":
        (pe, ce), (pd, cd) = task_stacks(c)
        enc = run_stack(P, c, embed(P, c, tok, pe), pe, ce, inputs)
        e = enc[:, n - 1:n, :]                      # final-LN state, last position
        x = e.expand(-1, n, -1)
        pos = pos_table(P, c, pd, n, x.dtype)
        x = x + pos if pos is not None else x.contiguous()
        return run_stack(P, c, x, pd, cd, inputs)
    raise ValueError("task " + t)


def head_loss(P, c, rows, targets):
    """(sum of the cross-entropies as a tensor, number of targets, number of
    correct top-1 predictions) over the positions with a target."""
    tg = torch.tensor(targets).reshape(-1)
    sel = (tg >= 0).nonzero().view(-1)
    if sel.numel() == 0:
        return None, 0, 0
    logits = head(P, c, rows.reshape(-1, rows.shape[-1])[sel])
    y = tg[sel]
    l = F.cross_entropy(logits, y, reduction="sum")
    ok = int((logits.argmax(-1) == y).sum())
    return l, int(sel.numel()), ok


@torch.no_grad()
def evaluate(P, c, stream, batch=16):
    """Every window of the split in order; token-weighted mean loss and top-1
    accuracy over all target positions.  For mlm also loss_all (section 3):
    the same masked inputs, every position a target (its original token),
    the mean over all positions of all windows; None for other tasks."""
    nw = num_windows(c, len(stream))
    tot_loss, tot_ok, tot_n = 0.0, 0, 0
    all_loss, all_n = 0.0, 0
    for w0 in range(0, nw, batch):
        widx = list(range(w0, min(nw, w0 + batch)))
        win = windows_of(c, stream, widx)
        inputs, targets = prepare(c, win, False, None, widx)
        rows = hidden_rows(P, c, inputs)
        l, cnt, ok = head_loss(P, c, rows, targets)
        if cnt:
            tot_loss += float(l.double())
            tot_ok += ok
            tot_n += cnt
        if c["task"] == "mlm":
            la, na, _ = head_loss(P, c, rows, win)   # the original window everywhere
            all_loss += float(la.double())
            all_n += na
    return {"loss": tot_loss / tot_n if tot_n else 0.0,
            "accuracy": tot_ok / tot_n if tot_n else 0.0,
            "loss_all": all_loss / all_n if all_n else None,
            "windows": nw, "targets": tot_n}


# --------------------------------------------------------------------------
# Training (section 5)
# --------------------------------------------------------------------------

def wsd_cooldown_start(c, S):
    """Section 5: C = max(1, floor(cooldown*S)); the cool-down starts at
    S - C, never before the warm-up has ended (W)."""
    C = max(1, math.floor(c["cooldown"] * S))
    return max(S - C, c["warmup"])


def lr_at(c, s):
    lr, W, total = c["lr"], c["warmup"], c["steps"]
    if s < W:
        return lr * (s + 1) / W
    if c["decay"] == "constant":
        return lr
    if c["decay"] == "wsd":
        D = wsd_cooldown_start(c, total)
        if s < D or total - D < 1:
            return lr
        return lr * (total - 1 - s) / (total - D)
    span = total - 1 - W
    frac = (s - W) / span if span > 0 else 0.0
    frac = min(max(frac, 0.0), 1.0)
    if c["decay"] == "linear":
        return lr * (1.0 - frac)
    if c["decay"] == "cosine":
        return lr * 0.5 * (1.0 + math.cos(math.pi * frac))
    raise ValueError("decay " + c["decay"])


def decays(name, shape):
    if len(shape) < 2:
        return False
    if name.endswith(".mix.A_log"):  # mamba: the paper's code exempts A_log
        return False
    if name in ("tok_emb", "pos_emb") or name.endswith(".pos_emb"):
        return False
    if _is_table(name):
        return False
    return True


def params_from_arrays(c, arrays, dtype=torch.float32):
    """Leaf tensors for every parameter of the model (float32 is the
    reference; float64 gives a rounding-free yardstick)."""
    shapes = param_shapes(c)
    P = {}
    for name, shp in shapes.items():
        if name not in arrays:
            raise KeyError("checkpoint lacks " + name)
        a = np.asarray(arrays[name], dtype=np.float32)  # the stored values
        if tuple(a.shape) != tuple(shp):
            raise ValueError("%s: shape %s, expected %s" % (name, a.shape, shp))
        P[name] = torch.tensor(a.copy(), dtype=dtype, requires_grad=True)
    return P


def train(P, c, stream, steps=None, log=None, stats=None):
    """Runs `steps` (default c['steps']) sequential-order steps from P in
    place.  Returns per-step dicts {step, loss, lr, grad_norm, targets}
    (grad_norm is G before clipping).  mlm masks come from a fresh
    train_rng(c), as a mixbench run's do.  If `stats` is a dict,
    stats['min_abs_grad'][name] receives the element-wise minimum over steps
    of the nonzero |clipped gradient| (inf where it was always exactly 0):
    AdamW maps a gradient near eps (1e-8) to an update of order lr whose size
    depends on the gradient's last bits, so such elements are float32-
    ill-conditioned and a comparison must treat them apart."""
    steps = c["steps"] if steps is None else steps
    if c["order"] != "sequential":
        raise ValueError("reference: only order=sequential is reproducible")
    nw = num_windows(c, len(stream))
    B = c["batch"]
    rng = train_rng(c)
    names = sorted(P)
    dec = [P[k] for k in names if decays(k, P[k].shape)]
    nodec = [P[k] for k in names if not decays(k, P[k].shape)]
    opt = torch.optim.AdamW(
        [{"params": dec, "weight_decay": c["weight_decay"]},
         {"params": nodec, "weight_decay": 0.0}],
        lr=c["lr"], betas=(0.9, 0.999), eps=1e-8)
    plist = [P[k] for k in names]
    hist = []
    for s in range(steps):
        lr = lr_at(c, s)
        for g in opt.param_groups:
            g["lr"] = lr
        widx = [(s * B + j) % nw for j in range(B)]
        inputs, targets = prepare(c, windows_of(c, stream, widx), True, rng, widx)
        opt.zero_grad(set_to_none=False)
        lsum, cnt, _ = head_loss(P, c, hidden_rows(P, c, inputs), targets)
        if cnt:
            loss = lsum / cnt
            loss.backward()
        else:
            loss = torch.zeros(())  # no target in the batch: no gradient
        for p in plist:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        G = float(torch.sqrt(sum((p.grad.double() ** 2).sum() for p in plist)))
        if c["clip"] > 0:
            coef = c["clip"] / (G + 1e-6)
            if coef < 1.0:
                for p in plist:
                    p.grad.mul_(coef)
        if stats is not None:
            mg = stats.setdefault("min_abs_grad", {})
            for k in names:
                a = P[k].grad.detach().abs().numpy().astype(np.float64)
                a[a == 0] = np.inf
                mg[k] = a.copy() if k not in mg else np.minimum(mg[k], a)
        opt.step()
        rec = {"step": s + 1, "loss": float(loss), "lr": lr, "grad_norm": G,
               "targets": cnt}
        hist.append(rec)
        if log:
            log(rec)
    return hist


def arrays_of(P):
    return {k: v.detach().numpy().copy() for k, v in P.items()}


# --------------------------------------------------------------------------
# Self-test of the reference itself (no mixbench needed):
#   /usr/bin/python3 tests/engine/crosscheck/reference.py
# --------------------------------------------------------------------------

def _selftest():
    ok = True

    def check(name, cond):
        nonlocal ok
        print(("PASS " if cond else "FAIL ") + "reference-selftest " + name)
        ok = ok and bool(cond)

    check("murmur3 vectors",
          murmur3_32(b"", 0) == 0 and murmur3_32(b"", 1) == 0x514e28b7 and
          murmur3_32(b"Hello, world!", 1234) == 0xfaf6cdb3)
    rng = np.random.RandomState(0)
    # attention == torch.nn.MultiheadAttention with a causal mask
    c = make_config(arch="attention", vocab=11, d=16, heads=2, n_ctx=8, layers=1)
    P = {k: torch.tensor(rng.normal(0, 0.1, s).astype(np.float32))
         for k, s in param_shapes(c).items()}
    x = torch.tensor(rng.normal(0, 1, (3, 8, 16)).astype(np.float32))
    y = attention_mix(P, "blocks.0.mix.", x, {"cfg": c, "causal": True})
    mha = torch.nn.MultiheadAttention(16, 2, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([P["blocks.0.mix.w" + k] for k in "qkv"]))
        mha.in_proj_bias.copy_(torch.cat([P["blocks.0.mix.b" + k] for k in "qkv"]))
        mha.out_proj.weight.copy_(P["blocks.0.mix.wo"])
        mha.out_proj.bias.copy_(P["blocks.0.mix.bo"])
        y2, _ = mha(x, x, x, attn_mask=torch.triu(torch.ones(8, 8, dtype=torch.bool), 1))
    check("attention == nn.MultiheadAttention", float((y - y2).abs().max()) < 1e-6)
    # causal mixers: logits at t do not depend on tokens after t
    for arch in ("attention", "mixer", "dispatcher", "pairconnect", "cumsum", "conv", "ema"):
        c = make_config(arch=arch, vocab=11, d=16, heads=2, n_ctx=8, layers=2,
                        hash_size=17)
        P = {k: torch.tensor(rng.normal(0, 0.3, s).astype(np.float32))
             for k, s in param_shapes(c).items()}
        t1 = torch.tensor(rng.randint(2, 11, (2, 8)))
        t2 = t1.clone()
        t2[:, 5:] = torch.tensor(rng.randint(2, 11, (2, 3)))
        with torch.no_grad():
            a, b = forward(P, c, t1, True), forward(P, c, t2, True)
        check("%s causal" % arch, float((a[:, :5] - b[:, :5]).abs().max()) == 0.0 and
              float((a[:, 5:] - b[:, 5:]).abs().max()) > 0)
    # swa: window >= n is attention; window 1 sees only itself, so o = v;
    # causal window 3: output t moves with x[t-2..t] only
    c = make_config(arch="swa", vocab=11, d=16, heads=2, n_ctx=8, layers=1, window=8)
    P = {k: torch.tensor(rng.normal(0, 0.3, s).astype(np.float32))
         for k, s in param_shapes(c).items()}
    x = torch.tensor(rng.normal(0, 1, (2, 8, 16)).astype(np.float32))
    pre = "blocks.0.mix."
    for causal in (True, False):
        ctx = {"cfg": c, "causal": causal}
        same = float((swa_mix(P, pre, x, ctx) - attention_mix(P, pre, x, ctx)).abs().max())
        only = float((swa_mix(P, pre, x, dict(ctx, cfg=dict(c, window=1))) -
                      F.linear(F.linear(x, P[pre + "wv"], P[pre + "bv"]), P[pre + "wo"],
                               P[pre + "bo"])).abs().max())
        check("swa causal=%s: window n is attention, window 1 is v" % causal,
              same == 0.0 and only < 1e-5)
    x2 = x.clone()
    x2[:, 4] += 1.0
    ctx = {"cfg": dict(c, window=3), "causal": True}
    moved = (swa_mix(P, pre, x2, ctx) - swa_mix(P, pre, x, ctx)).abs().amax(dim=(0, 2))
    check("swa window 3 reaches t..t+2", [bool(m > 0) for m in moved] ==
          [False] * 4 + [True] * 3 + [False])
    # fft: orthonormal, so the norm of every sample is kept
    c = make_config(arch="fft", d=16, n_ctx=8)
    x = torch.randn(2, 8, 16)
    y = fft_mix({}, "", x, {"cfg": c, "causal": False})
    check("fft orthonormal", torch.allclose(y.norm(dim=(1, 2)), x.norm(dim=(1, 2)),
                                            rtol=1e-5))
    # ema: at decay 0 channel f averages over tau_f = 2 (span/2)^(f/(d-1))
    # positions, so a unit impulse at t = 0 decays as (1 - lam) lam^t, lam = 1 - 1/tau
    c = make_config(arch="ema", d=5, heads=1, n_ctx=6, ema_span=16)
    x = torch.zeros(1, 6, 5, dtype=torch.float64)
    x[0, 0] = 1.0
    y = ema_mix({"decay": torch.zeros(5, dtype=torch.float64)}, "", x, {"cfg": c, "causal": True})
    lam = 1.0 - 1.0 / (2.0 * 8.0 ** (torch.arange(5, dtype=torch.float64) / 4))
    check("ema impulse response", torch.allclose(y[0], (1 - lam) * lam ** torch.arange(6.0).view(6, 1)))
    # the run's generator: xoshiro256** reference outputs from state
    # {1, 2, 3, 4}, and splitmix64's first output from 0
    r = Rng(0)
    first = r.s[0]
    r.s = [1, 2, 3, 4]
    check("xoshiro256** / splitmix64 vectors",
          first == 0xe220a8397b1dcdaf and [r.next() for _ in range(4)] ==
          [11520, 0, 1509978240, 1215971899390074240])
    # mlm evaluation masks: ~10% of windows unmasked, ~15% of positions
    # chosen, every masked window has a target
    ch = [mlm_eval_positions(w, 16) for w in range(2000)]
    un = sum(1 for x in ch if not x) / 2000.0
    frac = sum(len(x) for x in ch) / (16.0 * sum(1 for x in ch if x))
    check("mlm eval rule", 0.08 < un < 0.12 and 0.13 < frac < 0.18)
    # bidir: the logits at t do not depend on token t, but on its neighbours
    for arch in ("attention", "mixer", "pairconnect"):
        c = make_config(arch=arch, task="bidir", vocab=11, d=16, heads=2, n_ctx=8,
                        layers=2, hash_size=17)
        P = {k: torch.tensor(rng.normal(0, 0.3, s).astype(np.float32))
             for k, s in param_shapes(c).items()}
        t1 = rng.randint(2, 11, (2, 8))
        t2 = t1.copy()
        t2[:, 3] = (t1[:, 3] - 2 + 1) % 9 + 2
        with torch.no_grad():
            a, b = (head(P, c, hidden_rows(P, c, t)) for t in (t1, t2))
        dif = (a - b).abs().amax(dim=(0, 2))
        check("bidir %s hides the predicted token" % arch,
              float(dif[3]) == 0.0 and float(dif[2]) > 0 and float(dif[4]) > 0)
    # complete: no logit depends on a token at a position >= c = ceil(n/2)
    for L, n in ((1, 8), (2, 7), (3, 8)):
        c = make_config(arch="attention", task="complete", vocab=11, d=16, heads=2,
                        n_ctx=n, layers=L)
        P = {k: torch.tensor(rng.normal(0, 0.3, s).astype(np.float32))
             for k, s in param_shapes(c).items()}
        t1 = rng.randint(2, 11, (2, n))
        t2 = t1.copy()
        cp = (n + 1) // 2
        t2[:, cp:] = rng.randint(2, 11, (2, n - cp))
        t3 = t1.copy()
        t3[:, cp - 1] = (t1[:, cp - 1] - 2 + 1) % 9 + 2
        with torch.no_grad():
            a, b, e = (head(P, c, hidden_rows(P, c, t)) for t in (t1, t2, t3))
        check("complete L=%d n=%d hides positions >= %d" % (L, n, cp),
              float((a - b).abs().max()) == 0.0 and float((a - e).abs().max()) > 0)
    # mlm_loss=all: the masking is the masked run's, every position a target
    cm = make_config(arch="attention", task="mlm", n_ctx=16, seed=4)
    ca = make_config(arch="attention", task="mlm", n_ctx=16, seed=4, mlm_loss="all")
    win = rng.randint(2, 11, (6, 16))
    im, tm = prepare(cm, win, True, train_rng(cm), None)
    ia, ta = prepare(ca, win, True, train_rng(ca), None)
    check("mlm_loss=all targets", (im == ia).all() and (ta == win).all() and
          ((tm == win) | (tm == -1)).all() and (im == MASK).sum() == (tm >= 0).sum() > 0)
    check("emb_std defaults", make_config(arch="mixer")["emb_std"] == 1.0 and
          make_config(arch="ema")["emb_std"] == 1.0 and
          make_config(arch="fft")["emb_std"] == 0.02 and
          make_config(arch="cumsum", n_ctx=64)["emb_std"] == 16.0 and
          make_config(arch="cumsum", n_ctx=64, emb_std="0.02")["emb_std"] == 0.02 and
          make_config(arch="mixer", emb_std="0.5")["emb_std"] == 0.5)
    cf = make_config(arch="pairconnect", init="fan_in", d=64, d_pair=32, heads=2)
    check("init fan_in", init_std(cf, "blocks.0.ffn.w2") == 1.0 / 16 and
          init_std(cf, "blocks.1.mix.mlpp.w1") == 1.0 / math.sqrt(128) and
          init_std(cf, "blocks.0.mix.table0") == 0.02 and init_std(cf, "pos_emb") == 0.02 and
          init_std(make_config(arch="dispatcher", init="fan_in"), "blocks.0.mix.wc") == 0.02 and
          init_std(make_config(arch="mixer", init="fan_in", heads=2), "blocks.0.mix.w1") ==
          1.0 / math.sqrt(3 * 64) and init_std(make_config(), "lm_head.w") == 0.02)
    check("pos defaults", make_config(arch="dispatcher", task="autoencode")["pos"] == "learned"
          and make_config(arch="dispatcher", task="clm")["pos"] == "sinusoidal"
          and make_config(arch="dispatcher", task="autoencode", pos="sinusoidal")["pos"]
          == "sinusoidal")
    # schedule: warmup 2, 6 steps, linear decay reaches 0 at the last step
    c = make_config(lr=1.0, warmup=2, steps=6, decay="linear")
    check("schedule", [round(lr_at(c, s), 6) for s in range(6)] ==
          [0.5, 1.0, 1.0, 0.666667, 0.333333, 0.0])
    # wsd: 10 steps, cool-down 0.3 = the last 3 steps; 0.2 of 6 steps is 1
    # step; warmup 4 of 6 steps with cooldown 0.5 shortens the cool-down to
    # the 2 steps after the warm-up
    c = make_config(lr=1.0, warmup=2, steps=10, decay="wsd", cooldown=0.3)
    check("schedule wsd", [round(lr_at(c, s), 6) for s in range(10)] ==
          [0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.666667, 0.333333, 0.0])
    c = make_config(lr=1.0, warmup=2, steps=6, decay="wsd")
    check("schedule wsd default cooldown", [lr_at(c, s) for s in range(6)] ==
          [0.5, 1.0, 1.0, 1.0, 1.0, 0.0])
    c = make_config(lr=1.0, warmup=4, steps=6, decay="wsd", cooldown=0.5)
    check("schedule wsd cool-down after the warm-up", [lr_at(c, s) for s in range(6)] ==
          [0.25, 0.5, 0.75, 1.0, 0.5, 0.0])
    return ok


if __name__ == "__main__":
    import sys
    sys.exit(0 if _selftest() else 1)
