/*
 * grid_knobs.c — the Grid screen's "which knob matters" line
 * (grid_knobs.h); over a random search, its drawn axes binned into ranges.
 */
#include "ui/grid_knobs.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/common.h"
#include "experiments/importance.h"

/* Works the line out again when what it is of changed. */
static void update(GridKnobs *k, const Pivot *p, int64_t sweep_id, PointMetric m)
{
    int n_done = 0;
    for (int i = 0; i < p->n_runs; i++) n_done += p->runs[i].state == RUN_DONE;
    if (k->sweep == sweep_id && k->metric == (int)m && k->n_done == n_done && k->text[0]) return;
    Importance imp;
    char err[ERR_LEN], shares[512], filled[80] = "";
    /* a random search: its drawn axes in ranges (experiments/pivot.h pivot_bin_search) */
    Pivot binned;
    int search = pivot_is_search(p);
    if (search && pivot_bin_search(p, PIVOT_SEARCH_BINS, &binned, err)) k->bad = 1;
    else k->bad = importance_of_pivot(search ? &binned : p, m, &imp, err) != 0;
    if (search) pivot_free(&binned);   /* a failed pivot_bin_search leaves it empty */
    if (k->bad) {
        snprintf(k->text, sizeof k->text, "which knob matters: %s", err);
    } else {
        importance_summary(&imp, 6, shares, sizeof shares);
        if (imp.n_imputed) snprintf(filled, sizeof filled, ", %d filled", imp.n_imputed);
        if (search) snprintf(filled + strlen(filled), sizeof filled - strlen(filled), ", drawn axes in %d ranges",
                             PIVOT_SEARCH_BINS);
        int len = snprintf(k->text, sizeof k->text, "which knob matters (variance over %d cells%s): %s", imp.n_cells,
                           filled, shares);
        char noise[96];
        importance_noise_text(&imp, 1, noise, sizeof noise);
        if (noise[0] && len < (int)sizeof k->text) snprintf(k->text + len, sizeof k->text - (size_t)len, "; %s", noise);
    }
    k->sweep = sweep_id;
    k->metric = (int)m;
    k->n_done = n_done;
}

int grid_knobs_draw(GridKnobs *k, UiContext *ctx, const Pivot *p, int64_t sweep_id, PointMetric m, int y, int bottom,
                    int width)
{
    assert(k && ctx && p);
    if (y >= bottom) return y;
    update(k, p, sweep_id, m);
    if (k->bad) {
        ui_text(y, 0, width, ui_attr(ctx, UI_PAIR_DIM), "%s", k->text);
        return y + 1;
    }
    return y + ui_wrap(y, 0, width, MB_MIN(2, bottom - y), 0, k->text);
}
