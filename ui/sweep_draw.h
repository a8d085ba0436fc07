/*
 * sweep_draw.h — drawing the New sweep screen (ui/sweep_state.h): the
 * form, or the preset list while it is open.
 *
 * Not for: keys (ui/screen_sweep.c) or what the fields mean
 * (ui/sweep_form.h).
 */
#ifndef MIXBENCH_UI_SWEEP_DRAW_H
#define MIXBENCH_UI_SWEEP_DRAW_H

#include "ui/sweep_state.h"

/* The whole screen, top..top+height, width wide. */
void sweep_form_draw(SweepScreen *s, UiContext *ctx, int top, int height, int width);
/* The preset list alone (Enter on Preset opens it). */
void sweep_draw_preset_list(SweepScreen *s, UiContext *ctx, int top, int height, int width);

#endif
