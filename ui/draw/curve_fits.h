/*
 * curve_fits.h — the power-law fits (experiments/curve_fit.h, L = E + A
 * t^-a) that the figures and the Compare screen draw past a budget: a seed
 * group's valid evaluations fitted as one cloud (every member's points
 * together, as experiments/budget_fit.h fits a compared point for the
 * report's numbers), sampled from its last evaluation (the budget) to
 * FIT_HORIZON times it, and where two groups' fits cross in the span where
 * both are drawn (docs/figures.md, "Fits past the budget").
 *
 * Not for: the fit itself (experiments/curve_fit.h), reading the store, or
 * drawing.
 */
#ifndef MIXBENCH_CURVE_FITS_H
#define MIXBENCH_CURVE_FITS_H

#include "experiments/curve_fit.h"
#include "ui/draw/run_curve.h"

#define FIT_HORIZON 10.0         /* a fit is drawn to 10x its budget: the report's "fit at 10x" */
enum { FIT_SAMPLES = 48 };       /* points of a fit drawn */

/* The points of valid[0..n) (a seed group's members' valid evaluations) at
   x > 0 on axis x fitted as one cloud into *out; -1 and err when they
   cannot be fitted (fewer than 4 points, fewer than 3 distinct x, or the
   fit fails). */
int curves_fit(const CurvePoints *const *valid, int n, CurveAxis x, CurveFit *out, char *err);

/* f at FIT_SAMPLES points evenly spaced in log x from its budget (the last
   evaluation fitted, f->t_ref) to reach times it, into x[] and y[]. */
void fit_past_budget(const CurveFit *f, double reach, double x[FIT_SAMPLES], double y[FIT_SAMPLES]);

/* Where the fits f and g first cross while both are drawn, from the later
   budget to FIT_HORIZON times the earlier; 0 when they do not. */
double fits_crossing(const CurveFit *f, const CurveFit *g);

#endif
