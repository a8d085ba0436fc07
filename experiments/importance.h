/*
 * importance.h — which knob matters: the share of a metric's variance over
 * a sweep's grid that each axis explains alone (its main effect) and each
 * pair of axes explains together beyond their main effects (their
 * interaction), by the functional ANOVA decomposition of the grid's cells
 * (fANOVA, Hutter et al. 2014, on the grid itself instead of a random
 * forest's predictions: the sweep measured every cell, so nothing needs
 * modelling).
 *
 * A cell is one combination of the axes' values; its value is the mean of
 * its finished runs (each cell weighs the same whatever its seed count:
 * seeds make a cell's mean more precise, not more important).  The seed
 * axis is not a knob: it is averaged inside the cells.  Axes zipped with
 * each other (one's value follows from the other's) are one knob, named
 * "a,b".  Cells without a value are filled by the additive model
 * fitted to the cells that have one (main effects only, iterated to the
 * least-squares fit: Yates' missing-value method), so a missing cell adds
 * no interaction of its own; with fewer than half the cells there is no
 * decomposition.  Beside the shares, how much of the cells' variance seed
 * noise alone would make (from the spread of a cell's seeds), so that a
 * share no larger than it reads as noise.
 *
 * Not for: reading the store (db/results.h) or showing it (ui/, report.c).
 */
#ifndef MIXBENCH_IMPORTANCE_H
#define MIXBENCH_IMPORTANCE_H

#include "experiments/pivot.h"

enum { IMP_MAX_FACTORS = 12, IMP_MAX_CELLS = 100000 };

typedef struct {
    int n_factors;
    char factor[IMP_MAX_FACTORS][96];                 /* an axis, or zipped axes "layers,heads" */
    int levels[IMP_MAX_FACTORS];
    double main[IMP_MAX_FACTORS];                     /* share of the variance, 0..1 */
    double pair[IMP_MAX_FACTORS][IMP_MAX_FACTORS];    /* [i][j], i < j: the interaction's share */
    double higher;                                    /* interactions of three axes or more */
    double variance;                                  /* of the cells' values (0: the metric is flat) */
    int n_cells, n_observed, n_imputed;               /* the grid's cells, those with a value, those filled */
    int n_runs;                                       /* finished runs with a value */
    double noise;                                     /* the variance seed noise alone gives the cells' means
                                                         (the runs' pooled variance within a cell over each
                                                         cell's count, averaged), over variance; NAN when no
                                                         cell has two runs */
} Importance;

/* The decomposition of cells[0..prod(levels)) (row-major: factor 0 varies
   slowest; NAN: a cell without a value) over k factors of levels[i] >= 2
   values.  Fills out's numbers (not its names); -1 with err when fewer
   than half the cells (or fewer than 2) have a value. */
int importance_grid(const int *levels, int k, const double *cells, Importance *out, char *err);

/* The decomposition of metric m over a sweep's pivot: its axes but seed
   (and those with one value), zipped axes merged, cells the means of their
   finished runs.  -1 with err (one line) when the sweep has no axis with
   two values, too many cells, or too few with a value. */
int importance_of_pivot(const Pivot *p, PointMetric m, Importance *out, char *err);

/* "lr 71%, layers 20%, lr x layers 6%, higher 3%": the main effects and
   interactions from the largest, those under 0.5% left out, up to max
   items (then "..."). */
void importance_summary(const Importance *imp, int max, char *out, size_t cap);

/* How much of the cells' variance seed noise alone would make: "seed noise
   alone would make 12% of this variance" (brief: "seed noise alone 12%");
   at or above the variance itself, "... 39.0 times this variance: the cells
   do not differ beyond seed noise, ..." (brief: "seed noise alone 39.0x
   this: within noise"); "" when no cell has two runs. */
void importance_noise_text(const Importance *imp, int brief, char *out, size_t cap);

#endif
