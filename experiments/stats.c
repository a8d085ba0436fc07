/*
 * stats.c — seed_stats of stats.h: mean, sample standard deviation,
 * standard error and range, two passes (numerically stable for the few
 * values a seed group has).
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
