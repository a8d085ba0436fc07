/*
 * organise.h — the keys that keep the store tidy from the Runs and Run
 * screens (db/organise.h does the work):
 *
 *   D / Delete   the run (a seed group: its runs) to the trash, after a
 *                question that says what goes and what stays
 *   u            undo the last delete: its runs come back
 *   t            tag: words typed add tags, "-word" removes one
 *   n            note: the run's note, to edit
 *   R            rename: the run's name, to edit
 *   N / M        the run's sweep: its name / its note, to edit
 *   *            star / unstar (a starred run is protected from D)
 *
 * A screen keeps one UiOrganise (what is being typed), hands it the keys
 * (ui_organise_key, and every key while ui_organise_typing), and draws the
 * field with ui_organise_draw where it has room for one line.  The runs of
 * the last delete are kept in the UiContext (undo), so `u` on Runs undoes a
 * delete made on Run.
 *
 * Not for: choosing the runs (the screens) or filters (experiments/run_filter.h).
 */
#ifndef MIXBENCH_UI_ORGANISE_H
#define MIXBENCH_UI_ORGANISE_H

#include <stdint.h>

#include "db/runs_read.h"
#include "ui/ui.h"

typedef enum { UI_ORG_NONE, UI_ORG_TAG, UI_ORG_NOTE, UI_ORG_RENAME, UI_ORG_SWEEP_NAME, UI_ORG_SWEEP_NOTE } UiOrgPrompt;

typedef struct {
    UiOrgPrompt prompt;          /* what is being typed; UI_ORG_NONE: nothing */
    int64_t ids[UI_UNDO_MAX];    /* the runs it is for */
    int n;
    int64_t sweep_id;            /* UI_ORG_SWEEP_*: the sweep */
    UiTextField field;
} UiOrganise;

/* One of the keys above on the runs ids[n] (the selected run, or a seed
   group's runs; first: the selected row, for its texts).  Returns 1 when
   the key is one of them; *deleted is set when runs went to the trash (the
   Run screen then shows Runs). */
int ui_organise_key(UiOrganise *o, UiContext *ctx, int ch, const int64_t *ids, int n, const RunSummary *first,
                    int *deleted);
/* 1 while a tag, note or name is typed: every key goes to ui_organise_key. */
int ui_organise_typing(const UiOrganise *o);
/* The field being typed with its label, in [x, x + width) of row y. */
void ui_organise_draw(const UiOrganise *o, UiContext *ctx, int y, int x, int width);

#endif
