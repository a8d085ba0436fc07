#!/usr/bin/python3
"""
bench_torch.py -- mixbench's training throughput beside PyTorch's, on the
same models, batches, optimizer and threads, measured alternately.

For every case (arch, task, config, threads) it runs, R times, `mixbench
bench --arch A --task T --config C --threads N --seconds W --json` and the
same model trained in PyTorch in this process, alternating which goes first
(mixbench first on even repeats, PyTorch first on odd ones), and prints:
the median tokens/s of each side, the median of the per-repeat ratios
mixbench / PyTorch and their spread (min-max), and the median ratio of
tokens per CPU-second of each process ("cpu ratio": what other tenants'
preemption does not move; on 2 threads it also counts time the threads
spend waiting for each other), and "bound": the ratio over mixbench's
share of its step inside matrix products (bench's "in prods"), i.e. the
ratio mixbench would reach if nothing outside its products took any time.
Both sides' products are OpenBLAS sgemm calls of the same shapes, so a
line whose bound is under a target cannot reach it without faster
products.  On a shared machine a single measurement
can be 10-30% off; the median of alternating repeats is the figure
(docs/speed.md).

The PyTorch side is reference.py's model (the SPEC's math, float32):
tok_emb, positions, pre-norm blocks, the mixer, the GELU FFN, the final
LayerNorm and the untied head, with what `mixbench bench` sets (app/cmd_bench.c):
  S = d 256, L 4, h 4, n 64, V 10000, batch 32
  P = d 128, L 4, h 4, n 64, V 4096, batch 8 (the presets' own shape)
  M = d 512, L 8, h 8, n 128, V 10000, batch 16
and lr 1e-3 constant, weight decay 0.01 on matrices (reference.decays),
torch.optim.AdamW (foreach=True: the faster of its two CPU paths here),
torch.nn.utils.clip_grad_norm_(1.0), zero_grad(set_to_none=True), random
windows of a random token stream (200000 ids in 2..V-1), clm over every
position, mlm with the SPEC's masking (90% of windows, 15% of positions and
at least one, MASK in place) and the head on the chosen rows only, as
mixbench trains.  Timing follows cmd_bench.c: 2 warm-up steps, then at
least 3 steps and W seconds, each step timed from drawing its windows to
the end of the optimizer step, tokens/s = steps x batch x n / their time.
Threads: torch.set_num_threads(N), OMP_WAIT_POLICY=PASSIVE unless the
environment sets it (PyTorch's idle threads then block, as mixbench's do),
and OpenBLAS (which PyTorch's matrix products call, and which otherwise
starts a thread per core) at N threads; with N > 1 PyTorch also runs with
OpenBLAS on 1 thread, and its figure is the faster of the two ("blas"
column).

Where the reference is written for clarity rather than speed, the bench
uses a faster PyTorch form of the same math, checked against it by
--check: pairconnect's pair hashes vectorised in numpy (the reference
hashes pair by pair in Python) and its pair sums as F.embedding_bag with
per-pair weights (the reference gathers a [B, n, n, d] tensor).

Usage: bench_torch.py [--mixbench PATH] [--arch A,B] [--task clm,mlm]
                      [--config S,P,M] [--threads 1,2] [--repeats R]
                      [--seconds W] [--json] [--check]
Defaults: every arch and task it trains, config S,P,M, threads 1, R 3,
W 2.  --check: only compare the bench's PyTorch model with the reference
on tiny models (losses and gradients) and exit.
"""

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

# PyTorch's OpenMP threads block when idle, as mixbench's pool does (GOMP's
# default spinning makes 2 threads 5-10x slower on a machine whose cores
# other processes also use); the environment's own setting wins
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R  # noqa: E402

CONFIGS = {
    "S": {"vocab": 10000, "d": 256, "layers": 4, "heads": 4, "n_ctx": 64, "batch": 32},
    "P": {"vocab": 4096, "d": 128, "layers": 4, "heads": 4, "n_ctx": 64, "batch": 8},
    "M": {"vocab": 10000, "d": 512, "layers": 8, "heads": 8, "n_ctx": 128, "batch": 16},
}
TRAIN = {"lr": 1e-3, "warmup": 0, "decay": "constant", "weight_decay": 0.01, "clip": 1.0}
STREAM_LEN = 200000

# --------------------------------------------------------------------------
# pairconnect, vectorised (the same math as reference.pairconnect_mix)
# --------------------------------------------------------------------------

_U = np.uint32


def _rotl(x, r):
    return (x << _U(r)) | (x >> _U(32 - r))


def _fmix(h):
    h ^= h >> _U(16)
    h *= _U(0x85ebca6b)
    h ^= h >> _U(13)
    h *= _U(0xc2b2ae35)
    return h ^ (h >> _U(16))


def pair_slots(tokens, seed, K, pi, pj):
    """murmur3_32(le32(t_i) || le32(t_j), seed) mod K for the pairs (pi, pj)
    of every sample: tokens [B, n] -> [B, len(pi)] int64."""
    with np.errstate(over="ignore"):
        k = _rotl(tokens.astype(np.uint32) * _U(0xcc9e2d51), 15) * _U(0x1b873593)
        h = _rotl(_U(seed) ^ k, 13) * _U(5) + _U(0xe6546b64)       # after t_i
        h = _rotl(h[:, pi] ^ k[:, pj], 13) * _U(5) + _U(0xe6546b64)  # after t_j
        h = _fmix(h ^ _U(8))
    return torch.from_numpy((h % _U(K)).astype(np.int64))


_PAIRS = {}


def pair_layout(n, causal, reduce):
    """(pi, pj, weights, bag lengths) of one sample's pairs, in bag order."""
    key = (n, causal, reduce)
    if key not in _PAIRS:
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        keep = (j < i) if causal else (j != i)
        pi, pj = i[keep], j[keep]
        cnt = keep.sum(axis=1)
        w = 1.0 / np.maximum(cnt[pi], 1) if reduce == "mean" else np.ones(len(pi))
        _PAIRS[key] = (pi, pj, torch.tensor(w, dtype=torch.float32), torch.tensor(cnt))
    return _PAIRS[key]


def pairconnect_mix_fast(P, pre, x, ctx):
    c = ctx["cfg"]
    h, K = c["heads"], c["hash_size"]
    B, n, d = x.shape
    toks = np.asarray(ctx["tokens"])
    pi, pj, w, cnt = pair_layout(n, ctx["causal"], c["pair_reduce"])
    lengths = cnt.repeat(B)
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)[:-1]])
    weights = w.repeat(B)
    parts = []
    for k in range(h):
        seed = (c["hash_seed"] + 1000 * ctx["block"] + k) & 0xffffffff
        slots = pair_slots(toks, seed, K, pi, pj).reshape(-1)
        parts.append(F.embedding_bag(slots, P[pre + "table%d" % k], offsets, mode="sum",
                                     per_sample_weights=weights).view(B, n, d))
    p = torch.cat(parts, dim=-1)

    def mlp(z, name):
        z = F.gelu(F.linear(z, P[pre + name + ".w1"], P[pre + name + ".b1"]))
        return F.linear(z, P[pre + name + ".w2"], P[pre + name + ".b2"])
    return mlp(x, "mlpx") + mlp(p, "mlpp")


FAST_MIXERS = {"pairconnect": pairconnect_mix_fast}


def use_fast_mixers():
    for arch, fn in FAST_MIXERS.items():
        R.MIXERS[arch] = (R.MIXERS[arch][0], fn)


# --------------------------------------------------------------------------
# The PyTorch side: one model trained for a timed window
# --------------------------------------------------------------------------

def arch_tasks(arch):
    causal, bidir = R.MIXER_MODES[arch]
    return (["clm"] if causal else []) + (["mlm"] if bidir else [])


def model_config(arch, task, size):
    kw = dict(CONFIGS[size])
    kw.update(TRAIN)
    kw.update(arch=arch, task=task)
    return R.make_config(**kw)


def init_params(c, gen):
    """Every parameter with the SPEC's init distribution (values do not
    matter for speed; denormals and zeros would)."""
    P = {}
    for name, shape in R.param_shapes(c).items():
        std = R.init_std(c, name, shape)
        if std is not None:
            t = torch.randn(shape, generator=gen) * std
        elif name.endswith(".w") and ("ln" in name.split(".")[-2]):
            t = torch.ones(shape)
        else:
            t = torch.zeros(shape)
        P[name] = t.requires_grad_(True)
    return P


def mlm_batch(win, gen):
    """The SPEC's training masks, drawn with torch: (inputs, targets)."""
    B, n = win.shape
    masked = torch.rand(B, generator=gen) < 0.9
    chosen = (torch.rand(B, n, generator=gen) < 0.15) & masked[:, None]
    none = masked & ~chosen.any(dim=1)
    pick = torch.randint(0, n, (B,), generator=gen)
    chosen[none, pick[none]] = True
    inputs = torch.where(chosen, torch.full_like(win, R.MASK), win)
    targets = torch.where(chosen, win, torch.full_like(win, -1))
    return inputs, targets


class TorchModel:
    """reference.py's model of c with AdamW and clipping, one step at a time."""

    def __init__(self, c, seed=1):
        self.c = c
        self.gen = torch.Generator().manual_seed(seed)
        self.P = init_params(c, self.gen)
        names = sorted(self.P)
        dec = [self.P[k] for k in names if R.decays(k, self.P[k].shape)]
        nodec = [self.P[k] for k in names if not R.decays(k, self.P[k].shape)]
        self.params = [self.P[k] for k in names]
        self.opt = torch.optim.AdamW([{"params": dec, "weight_decay": c["weight_decay"]},
                                      {"params": nodec, "weight_decay": 0.0}],
                                     lr=c["lr"], betas=(0.9, 0.999), eps=1e-8, foreach=True)
        self.stream = torch.randint(2, c["vocab"], (STREAM_LEN,), generator=self.gen)
        self.wl = R.window_len(c)

    def batch(self):
        c, B, n = self.c, self.c["batch"], self.c["n_ctx"]
        starts = torch.randint(0, STREAM_LEN - self.wl + 1, (B,), generator=self.gen)
        win = self.stream[starts[:, None] + torch.arange(self.wl)]
        if c["task"] == "clm":
            return win[:, :n], win[:, 1:]
        return mlm_batch(win, self.gen)

    def loss(self, inputs, targets):
        """Mean cross-entropy over the targets (None when there is none)."""
        c = self.c
        rows = R.hidden_rows(self.P, c, inputs.numpy())
        rows, tg = rows.reshape(-1, c["d"]), targets.reshape(-1)
        if c["task"] != "clm":
            sel = tg >= 0
            if not bool(sel.any()):
                return None
            rows, tg = rows[sel], tg[sel]
        return F.cross_entropy(R.head(self.P, c, rows), tg)

    def step(self):
        inputs, targets = self.batch()
        self.opt.zero_grad(set_to_none=True)
        loss = self.loss(inputs, targets)
        if loss is not None:
            loss.backward()
        torch.nn.utils.clip_grad_norm_(self.params, self.c["clip"])
        self.opt.step()
        return float(loss) if loss is not None else 0.0


_OPENBLAS = None


def set_threads(n, blas=None):
    """PyTorch's own threads, and OpenBLAS's (PyTorch's products call it;
    blas, default n)."""
    global _OPENBLAS
    torch.set_num_threads(n)
    if _OPENBLAS is None:
        try:
            _OPENBLAS = ctypes.CDLL("libopenblas.so.0")
        except OSError:
            _OPENBLAS = False
    if _OPENBLAS:
        _OPENBLAS.openblas_set_num_threads(n if blas is None else blas)


def torch_tokens_per_s(arch, task, size, threads, seconds, blas=None):
    """(tokens/s, tokens per CPU-second of the process) over the timed steps."""
    set_threads(threads, blas)
    c = model_config(arch, task, size)
    m = TorchModel(c)
    for _ in range(2):  # warm-up
        m.step()
    elapsed, steps, cpu0 = 0.0, 0, time.process_time()
    while steps < 3 or elapsed < seconds:
        t0 = time.perf_counter()
        m.step()
        elapsed += time.perf_counter() - t0
        steps += 1
    tokens = steps * c["batch"] * c["n_ctx"]
    return tokens / elapsed, tokens / (time.process_time() - cpu0)


def mixbench_tokens_per_s(mixbench, arch, task, size, threads, seconds):
    """(tokens/s, tokens per CPU-second (None from a mixbench without it),
    the share of the step in matrix products)."""
    cmd = [mixbench, "bench", "--arch", arch, "--task", task, "--config", size,
           "--threads", str(threads), "--seconds", str(seconds), "--json"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), out.stderr.strip()))
    r = json.loads(out.stdout)["results"][0]
    return r["tokens_per_s"], r.get("tokens_per_cpu_s"), r["product_share"]


def measure(mixbench, arch, task, size, threads, repeats, seconds):
    """R alternating repeats of both sides; the line's figures.  With
    threads > 1 PyTorch runs twice per repeat, OpenBLAS on `threads` and on
    1 thread, and the faster of the two (by median) stands for it."""
    blas = [threads, 1] if threads > 1 else [threads]
    sides = ["mixbench"] + blas
    got = {side: [] for side in sides}
    for r in range(repeats):
        k = r % len(sides)
        for side in sides[k:] + sides[:k]:  # each side first in turn
            if side == "mixbench":
                got[side].append(mixbench_tokens_per_s(mixbench, arch, task, size, threads, seconds))
            else:
                got[side].append(torch_tokens_per_s(arch, task, size, threads, seconds, side))
    best = max(blas, key=lambda b: statistics.median(v[0] for v in got[b]))
    mb, pt = got["mixbench"], got[best]
    ratios = [a[0] / b[0] for a, b in zip(mb, pt)]
    cpu = [a[1] / b[1] for a, b in zip(mb, pt) if a[1]]
    bound = [q / a[2] for q, a in zip(ratios, mb)]
    return {"arch": arch, "task": task, "config": size, "threads": threads, "repeats": repeats,
            "seconds": seconds, "torch_blas_threads": best,
            "mixbench_tokens_per_s": round(statistics.median(a[0] for a in mb), 1),
            "torch_tokens_per_s": round(statistics.median(b[0] for b in pt), 1),
            "ratio": round(statistics.median(ratios), 4),
            "ratio_min": round(min(ratios), 4), "ratio_max": round(max(ratios), 4),
            "cpu_ratio": round(statistics.median(cpu), 4) if cpu else None,
            "bound": round(statistics.median(bound), 4),
            "mixbench_each": [round(a[0], 1) for a in mb],
            "torch_each": {str(b): [round(v[0], 1) for v in got[b]] for b in blas},
            "ratio_each": [round(v, 4) for v in ratios], "cpu_ratio_each": [round(v, 4) for v in cpu]}


# --------------------------------------------------------------------------
# --check: the bench's PyTorch model against the reference itself
# --------------------------------------------------------------------------

def loss_and_grads(m, inputs, targets, mixers):
    """m's loss and gradients with the mixer table `mixers`."""
    saved = dict(R.MIXERS)
    R.MIXERS.update(mixers)
    try:
        loss = m.loss(inputs, targets)
        return float(loss), torch.autograd.grad(loss, m.params)
    finally:
        R.MIXERS.update(saved)


def check():
    ok = True
    for arch in sorted(R.MIXERS):
        for task in arch_tasks(arch):
            c = R.make_config(arch=arch, task=task, vocab=37, d=16, heads=2, n_ctx=8, layers=2,
                              hash_size=23, batch=3)
            m = TorchModel(c, seed=3)
            inputs, targets = m.batch()
            fast, gf = loss_and_grads(m, inputs, targets, {})
            slow, gs = loss_and_grads(m, inputs, targets, REFERENCE_MIXERS)
            top = max(float(b.abs().max()) for b in gs)
            dg = max(float((a - b).abs().max()) for a, b in zip(gf, gs)) / top
            good = abs(fast - slow) <= 1e-5 * abs(slow) and dg <= 1e-5
            print("%s bench_torch %s %s: loss %.6f vs reference %.6f, gradients within %.1e of the largest"
                  % ("PASS" if good else "FAIL", arch, task, fast, slow, dg))
            ok = ok and good
    return ok


REFERENCE_MIXERS = dict(R.MIXERS)  # before use_fast_mixers

# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--mixbench", default=os.environ.get(
        "MIXBENCH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "mixbench")))
    ap.add_argument("--arch", default="")
    ap.add_argument("--task", default="clm,mlm")
    ap.add_argument("--config", default="S,P,M")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    use_fast_mixers()
    if a.check:
        return 0 if check() else 1
    archs = a.arch.split(",") if a.arch else [m for m in R.MIXERS]
    for arch in archs:
        if arch not in R.MIXERS:
            ap.error("unknown arch %r (known: %s)" % (arch, ", ".join(R.MIXERS)))
    sizes = a.config.split(",")
    for s in sizes:
        if s not in CONFIGS:
            ap.error("--config %r is not S, P or M" % s)
    tasks = a.task.split(",")
    threads = [int(t) for t in a.threads.split(",")]
    if a.repeats < 1 or a.seconds <= 0 or min(threads) < 1:
        ap.error("--repeats, --seconds and --threads must be positive")
    if not a.json:
        print("mixbench / PyTorch %s, training tokens/s, median of %d alternating repeats of %g s"
              % (torch.__version__, a.repeats, a.seconds))
        print("%-12s %-4s %-6s %7s %12s %12s %4s %7s %15s %9s %7s" % (
            "arch", "task", "config", "threads", "mixbench", "pytorch", "blas", "ratio", "spread", "cpu ratio", "bound"))
    lines = []
    for arch in archs:
        for size in sizes:
            for task in tasks:
                if task not in arch_tasks(arch):
                    continue
                for t in threads:
                    r = measure(a.mixbench, arch, task, size, t, a.repeats, a.seconds)
                    lines.append(r)
                    if not a.json:
                        cpu = "%8.2fx" % r["cpu_ratio"] if r["cpu_ratio"] else "%9s" % "-"
                        print("%-12s %-4s %-6s %7d %12.0f %12.0f %4d %6.2fx %7.2f-%.2fx %s %6.2fx"
                              % (arch, task, size, t, r["mixbench_tokens_per_s"], r["torch_tokens_per_s"],
                                 r["torch_blas_threads"], r["ratio"], r["ratio_min"], r["ratio_max"], cpu,
                                 r["bound"]), flush=True)
    if a.json:
        print(json.dumps({"torch": torch.__version__, "results": lines}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
