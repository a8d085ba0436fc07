/*
 * stats.h — the spread of a metric over the seeds of one sweep point: runs
 * that differ only in seed form a group, shown as mean +- standard error
 * (and min-max) wherever several seeds exist (Runs, Grid, Compare, report).
 *
 * Not for: reading the store (db/) or deciding verdicts (claims.h).
 */
#ifndef MIXBENCH_STATS_H
#define MIXBENCH_STATS_H

typedef struct {
    int n;              /* finite values seen (NaN/inf are left out) */
    double mean;        /* NAN when n == 0 */
    double sd;          /* sample standard deviation (n-1); 0 when n == 1, NAN when n == 0 */
    double se;          /* sd / sqrt(n); 0 when n == 1, NAN when n == 0 */
    double min, max;    /* NAN when n == 0 */
} SeedStats;

/* Statistics of the finite values among x[0..n). */
SeedStats seed_stats(const double *x, int n);

#endif
