#!/usr/bin/python3
"""
bench_torch_infer.py -- batch-1 inference samples/s of mixbench beside
PyTorch's, on the PairConnect paper's Table 3 setting, measured alternately.

The setting is `mixbench bench --inference`'s (app/cmd_bench.c): d 256,
L 6, h 4, n 64, V 10000, batch 1, one thread, mlm (the bidirectional
mixers): one sample is a window of 64 random ids, every position through
the stack and the head, and the softmax cross-entropy at every position.
Models: attention and pairconnect at K = 100, 1000 and 10000 (--hash).
The PyTorch side is bench_torch.py's (reference.py's math; pairconnect's
pair hashes in numpy and its pair sums as F.embedding_bag, checked against
the reference by `bench_torch.py --check`), under torch.no_grad(), timed
as engine/infer_bench.c times it: 3 warm-up samples, then at least 10
samples and --seconds.  Each repeat runs `mixbench bench --inference
--arch pairconnect --json` (attention and every K in one process) and
the same models in PyTorch, which side first alternating.

Printed per model: each side's median samples/s, the median ratio mixbench
/ PyTorch with its spread, and each side's median ratio to its own
attention ("x att": the paper's Table 3 compares PairConnect with
attention within one implementation).

Usage: bench_torch_infer.py [--mixbench PATH] [--repeats R] [--seconds W]
                            [--hash 100,1000,10000] [--json]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_torch as BT  # noqa: E402
import reference as R  # noqa: E402

SETTING = {"vocab": 10000, "d": 256, "layers": 6, "heads": 4, "n_ctx": 64, "batch": 1}


def torch_samples_per_s(arch, hash_size, seconds):
    """Batch-1 samples/s of arch (pairconnect at hash_size) in PyTorch."""
    BT.set_threads(1)
    kw = dict(SETTING, arch=arch, task="mlm")
    if hash_size:
        kw["hash_size"] = hash_size
    c = R.make_config(**kw)
    gen = torch.Generator().manual_seed(1)
    P = BT.init_params(c, gen)
    n, V = c["n_ctx"], c["vocab"]
    inputs = torch.randint(2, V, (1, n), generator=gen).numpy()
    targets = torch.randint(2, V, (n,), generator=gen)

    def sample():
        rows = R.hidden_rows(P, c, inputs).reshape(-1, c["d"])
        F.cross_entropy(R.head(P, c, rows), targets)

    with torch.no_grad():
        for _ in range(3):
            sample()
        samples, t0 = 0, time.perf_counter()
        while samples < 10 or time.perf_counter() - t0 < seconds:
            sample()
            samples += 1
        return samples / (time.perf_counter() - t0)


def mixbench_samples_per_s(mixbench):
    """{(arch, hash_size): samples/s} from one `bench --inference` run."""
    cmd = [mixbench, "bench", "--inference", "--arch", "pairconnect", "--json"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), out.stderr.strip()))
    return {(r["arch"], r["hash_size"]): r["samples_per_s"] for r in json.loads(out.stdout)["inference"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--mixbench", default=os.environ.get(
        "MIXBENCH", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "mixbench")))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--hash", default="100,1000,10000")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.repeats < 1 or a.seconds <= 0:
        ap.error("--repeats and --seconds must be positive")
    BT.use_fast_mixers()
    models = [("attention", 0)] + [("pairconnect", int(k)) for k in a.hash.split(",")]
    got = {"mixbench": [], "torch": []}
    for r in range(a.repeats):
        for side in (["mixbench", "torch"] if r % 2 == 0 else ["torch", "mixbench"]):
            if side == "mixbench":
                got[side].append(mixbench_samples_per_s(a.mixbench))
            else:
                got[side].append({m: torch_samples_per_s(m[0], m[1], a.seconds) for m in models})
    lines = []
    for m in models:
        mb = [rep[m] for rep in got["mixbench"]]
        pt = [rep[m] for rep in got["torch"]]
        ratios = [x / y for x, y in zip(mb, pt)]
        mb_att = [rep[m] / rep[models[0]] for rep in got["mixbench"]]
        pt_att = [rep[m] / rep[models[0]] for rep in got["torch"]]
        lines.append({"arch": m[0], "hash_size": m[1], "repeats": a.repeats,
                      "mixbench_samples_per_s": round(statistics.median(mb), 2),
                      "torch_samples_per_s": round(statistics.median(pt), 2),
                      "ratio": round(statistics.median(ratios), 4),
                      "ratio_min": round(min(ratios), 4), "ratio_max": round(max(ratios), 4),
                      "mixbench_vs_attention": round(statistics.median(mb_att), 4),
                      "torch_vs_attention": round(statistics.median(pt_att), 4)})
    if a.json:
        print(json.dumps({"torch": torch.__version__, "results": lines}))
        return 0
    print("batch-1 inference samples/s, d 256, L 6, h 4, n 64, V 10000, mlm, 1 thread; "
          "mixbench / PyTorch %s, median of %d alternating repeats" % (torch.__version__, a.repeats))
    print("%-20s %10s %10s %7s %15s %11s %11s" % ("model", "mixbench", "pytorch", "ratio", "spread",
                                                  "x att (mb)", "x att (pt)"))
    for r in lines:
        label = "pairconnect K=%d" % r["hash_size"] if r["hash_size"] else r["arch"]
        print("%-20s %10.1f %10.1f %6.2fx %7.2f-%.2fx %10.2fx %10.2fx"
              % (label, r["mixbench_samples_per_s"], r["torch_samples_per_s"], r["ratio"], r["ratio_min"],
                 r["ratio_max"], r["mixbench_vs_attention"], r["torch_vs_attention"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
