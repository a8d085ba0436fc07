/*
 * figure_key.h — the P key of the Run, Compare, Grid and AE/Bidir screens:
 * the figure of what the screen shows (ui/draw/figure_build.h), written as
 * SVG beside the store (mixbench.db: mixbench-run12.svg), its path or the
 * reason it could not be written said on the message line.
 *
 * Not for: building the figures (figure_build.h) or drawing them (figure.h).
 */
#ifndef MIXBENCH_FIGURE_KEY_H
#define MIXBENCH_FIGURE_KEY_H

#include "ui/draw/figure_build.h"
#include "ui/ui.h"

/* The screens' key for it. */
#define UI_FIGURE_KEY 'P'

/* After built = figure_NAME(..., fig, err): writes fig as STEM-name.svg
   beside the store when built is 0, says what happened, frees fig. */
void ui_figure_save(UiContext *ctx, Figure *fig, int built, const char *err, const char *name);

#ifdef MIXBENCH_PIVOT_H   /* (for the files that include experiments/pivot.h: its
                            SeedGroup is another than screen_compare.c's) */
/* The Grid screen's figure: sweep_id (0: none shown) on the axes row_axis
   and col_axis of its pivot (-1: none), metric m, the other axes at the
   value indexes fixed_at (NULL: averaged over). */
void ui_figure_grid(UiContext *ctx, int64_t sweep_id, int m, const Pivot *p, int row_axis, int col_axis,
                    const int *fixed_at);
#endif

#endif
