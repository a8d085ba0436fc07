/*
 * run_curve.h — a run's loss curves for the Compare and AE/Bidir screens,
 * read from the store incrementally: the smoothed train loss and the valid
 * evaluations, each with its step, training tokens and wall time so that a
 * plot can align runs by any of the three.  A reload fetches only the rows
 * past the last one it has (one indexed range query each), so a running job
 * costs a few rows per refresh and a finished one nothing.
 *
 * The mean curve of a seed group (Compare) is built here from the members'
 * curves.
 *
 * Not for: drawing (ui/draw/plot.h) or live progress (the scheduler's).
 */
#ifndef MIXBENCH_RUN_CURVE_H
#define MIXBENCH_RUN_CURVE_H

#include <stdint.h>

#include "db/store.h"

typedef enum { CURVE_X_STEPS, CURVE_X_TOKENS, CURVE_X_WALL, CURVE_X_COUNT } CurveAxis;

/* "steps", "tokens", "wall seconds". */
const char *curve_axis_name(CurveAxis axis);

typedef struct {
    double *x[CURVE_X_COUNT];    /* step, tokens, wall seconds */
    double *loss;
    int n, cap;
    int64_t last_step;           /* rows up to this step are loaded */
} CurvePoints;

typedef struct {
    int64_t run_id;
    CurvePoints train;           /* metrics.train_loss_smooth */
    CurvePoints valid;           /* evals.loss of split 'valid' */
} RunCurve;

void run_curve_init(RunCurve *c, int64_t run_id);
/* Appends the rows written since the last update. */
int run_curve_update(RunCurve *c, Store *st, char *err);
void run_curve_free(RunCurve *c);

/* The mean of several runs' curves (the seeds of one point) with its
   spread: on the steps of the curve with the most points, the mean over the
   curves that have that step (a shorter, still running one stops counting
   past its end), its min and max, its mean +- standard error, and the mean
   of each x axis (steps and tokens agree between seeds; wall seconds do
   not). */
typedef struct {
    double *x[CURVE_X_COUNT];
    double *mean;
    double *band;                /* [2 * n]: the min at i, the max at n + i (a PLOT_BAND) */
    double *se_band;             /* [2 * n]: mean - se at i, mean + se at n + i (the figures') */
    int n, cap;
} MeanCurve;

int mean_curve_build(MeanCurve *m, const CurvePoints *const *curves, int n_curves, char *err);
void mean_curve_free(MeanCurve *m);

#endif
