/*
 * parallel.h — a sweep as parallel coordinates: a vertical axis per axis of
 * the sweep that varies (seed is what a seed group averages, so it is
 * none) and the metric's axis last; one line per finished run, or per seed
 * group (the runs at one point, their mean), through each axis at its
 * value (an axis's values evenly spaced in the pivot's order, numbers by
 * value; the metric linear from its least to its greatest).  Brushing
 * keeps the lines inside a range on an axis (a span of its values, or of
 * the metric's); the others stay, to be drawn faint.  The Grid screen's
 * parallel view and the parallel figure (`mixbench plot parallel`) both
 * draw these lines.
 *
 * Not for: reading the store (pivot_load) or drawing (ui/).
 */
#ifndef MIXBENCH_PARALLEL_H
#define MIXBENCH_PARALLEL_H

#include "experiments/pivot.h"

/* The metric's brush sits after the pivot's axes' brushes. */
enum { PAR_METRIC = PIVOT_MAX_AXES, PAR_MAX_AXES = PIVOT_MAX_AXES + 1 };

/* A range on one axis: a sweep axis's value indexes lo..hi, or the
   metric's values lo..hi (both ends kept); on 0: the whole axis. */
typedef struct {
    int on;
    double lo, hi;
} ParBrush;

typedef struct {
    int n_axes;                       /* the metric's axis is the last */
    int axis[PAR_MAX_AXES];           /* the pivot's axis of each, PAR_METRIC for the metric */
    char name[PAR_MAX_AXES][64];
    PointMetric metric;
    double lo, hi;                    /* the metric over the lines (NAN when no line) */
    int groups;                       /* lines are seed groups */
    int n_lines, n_kept;
    double *pos;                      /* [n_lines * n_axes]: where each line crosses each axis, 0 bottom .. 1 top */
    double *value;                    /* [n_lines]: the metric (a group's mean) */
    int *n_runs;                      /* [n_lines]: the finished runs it stands for */
    unsigned char *kept;              /* [n_lines]: 1 inside every brush */
} Parallel;

/* The lines of metric m over p's finished runs (groups: one per seed
   group), brushed by brush[PAR_MAX_AXES] (indexed by the pivot's axis, the
   metric's at PAR_METRIC; NULL: none).  -1 with err when out of memory. */
int parallel_build(const Pivot *p, PointMetric m, int groups, const ParBrush *brush, Parallel *out, char *err);
void parallel_free(Parallel *par);

/* Where value index i of pivot axis a sits on its vertical axis (0..1). */
double parallel_value_pos(const Pivot *p, int a, double i);
/* Where metric value v sits on the metric's axis (0..1). */
double parallel_metric_pos(const Parallel *par, double v);

/* Where brush b of pivot axis a (PAR_METRIC: the metric's) spans on its
   vertical axis: *lo..*hi in 0..1 (0..1 when it is off; a metric range
   clipped to the lines' values). */
void parallel_brush_span(const Pivot *p, const Parallel *par, int a, const ParBrush *b, double *lo, double *hi);

/* Brushes from "KEY=LO..HI ..." (KEY a sweep axis or the metric's name,
   such as valid_loss; LO and HI values of the axis, numbers for a numeric
   axis or the metric; either may be left out: "lr=..1e-3").  brush[] is
   cleared first.  -1 with a one-line err naming the word that is wrong. */
int parallel_parse_ranges(const Pivot *p, PointMetric m, const char *text, ParBrush *brush, char *err);
/* The text of brush[] as parallel_parse_ranges reads it ("" for none). */
void parallel_format_ranges(const Pivot *p, PointMetric m, const ParBrush *brush, char *out, size_t cap);

#endif
