/*
 * stats.c — seed_stats of stats.h: mean, sample standard deviation,
 * standard error and range, two passes (numerically stable for the few
 * values a seed group has); Student's t critical values and the Welch
 * margin of a difference of means.
 */
#include "experiments/stats.h"

#include <math.h>

SeedStats seed_stats(const double *x, int n)
{
    SeedStats s = {0, NAN, NAN, NAN, NAN, NAN};
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i])) continue;
        if (s.n == 0 || x[i] < s.min) s.min = x[i];
        if (s.n == 0 || x[i] > s.max) s.max = x[i];
        sum += x[i];
        s.n++;
    }
    if (s.n == 0) return s;
    s.mean = sum / s.n;
    if (s.n == 1) {
        s.sd = s.se = 0.0;
        return s;
    }
    double ss = 0.0;
    for (int i = 0; i < n; i++)
        if (isfinite(x[i])) ss += (x[i] - s.mean) * (x[i] - s.mean);
    s.sd = sqrt(ss / (s.n - 1));
    s.se = s.sd / sqrt((double)s.n);
    return s;
}

/* Two-sided 95% quantiles of Student's t (any statistics table). */
static const struct {
    double df, t;
} T95[] = {{1, 12.706}, {2, 4.303}, {3, 3.182}, {4, 2.776}, {5, 2.571}, {6, 2.447}, {7, 2.365},
           {8, 2.306}, {9, 2.262}, {10, 2.228}, {12, 2.179}, {15, 2.131}, {20, 2.086}, {30, 2.042},
           {60, 2.000}, {120, 1.980}};

double t_critical95(double df)
{
    int n = (int)(sizeof T95 / sizeof T95[0]);
    if (!(df > 1)) return T95[0].t;
    for (int i = 1; i < n; i++)
        if (df <= T95[i].df) {
            /* linear in 1/df, as the quantile nearly is */
            double u = (1 / T95[i - 1].df - 1 / df) / (1 / T95[i - 1].df - 1 / T95[i].df);
            return T95[i - 1].t + u * (T95[i].t - T95[i - 1].t);
        }
    double u = 1 - T95[n - 1].df / df;   /* to the normal's 1.960 at infinity */
    return T95[n - 1].t + u * (1.960 - T95[n - 1].t);
}

double noise_margin(const SeedStats *a, const SeedStats *b)
{
    double va = a->se * a->se, vb = b ? b->se * b->se : 0;
    if (!(va + vb > 0)) return 0;
    double df;
    if (!b) df = a->n - 1;
    else {
        /* Welch-Satterthwaite; a single seed (se 0) adds no variance and no term */
        double den = (a->n > 1 ? va * va / (a->n - 1) : 0) + (b->n > 1 ? vb * vb / (b->n - 1) : 0);
        df = den > 0 ? (va + vb) * (va + vb) / den : 1;
    }
    return t_critical95(df) * sqrt(va + vb);
}
