/*
 * sweeps_read.h — typed reads of sweeps for the workbench's Grid and
 * AE/Bidir screens: the latest sweeps (of some presets, or all), a sweep's
 * axes, and its jobs with their status, progress, sizes, point and every
 * final number either screen shows.  Numbers come as numbers (int64_t, or
 * double with NAN for SQL NULL); coordinates and axes come apart in SQL
 * (json_each), so no caller parses JSON.
 *
 * Not for: the finished jobs a verdict or the report judges, or the paper
 * figures (db/results.h: ResultRun, FigureRow, SweepRow, which this file
 * reuses), or writing (db/jobs.h).
 */
#ifndef MIXBENCH_SWEEPS_READ_H
#define MIXBENCH_SWEEPS_READ_H

#include <stdint.h>

#include "db/results.h"
#include "db/status.h"
#include "db/store.h"

enum { SWEEP_MAX_AXES = 16, SWEEP_MAX_NAMES = 16 };

/* The latest `limit` sweeps (highest ids), oldest first.  names[n_names]
   keeps the sweeps named one of them (at most SWEEP_MAX_NAMES); n_names 0:
   every sweep.  *out is malloc'd (free() it; NULL when *n is 0). */
int sweeps_read_latest(Store *s, const char *const *names, int n_names, int limit, SweepRow **out, int *n,
                       char *err);

/* A sweep's axis keys in order (the strings of sweeps.axes_json); an
   unknown sweep has none. */
typedef struct {
    int n;
    char key[SWEEP_MAX_AXES][64];
} SweepAxes;

int sweeps_read_axes(Store *s, int64_t sweep_id, SweepAxes *out, char *err);

/* One job of a sweep: its runs row and its results row. */
typedef struct {
    int64_t run_id;
    RunStatus status;
    char arch[32], task[32];
    int64_t steps_done, total_steps, tokens_seen;
    int64_t d, layers, n_ctx;           /* 0 when the run does not say */
    /* the job's point in the order of coords_json: a JSON string as it is,
       a JSON number written "%g" (bit k of numeric_coords set); other JSON
       values are left out */
    int n_coords;
    CoordPair coords[RESULT_MAX_COORDS];
    unsigned numeric_coords;
    /* the final numbers of the results view; NAN: not known */
    double train_loss;                  /* smoothed, last step */
    double best_valid_loss, valid_loss, valid_loss_all;
    double test_loss, test_loss_all, test_perplexity, test_accuracy;
    double tokens_per_s;                /* training */
    double infer_samples_per_s;         /* batch-1 inference */
} SweepJobRow;

/* The jobs of a sweep in run id order.  *out is malloc'd (free() it; NULL
   when *n is 0). */
int sweeps_read_jobs(Store *s, int64_t sweep_id, SweepJobRow **out, int *n, char *err);

#endif
