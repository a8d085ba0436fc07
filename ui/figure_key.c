/*
 * figure_key.c — ui_figure_save of figure_key.h: where a screen's figure
 * goes and what the message line says about it.
 */
#include "experiments/pivot.h"
#include "ui/figure_key.h"

#include <stdio.h>
#include <string.h>

#include "engine/common.h"

void ui_figure_save(UiContext *ctx, Figure *fig, int built, const char *err, const char *name)
{
    char path[1024], werr[ERR_LEN];
    figure_path_beside(ctx->db_path, name, path, sizeof path);
    if (built) ui_say(ctx, "figure: %s", err);
    else if (figure_write(fig, path, werr)) ui_say(ctx, "figure: %s", werr);
    else ui_say(ctx, "figure written to %s", path);
    figure_free(fig);
}

void ui_figure_grid(UiContext *ctx, int64_t sweep_id, int m, const Pivot *p, int row_axis, int col_axis,
                    const int *fixed_at)
{
    Figure fig;
    figure_init(&fig);
    char err[ERR_LEN] = "no sweep shown", name[48], at[2048] = "";
    for (int a = 0; a < p->n_axes && fixed_at; a++)
        if (a != row_axis && a != col_axis && fixed_at[a] >= 0 && fixed_at[a] < p->n_values[a])
            snprintf(at + strlen(at), sizeof at - strlen(at), "%s=%s ", p->axis[a], p->values[a][fixed_at[a]]);
    GridView v = {sweep_id, m, row_axis >= 0 ? p->axis[row_axis] : NULL, col_axis >= 0 ? p->axis[col_axis] : NULL, at};
    snprintf(name, sizeof name, "grid-sweep%lld", (long long)sweep_id);
    ui_figure_save(ctx, &fig, sweep_id ? figure_grid(ctx->store, &v, &fig, err) : -1, err, name);
}
