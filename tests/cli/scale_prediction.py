#!/usr/bin/env python3
"""tests/cli/scale_prediction.py — docs/scale.md's predicted efficiency at 8
and 64 nodes, without and with the exchange overlapped with backward
(MIXBENCH_ALLREDUCE=overlap).  A model, not a measurement, and not a test:
its inputs are the bench configs' shapes and the compute seconds per step
measured here (docs/scale.md, 1 rank x 2 threads); its assumptions are in
the comments and in docs/scale.md.

    python3 tests/cli/scale_prediction.py            # the markdown tables
"""

# arch, config, parameters, compute s/step on one node (docs/scale.md), learned positions
RUNS = [
    ("attention", "S", 8305936, 0.560), ("attention", "M", 35535632, 2.687),
    ("mixer", "S", 7303440, 0.463), ("mixer", "M", 28121872, 1.912),
    ("pairconnect", "S", 13188368, 0.676), ("pairconnect", "M", 82983696, 5.313),
    ("dispatcher", "S", 7271184, 0.463), ("dispatcher", "M", 27134224, 1.871),
    ("cumsum", "S", 7236880, 0.401), ("cumsum", "M", 27065104, 1.672),
    ("fft", "S", 7236880, 0.223), ("fft", "M", 27065104, 1.336),
    ("conv", "S", 7237904, 0.409), ("conv", "M", 27073296, 1.832),
]
SHAPE = {"S": dict(V=10000, d=256, L=4), "M": dict(V=10000, d=512, L=8)}
LATENCY = 25e-6   # seconds per message step over TCP (Rabenseifner: 2 log2 N steps a bucket)


def buckets(params, cfg):
    """Gradient bytes of the head (lm_head), each block, and the rest (tok_emb, final norm)."""
    V, d, L = SHAPE[cfg]["V"], SHAPE[cfg]["d"], SHAPE[cfg]["L"]
    head, rest = V * d + V, V * d + 2 * d
    return 4.0 * head, [4.0 * (params - head - rest) / L] * L, 4.0 * rest


def exchange_seconds(nbytes, nodes, gbit):
    """Reduce-scatter + all-gather (ring or Rabenseifner): 2 (N-1)/N of the bytes through each link."""
    steps = 2 * (nodes.bit_length() - 1)
    return 2.0 * (nodes - 1) / nodes * nbytes / (gbit * 1e9 / 8) + steps * LATENCY


def exposed(params, cfg, compute, nodes, gbit, overlap):
    """Seconds the exchange adds to a step.  Backward is 2/3 of the step,
    spent on the head, then the blocks last to first, in proportion to their
    weights (the products dominate); the head's and a block's bucket may
    start when its backward ends (at the next block boundary), the rest when
    backward ends; one link, buckets in turn; Open MPI progresses a sum
    between the hook's calls (a NIC or progress thread doing the moving: on
    this machine it is not so, docs/scale.md)."""
    head, blocks, rest = buckets(params, cfg)
    if not overlap:
        return sum(exchange_seconds(b, nodes, gbit) for b in [head] + blocks + [rest])
    backward = compute * 2.0 / 3.0
    per_block = backward * blocks[0] / (sum(blocks) + head)
    t = backward - per_block * len(blocks)   # the head's backward
    link_free = t + per_block + exchange_seconds(head, nodes, gbit)   # started at the first block boundary
    for b in blocks:
        t += per_block
        link_free = max(link_free, t) + exchange_seconds(b, nodes, gbit)
    link_free = max(link_free, backward) + exchange_seconds(rest, nodes, gbit)
    return link_free - backward


def table(title, speedup=1.0, strong_nodes=None):
    print(title)
    print()
    print("| arch | config | compute s/step | exposed ms N=64 at 10 / 25 / 100 Gbit/s, no overlap | overlap "
          "| efficiency N=8 no overlap / overlap (10 Gbit) | N=64 no overlap / overlap at 10 / 25 / 100 |")
    print("|---|---|---:|---|---|---|---|")
    for arch, cfg, params, compute in RUNS:
        c = compute / speedup
        if strong_nodes:
            c /= strong_nodes
        e = lambda n, g, o: exposed(params, cfg, c, n, g, o)
        eff = lambda n, g, o: "%d%%" % round(100 * c / (c + e(n, g, o)))
        print("| %s | %s | %.3f | %s | %s | %s / %s | %s |" % (
            arch, cfg, c,
            " / ".join("%.1f" % (1e3 * e(64, g, False)) for g in (10, 25, 100)),
            " / ".join("%.1f" % (1e3 * e(64, g, True)) for g in (10, 25, 100)),
            eff(8, 10, False), eff(8, 10, True),
            " / ".join("%s / %s" % (eff(64, g, False), eff(64, g, True)) for g in (10, 25, 100))))
    print()


if __name__ == "__main__":
    table("Weak scaling, this machine's compute per node:")
    table("Weak scaling, a node 10x faster (about 32 cores):", speedup=10.0)
    table("Strong scaling at N=64, the bench batch split over the nodes (compute / 64):", strong_nodes=64)
