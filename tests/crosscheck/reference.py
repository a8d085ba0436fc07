"""
reference.py -- an independent PyTorch (float32) implementation of the math
in SPEC.md, used to cross-check the numbers mixbench prints.

It is written from the SPEC text only (not from the C sources) so that the two
implementations can disagree when one of them is wrong.  What it covers:

  section 1  model skeleton: tok_emb, pos = learned | sinusoidal | none,
             norm = pre | post | none, act = gelu | relu | none, tie, ffn_mult
  section 2  token mixers, one function each in MIXERS (arch -> (params, fn)):
             attention, mixer (masked mixer); also dispatcher, pairconnect,
             fft, cumsum and conv written from the SPEC text, which
             crosscheck.py exercises whenever mixbench accepts the arch
  section 3  task clm (TASKS holds the task table; add mlm/bidir/... there)
  section 4  windows of an ids token stream, order = sequential
  section 5  AdamW exactly as torch.optim.AdamW (decay group = 2-D+ weights
             except tok_emb, pos_emb and pair tables), warmup + constant |
             linear | cosine schedule, global-norm clipping
  section 7  safetensors read/write with struct + json + numpy

Init (section 5) is deliberately absent: weights always come from a
checkpoint, so both sides start from the same numbers.

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
    "pos": None,  # per-arch default, see DEFAULT_POS
    "tie": False, "dropout": 0.0, "hash_size": 1000, "hash_seed": 0,
    "pair_reduce": "mean", "d_pair": None, "fft_mode": "ortho",
    "level_dropout": 0.0,
}
TRAIN_DEFAULTS = {
    "lr": 1e-3, "warmup": 0, "decay": "cosine", "weight_decay": 0.01,
    "clip": 1.0, "batch": 8, "steps": 1, "order": "sequential",
    "table_optim": "adamw",
}
DEFAULT_POS = {"attention": "learned", "dispatcher": "sinusoidal",
               "pairconnect": "learned", "mixer": "none", "fft": "none",
               "cumsum": "none", "conv": "none"}

INT_KEYS = {"vocab", "d", "layers", "heads", "n_ctx", "ffn_mult", "hash_size",
            "hash_seed", "d_pair", "warmup", "batch", "steps"}
FLOAT_KEYS = {"dropout", "level_dropout", "lr", "weight_decay", "clip"}
BOOL_KEYS = {"tie"}


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
    if c["pos"] is None:
        c["pos"] = DEFAULT_POS[c["arch"]]
    if c["d_pair"] is None:
        c["d_pair"] = c["d"]
    assert c["d"] % c["heads"] == 0
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
    "arch": set(DEFAULT_POS), "task": {"clm", "mlm", "bidir", "autoencode", "complete"},
    "act": {"gelu", "relu", "none"}, "norm": {"pre", "post", "none"},
    "pos": {"learned", "sinusoidal", "none"}, "tie": {"true", "false"},
    "pair_reduce": {"mean", "sum"},
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
    """(cfg, P, problems) for a single-stack mixbench checkpoint."""
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


MIXERS = {
    "attention": (attention_params, attention_mix),
    "mixer": (mixer_params, mixer_mix),
    "dispatcher": (dispatcher_params, dispatcher_mix),
    "pairconnect": (pairconnect_params, pairconnect_mix),
    "fft": (lambda c: {}, fft_mix),
    "cumsum": (lambda c: {}, cumsum_mix),
    "conv": (conv_params, conv_mix),
}

# Which mixer parameters are "tables" (no weight decay, like embeddings).
def _is_table(name):
    last = name.split(".")[-1]
    return ".mix." in name and last.startswith("table")


# --------------------------------------------------------------------------
# Model skeleton (section 1)
# --------------------------------------------------------------------------

def param_shapes(c):
    """name -> shape for the single-stack model (tasks clm / mlm / complete)."""
    V, d, n, L = c["vocab"], c["d"], c["n_ctx"], c["layers"]
    dff = c["ffn_mult"] * d
    s = {"tok_emb": (V, d)}
    if c["pos"] == "learned":
        s["pos_emb"] = (n, d)
    mix_params = MIXERS[c["arch"]][0](c)
    for i in range(L):
        b = "blocks.%d." % i
        if c["norm"] != "none":
            s[b + "ln1.w"] = (d,); s[b + "ln1.b"] = (d,)
            s[b + "ln2.w"] = (d,); s[b + "ln2.b"] = (d,)
        for k, shp in mix_params.items():
            s[b + "mix." + k] = tuple(shp)
        s[b + "ffn.w1"] = (dff, d); s[b + "ffn.b1"] = (dff,)
        s[b + "ffn.w2"] = (d, dff); s[b + "ffn.b2"] = (d,)
    if c["norm"] != "none":
        s["ln_f.w"] = (d,); s["ln_f.b"] = (d,)
    if not c["tie"]:
        s["lm_head.w"] = (V, d)
    s["lm_head.b"] = (V,)
    return s


def masked_entries(c, name):
    """Boolean numpy mask of stored-but-ignored entries of a parameter
    (section 7: the masked mixer's upper triangle in causal mode), or None."""
    if c["arch"] == "mixer" and TASKS[c["task"]]["causal"] and \
            ".mix.w" in name:
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


def forward(P, c, tokens, causal):
    """tokens: LongTensor [B, n] -> logits [B, n, V]."""
    B, n = tokens.shape
    x = P["tok_emb"][tokens]
    if c["pos"] == "learned":
        x = x + P["pos_emb"][:n]
    elif c["pos"] == "sinusoidal":
        x = x + sinusoidal_table(n, c["d"], x.dtype)
    mix = MIXERS[c["arch"]][1]
    for i in range(c["layers"]):
        b = "blocks.%d." % i
        ctx = {"cfg": c, "causal": causal, "block": i, "tokens": tokens.numpy()}

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
        x = _ln(P, "ln_f", x)
    W = P["tok_emb"] if c["tie"] else P["lm_head.w"]
    return F.linear(x, W, P["lm_head.b"])


# --------------------------------------------------------------------------
# Data and tasks (sections 3, 4)
# --------------------------------------------------------------------------

def read_ids(path, vocab):
    with open(path) as f:
        s = np.array([int(t) for t in f.read().split()], dtype=np.int64)
    if s.size and (s.min() < 0 or s.max() >= vocab):
        raise ValueError("%s: id outside the vocabulary %d" % (path, vocab))
    return s


def clm_num_windows(T, n):
    return max(0, (T - 1) // n)


def clm_window(stream, n, w):
    x = stream[w * n:w * n + n]
    y = stream[w * n + 1:w * n + n + 1]
    return x, y


TASKS = {
    # causal: the mixer mode; windows(T, n); window(stream, n, w) -> (x, y)
    "clm": {"causal": True, "num_windows": clm_num_windows, "window": clm_window},
}


def batch_for(c, stream, widx):
    task = TASKS[c["task"]]
    xs, ys = zip(*(task["window"](stream, c["n_ctx"], w) for w in widx))
    return torch.tensor(np.stack(xs)), torch.tensor(np.stack(ys))


def loss_fn(logits, targets):
    V = logits.shape[-1]
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))


@torch.no_grad()
def evaluate(P, c, stream, batch=16):
    """Every window of the split in order; token-weighted mean loss and top-1
    accuracy over all target positions."""
    task = TASKS[c["task"]]
    nw = task["num_windows"](len(stream), c["n_ctx"])
    tot_loss, tot_ok, tot_n = 0.0, 0, 0
    for w0 in range(0, nw, batch):
        widx = list(range(w0, min(nw, w0 + batch)))
        x, y = batch_for(c, stream, widx)
        logits = forward(P, c, x, task["causal"])
        V = logits.shape[-1]
        l = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1), reduction="none")
        tot_loss += float(l.double().sum())
        tot_ok += int((logits.argmax(-1) == y).sum())
        tot_n += y.numel()
    return {"loss": tot_loss / tot_n, "accuracy": tot_ok / tot_n, "windows": nw}


# --------------------------------------------------------------------------
# Training (section 5)
# --------------------------------------------------------------------------

def lr_at(c, s):
    lr, W, total = c["lr"], c["warmup"], c["steps"]
    if s < W:
        return lr * (s + 1) / W
    if c["decay"] == "constant":
        return lr
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
    place.  Returns per-step dicts {step, loss, lr, grad_norm} (grad_norm is
    G before clipping).  If `stats` is a dict, stats['min_abs_grad'][name]
    receives the element-wise minimum over steps of the nonzero |clipped
    gradient| (inf where it was always exactly 0): AdamW
    maps a gradient near eps (1e-8) to an update of order lr whose size
    depends on the gradient's last bits, so such elements are float32-
    ill-conditioned and a comparison must treat them apart."""
    steps = c["steps"] if steps is None else steps
    if c["order"] != "sequential":
        raise ValueError("reference: only order=sequential is reproducible")
    task = TASKS[c["task"]]
    nw = task["num_windows"](len(stream), c["n_ctx"])
    B = c["batch"]
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
        x, y = batch_for(c, stream, widx)
        opt.zero_grad(set_to_none=False)
        loss = loss_fn(forward(P, c, x, task["causal"]), y)
        loss.backward()
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
        rec = {"step": s + 1, "loss": float(loss), "lr": lr, "grad_norm": G}
        hist.append(rec)
        if log:
            log(rec)
    return hist


def arrays_of(P):
    return {k: v.detach().numpy().copy() for k, v in P.items()}


# --------------------------------------------------------------------------
# Self-test of the reference itself (no mixbench needed):
#   /usr/bin/python3 tests/crosscheck/reference.py
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
    for arch in ("attention", "mixer", "dispatcher", "pairconnect", "cumsum", "conv"):
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
    # fft: orthonormal, so the norm of every sample is kept
    c = make_config(arch="fft", d=16, n_ctx=8)
    x = torch.randn(2, 8, 16)
    y = fft_mix({}, "", x, {"cfg": c, "causal": False})
    check("fft orthonormal", torch.allclose(y.norm(dim=(1, 2)), x.norm(dim=(1, 2)),
                                            rtol=1e-5))
    # schedule: warmup 2, 6 steps, linear decay reaches 0 at the last step
    c = make_config(lr=1.0, warmup=2, steps=6, decay="linear")
    check("schedule", [round(lr_at(c, s), 6) for s in range(6)] ==
          [0.5, 1.0, 1.0, 0.666667, 0.333333, 0.0])
    return ok


if __name__ == "__main__":
    import sys
    sys.exit(0 if _selftest() else 1)
