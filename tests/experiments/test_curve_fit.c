/*
 * test_curve_fit.c — the power-law fit of a loss curve (experiments/
 * curve_fit.h) on synthetic curves of known E, A and a: with seeded normal
 * noise (GSL's Mersenne Twister) each parameter is recovered within three
 * of its reported standard errors; a crossing put at 1M tokens is found
 * there, from exact parameters and from fits to the curves' points; bad
 * input is refused with a message.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "experiments/curve_fit.h"
#include "tests/check.h"

enum { SEEDS = 3, EVALS = 16, NPTS = SEEDS * EVALS };

/* A seed group's evaluations of L(t) = E + A t^-a, every 10k tokens to
   160k, each seed's points with normal noise of sd (0: exact). */
static void make_group(double E, double A, double a, double sd, unsigned long seed, double *t, double *y)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    for (int s = 0; s < SEEDS; s++)
        for (int k = 0; k < EVALS; k++) {
            int i = s * EVALS + k;
            t[i] = 10000.0 * (k + 1);
            y[i] = E + A * pow(t[i], -a) + (sd > 0 ? gsl_ran_gaussian(r, sd) : 0);
        }
    gsl_rng_free(r);
}

/* Noise of sd 0.01 over seeds: E, A, a within 3 standard errors, each
   standard error a real one (positive, and not wider than the parameter
   is uncertain by reason), at several noise seeds. */
static void test_recover(void)
{
    const double E = 3.5, A = 50, a = 0.35;
    for (unsigned long seed = 1; seed <= 5; seed++) {
        double t[NPTS], y[NPTS];
        make_group(E, A, a, 0.01, seed, t, y);
        CurveFit f;
        char err[256] = "";
        CHECK(curve_fit(t, y, NPTS, &f, err) == 0, "seed %lu: %s", seed, err);
        CHECK(f.n == NPTS && f.t_ref == 160000.0, "n %d t_ref %g", f.n, f.t_ref);
        CHECK(f.se_E > 0 && f.se_A > 0 && f.se_a > 0 && f.se_E < 0.5 && f.se_a < 0.2, "se %g %g %g", f.se_E, f.se_A,
              f.se_a);
        CHECK(fabs(f.E - E) <= 3 * f.se_E && fabs(f.A - A) <= 3 * f.se_A && fabs(f.a - a) <= 3 * f.se_a,
              "seed %lu: E %g +- %g, A %g +- %g, a %g +- %g", seed, f.E, f.se_E, f.A, f.se_A, f.a, f.se_a);
        CHECK(fabs(f.rmse - 0.01) < 0.005, "rmse %g", f.rmse);
        /* the prediction at the budget is the curve's, within its se */
        double want = E + A * pow(160000.0, -a);
        CHECK(fabs(curve_predict(&f, 160000.0) - want) <= 3 * curve_predict_se(&f, 160000.0) + 1e-12, "predict %g vs %g",
              curve_predict(&f, 160000.0), want);
    }
    /* exact points: exact parameters */
    double t[NPTS], y[NPTS];
    make_group(E, A, a, 0, 0, t, y);
    CurveFit f;
    char err[256];
    CHECK(curve_fit(t, y, NPTS, &f, err) == 0, "%s", err);
    CHECK(fabs(f.E - E) < 1e-6 && fabs(f.A / A - 1) < 1e-5 && fabs(f.a - a) < 1e-6, "E %.9g A %.9g a %.9g", f.E, f.A,
          f.a);
}

/* Two curves put to cross at 1M tokens: the first lower at 160k, the
   second falling faster.  Found at 1M from the parameters and from fits
   of their (exact) points, none in (160k, 900k]; from noisy points
   within a factor of 2. */
static void test_crossing(void)
{
    const double Ef = 3.6, Af = 30, af = 0.3, Eg = 3.2, ag = 0.45, tx = 1e6;
    double Ag = (Ef + Af * pow(tx, -af) - Eg) * pow(tx, ag);
    double t[NPTS], yf[NPTS], yg[NPTS];
    make_group(Ef, Af, af, 0, 0, t, yf);
    make_group(Eg, Ag, ag, 0, 0, t, yg);
    CHECK(yf[EVALS - 1] < yg[EVALS - 1], "f lower at the budget: %g %g", yf[EVALS - 1], yg[EVALS - 1]);
    CurveFit f, g;
    char err[256];
    CHECK(curve_fit(t, yf, NPTS, &f, err) == 0 && curve_fit(t, yg, NPTS, &g, err) == 0, "%s", err);
    double x = curve_crossing(&f, &g, 160000.0, 1.6e7);
    CHECK(fabs(x / tx - 1) < 1e-3, "crossing at %g, put at %g", x, tx);
    CHECK(curve_crossing(&f, &g, 160000.0, 900000.0) == 0, "no crossing before 900k");
    /* noisy points: the crossing within a factor of 2 of where it was put */
    make_group(Ef, Af, af, 0.002, 11, t, yf);
    make_group(Eg, Ag, ag, 0.002, 12, t, yg);
    CHECK(curve_fit(t, yf, NPTS, &f, err) == 0 && curve_fit(t, yg, NPTS, &g, err) == 0, "%s", err);
    x = curve_crossing(&f, &g, 160000.0, 1.6e7);
    CHECK(x > tx / 2 && x < tx * 2, "noisy crossing at %g", x);
}

static void test_refuse(void)
{
    double t[] = {1, 2, 3, 4, 5}, y[] = {5, 4, 3.5, 3.3, 3.2}, same[] = {1, 1, 2, 2, 2}, neg[] = {1, 2, -3, 4, 5};
    CurveFit f;
    char err[256] = "";
    CHECK(curve_fit(t, y, 3, &f, err) == -1 && strstr(err, "3 evaluations, need at least 4"), "%s", err);
    CHECK(curve_fit(same, y, 5, &f, err) == -1 && strstr(err, "2 token counts"), "%s", err);
    CHECK(curve_fit(neg, y, 5, &f, err) == -1 && strstr(err, "evaluation 2") && !strchr(err, '\n'), "%s", err);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_recover);
    RUN(test_crossing);
    RUN(test_refuse);
    CHECK_EXIT();
}
