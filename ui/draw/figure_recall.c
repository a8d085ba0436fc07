/*
 * figure_recall.c — the recall figure (figure_build.h figure_recall), in
 * the layout of Zoology's Figure 2 (Arora et al. 2023): answer accuracy
 * against the model width d, a panel per MQAR cell (n, pairs), a line per
 * architecture (each point's mean over its seeds with a +- standard error
 * band, experiments/recall_table.h's series), Zoology's bar for solved
 * (0.99) dashed; the paper's own figures of answer accuracy, where the
 * store has any for the preset, as gray markers (none are retyped here);
 * the claims' verdicts under it.
 */
#include "ui/draw/figure_build.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "engine/common.h"
#include "experiments/points.h"
#include "experiments/recall_table.h"
#include "experiments/stats.h"
#include "experiments/sweep.h"

/* The paper's answer-accuracy figures at the points of cell c of v, as
   markers at their d; *shown counts them. */
static int paper_markers(FigPlot *p, const RecallView *v, int c, const FigureRow *figs, int n_figs, int *shown)
{
    double x[RECALL_MAX_SERIES * RECALL_MAX_D], y[RECALL_MAX_SERIES * RECALL_MAX_D];
    int n = 0;
    for (int i = 0; i < n_figs; i++) {
        if (strcmp(figs[i].metric, "answer_accuracy")) continue;
        char sel[2048];
        size_t len = 0;
        sel[0] = 0;
        for (int k = 0; k < figs[i].n_coords && len < sizeof sel; k++)
            len += (size_t)snprintf(sel + len, sizeof sel - len, "%s%s=%s", k ? " " : "", figs[i].coords[k].key,
                                    figs[i].coords[k].value);
        for (int s = 0; s < v->n_series; s++)
            for (int k = 0; k < v->n_d; k++)
                if (v->at[s][c][k] && point_select(v->at[s][c][k], sel) && n < (int)(sizeof x / sizeof x[0]))
                    x[n] = v->d[k], y[n++] = figs[i].value;
    }
    *shown += n;
    if (!n) return 0;
    FigSeries *m = fig_plot_series(p, FIG_MARKERS, FIG_GRAY, x, y, n);
    if (!m) return -1;
    snprintf(m->label, sizeof m->label, "the paper's figure");
    return 0;
}

/* Cell c's panel: a line per series, its band and markers. */
static int cell_panel(Figure *f, const RecallView *v, int c, const FigureRow *figs, int n_figs, int *paper)
{
    char title[64];
    snprintf(title, sizeof title, "MQAR %s", v->cell[c]);
    FigPlot *p = figure_add_plot(f, title, "model width d", "answer accuracy (fraction of answers)", 0);
    if (!p) return -1;
    p->log_x = 1;
    for (int s = 0; s < v->n_series; s++) {
        double x[RECALL_MAX_D], y[RECALL_MAX_D], band[2 * RECALL_MAX_D];
        int n = 0;
        for (int k = 0; k < v->n_d; k++) {
            const Point *pt = v->at[s][c][k];
            if (!pt || pt->stat[PM_ANSWER_ACCURACY].n == 0) continue;
            const SeedStats *st = &pt->stat[PM_ANSWER_ACCURACY];
            x[n] = v->d[k], y[n] = st->mean;
            band[n] = st->mean - (st->n > 1 ? st->se : 0);
            band[RECALL_MAX_D + n] = st->mean + (st->n > 1 ? st->se : 0);
            n++;
        }
        if (!n) continue;
        double edges[2 * RECALL_MAX_D];
        memcpy(edges, band, (size_t)n * sizeof band[0]);
        memcpy(edges + n, band + RECALL_MAX_D, (size_t)n * sizeof band[0]);
        FigSeries *b = fig_plot_series(p, FIG_BAND, s, x, edges, n);
        FigSeries *line = b ? fig_plot_series(p, FIG_LINE, s, x, y, n) : NULL;
        FigSeries *dots = line ? fig_plot_series(p, FIG_MARKERS, s, x, y, n) : NULL;
        if (!dots) return -1;
        snprintf(line->label, sizeof line->label, "%s", v->series[s]);
    }
    double bar = RECALL_SOLVED;
    FigSeries *level = fig_plot_series(p, FIG_LEVEL, FIG_GRAY, NULL, &bar, 1);
    if (!level) return -1;
    if (c == v->n_cells - 1) snprintf(level->label, sizeof level->label, "%.2f: solved (Zoology's bar)", bar);
    return paper_markers(p, v, c, figs, n_figs, paper);
}

int figure_recall(Store *s, int64_t sweep_id, Figure *f, char *err)
{
    assert(s && f && err);
    figure_init(f);
    SweepRow sw;
    char preset[64];
    if (figure_load_sweep(s, sweep_id, &sw, preset, err)) return -1;
    ResultRun *runs = NULL;
    int n_runs = 0, np = 0, n_figs = 0, paper = 0;
    if (results_sweep_runs(s, sweep_id, 1, &runs, &n_runs, err)) return -1;
    Point *pts = NULL;
    FigureRow *figs = NULL;
    RecallView *v = calloc(1, sizeof *v);
    int rc = !v || points_group(runs, n_runs, &pts, &np, NULL) ? err_set(err, "figure: out of memory") : 0;
    if (!rc && preset_find(preset)) rc = results_paper_figures(s, preset, &figs, &n_figs, err);
    if (!rc) recall_view(pts, np, STATS_ALPHA, v);
    if (!rc && v->n_cells && v->n_d >= 2) {
        snprintf(f->title, sizeof f->title, "Recall: sweep %lld %s, answer accuracy against d", (long long)sweep_id,
                 sw.name);
        if (figure_note(f, FIG_TONE_PLAIN, "Zoology's Figure 2 layout (Arora et al. 2023): a panel per MQAR cell (n, "
                                           "pairs), a line per architecture: the mean over its seeds, shaded +- "
                                           "standard error; dashed: %.2f, the answer accuracy Zoology calls solved",
                        RECALL_SOLVED) ||
            figure_note(f, FIG_TONE_DIM, "made by mixbench sweep %s", sw.spec))
            rc = err_set(err, "figure: out of memory");
        for (int c = 0; c < v->n_cells && !rc; c++)
            if (cell_panel(f, v, c, figs, n_figs, &paper)) rc = err_set(err, "figure: out of memory");
        if (!rc && figure_note(f, FIG_TONE_DIM, paper ? "gray markers: the paper's answer accuracies at the same points "
                                                        "(shared/papers/figures.csv)"
                                                      : "the paper's own numbers are not in the store (shared/papers/"
                                                        "figures.csv holds none for this study): ours alone"))
            rc = err_set(err, "figure: out of memory");
        if (!rc) rc = figure_add_verdicts(f, s, sw.preset, sweep_id, err);
    }
    free(v);
    free(figs);
    free(pts);
    free(runs);
    if (rc) figure_free(f);
    return rc;
}
