/*
 * runs_table.h — the drawing of the Runs screen (ui/runs_table.c), over its
 * state (ui/runs_view.h); ui/screen_runs.c, which loads and takes the keys,
 * calls it.
 *
 * Not for: the state or anything but drawing.
 */
#ifndef MIXBENCH_UI_RUNS_TABLE_H
#define MIXBENCH_UI_RUNS_TABLE_H

#include "ui/runs_view.h"

/* The whole screen: the summary line, the table, the line under it. */
void runs_view_draw(RunsState *st, UiContext *ctx, int top, int height, int width);

#endif
