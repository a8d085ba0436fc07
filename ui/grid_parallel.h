/*
 * grid_parallel.h — the Grid screen's parallel coordinates view (`v`): the
 * sweep's axes that vary and the metric as vertical axes, a braille line
 * per finished run or seed group (`g`) coloured worse to better by the
 * metric, and brushing: left/right pick an axis, up/down move its range's
 * top edge, PgUp/PgDn its bottom edge (a value at a time, or a tenth of
 * the metric's range), `x` clears the axis's range, `X` every range;
 * lines outside a range are drawn dim (left out in monochrome).  `P`
 * writes the parallel figure of what it shows (figure_build.h).
 *
 * Not for: the lines themselves (experiments/parallel.h) or the heatmap
 * (screen_grid.c).
 */
#ifndef MIXBENCH_GRID_PARALLEL_H
#define MIXBENCH_GRID_PARALLEL_H

#include "experiments/parallel.h"
#include "ui/ui.h"

typedef struct {
    int on;                      /* the view is shown instead of the heatmap */
    int groups;                  /* a line per seed group, else per run */
    int axis;                    /* the picked axis: its place among the view's axes */
    ParBrush brush[PAR_MAX_AXES];
    int64_t sweep_id;            /* the brushes belong to this sweep ... */
    PointMetric metric;          /* ... and the metric's brush to this metric */
} GridParallel;

/* Rows [top, top + height) of the terminal: the axes, lines, the picked
   axis and its range, how many lines are kept. */
void grid_parallel_draw(GridParallel *gp, UiContext *ctx, int64_t sweep_id, const Pivot *p, PointMetric m, int top,
                        int height, int width);

/* The view's keys (above); 1 when it took ch. */
int grid_parallel_key(GridParallel *gp, UiContext *ctx, int64_t sweep_id, const Pivot *p, PointMetric m, int ch);

/* P: the parallel figure of sweep_id as shown, beside the store. */
void grid_parallel_figure(GridParallel *gp, UiContext *ctx, int64_t sweep_id, const Pivot *p, PointMetric m);

#endif
