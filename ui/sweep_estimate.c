/*
 * sweep_estimate.c — the New sweep form's estimate and its Time line
 * (sweep_estimate.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/sweep_estimate.h"

#include <ncurses.h>
#include <stdio.h>

#include "engine/common.h"
#include "experiments/adaptive.h"
#include "experiments/format.h"
#include "experiments/rungs.h"

void sweep_load_speeds(SweepScreen *s, UiContext *ctx)
{
    char err[ERR_LEN];
    speed_book_free(&s->book);
    if (speed_book_load(ctx->store, &s->book, err)) speed_book_free(&s->book);
    s->speeds_at = now_seconds();
}

/* (experiments/estimate.h says where each architecture's tokens/s comes
   from) */
void sweep_form_estimate(SweepScreen *s, const Sweep *sw)
{
    SweepEstimate e = sweep_estimate(sw, 1, &s->book);
    s->estimate_seconds = e.seconds;
    estimate_describe(&e, s->estimate_basis, sizeof s->estimate_basis);
    /* --prune: what it makes of the time, first on the Time line */
    s->estimate_prune[0] = 0;
    char full[32], when[32];
    double share = prune_asha_share(&sw->plan, sw->jobs[0].config.cooldown);
    fmt_duration(e.seconds, full, sizeof full);
    fmt_duration(e.seconds * share, when, sizeof when);
    if (sw->plan.prune == PRUNE_ASHA)
        snprintf(s->estimate_prune, sizeof s->estimate_prune, "~%s with asha (about %.0f%% of ~%s in full)", when,
                 100 * share, full);
    else if (sw->plan.prune == PRUNE_MEDIAN)
        snprintf(s->estimate_prune, sizeof s->estimate_prune, "at most ~%s (median pruning stops some trials)", full);
    /* lr=tune: its searches train before the seeds */
    s->estimate_tune[0] = 0;
    SearchEstimate se = adaptive_search_estimate(sw);
    if (se.points) {
        fmt_duration(e.seconds / sw->n_jobs * se.runs, when, sizeof when);
        fmt_duration(e.seconds / sw->n_jobs * se.worst, full, sizeof full);
        snprintf(s->estimate_tune, sizeof s->estimate_tune, "; lr=tune's search ~%s more, up to ~%s",
                 when, full);
    }
}

int sweep_draw_time(const SweepScreen *s, int y, int x, int width, int max_lines)
{
    char when[32];
    fmt_duration(s->estimate_seconds, when, sizeof when);
    char line[1536];
    int len = snprintf(line, sizeof line, "%s%s, one job after another%s (an estimate; tokens/s: %s)",
                       s->estimate_prune[0] ? "" : "~", s->estimate_prune[0] ? s->estimate_prune : when,
                       s->estimate_tune, s->estimate_basis);
    if (s->until && s->preset >= 0 && len < (int)sizeof line && s->text[F_HOURS].text[0])
        snprintf(line + len, sizeof line - (size_t)len, "; until conclusive: at most %s CPU hours in all (the cap)",
                 s->text[F_HOURS].text);
    else if (s->until && s->preset >= 0 && len < (int)sizeof line)
        snprintf(line + len, sizeof line - (size_t)len, "; until conclusive, with no cap (an empty cap)");
    ui_text(y, 1, LABEL_WIDTH, A_BOLD, "Time");
    /* 3 rows where the form has room (the memory below keeps 3), else 2 */
    int rows = max_lines >= 6 ? 3 : 2;
    return ui_wrap(y, x, width, max_lines < rows ? max_lines : rows, 0, line);
}
