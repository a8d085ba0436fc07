/*
 * stats.h — the spread of a metric over the seeds of one sweep point: runs
 * that differ only in seed form a group, shown as mean +- standard error
 * (and min-max) wherever several seeds exist (Runs, Grid, Compare, report).
 *
 * The margin a difference of means must pass to be more than seed noise
 * (Welch's t at 95%) is here too; claims.h decides verdicts with it.
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

/* The two-sided 95% critical value of Student's t with df degrees of
   freedom (df >= 1: 12.71 at 1, 4.30 at 2, 2.78 at 4, to 1.96 as df grows;
   between the table's entries, interpolated in 1/df). */
double t_critical95(double df);

/* How far apart the means of a and b must be to be told apart beyond seed
   noise: t_critical95 of the Welch-Satterthwaite degrees of freedom times
   the difference's standard error sqrt(se_a^2 + se_b^2); 0 when that is 0
   (single seeds: the direction decides).  b NULL: a's mean against a fixed
   number (df n - 1). */
double noise_margin(const SeedStats *a, const SeedStats *b);

#endif
