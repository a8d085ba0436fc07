/*
 * test_stats.c — the tests the claims' verdicts are taken with
 * (experiments/stats.h) on hand-made seed groups whose answers are known:
 * GSL's t quantiles against published values, the Welch difference and its
 * degrees of freedom by hand, one-sided bounds and p-values that agree with
 * each other, TOST on a ratio, Holm's adjustment on a hand-computed example,
 * a group of one seed (no spread: nothing to test), alpha spent over the
 * looks of --until-conclusive against hand-computed levels, and the seeds
 * a power needs against a simulation.
 *
 * `test_stats --dump` prints the same groups' intervals, p-values and Holm
 * adjustments, one "name value" a line, for tests/experiments/
 * test_stats_scipy.sh to compare with scipy.stats.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "experiments/stats.h"
#include "tests/check.h"

/* The hand-made groups (stats_scipy.py has the same). */
static const double G1[] = {4.0, 4.1, 3.9}, G2[] = {5.0, 5.3, 4.8, 5.1}, G3[] = {1.00, 1.02, 0.98, 1.01, 0.99},
                    G4[] = {1.03, 1.05, 1.01};

static int close_rel(double x, double want, double tol)
{
    return fabs(x - want) <= tol * fmax(1e-300, fabs(want));
}

/* Student's t quantiles from GSL: the values of any table, to its digits. */
static void test_quantiles(void)
{
    CHECK(fabs(t_quantile(0.975, 1) - 12.7062) < 1e-4 && fabs(t_quantile(0.975, 4) - 2.7764) < 1e-4 &&
              fabs(t_quantile(0.95, 4) - 2.1318) < 1e-4 && fabs(t_quantile(0.975, 30) - 2.0423) < 1e-4,
          "%g %g %g %g", t_quantile(0.975, 1), t_quantile(0.975, 4), t_quantile(0.95, 4), t_quantile(0.975, 30));
    CHECK(fabs(t_quantile(0.975, INFINITY) - 1.959964) < 1e-6, "normal: %g", t_quantile(0.975, INFINITY));
    CHECK(fabs(t_quantile(0.025, 4) + t_quantile(0.975, 4)) < 1e-12, "symmetric");
    CHECK(isnan(t_quantile(0, 4)) && isnan(t_quantile(1, 4)) && isnan(t_quantile(0.5, 0)), "out of range");
    for (double df = 1; df < 200; df += 0.5)
        CHECK(t_quantile(0.975, df + 0.5) < t_quantile(0.975, df), "not falling at %g", df);
}

/* Welch: the difference, its se and df by hand. */
static void test_welch(void)
{
    SeedStats a = seed_stats(G1, 3), b = seed_stats(G2, 4);
    Contrast d = contrast_diff(&a, &b);
    double va = 0.01 / 3, vb = (0.0025 + 0.0625 + 0.0625 + 0.0025) / 3 / 4;   /* s^2 / n: deviations -0.05 0.25 -0.25 0.05 */
    double df = (va + vb) * (va + vb) / (va * va / 2 + vb * vb / 3);
    CHECK(close_rel(d.est, 4.0 - 5.05, 1e-12) && close_rel(d.se, sqrt(va + vb), 1e-12) && close_rel(d.df, df, 1e-12),
          "est %g se %g df %g (want %g)", d.est, d.se, d.df, df);
    double t = t_quantile(0.95, df);
    CHECK(close_rel(contrast_lower(&d, 0.05), d.est - t * d.se, 1e-12) &&
              close_rel(contrast_upper(&d, 0.05), d.est + t * d.se, 1e-12),
          "bounds");
    /* a bound at alpha and the p-value at alpha say the same */
    double up = contrast_upper(&d, 0.05);
    CHECK(close_rel(contrast_p_below(&d, up), 0.05, 1e-9), "p at the bound: %g", contrast_p_below(&d, up));
    CHECK(contrast_p_below(&d, 0) < 0.01 && contrast_p_above(&d, 0) > 0.99, "a clearly below b");
    /* equal se, 3 a side: the old margin, df 4 */
    SeedStats x = seed_stats(G1, 3);
    CHECK(close_rel(noise_margin(&x, &x), t_quantile(0.975, 4) * sqrt(2.0) * x.se, 1e-12), "margin");
    /* one sample against a number: df n - 1 */
    Contrast one = contrast_diff(&x, NULL);
    CHECK(one.df == 2 && close_rel(one.est, 4.0, 1e-12), "one sample: df %g", one.df);
}

/* One seed a side: no spread, nothing to test; one seed on one side only:
   the other's variance and df. */
static void test_one_seed(void)
{
    double v1[] = {4.0}, v2[] = {5.0};
    SeedStats a = seed_stats(v1, 1), b = seed_stats(v2, 1), g = seed_stats(G1, 3);
    Contrast d = contrast_diff(&a, &b);
    CHECK(!contrast_testable(&d), "one seed a side is testable: df %g", d.df);
    CHECK(noise_margin(&a, &b) == 0, "no margin");
    Contrast e = contrast_diff(&g, &a);
    CHECK(contrast_testable(&e) && e.df == 2, "one side with spread: df %g", e.df);
    /* equal values: a spread measured as 0 */
    double same[] = {2, 2, 2};
    SeedStats z = seed_stats(same, 3);
    Contrast f = contrast_diff(&z, &g);
    CHECK(contrast_testable(&f), "equal values and a spread: testable");
}

/* TOST on a ratio: G4 / G3 is 1.03 +- ~0.013: inside a 10% margin, not
   inside 1%; the two one-sided p-values and the (1 - 2 alpha) interval agree. */
static void test_tost(void)
{
    SeedStats a = seed_stats(G4, 3), b = seed_stats(G3, 5);
    Contrast r = contrast_ratio(&a, &b);
    double want_se = r.est * sqrt(pow(a.se / a.mean, 2) + pow(b.se / b.mean, 2));
    CHECK(close_rel(r.est, 1.03, 1e-12) && close_rel(r.se, want_se, 1e-12), "ratio %g se %g", r.est, r.se);
    double lo = contrast_lower(&r, 0.05), hi = contrast_upper(&r, 0.05);
    double p10 = fmax(contrast_p_above(&r, 0.90), contrast_p_below(&r, 1.10));
    double p1 = fmax(contrast_p_above(&r, 0.99), contrast_p_below(&r, 1.01));
    CHECK(lo > 0.90 && hi < 1.10 && p10 < 0.05, "10%%: [%g, %g] p %g", lo, hi, p10);
    CHECK(hi > 1.01 && p1 >= 0.05, "1%%: [%g, %g] p %g", lo, hi, p1);
}

/* Holm on a hand-computed example: p (0.01, 0.04, 0.03, 0.005) sorted
   0.005 0.01 0.03 0.04, times 4 3 2 1: 0.02 0.03 0.06 0.04, made monotone:
   0.02 0.03 0.06 0.06. */
static void test_holm(void)
{
    double p[] = {0.01, 0.04, 0.03, 0.005}, adj[4];
    holm_adjust(p, 4, adj);
    CHECK(close_rel(adj[0], 0.03, 1e-12) && close_rel(adj[1], 0.06, 1e-12) && close_rel(adj[2], 0.06, 1e-12) &&
              close_rel(adj[3], 0.02, 1e-12),
          "%g %g %g %g", adj[0], adj[1], adj[2], adj[3]);
    double big[] = {0.5, 0.9}, ab[2];
    holm_adjust(big, 2, ab);
    CHECK(ab[0] == 1 && ab[1] == 1, "capped at 1: %g %g", ab[0], ab[1]);
    holm_adjust(p, 0, adj);   /* no points: nothing to do */
}

/* Lan-DeMets Pocock-type spending, alpha ln(1 + (e - 1) k / K), by hand
   (Python's math.log): at alpha 0.05 over 8 looks the first look's level is
   0.05 ln(1 + 1.71828/8) = 0.0097284, the second's 0.05 ln(1.42957) -
   0.0097284 = 0.0081403, the eighth's 0.0041156; over 4 looks 0.0178687,
   0.0131370, 0.0103937, 0.0086006.  The levels fall, sum to alpha, and a
   look past the last keeps the last's. */
static void test_alpha_spending(void)
{
    const double k8[] = {0.009728364727400586, 0.008140336248038836}, k4[] = {0.0178687, 0.0131370, 0.0103937, 0.0086006};
    CHECK(close_rel(alpha_at_look(0.05, 1, 8), k8[0], 1e-12) && close_rel(alpha_at_look(0.05, 2, 8), k8[1], 1e-12) &&
              close_rel(alpha_at_look(0.05, 8, 8), 0.0041156, 1e-4),
          "8 looks: %.10g %.10g %.10g", alpha_at_look(0.05, 1, 8), alpha_at_look(0.05, 2, 8), alpha_at_look(0.05, 8, 8));
    double sum = 0;
    for (int k = 1; k <= 4; k++) {
        CHECK(close_rel(alpha_at_look(0.05, k, 4), k4[k - 1], 1e-4), "4 looks, look %d: %.10g", k, alpha_at_look(0.05, k, 4));
        sum += alpha_at_look(0.05, k, 4);
    }
    CHECK(close_rel(sum, 0.05, 1e-12), "the levels sum to %.17g", sum);
    CHECK(alpha_spent(0.05, 0, 8) == 0 && alpha_spent(0.05, 8, 8) == 0.05 &&
              alpha_at_look(0.05, 9, 8) == alpha_at_look(0.05, 8, 8) && alpha_at_look(0.05, 1, 0) == 0.05,
          "ends");
}

/* The power of a one-sided Welch test at n seeds a side, simulated: normal
   groups of sd 1, b above a by delta. */
static double simulated_power(gsl_rng *rng, double delta, int n, double alpha, int trials)
{
    int hits = 0;
    double x[64], y[64];
    for (int i = 0; i < trials; i++) {
        for (int k = 0; k < n; k++) x[k] = gsl_ran_gaussian(rng, 1), y[k] = delta + gsl_ran_gaussian(rng, 1);
        SeedStats a = seed_stats(x, n), b = seed_stats(y, n);
        Contrast d = contrast_diff(&a, &b);
        hits += contrast_p_below(&d, 0) < alpha;
    }
    return (double)hits / trials;
}

/* seeds_for_power against a simulation: from a measured statistic at 3
   seeds a side (the difference over its standard error at sd 1, df 4), the
   seeds it names give about 80% power when the difference is true (4000
   trials a case, seeded: Monte Carlo se 0.006; Welch's df are a little
   below the pooled ones the formula takes), and one seed fewer not more
   (within 3 Monte Carlo se). */
static void test_power_simulated(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    const double deltas[] = {2.0, 1.2, 0.8};
    const double alphas[] = {0.05, 0.0081};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            double stat = deltas[i] / sqrt(2.0 / 3);
            int n = seeds_for_power(stat, 4, 3, alphas[j], 0.8, 60);
            double at = simulated_power(rng, deltas[i], n, alphas[j], 4000);
            double below = simulated_power(rng, deltas[i], n - 1, alphas[j], 4000);
            CHECK(n > 3 && n <= 60 && at >= 0.76 && at <= 0.9 && (n == 4 || below < 0.82),
                  "delta %g alpha %g: %d seeds a side, power %.3f (%d: %.3f)", deltas[i], alphas[j], n, at, n - 1, below);
        }
    CHECK(seeds_for_power(0, 4, 3, 0.05, 0.8, 12) == 13 && seeds_for_power(0.1, 4, 3, 0.05, 0.8, 12) == 13,
          "no effect: more than the cap");
    gsl_rng_free(rng);
}

/* The numbers scipy checks: "name value" lines. */
static void dump(void)
{
    const struct {
        const char *name;
        const double *x;
        int n;
    } g[] = {{"g1", G1, 3}, {"g2", G2, 4}, {"g3", G3, 5}, {"g4", G4, 3}};
    int pairs[][2] = {{0, 1}, {2, 3}, {3, 2}, {1, 0}};
    double alphas[] = {0.05, 0.025, 0.1};
    for (int k = 0; k < 4; k++) {
        SeedStats a = seed_stats(g[pairs[k][0]].x, g[pairs[k][0]].n), b = seed_stats(g[pairs[k][1]].x, g[pairs[k][1]].n);
        const char *na = g[pairs[k][0]].name, *nb = g[pairs[k][1]].name;
        Contrast d = contrast_diff(&a, &b), r = contrast_ratio(&a, &b);
        printf("diff_%s_%s_est %.17g\ndiff_%s_%s_df %.17g\n", na, nb, d.est, na, nb, d.df);
        printf("diff_%s_%s_p_below0 %.17g\ndiff_%s_%s_p_above0 %.17g\n", na, nb, contrast_p_below(&d, 0), na, nb,
               contrast_p_above(&d, 0));
        for (int i = 0; i < 3; i++) {
            printf("diff_%s_%s_lower_%g %.17g\ndiff_%s_%s_upper_%g %.17g\n", na, nb, alphas[i],
                   contrast_lower(&d, alphas[i]), na, nb, alphas[i], contrast_upper(&d, alphas[i]));
            printf("ratio_%s_%s_lower_%g %.17g\nratio_%s_%s_upper_%g %.17g\n", na, nb, alphas[i],
                   contrast_lower(&r, alphas[i]), na, nb, alphas[i], contrast_upper(&r, alphas[i]));
        }
        printf("tost_%s_%s_p10 %.17g\n", na, nb, fmax(contrast_p_above(&r, 0.90), contrast_p_below(&r, 1.10)));
        printf("tost_%s_%s_p5 %.17g\n", na, nb, fmax(contrast_p_above(&r, 0.95), contrast_p_below(&r, 1.05)));
    }
    for (int k = 0; k < 4; k++) {
        SeedStats a = seed_stats(g[k].x, g[k].n);
        Contrast m = contrast_diff(&a, NULL);
        printf("mean_%s_lower_0.05 %.17g\nmean_%s_upper_0.05 %.17g\n", g[k].name, contrast_lower(&m, 0.05), g[k].name,
               contrast_upper(&m, 0.05));
        printf("mean_%s_p_below1.01 %.17g\n", g[k].name, contrast_p_below(&m, 1.01));
    }
    double p[] = {0.01, 0.04, 0.03, 0.005, 0.2, 0.011}, adj[6];
    holm_adjust(p, 6, adj);
    for (int i = 0; i < 6; i++) printf("holm_%d %.17g\n", i, adj[i]);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--dump")) {
        dump();
        return 0;
    }
    CHECK_ARGS(argc, argv);
    RUN(test_quantiles);
    RUN(test_welch);
    RUN(test_one_seed);
    RUN(test_tost);
    RUN(test_holm);
    RUN(test_alpha_spending);
    RUN(test_power_simulated);
    CHECK_EXIT();
}
