/*
 * test_figure_recall.c — the recall figure (ui/draw/figure_build.h
 * figure_recall: Zoology's Figure 2 layout) on a hand-made store: a sweep
 * of the zoology study with MQAR at 4 and 16 pairs, d 32 and 64, attention
 * and hyena, two seeds each (no training).  One panel per cell, titled by
 * its (n, pairs); in each a line per architecture through its points' mean
 * answer accuracies at their d (log x), a +- standard error band around
 * it, markers; the 0.99 bar as a dashed level; a paper figure of answer
 * accuracy stored for the study drawn as a gray marker at its point, and
 * without one a note that the paper's numbers are not in the store; the
 * figure writes as SVG.  A sweep with no MQAR points draws no panel.
 *
 * Not for: the solved table or the claims (tests/experiments/test_claims.c).
 */
#include "db/jobs.h"
#include "db/store.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"
#include "ui/draw/figure_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA(p) "builtin:mqar:pairs=" #p ":vocab=256:examples=100000"

/* A finished run of arch at (pairs, d) with answer accuracy acc. */
static void add_run(Store *s, int64_t sweep, const char *arch, const char *data, int d, int seed, double acc)
{
    char coords[256], err[ERR_LEN] = "";
    snprintf(coords, sizeof coords, "{\"n_ctx\": \"64\", \"data\": \"%s\", \"d\": \"%d\", \"arch\": \"%s\", \"seed\": \"%d\"}",
             data, d, arch, seed);
    RunInfo info = job_info(arch, "clm");
    info.data = data;
    info.tokenizer = "ids";
    info.d = d;
    info.n_ctx = 64;
    info.vocab = 256;
    int64_t id = 0;
    CHECK(store_job_enqueue(s, &info, sweep, coords, 0, &id, err) == 0, "%s", err);
    EvalRow test = {100, "test", 1.0, acc, NAN, 1000, NAN};
    RunEnd end = {"done", NULL, 100, 6400, 1.0, 1000, NAN, NAN, NAN};
    CHECK(store_eval_add(s, id, &test, err) == 0 && store_run_finish(s, id, &end, err) == 0, "%s", err);
}

/* The series of plot p of mark m with a label containing label ("": any), the first. */
static const FigSeries *find(const FigPlot *p, FigMark m, const char *label)
{
    for (int i = 0; i < p->n_series; i++)
        if (p->series[i].mark == m && strstr(p->series[i].label, label)) return &p->series[i];
    return NULL;
}

static void test_recall_figure(void)
{
    Store *s = open_store("recall_fig.db");
    char err[ERR_LEN] = "";
    int64_t sw = 0;
    CHECK(store_sweep_create(s, "zoology", "zoology", NULL, &sw, err) == 0, "%s", err);
    /* attention solves both cells at both widths; hyena 4 pairs from d=64 only */
    static const char *const CELLS[2] = {DATA(4), DATA(16)};
    for (int c = 0; c < 2; c++)
        for (int d = 32; d <= 64; d *= 2)
            for (int seed = 1; seed <= 2; seed++) {
                add_run(s, sw, "attention", CELLS[c], d, seed, 1.0 - 0.002 * seed);
                add_run(s, sw, "hyena", CELLS[c], d, seed, (c == 0 && d == 64 ? 0.98 : 0.3) + 0.01 * seed);
            }
    Figure f;
    CHECK(figure_recall(s, sw, &f, err) == 0, "%s", err);
    CHECK(f.n_plots == 2 && !strcmp(f.plots[0].title, "MQAR (64, 4)") && !strcmp(f.plots[1].title, "MQAR (64, 16)"),
          "%d plots: %s", f.n_plots, f.n_plots ? f.plots[0].title : "");
    if (f.n_plots == 2) {
        const FigPlot *p = &f.plots[0];
        const FigSeries *att = find(p, FIG_LINE, "attention"), *hy = find(p, FIG_LINE, "hyena");
        CHECK(p->log_x && att && hy && att->n == 2 && hy->n == 2, "lines");
        if (att && hy && att->n == 2 && hy->n == 2)
            CHECK(att->x[0] == 32 && att->x[1] == 64 && fabs(att->y[0] - 0.997) < 1e-12 && fabs(hy->y[0] - 0.315) < 1e-12 &&
                      fabs(hy->y[1] - 0.995) < 1e-12,
                  "means %g %g %g", att->y[0], hy->y[0], hy->y[1]);
        /* the band: mean -+ se (two seeds 0.01 apart: se 0.005) */
        const FigSeries *band = NULL;
        for (int i = 0; i < p->n_series; i++)
            if (p->series[i].mark == FIG_BAND && p->series[i].color == (hy ? hy->color : -2)) band = &p->series[i];
        CHECK(band && band->n == 2 && fabs(band->y[0] - 0.31) < 1e-9 && fabs(band->y[2] - 0.32) < 1e-9, "band");
        const FigSeries *bar = find(&f.plots[1], FIG_LEVEL, "solved");
        CHECK(bar && bar->y[0] == 0.99 && find(p, FIG_LEVEL, ""), "the 0.99 bar");
        CHECK(find(p, FIG_MARKERS, "") != NULL && !find(p, FIG_MARKERS, "paper"), "markers, no paper figure");
    }
    int said = 0;
    for (int i = 0; i < f.n_notes; i++) said |= strstr(f.notes[i].text, "paper's own numbers are not in the store") != NULL;
    CHECK(said, "a note that the paper's numbers are absent");
    char path[512];
    snprintf(path, sizeof path, "%s", db_path("recall.svg"));
    CHECK(figure_write(&f, path, err) == 0, "%s", err);
    FILE *svg = fopen(path, "r");
    char *text = calloc(1, 1 << 20);
    if (svg && text) fread(text, 1, (1 << 20) - 1, svg);
    CHECK(text && strstr(text, "MQAR (64, 16)") && strstr(text, "model width d"), "the SVG's text");
    if (svg) fclose(svg);
    free(text);
    figure_free(&f);

    /* a paper figure of the study at hyena (64, 4) d=32: a gray marker there */
    CHECK(store_paper_figure_add(s, "zoology",
                                 "{\"n_ctx\": \"64\", \"data\": \"" DATA(4) "\", \"d\": \"32\", \"arch\": \"hyena\"}",
                                 "answer_accuracy", 0.5, "a test figure", "S1", NULL, err) == 0,
          "%s", err);
    CHECK(figure_recall(s, sw, &f, err) == 0 && f.n_plots == 2, "%s", err);
    if (f.n_plots == 2) {
        const FigSeries *m = find(&f.plots[0], FIG_MARKERS, "paper");
        CHECK(m && m->color == FIG_GRAY && m->n == 1 && m->x[0] == 32 && m->y[0] == 0.5 &&
                  !find(&f.plots[1], FIG_MARKERS, "paper"),
              "the paper's marker");
    }
    figure_free(&f);

    /* a sweep with no MQAR points: no panel */
    int64_t other = 0;
    CHECK(store_sweep_create(s, "grid", "d=32,64", NULL, &other, err) == 0, "%s", err);
    char coords[64];
    for (int d = 32; d <= 64; d *= 2) {
        snprintf(coords, sizeof coords, "{\"d\": \"%d\"}", d);
        enqueue(s, other, coords, 0);
    }
    CHECK(figure_recall(s, other, &f, err) == 0 && f.n_plots == 0, "%s (%d plots)", err, f.n_plots);
    figure_free(&f);
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("figure-recall")) return 1;
    RUN(test_recall_figure);
    figure_cleanup();
    tmp_dir_remove();
    CHECK_EXIT();
}
