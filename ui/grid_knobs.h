/*
 * grid_knobs.h — the Grid screen's line under the heatmap saying which
 * knob matters: the share of the metric's variance over the sweep's grid
 * that each axis and pair of axes explains (experiments/importance.h),
 * from the largest, and how much of that variance seed noise alone would
 * make, or why it cannot be said.  Worked out again only when
 * the sweep, the metric or the count of finished runs changes: a large
 * grid with missing cells takes a while, and the screen redraws twice a
 * second.
 *
 * Not for: the decomposition itself (experiments/importance.c).
 */
#ifndef MIXBENCH_GRID_KNOBS_H
#define MIXBENCH_GRID_KNOBS_H

#include "experiments/pivot.h"
#include "ui/ui.h"

typedef struct {
    char text[700];              /* the line, or why not */
    int bad;                     /* text says why not */
    int64_t sweep;               /* worked out for this sweep, metric and count of finished runs */
    int metric, n_done;
} GridKnobs;

/* Draws the line for metric m of the sweep_id's pivot p from row y (at
   most two rows, word-wrapped, above bottom); returns the next free row. */
int grid_knobs_draw(GridKnobs *k, UiContext *ctx, const Pivot *p, int64_t sweep_id, PointMetric m, int y, int bottom,
                    int width);

#endif
