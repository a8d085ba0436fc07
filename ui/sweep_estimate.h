/*
 * sweep_estimate.h — the New sweep form's estimate (ui/sweep_state.h):
 * the store's measured speeds, the sweep's time with what --prune and
 * lr=tune make of it, and its Time line, which names the runs each
 * architecture's tokens/s comes from (experiments/estimate.h).
 *
 * Not for: computing estimates (experiments/estimate.c).
 */
#ifndef MIXBENCH_UI_SWEEP_ESTIMATE_H
#define MIXBENCH_UI_SWEEP_ESTIMATE_H

#include "experiments/sweep.h"
#include "ui/sweep_state.h"

/* How often the measured speeds are read again. */
#define SPEED_REFRESH_SECONDS 10.0

/* Reads the store's measured speeds again. */
void sweep_load_speeds(SweepScreen *s, UiContext *ctx);
/* The sweep's time, one job after another, from the store's measured
   speeds where it has them. */
void sweep_form_estimate(SweepScreen *s, const Sweep *sw);
/* The Time line at row y (label at column 1, text from x, width wide);
   returns the rows used, at most max_lines. */
int sweep_draw_time(const SweepScreen *s, int y, int x, int width, int max_lines);

#endif
