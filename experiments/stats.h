/*
 * stats.h — the spread of a metric over the seeds of one sweep point: runs
 * that differ only in seed form a group, shown as mean +- standard error
 * (and min-max) wherever several seeds exist (Runs, Grid, Compare, report).
 *
 * The tests the claims' verdicts are taken with are here too (claims.h
 * decides with them; docs/statistics.md): a contrast of two seed groups
 * (difference or ratio of means, its standard error and Welch-Satterthwaite
 * degrees of freedom), its one-sided bounds and intervals at a level alpha
 * from Student's t (GSL's quantiles), one-sided p-values and Holm's step-down
 * adjustment over several points; alpha spent over the looks of
 * --until-conclusive's rounds, and the seeds a test needs at a power.
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

/* The level verdicts are taken at when a sweep does not say (sweep key alpha). */
#define STATS_ALPHA 0.05

/* The p quantile of Student's t with df degrees of freedom (df INFINITY:
   the normal's); NAN unless 0 < p < 1 and df > 0. */
double t_quantile(double p, double df);

/* How far apart the means of a and b must be to be told apart beyond seed
   noise at 95% (two-sided): the t quantile of the Welch-Satterthwaite
   degrees of freedom times the difference's standard error; 0 when that
   is 0.  b NULL: a's mean against a fixed number (df n - 1).  (pivot.h's
   "tied with the best".) */
double noise_margin(const SeedStats *a, const SeedStats *b);

/* An estimate from seed groups: est, its standard error and degrees of
   freedom.  df is NAN when no group has two seeds (no spread to test
   against), INFINITY when se is 0 with a spread measured (equal values). */
typedef struct {
    double est, se, df;
} Contrast;

/* mean(a) - mean(b), se sqrt(se_a^2 + se_b^2), Welch-Satterthwaite df (a
   group of one seed adds no variance and no term); b NULL: mean(a) against
   a fixed number, df n - 1. */
Contrast contrast_diff(const SeedStats *a, const SeedStats *b);

/* mean(a) / mean(b), se by the delta method |r| sqrt((se_a/a)^2 +
   (se_b/b)^2), the same Welch df as the difference of the two groups. */
Contrast contrast_ratio(const SeedStats *a, const SeedStats *b);

/* 1 when c can be tested (its df is a number). */
int contrast_testable(const Contrast *c);

/* The one-sided (1 - alpha) bounds of c: est -+ t(1 - alpha, df) se.  Both
   together are the (1 - 2 alpha) two-sided interval TOST decides with. */
double contrast_lower(const Contrast *c, double alpha);
double contrast_upper(const Contrast *c, double alpha);

/* The one-sided p-value of "the true value is above x" (P(T >= t) with t =
   (est - x) / se; 0 or 1 when se is 0): small when est lies well above x.
   contrast_p_below is its mirror. */
double contrast_p_above(const Contrast *c, double x);
double contrast_p_below(const Contrast *c, double x);

/* Holm's step-down adjustment of p[0..n) into adj[0..n) (may be p): the
   k-th smallest times (n - k + 1), made monotone, at most 1.  A point is
   rejected at level alpha when its adjusted p is below alpha. */
void holm_adjust(const double *p, int n, double *adj);

/* The most rounds (looks) --until-conclusive judges a sweep in: alpha is
   spent over this many looks, and the loop stops after the last. */
#define STATS_MAX_LOOKS 8

/* The power the seeds of an undecided test are chosen for. */
#define STATS_POWER 0.8

/* Alpha spent by look k of at most `looks` (Lan-DeMets, Pocock type):
   alpha ln(1 + (e - 1) k / looks); 0 at k 0, alpha at k looks. */
double alpha_spent(double alpha, int look, int looks);

/* The level look k (1..looks) is taken at: what it adds to the spending,
   alpha_spent(k) - alpha_spent(k - 1).  The looks' levels sum to alpha, so
   the chance of any wrong decision over all looks is at most alpha (the
   union bound, whatever the looks' correlation).  k past looks: the last
   look's; looks < 1: alpha. */
double alpha_at_look(double alpha, int look, int looks);

/* The seeds a side (n per group) a one-sided test at level alpha needs for
   `power` when its statistic is now `stat` (estimate minus the value its
   bound must clear, over the standard error) on df degrees of freedom
   with n seeds a side: the least N > n with stat sqrt(N / n) >= t(1 -
   alpha, df_N) + t(power, df_N), df_N = df (N - 1) / (n - 1) (the spread
   and the estimate taken as measured).  cap + 1 when more than cap would
   be needed (stat <= 0 included). */
int seeds_for_power(double stat, double df, int n, double alpha, double power, int cap);

#endif
