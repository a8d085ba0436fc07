/*
 * sweep_form.h — the New sweep form's fields (ui/sweep_state.h): which
 * apply (a preset fixes some), the spec they compose and its parse, the
 * checks made on every change (the job count, the estimate, the data and
 * memory), and the form the store remembers between launches.
 *
 * Not for: drawing (ui/sweep_draw.h) or keys (ui/screen_sweep.c).
 */
#ifndef MIXBENCH_UI_SWEEP_FORM_H
#define MIXBENCH_UI_SWEEP_FORM_H

#include "experiments/sweep.h"
#include "ui/sweep_state.h"

/* A field edited as text (F_DATA .. F_PRIORITY, F_SEARCH, F_HOURS). */
int sweep_is_text_field(int f);
/* Fields a preset fixes are skipped in preset mode; until-conclusive and
   its cap are a preset's only (its claims decide). */
int sweep_field_enabled(const SweepScreen *s, int f);
/* The dataset that replaces a preset's own (`--data`): the Dataset field
   when it differs from the preset's; NULL for none (or a grid, whose
   dataset is the base config's). */
const char *sweep_data_override(const SweepScreen *s);
/* A preset was chosen (or (none)) where `from` was: the Dataset field
   shows the preset's own corpus, and the grid's dataset comes back with
   (none); Conclusive (and its cap) is what the study asks for, as
   `mixbench sweep` reads it (docs/studies.md until_conclusive). */
void sweep_preset_changed(SweepScreen *s, int from);
/* Parses the form into sw (sweep_free it when 0 is returned). */
int sweep_parse_form(SweepScreen *s, Sweep *sw, char *err);
/* Recomputes everything derived from the fields (after every change). */
void sweep_recompute(SweepScreen *s);
/* The form of the last launch on this store; an unknown preset, task or
   architecture (another version's) is left at its default; a study file
   (its path) is read again. */
void sweep_recall_form(SweepScreen *s, UiContext *ctx);
/* The form into the store's settings when it changed. */
void sweep_remember_form(SweepScreen *s, UiContext *ctx);

#endif
