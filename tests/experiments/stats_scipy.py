"""tests/experiments/stats_scipy.py — the intervals, p-values and Holm
adjustments of experiments/stats.c recomputed with scipy.stats from the
same hand-made seed groups as tests/experiments/test_stats.c, and compared
with `test_stats --dump` (read on stdin) to 1e-9 relative.

Welch's p-values come from scipy.stats.ttest_ind(equal_var=False), the
one-sample bounds from scipy.stats.ttest_1samp(...).confidence_interval,
the quantiles of the Welch and ratio bounds from scipy.stats.t.ppf; Holm is
recomputed here step by step.  Prints one "PASS name" / "FAIL name" line
per group of numbers; exits 1 on any difference.
"""
import math
import sys

import numpy as np
from scipy import stats

G = {"g1": [4.0, 4.1, 3.9], "g2": [5.0, 5.3, 4.8, 5.1], "g3": [1.00, 1.02, 0.98, 1.01, 0.99],
     "g4": [1.03, 1.05, 1.01]}
PAIRS = [("g1", "g2"), ("g3", "g4"), ("g4", "g3"), ("g2", "g1")]
ALPHAS = [0.05, 0.025, 0.1]


def tppf(p, df):
    """scipy.stats.t.ppf, polished by two Newton steps on scipy's own sf:
    scipy 1.10's ppf is off by about 1e-9 at fractional df (its sf at the
    ppf misses 1 - p by 1e-10), GSL's after the same polish agrees with sf
    to rounding."""
    x = stats.t.ppf(p, df)
    for _ in range(2):
        x -= ((1 - p) - stats.t.sf(x, df)) / stats.t.pdf(x, df)
    return x


def se(x):
    return np.std(x, ddof=1) / math.sqrt(len(x))


def welch(a, b):
    va, vb = se(a) ** 2, se(b) ** 2
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return np.mean(a) - np.mean(b), math.sqrt(va + vb), df


def ratio(a, b):
    r = np.mean(a) / np.mean(b)
    return r, abs(r) * math.sqrt((se(a) / np.mean(a)) ** 2 + (se(b) / np.mean(b)) ** 2), welch(a, b)[2]


def want():
    w = {}
    for na, nb in PAIRS:
        a, b = G[na], G[nb]
        d, s, df = welch(a, b)
        k = "diff_%s_%s_" % (na, nb)
        w[k + "est"], w[k + "df"] = d, df
        w[k + "p_below0"] = stats.ttest_ind(a, b, equal_var=False, alternative="less").pvalue
        w[k + "p_above0"] = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue
        r, rs, rdf = ratio(a, b)
        for al in ALPHAS:
            t = tppf(1 - al, df)
            w[k + "lower_%g" % al], w[k + "upper_%g" % al] = d - t * s, d + t * s
            t = tppf(1 - al, rdf)
            w["ratio_%s_%s_lower_%g" % (na, nb, al)], w["ratio_%s_%s_upper_%g" % (na, nb, al)] = r - t * rs, r + t * rs
        for m, name in ((0.10, "p10"), (0.05, "p5")):
            # TOST: the larger of the two one-sided p-values
            p_lo = stats.t.sf((r - (1 - m)) / rs, rdf)
            p_hi = stats.t.cdf((r - (1 + m)) / rs, rdf)
            w["tost_%s_%s_%s" % (na, nb, name)] = max(p_lo, p_hi)
    for n, x in G.items():
        ci = stats.ttest_1samp(x, 0.0).confidence_interval(confidence_level=0.90)
        w["mean_%s_lower_0.05" % n], w["mean_%s_upper_0.05" % n] = ci.low, ci.high
        w["mean_%s_p_below1.01" % n] = stats.ttest_1samp(x, 1.01, alternative="less").pvalue
    p = [0.01, 0.04, 0.03, 0.005, 0.2, 0.011]
    order = sorted(range(len(p)), key=lambda i: p[i])
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, p[i] * (len(p) - k)))
        w["holm_%d" % i] = running
    return w


def main():
    got = {}
    for line in sys.stdin:
        name, value = line.split()
        got[name] = float(value)
    w = want()
    bad = 0
    for group in ("diff", "ratio", "tost", "mean", "holm"):
        names = [n for n in w if n.startswith(group + "_")]
        wrong = [n for n in names if n not in got or not math.isclose(got[n], w[n], rel_tol=1e-9, abs_tol=1e-300)]
        if wrong or not names:
            bad += 1
            print("FAIL scipy_%s %s" % (group, "; ".join("%s C %s scipy %r" % (n, got.get(n), w[n]) for n in wrong[:4])))
        else:
            print("PASS scipy_%s" % group)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
