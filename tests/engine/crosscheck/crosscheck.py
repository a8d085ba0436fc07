#!/usr/bin/python3
"""
crosscheck.py -- replays short mixbench training runs in the independent
PyTorch reference (reference.py) and compares the numbers.

For every case (a task, an architecture and a model/training configuration;
the names say which: <task>-<arch>-<variant>):
  1. writes an init checkpoint of random weights (numpy, std ~0.1) with the
     task's stacks (fwd./rev. for bidir, enc./dec. for autoencode),
  2. runs `mixbench run --task T --init ... --order sequential` for K steps
     with --threads 1 and --threads 2 (fresh SQLite db and --save checkpoint
     each),
  3. runs the same K steps in PyTorch float32 from the same init on the same
     windows; mlm training masks come from the reference's bit-exact copy of
     the run's generator (seeded by the case's seed), evaluation masks from
     the SPEC's MurmurHash3 rule,
  4. compares per-step train loss, lr and grad norm (from the db's metrics
     table), the final valid/test loss, accuracy and target counts (db evals
     table, and `mixbench eval --json` against the reference evaluating the
     very same saved weights), for mlm also loss_all (every position a
     target; NULL in the db and absent from --json for other tasks), and the
     saved weights; checks that a repeated
     threads=2 run is bit-identical (SPEC section 5) and that the checkpoint
     metadata reads back as the run's config (section 7).

Prints `PASS crosscheck <case>`, `FAIL crosscheck <case>: <details>` or, for
an architecture mixbench does not know yet, `SKIP crosscheck <case>: ...`
(such cases start running as soon as the binary knows the arch); then one
`task-pairs` line (every arch/task pair mixbench can build is accepted or
refused exactly as SPEC section 3 says), one `init` line (mixbench's fresh
weights, per architecture, have section 5's init distribution: tok_emb
N(0, emb_std), 1.0 for mixer and ema, 2*sqrt(n_ctx) for cumsum and 0.02
otherwise, or the emb_std given), one `coverage` line (every architecture
mixbench knows has a reference form and a case) and one
`checkpoint-metadata` line; exits 0 when nothing failed.

Tolerance: 1e-4 relative on losses, lr, grad norms and evaluations (float32
rounding gives ~1e-7 on the first step and up to a few 1e-5 after K steps).
Weights: 1e-4 of the tensor's largest magnitude plus 10x the element's own
float32 noise (see compare_weights: AdamW's eps = 1e-8 makes an element
whose gradient passes near zero move by an amount set by the gradient's last
bits, so two correct float32 implementations can differ there by ~1e-4).

Usage: crosscheck.py [--mixbench PATH] [--steps K] [--cases a,b] [--seed S]
                     [--keep] [--verbose]
"""

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R  # noqa: E402

TOL = 1e-4
V = 13

# name -> model/training keys passed as key=value to mixbench (arch and task
# go as --arch/--task; task defaults to clm).  Positional defaults per arch
# (section 1): attention learned, dispatcher sinusoidal (learned for
# autoencode), pairconnect learned, mixer/fft/cumsum/conv none.
BASE = {"vocab": V, "d": 16, "layers": 2, "heads": 2, "n_ctx": 8, "batch": 4,
        "lr": 0.01, "warmup": 2, "seed": 3}

CASES = [
    # ---- clm (section 3): causal mixers
    ("clm-attention-pre-gelu-learned-cosine",
     {"arch": "attention", "decay": "cosine"}),
    ("clm-attention-post-relu-sinusoidal-tie-linear",
     {"arch": "attention", "norm": "post", "act": "relu", "pos": "sinusoidal",
      "tie": "true", "decay": "linear", "weight_decay": 0.1}),
    # wsd (section 5): 6 steps, warmup 2, cooldown 0.5: lr, lr, then 2/3,
    # 1/3, 0 of it over the last 3 steps
    ("clm-attention-pre-gelu-learned-wsd",
     {"arch": "attention", "decay": "wsd", "cooldown": 0.5, "weight_decay": 0.1}),
    # init = fan_in (section 5) changes only fresh weights: the run starts
    # from the case's own, and its metadata must say fan_in
    ("clm-attention-init-fan_in", {"arch": "attention", "init": "fan_in"}),
    ("clm-attention-none-none-nopos-constant",
     {"arch": "attention", "norm": "none", "act": "none", "pos": "none",
      "decay": "constant", "weight_decay": 0.1}),
    ("clm-attention-h4-L1-ffn2-tie-relu",
     {"arch": "attention", "heads": 4, "layers": 1, "ffn_mult": 2,
      "tie": "true", "act": "relu", "decay": "cosine", "weight_decay": 0.1,
      "clip": 0.5}),
    ("clm-mixer-pre-gelu-nopos-cosine",
     {"arch": "mixer", "decay": "cosine", "weight_decay": 0.1}),
    ("clm-mixer-post-relu-learned-tie-linear",
     {"arch": "mixer", "norm": "post", "act": "relu", "pos": "learned",
      "tie": "true", "decay": "linear"}),
    ("clm-mixer-linear-none-none-sinusoidal-constant",
     {"arch": "mixer", "norm": "none", "act": "none", "pos": "sinusoidal",
      "decay": "constant", "weight_decay": 0.1}),
    ("clm-mixer-h4-L1-pre-gelu-tie-nowarmup",
     {"arch": "mixer", "heads": 4, "layers": 1, "tie": "true", "warmup": 0,
      "decay": "cosine", "clip": 0.5}),
    ("clm-dispatcher-h1-sinusoidal",
     {"arch": "dispatcher", "heads": 1, "decay": "cosine", "weight_decay": 0.1}),
    ("clm-dispatcher-h2-post-relu-learned",
     {"arch": "dispatcher", "norm": "post", "act": "relu", "pos": "learned",
      "decay": "linear"}),
    ("clm-dispatcher-n6-h2-pre-gelu",
     {"arch": "dispatcher", "n_ctx": 6, "decay": "cosine"}),   # levels = ceil(log2 6) = 3
    ("clm-cumsum-pre-gelu",
     {"arch": "cumsum", "decay": "cosine"}),
    ("clm-cumsum-post-relu-learned-tie",
     {"arch": "cumsum", "norm": "post", "act": "relu", "pos": "learned", "tie": "true",
      "decay": "linear", "weight_decay": 0.1}),
    # Mixers mixbench may not have yet: skipped (not passed) while it
    # answers "unknown architecture".  Their reference code is written from
    # the SPEC but has not met a second implementation yet.
    ("clm-pairconnect-K50-mean-dp8-seed5",
     {"arch": "pairconnect", "hash_size": 50, "d_pair": 8, "hash_seed": 5,
      "decay": "cosine", "weight_decay": 0.1}),
    ("clm-pairconnect-K50-sum-tie",
     {"arch": "pairconnect", "hash_size": 50, "pair_reduce": "sum", "tie": "true",
      "decay": "linear"}),
    ("clm-conv-pre-gelu-h2",
     {"arch": "conv", "decay": "cosine", "weight_decay": 0.1}),
    ("clm-conv-post-relu-h4-sinusoidal",
     {"arch": "conv", "heads": 4, "norm": "post", "act": "relu", "pos": "sinusoidal",
      "decay": "linear"}),
    # n = 256: mixbench's conv switches to its FFT path there (SPEC: "results
    # must agree with the direct sum"); the reference is the direct sum
    # mamba (docs/mixers-ssm.md): default state 16 and expand 2, then a
    # narrow state, a wider expansion and post-norm
    ("clm-mamba-pre-gelu",
     {"arch": "mamba", "decay": "cosine", "weight_decay": 0.1}),
    ("clm-mamba-post-relu-state4-expand3-learned",
     {"arch": "mamba", "state": 4, "expand": 3, "norm": "post", "act": "relu", "pos": "learned",
      "decay": "linear"}),
    # hyena (docs/mixers-ssm.md): order 2 with its implicit filter, the
    # direct long convolution below n 256, the FFT from it; post-norm with
    # learned positions
    ("clm-hyena-pre-gelu",
     {"arch": "hyena", "decay": "cosine", "weight_decay": 0.1}),
    ("clm-hyena-post-relu-n40-learned",
     {"arch": "hyena", "n_ctx": 40, "d": 8, "norm": "post", "act": "relu", "pos": "learned",
      "decay": "linear"}),
    ("clm-hyena-n256-fft-path",
     {"arch": "hyena", "n_ctx": 256, "d": 8, "layers": 1, "batch": 2,
      "decay": "cosine", "weight_decay": 0.1}),
    ("clm-conv-n256-fft-path",
     {"arch": "conv", "n_ctx": 256, "d": 8, "layers": 1, "batch": 2,
      "decay": "cosine", "weight_decay": 0.1}),
    # gla (docs/mixers.md): both gates; n = 150 runs three chunks of 64
    # (the last ragged) with a carried state and sub-chunks of 16; the
    # reference is the plain recurrence
    ("clm-gla-data-pre-gelu",
     {"arch": "gla", "decay": "cosine", "weight_decay": 0.1}),
    ("clm-gla-fixed-post-relu-nopos",
     {"arch": "gla", "gate": "fixed", "norm": "post", "act": "relu", "pos": "none",
      "decay": "linear"}),
    ("clm-gla-data-rank3-h4-sinusoidal",
     {"arch": "gla", "gate_rank": 3, "heads": 4, "pos": "sinusoidal", "decay": "cosine"}),
    ("clm-gla-n150-data-chunks",
     {"arch": "gla", "n_ctx": 150, "d": 8, "layers": 1, "batch": 2, "gate_rank": 3,
      "decay": "cosine", "weight_decay": 0.1}),
    ("clm-gla-n150-fixed-chunks",
     {"arch": "gla", "gate": "fixed", "n_ctx": 150, "d": 8, "layers": 1, "batch": 2,
      "decay": "cosine"}),

    # d = 10: a parameter of 10 or 100 floats is not a multiple of the 16
    # floats the model aligns tensors to, so a mixer that reads adjacent
    # declarations as one (attention's wq|wk|wv, bq|bk|bv) meets the layout
    # (engine/sparse.c sparse_layout packs a block's mixer parameters)
    ("clm-attention-d10", {"arch": "attention", "d": 10, "decay": "cosine"}),
    ("clm-mixer-d10", {"arch": "mixer", "d": 10, "decay": "cosine"}),
    ("clm-dispatcher-d10", {"arch": "dispatcher", "d": 10, "decay": "cosine"}),
    ("clm-cumsum-d10", {"arch": "cumsum", "d": 10, "decay": "cosine"}),
    ("clm-conv-d10", {"arch": "conv", "d": 10, "decay": "cosine"}),
    ("clm-pairconnect-d10", {"arch": "pairconnect", "d": 10, "hash_size": 50, "d_pair": 6,
                             "decay": "cosine"}),
    ("mlm-fft-d10", {"task": "mlm", "arch": "fft", "d": 10, "decay": "cosine"}),
    ("clm-gla-d10-data", {"arch": "gla", "d": 10, "decay": "cosine"}),
    ("clm-gla-d10-fixed", {"arch": "gla", "gate": "fixed", "d": 10, "decay": "cosine"}),

    # ---- mlm: bidirectional mixers; training masks from the run's generator
    ("mlm-attention-pre-gelu-learned-cosine",
     {"task": "mlm", "arch": "attention", "decay": "cosine", "weight_decay": 0.1}),
    ("mlm-attention-post-relu-sinusoidal-tie-linear",
     {"task": "mlm", "arch": "attention", "norm": "post", "act": "relu",
      "pos": "sinusoidal", "tie": "true", "decay": "linear", "seed": 11}),
    ("mlm-mixer-pre-gelu-nopos-cosine",
     {"task": "mlm", "arch": "mixer", "decay": "cosine", "weight_decay": 0.1}),
    ("mlm-mixer-linear-none-none-learned-constant",
     {"task": "mlm", "arch": "mixer", "norm": "none", "act": "none", "pos": "learned",
      "decay": "constant", "seed": 12345678901}),
    ("mlm-fft-nd-pre-gelu",
     {"task": "mlm", "arch": "fft", "fft_mode": "nd", "decay": "cosine",
      "weight_decay": 0.1}),
    ("mlm-fft-fnet-post-gelu-learned",
     {"task": "mlm", "arch": "fft", "fft_mode": "fnet", "norm": "post",
      "pos": "learned", "decay": "linear"}),
    # batch 1, seed 25: steps 2, 3 and 6 draw an unmasked sequence, so their
    # batch has no target (loss 0, zero gradient, AdamW still steps)
    # wsd whose cool-down (0.5 of 6 steps) would start inside the warm-up
    # (4 steps): it takes the 2 steps after it
    ("mlm-mixer-pre-gelu-wsd-cooldown-after-warmup",
     {"task": "mlm", "arch": "mixer", "decay": "wsd", "cooldown": 0.5, "warmup": 4}),
    ("mlm-attention-B1-seed25-empty-steps",
     {"task": "mlm", "arch": "attention", "batch": 1, "seed": 25, "decay": "linear",
      "weight_decay": 0.1}),
    ("mlm-pairconnect-K50-mean",
     {"task": "mlm", "arch": "pairconnect", "hash_size": 50, "hash_seed": 7,
      "decay": "cosine", "weight_decay": 0.1}),
    ("mlm-pairconnect-K50-sum-dp8-tie",
     {"task": "mlm", "arch": "pairconnect", "hash_size": 50, "pair_reduce": "sum",
      "d_pair": 8, "tie": "true", "decay": "linear"}),
    # mlm_loss = all (section 3): same masks, every position a target
    ("mlm-attention-all-pre-gelu-learned",
     {"task": "mlm", "arch": "attention", "mlm_loss": "all", "decay": "cosine",
      "weight_decay": 0.1}),
    ("mlm-mixer-all-post-relu-tie",
     {"task": "mlm", "arch": "mixer", "mlm_loss": "all", "norm": "post", "act": "relu",
      "tie": "true", "decay": "linear"}),
    ("mlm-pairconnect-all-K50-mean",
     {"task": "mlm", "arch": "pairconnect", "mlm_loss": "all", "hash_size": 50,
      "hash_seed": 2, "decay": "cosine"}),
    ("mlm-fft-all-nd-pre-gelu",
     {"task": "mlm", "arch": "fft", "mlm_loss": "all", "fft_mode": "nd",
      "decay": "cosine", "weight_decay": 0.1}),

    # ---- bidir: fwd./rev. causal stacks sharing tok_emb and the head
    ("bidir-attention-pre-gelu-learned-cosine",
     {"task": "bidir", "arch": "attention", "decay": "cosine", "weight_decay": 0.1}),
    ("bidir-attention-post-relu-sinusoidal-tie-linear",
     {"task": "bidir", "arch": "attention", "norm": "post", "act": "relu",
      "pos": "sinusoidal", "tie": "true", "decay": "linear"}),
    ("bidir-mixer-pre-gelu-nopos-cosine",
     {"task": "bidir", "arch": "mixer", "decay": "cosine", "weight_decay": 0.1}),
    ("bidir-mixer-linear-none-none-learned-constant",
     {"task": "bidir", "arch": "mixer", "norm": "none", "act": "none", "pos": "learned",
      "decay": "constant"}),
    ("bidir-dispatcher-h1-sinusoidal",
     {"task": "bidir", "arch": "dispatcher", "heads": 1, "decay": "cosine"}),
    ("bidir-cumsum-pre-gelu-learned",
     {"task": "bidir", "arch": "cumsum", "pos": "learned", "decay": "linear",
      "weight_decay": 0.1}),
    ("bidir-pairconnect-K50-mean",
     {"task": "bidir", "arch": "pairconnect", "hash_size": 50, "hash_seed": 3,
      "decay": "cosine"}),
    ("bidir-pairconnect-K50-sum",
     {"task": "bidir", "arch": "pairconnect", "hash_size": 50, "pair_reduce": "sum",
      "d_pair": 8, "decay": "linear", "weight_decay": 0.1}),
    ("bidir-conv-pre-gelu",
     {"task": "bidir", "arch": "conv", "decay": "cosine"}),
    ("bidir-hyena-pre-gelu",
     {"task": "bidir", "arch": "hyena", "decay": "cosine"}),
    ("bidir-mamba-pre-gelu-state8",
     {"task": "bidir", "arch": "mamba", "state": 8, "decay": "cosine"}),
    ("bidir-gla-fixed-pre-gelu",
     {"task": "bidir", "arch": "gla", "gate": "fixed", "decay": "cosine"}),

    # ---- autoencode: enc./dec. stacks, e = encoder's last final-LN state
    ("autoencode-attention-pre-gelu-learned-cosine",
     {"task": "autoencode", "arch": "attention", "decay": "cosine",
      "weight_decay": 0.1}),
    ("autoencode-attention-post-relu-sinusoidal-tie-linear",
     {"task": "autoencode", "arch": "attention", "norm": "post", "act": "relu",
      "pos": "sinusoidal", "tie": "true", "decay": "linear"}),
    ("autoencode-mixer-pre-gelu-nopos-cosine",
     {"task": "autoencode", "arch": "mixer", "decay": "cosine", "weight_decay": 0.1}),
    ("autoencode-mixer-linear-none-none-learned-constant",
     {"task": "autoencode", "arch": "mixer", "norm": "none", "act": "none",
      "pos": "learned", "decay": "constant"}),
    ("autoencode-dispatcher-h2-default-learned",
     {"task": "autoencode", "arch": "dispatcher", "decay": "cosine"}),
    ("autoencode-dispatcher-h2-sinusoidal-wsd",
     {"task": "autoencode", "arch": "dispatcher", "pos": "sinusoidal", "decay": "wsd"}),
    ("autoencode-cumsum-pre-gelu",
     {"task": "autoencode", "arch": "cumsum", "decay": "cosine", "weight_decay": 0.1}),
    ("autoencode-fft-nd-pre-gelu",
     {"task": "autoencode", "arch": "fft", "fft_mode": "nd", "decay": "cosine"}),
    ("autoencode-fft-fnet-post-gelu-learned",
     {"task": "autoencode", "arch": "fft", "fft_mode": "fnet", "norm": "post",
      "pos": "learned", "decay": "linear", "weight_decay": 0.1}),

    # ---- complete: positions >= ceil(n/2) zeroed before block floor(L/2)
    ("complete-attention-pre-gelu-learned-cosine",
     {"task": "complete", "arch": "attention", "decay": "cosine", "weight_decay": 0.1}),
    ("complete-attention-L3-n7-post-relu-sinusoidal-tie",
     {"task": "complete", "arch": "attention", "layers": 3, "n_ctx": 7, "norm": "post",
      "act": "relu", "pos": "sinusoidal", "tie": "true", "decay": "linear"}),
    ("complete-mixer-pre-gelu-nopos-cosine",
     {"task": "complete", "arch": "mixer", "decay": "cosine"}),
    ("complete-mixer-L1-linear-none-none-learned",
     {"task": "complete", "arch": "mixer", "layers": 1, "norm": "none", "act": "none",
      "pos": "learned", "decay": "constant", "weight_decay": 0.1}),
    ("complete-cumsum-L3-pre-gelu",
     {"task": "complete", "arch": "cumsum", "layers": 3, "decay": "cosine"}),

    # ---- linattn (docs/mixers.md): both feature maps, both modes; n = 150
    # runs three chunks of 64 (the last ragged) with a carried state
    ("clm-linattn-taylor-pre-gelu",
     {"arch": "linattn", "feature_dim": 4, "decay": "cosine", "weight_decay": 0.1}),
    ("clm-linattn-elu1-post-relu-nopos",
     {"arch": "linattn", "feature_map": "elu1", "norm": "post", "act": "relu",
      "pos": "none", "decay": "linear"}),
    ("clm-linattn-n150-taylor-chunks",
     {"arch": "linattn", "n_ctx": 150, "d": 8, "layers": 1, "batch": 2, "feature_dim": 3,
      "decay": "cosine", "weight_decay": 0.1}),
    ("clm-linattn-n150-elu1-chunks",
     {"arch": "linattn", "feature_map": "elu1", "n_ctx": 150, "d": 8, "layers": 1,
      "batch": 2, "decay": "cosine"}),
    ("mlm-linattn-taylor-pre-gelu",
     {"task": "mlm", "arch": "linattn", "feature_dim": 4, "decay": "cosine"}),
    ("mlm-linattn-elu1-post-gelu",
     {"task": "mlm", "arch": "linattn", "feature_map": "elu1", "norm": "post",
      "decay": "linear", "weight_decay": 0.1}),

    # ---- ema (docs/mixers.md; the example of docs/adding-a-mixer.md): its
    # default span, a short one with post-norm and learned positions, and
    # the two causal stacks of bidir
    ("clm-ema-pre-gelu",
     {"arch": "ema", "decay": "cosine", "weight_decay": 0.1}),
    ("clm-ema-span8-post-relu-learned",
     {"arch": "ema", "ema_span": 8, "norm": "post", "act": "relu", "pos": "learned",
      "decay": "linear"}),
    ("bidir-ema-pre-gelu",
     {"task": "bidir", "arch": "ema", "decay": "cosine"}),
    # ---- swa (docs/mixers.md): windows inside n (1: each token alone), the
    # symmetric window of mlm, two causal stacks, and n = 150 with a window
    # of 20 across the tiles (a full query tile of 64, then ragged ones)
    ("clm-swa-w3-pre-gelu",
     {"arch": "swa", "window": 3, "decay": "cosine", "weight_decay": 0.1}),
    ("clm-swa-w1-post-relu-sinusoidal-tie",
     {"arch": "swa", "window": 1, "norm": "post", "act": "relu", "pos": "sinusoidal",
      "tie": "true", "decay": "linear"}),
    ("clm-swa-d10-w3", {"arch": "swa", "d": 10, "window": 3, "decay": "cosine"}),
    ("clm-swa-n150-w20-tiles",
     {"arch": "swa", "n_ctx": 150, "d": 8, "layers": 1, "batch": 2, "window": 20,
      "decay": "cosine", "weight_decay": 0.1}),
    ("mlm-swa-w2-pre-gelu",
     {"task": "mlm", "arch": "swa", "window": 2, "decay": "cosine"}),
    ("mlm-swa-all-w3-post-gelu",
     {"task": "mlm", "arch": "swa", "window": 3, "mlm_loss": "all", "norm": "post",
      "decay": "linear", "weight_decay": 0.1}),
    ("bidir-swa-w2-pre-gelu",
     {"task": "bidir", "arch": "swa", "window": 2, "decay": "cosine"}),
]


class Unsupported(Exception):
    """mixbench does not know the architecture (yet)."""


def make_data(root, rng, n=None):
    """An ids dataset for windows of n tokens (default BASE's n_ctx)."""
    os.makedirs(root, exist_ok=True)
    n = n or BASE["n_ctx"]
    # clm/complete have floor((T-1)/n) windows: train 19 (not 20; the 6 x 4
    # windows of a run wrap around), valid 12, test 8 (not 9); mlm, bidir and
    # autoencode floor(T/n): 20, 12, 9.
    sizes = {"train": 20 * n, "valid": 12 * n + 5, "test": 9 * n}
    streams = {}
    for split, T in sizes.items():
        s = rng.randint(2, V, size=T)
        streams[split] = s
        with open(os.path.join(root, split + ".txt"), "w") as f:
            i = 0
            while i < T:
                k = int(rng.randint(1, 12))
                f.write(" ".join(str(int(t)) for t in s[i:i + k]) + "\n")
                i += k
    return streams


def init_arrays(cfg, rng):
    out = {}
    for name, shp in R.param_shapes(cfg).items():
        a = rng.normal(0.0, 0.1, size=shp)
        last = name.split(".")[-1]
        if (".ln" in name or name.startswith("ln_f")) and last == "w":
            a = 1.0 + a  # LayerNorm gains around 1
        out[name] = a.astype(np.float32)
    return out


def rel(a, b, floor=1e-12):
    return abs(a - b) / max(abs(b), floor)


def kv_args(keys):
    out = []
    for k, v in keys.items():
        if k in ("arch", "task", "seed"):
            continue
        out.append("%s=%s" % (k, v))
    return out


def run_mixbench(mb, cfgkeys, datadir, init, steps, threads, work, verbose, tag=""):
    db = os.path.join(work, "t%d%s.db" % (threads, tag))
    save = os.path.join(work, "t%d%s.safetensors" % (threads, tag))
    for p in (db, db + "-wal", db + "-shm", save):
        if os.path.exists(p):
            os.remove(p)
    cmd = [mb, "run", "--arch", cfgkeys["arch"], "--task", cfgkeys.get("task", "clm"),
           "--data", datadir, "--tokenizer", "ids",
           "--steps", str(steps), "--order", "sequential", "--seed", str(cfgkeys["seed"]),
           "--threads", str(threads), "--db", db, "--save", save,
           "--init", init, "log_every=1"] + kv_args(cfgkeys)
    if verbose:
        print("  $ " + " ".join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    if p.returncode != 0 and "unknown architecture" in p.stderr:
        raise Unsupported(p.stderr.strip())
    if p.returncode != 0:
        raise RuntimeError("mixbench run (threads=%d) exited %d: %s" %
                           (threads, p.returncode, (p.stderr or p.stdout).strip()[-400:]))
    con = sqlite3.connect(db)
    try:
        rows = con.execute("select step, train_loss, lr, grad_norm from metrics "
                           "order by step").fetchall()
        evals = con.execute("select split, loss, accuracy, n_tokens, step, loss_all from evals "
                            "order by step").fetchall()
        tokens = con.execute("select step, tokens from metrics order by step").fetchall()
    finally:
        con.close()
    ev = {}
    for split, loss, acc, ntok, step, loss_all in evals:
        ev[split] = {"loss": loss, "accuracy": acc, "n_tokens": ntok,
                     "step": step, "loss_all": loss_all}  # the last evaluation wins
    w, meta = R.load_safetensors(save)
    return {"metrics": rows, "evals": ev, "tokens": tokens, "weights": w, "meta": meta,
            "ckpt": save, "stdout": p.stdout}


def mixbench_eval(mb, ckpt, datadir, split):
    cmd = [mb, "eval", "--ckpt", ckpt, "--data", datadir, "--tokenizer", "ids",
           "--split", split, "--json"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("mixbench eval exited %d: %s" %
                           (p.returncode, (p.stderr or p.stdout).strip()[-400:]))
    txt = p.stdout.strip()
    start = txt.find("{")
    return json.loads(txt[start:txt.rfind("}") + 1])


# An element whose (nonzero) gradient fell below this at some step is
# float32-ill-conditioned under AdamW (eps = 1e-8): its update depends on the
# gradient's last bits, so two correct float32 implementations may move it
# by different amounts of order lr.  Such elements are held to a loose bound
# (the total step budget) instead of TOL.
ILL_GRAD = 1e-6
NOISE_K = 10.0


def compare_weights(cfg, ref32, ref64, theirs, other, min_grad):
    """Final weights of one mixbench run (`theirs`) against the float32
    reference.  Per element the allowance is TOL * (tensor's max |w|) plus
    NOISE_K times the element's own float32 noise, estimated as the larger of
    |reference float32 - reference float64| and |this mixbench run - the
    other thread count's run| (Adam's eps makes a few elements chaotic; a
    real optimizer or model bug moves whole tensors and shows far above
    both).  Returns (max plain relative difference, its tensor, max relative
    difference beyond NOISE_K x noise (the quantity held to TOL), notes,
    problems)."""
    worst, worst_name, notes, problems = 0.0, "", [], []
    excess = 0.0
    exp = set(R.param_shapes(cfg))
    got = set(theirs)
    if exp - got:
        problems.append("checkpoint lacks %s" % sorted(exp - got))
    if got - exp:
        problems.append("checkpoint has unexpected %s" % sorted(got - exp))
    budget = 3.0 * sum(R.lr_at(cfg, s) for s in range(cfg["steps"]))
    for name in sorted(exp & got):
        a, b = theirs[name], ref32[name]
        if a.shape != b.shape:
            problems.append("%s shape %s vs %s" % (name, a.shape, b.shape))
            continue
        a = a.astype(np.float64)
        b = b.astype(np.float64)
        noise = np.abs(b - ref64[name].astype(np.float64))
        if other is not None and name in other and other[name].shape == a.shape:
            noise = np.maximum(noise, np.abs(a - other[name].astype(np.float64)))
        m = R.masked_entries(cfg, name)
        if m is not None and m.any():
            dm = float(np.abs(a[m] - b[m]).max())
            if dm > 0:
                notes.append("%s masked entries differ by %.2g (ignored)" % (name, dm))
        keep = np.ones(a.shape, dtype=bool) if m is None else ~m
        scale = max(float(np.abs(b[keep]).max()), 1e-6)
        ill = keep & (min_grad[name] < ILL_GRAD)
        if ill.any():
            di = float(np.abs(a[ill] - b[ill]).max())
            notes.append("%s: %d element(s) with a gradient below %g: "
                         "max abs diff %.2g (bound %.2g)"
                         % (name, int(ill.sum()), ILL_GRAD, di, budget))
            if di > budget:
                problems.append("%s ill-conditioned elements differ by %.3g > %.3g"
                                % (name, di, budget))
            keep = keep & ~ill
        if not keep.any():
            continue
        d = np.where(keep, np.abs(a - b), 0.0)
        r = float(d.max()) / scale
        if r > worst:
            worst, worst_name = r, name
        allowed = TOL * scale + NOISE_K * noise
        excess = max(excess, float(np.where(keep, d - NOISE_K * noise, 0.0).max()) / scale)
        bad = keep & (d > allowed)
        if bad.any():
            k = np.unravel_index(np.argmax(np.where(bad, d - allowed, -1.0)), d.shape)
            problems.append("%s: %d element(s) beyond float32 noise, e.g. %s mixbench "
                            "%.8g reference %.8g (float64 %.8g), rel %.2g"
                            % (name, int(bad.sum()), list(map(int, k)), a[k], b[k],
                               ref64[name][k], d[k] / scale))
        loose = keep & (d > TOL * scale) & ~bad
        if loose.any():
            notes.append("%s: %d element(s) above %g relative but within %g x their "
                         "float32 noise" % (name, int(loose.sum()), TOL, NOISE_K))
    return worst, worst_name, excess, notes, problems


def run_case(name, keys, args, datadir, streams, work):
    allkeys = dict(BASE)
    allkeys.update(keys)
    allkeys["steps"] = args.steps
    allkeys.setdefault("task", "clm")
    cfg = R.make_config(**allkeys)
    rng = np.random.RandomState((zlib.crc32(name.encode()) + 7919 * args.seed) & 0x7fffffff)
    init = init_arrays(cfg, rng)
    init_path = os.path.join(work, "init.safetensors")
    R.save_safetensors(init_path, init, R.metadata_for(cfg))

    mbkeys = dict(allkeys)
    del mbkeys["steps"]
    res = {t: run_mixbench(args.mixbench, mbkeys, datadir, init_path, args.steps,
                           t, work, args.verbose) for t in (1, 2)}

    # Reference: same init, same windows.
    P = R.params_from_arrays(cfg, init)
    stats = {}
    hist = R.train(P, cfg, streams["train"], stats=stats)
    ref_w = R.arrays_of(P)
    P64 = R.params_from_arrays(cfg, init, dtype=torch.float64)
    hist64 = R.train(P64, cfg, streams["train"])
    ref_w64 = R.arrays_of(P64)
    ref_ev = {s: R.evaluate(P, cfg, streams[s]) for s in ("valid", "test")}

    fails, info = [], []
    m = {"loss": 0.0, "grad_norm": 0.0, "lr": 0.0, "eval": 0.0,
         "eval_same_w": 0.0, "weights": 0.0, "weights_beyond_noise": 0.0}
    if cfg["task"] == "mlm":
        m.update({"eval_loss_all": 0.0, "eval_loss_all_same_w": 0.0})

    def check_loss_all(where, got, want, key):
        """loss_all as mixbench reported it (None: absent) against the
        reference's (None for tasks other than mlm)."""
        if want is None:
            if got is not None:
                fails.append("%s: loss_all %r for task %s, expected none"
                             % (where, got, cfg["task"]))
            return
        if got is None:
            fails.append("%s: no loss_all for mlm" % where)
            return
        d = rel(float(got), want)
        m[key] = max(m[key], d)
        if d > TOL:
            fails.append("%s loss_all mixbench %.9g reference %.9g (rel %.2g)"
                         % (where, float(got), want, d))
    for t, r in res.items():
        rows = r["metrics"]
        if len(rows) != len(hist):
            fails.append("threads=%d: %d metric rows, expected %d" %
                         (t, len(rows), len(hist)))
            continue
        for (step, loss, lr, gn), h, h64 in zip(rows, hist, hist64):
            if step != h["step"]:
                fails.append("threads=%d: metric step %s, expected %d" % (t, step, h["step"]))
                break
            for key, got in (("loss", loss), ("lr", lr), ("grad_norm", gn)):
                d = rel(got, h[key]) if h[key] != 0 else abs(got)
                m[key] = max(m[key], d)
                if d > TOL:
                    fails.append("threads=%d step %d %s mixbench %.9g reference %.9g "
                                 "(float64 %.9g) rel %.2g"
                                 % (t, step, key, got, h[key], h64[key], d))
        # Final evaluation as the run reported it (on its own trajectory).
        for split in ("valid", "test"):
            e = r["evals"].get(split)
            if e is None:
                fails.append("threads=%d: no %s eval in the db" % (t, split))
                continue
            ntok = ref_ev[split]["targets"]
            if e["n_tokens"] != ntok or e["step"] != args.steps:
                fails.append("threads=%d %s eval: %s target tokens at step %s, expected "
                             "%d at step %d" % (t, split, e["n_tokens"], e["step"], ntok,
                                                args.steps))
            d = rel(e["loss"], ref_ev[split]["loss"])
            m["eval"] = max(m["eval"], d)
            if d > TOL:
                fails.append("threads=%d %s loss mixbench %.9g reference %.9g (rel %.2g)"
                             % (t, split, e["loss"], ref_ev[split]["loss"], d))
            if e["accuracy"] is not None and abs(e["accuracy"] - ref_ev[split]["accuracy"]) > 1e-9:
                fails.append("threads=%d %s accuracy mixbench %.6f reference %.6f"
                             % (t, split, e["accuracy"], ref_ev[split]["accuracy"]))
            check_loss_all("threads=%d %s eval" % (t, split), e["loss_all"],
                           ref_ev[split]["loss_all"], "eval_loss_all")
        per_step = cfg["batch"] * cfg["n_ctx"]
        bad_tok = [(st, tk) for st, tk in r["tokens"] if tk != st * per_step]
        if bad_tok:
            fails.append("threads=%d metrics.tokens %s, expected step x %d"
                         % (t, bad_tok[:2], per_step))
        # Weights.
        other = res[3 - t]["weights"]
        worst, wname, excess, notes, probs = compare_weights(cfg, ref_w, ref_w64, r["weights"],
                                                     other, stats["min_abs_grad"])
        m["weights"] = max(m["weights"], worst)
        m["weights_beyond_noise"] = max(m["weights_beyond_noise"], excess)
        info += ["threads=%d: %s" % (t, s) for s in notes]
        fails += ["threads=%d: %s" % (t, s) for s in probs]

    # Same seed and thread count give the same numbers, bit for bit (section
    # 5): repeat the threads=2 run.
    rep = run_mixbench(args.mixbench, mbkeys, datadir, init_path, args.steps, 2,
                       work, args.verbose, tag="-again")
    if rep["metrics"] != res[2]["metrics"]:
        fails.append("threads=2 repeated run: metrics not bit-identical")
    if rep["evals"] != res[2]["evals"]:
        fails.append("threads=2 repeated run: evals not bit-identical")
    diff = [k for k in res[2]["weights"]
            if k not in rep["weights"] or
            res[2]["weights"][k].tobytes() != rep["weights"][k].tobytes()]
    if diff:
        fails.append("threads=2 repeated run: weights not bit-identical (%s)" % diff[:3])

    # Section 7 metadata: a reader following the SPEC must recover the config.
    meta_problems = []
    for t, r in res.items():
        mcfg, probs = R.config_from_metadata(r["meta"])
        for k in R.MODEL_DEFAULTS:
            if mcfg[k] != cfg[k]:
                probs.append("%s reads as %r, the run used %r" % (k, mcfg[k], cfg[k]))
        meta_problems += ["%s: %s" % (name, p) for p in probs if "%s: %s" % (name, p)
                          not in meta_problems]

    # `mixbench eval` on the threads=1 checkpoint versus the reference on the
    # very same weights (isolates evaluation from training drift).
    r1 = res[1]
    try:
        Pm = R.params_from_arrays(cfg, r1["weights"])
        for split in ("valid", "test"):
            je = mixbench_eval(args.mixbench, r1["ckpt"], datadir, split)
            re_ = R.evaluate(Pm, cfg, streams[split])
            if je.get("windows") != re_["windows"] or je.get("targets") != re_["targets"]:
                fails.append("eval --json %s: %s windows / %s targets, expected %d / %d"
                             % (split, je.get("windows"), je.get("targets"), re_["windows"],
                                re_["targets"]))
            d = rel(float(je["loss"]), re_["loss"])
            m["eval_same_w"] = max(m["eval_same_w"], d)
            if d > TOL:
                fails.append("eval --json %s loss mixbench %.9g reference %.9g (rel %.2g)"
                             % (split, je["loss"], re_["loss"], d))
            if abs(float(je["accuracy"]) - re_["accuracy"]) > 1e-9:
                fails.append("eval --json %s accuracy mixbench %.6f reference %.6f"
                             % (split, je["accuracy"], re_["accuracy"]))
            check_loss_all("eval --json %s" % split, je.get("loss_all"), re_["loss_all"],
                           "eval_loss_all_same_w")
    except (RuntimeError, KeyError, ValueError) as e:
        fails.append(str(e))

    # threads=1 vs threads=2: same math, only summation order may differ.
    l1 = [x[1] for x in res[1]["metrics"]]
    l2 = [x[1] for x in res[2]["metrics"]]
    t12 = max([rel(a, b) for a, b in zip(l1, l2)] or [0.0])
    summary = ("loss %.1e  grad_norm %.1e  lr %.1e  eval %.1e  eval(same w) %.1e  "
               "weights %.1e (beyond float32 noise %.1e)  threads1-vs-2 loss %.1e"
               % (m["loss"], m["grad_norm"], m["lr"], m["eval"], m["eval_same_w"],
                  m["weights"], m["weights_beyond_noise"], t12))
    if "eval_loss_all" in m:
        summary += "  loss_all %.1e  loss_all(same w) %.1e" % (m["eval_loss_all"],
                                                             m["eval_loss_all_same_w"])
    return fails, info, summary, m, meta_problems


# init cases: (arch, task, emb_std given or None, init).  vocab 400 x d 64
# gives tok_emb 25,600 draws, so its sample std is within 1% of the true one.
# init=fan_in for every architecture, at heads 1 so that the dispatcher's
# win and wout ([d/h, d/h]) have 4,096 draws too.
INIT_CASES = [("attention", "clm", None, "gpt2"), ("dispatcher", "clm", None, "gpt2"),
              ("pairconnect", "mlm", None, "gpt2"), ("mixer", "clm", None, "gpt2"),
              ("mixer", "mlm", None, "gpt2"), ("fft", "mlm", None, "gpt2"),
              ("cumsum", "clm", None, "gpt2"), ("cumsum", "bidir", None, "gpt2"),
              ("cumsum", "clm", "0.02", "gpt2"), ("conv", "clm", None, "gpt2"),
              ("attention", "mlm", "0.5", "gpt2"), ("mixer", "clm", "0.02", "gpt2"),
              ("mamba", "clm", None, "gpt2"), ("hyena", "clm", None, "gpt2"),
              ("linattn", "clm", None, "gpt2"), ("ema", "clm", None, "gpt2"),
              ("gla", "clm", None, "gpt2"), ("swa", "clm", None, "gpt2")] + \
             [(arch, "mlm" if arch in ("fft",) else "clm", None, "fan_in")
              for arch in ("attention", "dispatcher", "pairconnect", "mixer", "fft", "cumsum",
                           "conv", "linattn", "mamba", "hyena", "ema", "gla", "swa")] + \
             [("attention", "clm", "1", "fan_in")]
INIT_REL = 0.03   # relative tolerance on a tensor's std (>= 4,096 draws)


def check_init(mb, datadir, work):
    """Section 5's init, per architecture: a run with lr 0 (one step: the
    weights do not move) saves mixbench's fresh weights; every random tensor
    with at least 4,096 elements must have the std R.init_std gives it
    (tok_emb: emb_std; linear weights: 0.02, or 1/sqrt(fan_in) under
    init=fan_in), and the metadata must name the emb_std and init used.
    Returns (fails, [(case, tok_emb std)], skipped archs)."""
    fails, seen, skipped = [], [], []
    for arch, task, emb, init in INIT_CASES:
        keys = {"vocab": 400, "d": 64, "heads": 2 if init == "gpt2" else 1, "layers": 1,
                "n_ctx": 8, "batch": 1, "lr": 0, "warmup": 0, "hash_size": 100, "init": init}
        if emb is not None:
            keys["emb_std"] = emb
        cfg = R.make_config(arch=arch, task=task, **keys)
        save = os.path.join(work, "init-%s-%s-%s.safetensors" % (arch, task, emb))
        cmd = [mb, "run", "--arch", arch, "--task", task, "--data", datadir,
               "--tokenizer", "ids", "--steps", "1", "--threads", "1", "--seed", "9",
               "--db", os.path.join(work, "init.db"), "--save", save] + kv_args(keys)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=120)
        if p.returncode != 0 and "unknown architecture" in p.stderr:
            skipped.append(arch)
            continue
        name = "%s/%s emb_std=%s init=%s" % (arch, task, emb or "default", init)
        if p.returncode != 0:
            fails.append("%s: mixbench run exited %d: %s" % (name, p.returncode,
                                                              p.stderr.strip()[-200:]))
            continue
        w, meta = R.load_safetensors(save)
        if float(meta.get("emb_std", "nan")) != cfg["emb_std"]:
            fails.append("%s: metadata emb_std %r, the run used %g" % (name, meta.get("emb_std"),
                                                                       cfg["emb_std"]))
        if meta.get("init") != init:
            fails.append("%s: metadata init %r" % (name, meta.get("init")))
        for tname, a in sorted(w.items()):
            want = R.init_std(cfg, tname, a.shape)
            if want is None or a.size < 4096:
                continue
            got = float(np.sqrt(np.mean(a.astype(np.float64) ** 2)))
            if tname == "tok_emb":
                seen.append((name, got))
            if abs(got / want - 1.0) > INIT_REL:
                fails.append("%s: %s has std %.4g, section 5 gives %.4g" % (name, tname, got, want))
    return fails, seen, skipped


def check_task_pairs(mb, datadir, work):
    """Section 3: 'An architecture/task pair outside these rules is refused
    with a message that says why, before any work starts.'  For every arch
    mixbench knows and every task: a 1-step run must succeed exactly when
    R.task_refusal allows the pair, and a refusal must exit nonzero, name the
    task and leave no run in the store.  Returns (fails, skipped archs,
    pairs checked)."""
    fails, skipped, checked = [], [], 0
    for arch in sorted(R.DEFAULT_POS):
        for task in R.TASKS:
            cfg = R.make_config(arch=arch, task=task, vocab=V, d=8, heads=1, layers=1,
                                n_ctx=8, batch=1, hash_size=10)
            db = os.path.join(work, "pairs-%s-%s.db" % (arch, task))
            cmd = [mb, "run", "--arch", arch, "--task", task, "--data", datadir,
                   "--tokenizer", "ids", "--steps", "1", "--order", "sequential",
                   "--threads", "1", "--db", db, "--save", db + ".safetensors",
                   "vocab=%d" % V, "d=8", "heads=1", "layers=1", "n_ctx=8", "batch=1",
                   "hash_size=10"]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=120)
            if p.returncode != 0 and "unknown architecture" in p.stderr:
                skipped.append(arch)
                break
            checked += 1
            why = R.task_refusal(cfg)
            msg = (p.stderr or p.stdout).strip().replace("\n", " ")[-200:]
            if why is None and p.returncode != 0:
                fails.append("%s/%s refused but the SPEC allows it: %s" % (arch, task, msg))
            elif why is not None:
                if p.returncode == 0:
                    fails.append("%s/%s accepted but the SPEC refuses it (%s)"
                                 % (arch, task, why))
                    continue
                if task not in p.stderr:
                    fails.append("%s/%s refusal does not name the task: %s"
                                 % (arch, task, msg))
                runs = 0
                if os.path.exists(db):
                    con = sqlite3.connect(db)
                    try:
                        runs = con.execute("select count(*) from runs").fetchone()[0]
                    except sqlite3.Error:
                        runs = 0
                    finally:
                        con.close()
                if runs:
                    fails.append("%s/%s refused only after a run was recorded" % (arch, task))
    return fails, skipped, checked


def check_coverage(mb):
    """Every architecture mixbench knows (`mixbench complete archs`) has its
    naive form in the reference (R.MIXERS, R.MIXER_MODES, R.DEFAULT_POS) and
    at least one case in CASES, so that a new mixer cannot pass without
    them (docs/adding-a-mixer.md).  Returns (fails, archs checked)."""
    p = subprocess.run([mb, "complete", "archs"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=60)
    archs = p.stdout.split()
    if p.returncode != 0 or not archs:
        return ["mixbench complete archs exited %d: %s" % (p.returncode, p.stderr.strip())], 0
    fails = []
    cased = {keys["arch"] for _name, keys in CASES}
    for arch in archs:
        missing = [what for what, table in (("MIXERS", R.MIXERS), ("MIXER_MODES", R.MIXER_MODES),
                                            ("DEFAULT_POS", R.DEFAULT_POS)) if arch not in table]
        if missing:
            fails.append("%s has no entry in reference.py's %s" % (arch, ", ".join(missing)))
        if arch not in cased:
            fails.append("%s has no case in crosscheck.py's CASES" % arch)
    return fails, len(archs)


def unknown(archs):
    return "; unknown to mixbench: " + " ".join(archs) if archs else ""


def report(name, problems, detail):
    """Prints `FAIL crosscheck NAME: ...` with the first problems, else
    `PASS crosscheck NAME<detail>` (detail None: nothing was checked, nothing
    printed).  Returns 1 on FAIL."""
    if problems:
        print("FAIL crosscheck %s: %s" % (name, "; ".join(problems[:6]) +
                                          ("; ... %d more" % (len(problems) - 6)
                                           if len(problems) > 6 else "")))
        return 1
    if detail is not None:
        print("PASS crosscheck %s%s" % (name, detail))
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", "..", ".."))
    ap = argparse.ArgumentParser()
    ap.add_argument("--mixbench", default=os.environ.get("MIXBENCH",
                                                         os.path.join(root, "mixbench")))
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--cases", default="")
    ap.add_argument("--seed", type=int, default=0,
                    help="varies the data and the init weights (default 0)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()
    args.mixbench = os.path.abspath(args.mixbench)
    if not os.access(args.mixbench, os.X_OK):
        print("FAIL crosscheck: no mixbench binary at %s" % args.mixbench)
        return 1

    sel = [c for c in args.cases.split(",") if c]
    tmp = tempfile.mkdtemp(prefix="mixbench-crosscheck-")
    nfail = 0
    overall = {}
    meta_problems, meta_checked = [], 0
    try:
        # A private copy, so that a rebuild in the work tree mid-run cannot
        # swap binaries between the cases.
        snap = os.path.join(tmp, "mixbench")
        shutil.copy2(args.mixbench, snap)
        args.mixbench = snap
        datadir = os.path.join(tmp, "data")
        streams = make_data(datadir, np.random.RandomState(20240601 + args.seed))
        data_by_n = {BASE["n_ctx"]: (datadir, streams)}
        for name, keys in CASES:
            if sel and not any(s in name for s in sel):
                continue
            n = keys.get("n_ctx", BASE["n_ctx"])
            if n > BASE["n_ctx"] and n not in data_by_n:  # long windows: own data
                d_n = os.path.join(tmp, "data-n%d" % n)
                data_by_n[n] = (d_n, make_data(d_n, np.random.RandomState(
                    20240601 + n + args.seed), n))
            case_dir, case_streams = data_by_n.get(n, data_by_n[BASE["n_ctx"]])
            work = os.path.join(tmp, name)
            os.makedirs(work)
            try:
                fails, info, summary, m, mp = run_case(name, keys, args, case_dir,
                                                       case_streams, work)
                meta_problems += mp
                meta_checked += 1
            except Unsupported as e:
                print("SKIP crosscheck %s: %s" % (name, e))
                continue
            except Exception as e:  # a crash or refusal is a failure of the case
                fails, info, summary, m = ["%s: %s" % (type(e).__name__, e)], [], "", {}
            for k, v in m.items():
                overall[k] = max(overall.get(k, 0.0), v)
            if args.verbose:
                for s in info:
                    print("  note: " + s)
            if fails:
                nfail += 1
                print("FAIL crosscheck %s: %s" % (name, "; ".join(fails[:8]) +
                                                  ("; ... %d more" % (len(fails) - 8)
                                                   if len(fails) > 8 else "")))
                if summary:
                    print("  max rel diff: " + summary)
            else:
                print("PASS crosscheck %s" % name)
                if args.verbose:
                    print("  max rel diff: " + summary)
        if not sel or any(s in "task-pairs" for s in sel):
            work = os.path.join(tmp, "task-pairs")
            os.makedirs(work)
            pf, skipped, npairs = check_task_pairs(args.mixbench, datadir, work)
            nfail += report("task-pairs", pf, " (%d arch/task pairs%s)" % (npairs, unknown(skipped))
                            if npairs else None)
        if not sel or any(s in "init" for s in sel):
            work = os.path.join(tmp, "init")
            os.makedirs(work)
            inf, seen, skipped = check_init(args.mixbench, datadir, work)
            nfail += report("init", inf, " (tok_emb std: %s%s)" % (
                ", ".join("%s %.4f" % x for x in seen), unknown(skipped)) if seen else None)
        if not sel or any(s in "coverage" for s in sel):
            cf, narchs = check_coverage(args.mixbench)
            nfail += report("coverage", cf, " (%d architectures, each with a reference form and cases)"
                            % narchs)
        if meta_checked:
            nfail += report("checkpoint-metadata", meta_problems, "")
        if overall:
            print("crosscheck max rel diff over all cases: " +
                  "  ".join("%s %.1e" % (k, v) for k, v in sorted(overall.items())))
    finally:
        if args.keep:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
