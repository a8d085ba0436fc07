/*
 * curve_fit.h — a loss curve's power law, L(t) = E + A t^-a, fitted to a
 * seed group's evaluations (valid loss against training tokens) by
 * nonlinear least squares (GSL's gsl_multifit_nlinear, Levenberg-Marquardt),
 * with the fit's uncertainty (the covariance scaled by the residual
 * variance: standard errors of E, A and a); what two fits predict at a
 * larger budget, and where they cross (docs/statistics.md, "Does it survive
 * more compute?").
 *
 * A seed group is fitted as one cloud: every run's points together, so the
 * scatter between seeds enters the standard errors (a mean curve would
 * hide it and weigh a seed missing an evaluation wrongly).
 *
 * Arrays in, parameters out: no store, no engine.
 */
#ifndef MIXBENCH_CURVE_FIT_H
#define MIXBENCH_CURVE_FIT_H

#include <stddef.h>

typedef struct {
    double E, A, a;          /* L(t) = E + A t^-a (t in tokens) */
    double se_E, se_A, se_a; /* their standard errors */
    double t_ref;            /* the largest t fitted (the fit works in t / t_ref) */
    double B, se_B;          /* A t_ref^-a: the power term at t_ref, and its se */
    double cov[3][3];        /* covariance of (E, B, a) */
    double rmse;             /* root mean squared residual */
    int n;                   /* points fitted */
} CurveFit;

/* Fits L(t) = E + A t^-a to the n points (t[i] > 0 tokens, loss[i]);
   needs at least 4 points at 3 or more distinct t.  0, or -1 and err a
   one-line message naming the problem. */
int curve_fit(const double *t, const double *loss, int n, CurveFit *out, char *err);

/* The fitted loss at t tokens. */
double curve_predict(const CurveFit *f, double t);
/* The standard error of curve_predict at t (first order, from cov). */
double curve_predict_se(const CurveFit *f, double t);

/* n points of the fitted curve (n >= 2), evenly spaced in log t from t0 to
   t1, into t[0..n) and y[0..n): a fit drawn on a figure. */
void curve_sample(const CurveFit *f, double t0, double t1, int n, double *t, double *y);

/* The first t in (t0, t1] where the fits f and g cross (f - g changes
   sign), found on a log grid and bisected; 0 when they do not cross there. */
double curve_crossing(const CurveFit *f, const CurveFit *g, double t0, double t1);

#endif
