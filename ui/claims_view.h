/*
 * claims_view.h — the verdicts of a preset's claims (experiments/verdicts.h:
 * while a round of --until-conclusive trains, as the loop last judged them)
 * as the Grid and AE/Bidir screens show them: judged again only when the
 * sweep shown or its count of finished runs changes (judging reads the
 * whole sweep), then drawn one claim a line, the verdict first in its
 * colour ("holds" good, "does not hold" bad, "undecided" warning, "not
 * run" dim; the words themselves without colours), an undecided one's
 * reason and the numbers behind it on the next line while rows remain.
 *
 * Not for: the rules themselves (experiments/claims.c).
 */
#ifndef MIXBENCH_CLAIMS_VIEW_H
#define MIXBENCH_CLAIMS_VIEW_H

#include "engine/common.h"
#include "experiments/verdicts.h"
#include "ui/ui.h"

typedef struct {
    int64_t sweep_id;            /* judged for this sweep (0: nothing yet) */
    int n_done;                  /* with this many finished runs */
    ClaimNow *results;
    int n;
    char error[ERR_LEN + 16];
} ClaimsView;

/* The preset of a sweep name: "pairconnect-grid@paper" -> "pairconnect-grid"
   (into buf). */
const char *claims_view_preset(const char *sweep_name, char *buf, size_t cap);
/* Judges the claims of sweep_name's preset on sweep_id when the sweep or
   n_done changed since the last call. */
void claims_view_update(ClaimsView *v, UiContext *ctx, const char *sweep_name, int64_t sweep_id, int n_done);
/* Draws from row y at most max_rows rows; returns the rows used. */
int claims_view_draw(const ClaimsView *v, UiContext *ctx, int y, int width, int max_rows);
void claims_view_free(ClaimsView *v);

#endif
