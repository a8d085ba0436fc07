/*
 * stats.c — seed_stats of stats.h: mean, sample standard deviation,
 * standard error and range, two passes (numerically stable for the few
 * values a seed group has); the contrasts of two groups, their bounds and
 * p-values from GSL's Student's t, Holm's adjustment, alpha spending over
 * looks and the seeds a power needs.
 */
#include "experiments/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

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

double t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0)) return NAN;
    if (isinf(df)) return gsl_cdf_ugaussian_Pinv(p);
    /* GSL's inverse is good to about 1e-9 at fractional df; two Newton
       steps on its own cdf bring it to rounding (scipy agrees to 1e-12) */
    double x = gsl_cdf_tdist_Pinv(p, df);
    for (int i = 0; i < 2 && isfinite(x); i++) {
        double f = gsl_ran_tdist_pdf(x, df);
        if (!(f > 0)) break;
        x -= (p < 0.5 ? gsl_cdf_tdist_P(x, df) - p : (1 - p) - gsl_cdf_tdist_Q(x, df)) / f;
    }
    return x;
}

/* P(T >= t) for Student's t with df degrees of freedom. */
static double t_upper_tail(double t, double df)
{
    return isinf(df) ? gsl_cdf_ugaussian_Q(t) : gsl_cdf_tdist_Q(t, df);
}

Contrast contrast_diff(const SeedStats *a, const SeedStats *b)
{
    double va = a->se * a->se, vb = b ? b->se * b->se : 0;
    Contrast c = {a->mean - (b ? b->mean : 0), sqrt(va + vb), NAN};
    if (a->n < 2 && (!b || b->n < 2)) return c;   /* no group with a spread */
    /* Welch-Satterthwaite; a single seed adds no variance and no term */
    double den = (a->n > 1 ? va * va / (a->n - 1) : 0) + (b && b->n > 1 ? vb * vb / (b->n - 1) : 0);
    c.df = den > 0 ? (va + vb) * (va + vb) / den : INFINITY;
    return c;
}

Contrast contrast_ratio(const SeedStats *a, const SeedStats *b)
{
    Contrast d = contrast_diff(a, b);
    double r = a->mean / b->mean;
    double se = fabs(r) * sqrt(pow(a->se / a->mean, 2) + pow(b->se / b->mean, 2));
    return (Contrast){r, se, d.df};
}

int contrast_testable(const Contrast *c)
{
    return !isnan(c->df) && isfinite(c->est) && isfinite(c->se);
}

double noise_margin(const SeedStats *a, const SeedStats *b)
{
    Contrast c = contrast_diff(a, b);
    if (!contrast_testable(&c) || !(c.se > 0)) return 0;
    return t_quantile(0.975, c.df) * c.se;
}

double contrast_lower(const Contrast *c, double alpha)
{
    return c->se > 0 ? c->est - t_quantile(1 - alpha, c->df) * c->se : c->est;
}

double contrast_upper(const Contrast *c, double alpha)
{
    return c->se > 0 ? c->est + t_quantile(1 - alpha, c->df) * c->se : c->est;
}

double contrast_p_above(const Contrast *c, double x)
{
    if (!(c->se > 0)) return c->est > x ? 0 : 1;
    return t_upper_tail((c->est - x) / c->se, c->df);
}

double contrast_p_below(const Contrast *c, double x)
{
    if (!(c->se > 0)) return c->est < x ? 0 : 1;
    return t_upper_tail((x - c->est) / c->se, c->df);
}

void holm_adjust(const double *p, int n, double *adj)
{
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    double *q = malloc((size_t)(n > 0 ? n : 1) * sizeof *q);
    if (!order || !q) {
        /* no room to sort: Bonferroni, which Holm never exceeds */
        for (int i = 0; i < n; i++) adj[i] = fmin(1, p[i] * n);
        free(order);
        free(q);
        return;
    }
    for (int i = 0; i < n; i++) order[i] = i, q[i] = p[i];
    for (int i = 1; i < n; i++)   /* insertion sort: a claim has a few points */
        for (int j = i; j > 0 && q[order[j]] < q[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    double running = 0;
    for (int k = 0; k < n; k++) {
        running = fmax(running, fmin(1, q[order[k]] * (n - k)));
        adj[order[k]] = running;
    }
    free(order);
    free(q);
}

double alpha_spent(double alpha, int look, int looks)
{
    if (looks < 1 || look >= looks) return alpha;
    if (look < 1) return 0;
    return alpha * log(1 + (M_E - 1) * look / (double)looks);
}

double alpha_at_look(double alpha, int look, int looks)
{
    if (looks < 1) return alpha;
    if (look > looks) look = looks;
    if (look < 1) look = 1;
    return alpha_spent(alpha, look, looks) - alpha_spent(alpha, look - 1, looks);
}

int seeds_for_power(double stat, double df, int n, double alpha, double power, int cap)
{
    if (!(stat > 0) || n < 2 || !(df > 0)) return cap + 1;
    for (int N = n + 1; N <= cap; N++) {
        double dfN = isinf(df) ? df : df * (N - 1) / (double)(n - 1);
        if (stat * sqrt((double)N / n) >= t_quantile(1 - alpha, dfN) + t_quantile(power, dfN)) return N;
    }
    return cap + 1;
}
