/*
 * test_figure_fits.c — the power-law fits the curve figures draw past the
 * budget (FIGURE_FITS: ui/draw/figure_build.h, ui/draw/curve_fits.h) on a
 * hand-made store: two seed groups of two runs each whose valid losses
 * follow known power laws in training tokens (no training) and a third
 * group, one run with only 3 evaluations.  figure_compare with FIGURE_FITS
 * gets one fit
 * per group that can be fitted, in its colour, from its last evaluation
 * (the budget) to 10x it on a log tokens axis, following the law put in;
 * none for the 3-evaluation group, which a note names; an x where the two
 * fits cross, at the crossing put there; a legend entry for the fits; and
 * the figure draws as SVG with that legend.  Without FIGURE_FITS: no fit,
 * a linear x.  The terminal plots' dashed line (PLOT_DASHED) has gaps.
 *
 * Not for: the fit itself (tests/experiments/test_curve_fit.c) or the
 * commands (tests/cli/test_plot_cli.sh).
 */
#include "db/store.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"
#include "ui/draw/curve_fits.h"
#include "ui/draw/figure_build.h"
#include "ui/draw/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 800
#define TOKENS_PER_STEP 512
#define BUDGET ((double)STEPS * TOKENS_PER_STEP)

/* Group a: 3.0 + 1.2 u^-0.5, group b: 3.35 + 0.5 u^-1 (u = tokens / BUDGET):
   a is above b at the budget and below it far out; they cross where
   0.5 v^2 - 1.2 v + 0.35 = 0 with v = u^-0.5. */
static double law_a(double u) { return 3.0 + 1.2 * pow(u, -0.5); }
static double law_b(double u) { return 3.35 + 0.5 / u; }
static double crossing_put(void)
{
    double v = 1.2 - sqrt(1.44 - 0.7);
    return BUDGET / (v * v);
}

/* A finished run of arch with seed, its valid loss law(u) (+ offset) at
   n_evals evaluations evenly along its STEPS steps. */
static int64_t add_run(Store *s, const char *arch, int seed, double (*law)(double), double offset, int n_evals)
{
    char err[ERR_LEN] = "", config[128];
    snprintf(config, sizeof config, "{\"arch\":\"%s\",\"d\":\"64\",\"seed\":\"%d\"}", arch, seed);
    RunInfo info = job_info(arch, "clm");
    info.config_json = config;
    info.seed = seed;
    info.total_steps = STEPS;
    int64_t id = 0;
    CHECK(store_run_create(s, &info, &id, err) == 0, "%s", err);
    double v = 0;
    for (int k = 1; k <= n_evals; k++) {
        int64_t step = (int64_t)STEPS * k / n_evals;
        v = law((double)step / STEPS) + offset;
        MetricRow m = {step, step * TOKENS_PER_STEP, 1.0 * k, v, v, 0.001, 1.0, 5000};
        EvalRow valid = {step, "valid", v, 0.3, NAN, 1000, NAN};
        CHECK(store_metrics_append(s, id, &m, 1, err) == 0 && store_eval_add(s, id, &valid, err) == 0, "%s", err);
    }
    EvalRow test = {STEPS, "test", v, 0.3, NAN, 1000, NAN};
    CHECK(store_eval_add(s, id, &test, err) == 0, "%s", err);
    RunEnd end = {"done", NULL, STEPS, STEPS * TOKENS_PER_STEP, 10.0, 5000, NAN, NAN, NAN};
    CHECK(store_run_finish(s, id, &end, err) == 0, "%s", err);
    return id;
}

/* The series of plot p of mark m (with n > 0), their count. */
static int series_of(const FigPlot *p, FigMark m, const FigSeries **out, int cap)
{
    int n = 0;
    for (int i = 0; i < p->n_series; i++)
        if (p->series[i].mark == m && p->series[i].n > 0 && n < cap) out[n++] = &p->series[i];
    return n;
}

static void test_compare_fits(void)
{
    Store *s = open_store("fits.db");
    if (!s) return;
    /* two seeds a group, offsets +-0.004 that cancel in a least-squares
       fit of the cloud: the fit is the law put in */
    int64_t a = add_run(s, "attention", 1, law_a, 0.004, 8);
    add_run(s, "attention", 2, law_a, -0.004, 8);
    int64_t b = add_run(s, "cumsum", 1, law_b, 0.004, 8);
    add_run(s, "cumsum", 2, law_b, -0.004, 8);
    int64_t few = add_run(s, "mixer", 1, law_b, 0, 3);   /* a group of one run: 3 evaluations */
    int64_t ids[3] = {a, b, few};
    char err[ERR_LEN] = "";
    Figure f;
    CHECK(figure_compare(s, ids, 3, COMPARE_GROUPS, CURVE_X_STEPS, FIGURE_FITS, &f, err) == 0, "%s", err);
    CHECK(f.n_plots == 1, "%d plots", f.n_plots);
    if (f.n_plots != 1) return;
    const FigPlot *p = &f.plots[0];
    CHECK(p->log_x && !strcmp(p->x_label, "training tokens"), "x: %s log %d", p->x_label, p->log_x);
    const FigSeries *fits[8], *crosses[8];
    int n_fits = series_of(p, FIG_FIT, fits, 8), n_crosses = series_of(p, FIG_CROSS, crosses, 8);
    CHECK(n_fits == 2, "%d fits drawn (2 groups of 8 evaluations, one of 3)", n_fits);
    for (int i = 0; i < n_fits; i++) {
        const FigSeries *fs = fits[i];
        double (*law)(double) = fs->color == 0 ? law_a : law_b;
        CHECK(fs->color == i, "fit %d in colour %d", i, fs->color);
        CHECK(fabs(fs->x[0] / BUDGET - 1) < 1e-9 && fabs(fs->x[fs->n - 1] / (FIT_HORIZON * BUDGET) - 1) < 1e-9,
              "fit %d spans %g..%g, budget %g", i, fs->x[0], fs->x[fs->n - 1], BUDGET);
        double worst = 0;
        for (int k = 0; k < fs->n; k++) worst = fmax(worst, fabs(fs->y[k] - law(fs->x[k] / BUDGET)));
        CHECK(worst < 1e-3, "fit %d is off its law by %g", i, worst);
    }
    CHECK(n_crosses == 1 && fabs(crosses[0]->x[0] / crossing_put() - 1) < 0.02 &&
              fabs(crosses[0]->y[0] - law_a(crosses[0]->x[0] / BUDGET)) < 2e-3,
          "%d crosses, first at %g (put at %g)", n_crosses, n_crosses ? crosses[0]->x[0] : 0, crossing_put());
    char cross_label[64];
    snprintf(cross_label, sizeof cross_label, "the fits of #%lld and #%lld cross near ", (long long)a, (long long)b);
    CHECK(n_crosses == 1 && strstr(crosses[0]->label, cross_label), "cross label: %s", n_crosses ? crosses[0]->label : "");
    int legend = 0;
    for (int i = 0; i < p->n_series; i++)
        legend += p->series[i].mark == FIG_FIT && strstr(p->series[i].label, "dashed past the budget: fit L = E + A t^-a");
    CHECK(legend == 1, "%d legend entries for the fits", legend);
    char few_note[64];
    snprintf(few_note, sizeof few_note, "no fit (fewer than 4 valid evaluations");
    int noted = 0;
    for (int i = 0; i < f.n_notes; i++) {
        char who[32];
        snprintf(who, sizeof who, "#%lld", (long long)few);
        noted |= strstr(f.notes[i].text, few_note) && strstr(f.notes[i].text, who) && !strstr(f.notes[i].text, "#1,");
    }
    CHECK(noted, "no note names the group of 3 evaluations");
    /* drawn: the legend's text in the SVG's text layer */
    char path[600];
    snprintf(path, sizeof path, "%s", db_path("fits.svg"));
    CHECK(figure_write(&f, path, err) == 0, "%s", err);
    char *svg = NULL;
    size_t len = 0;
    FILE *in = fopen(path, "rb");
    if (in) {
        svg = calloc(1, 1 << 22);
        len = svg ? fread(svg, 1, (1 << 22) - 1, in) : 0;
        fclose(in);
    }
    CHECK(svg && len > 0 && strstr(svg, "class=\"legend\"") && strstr(svg, "dashed past the budget: fit L = E + A t^-a") &&
              strstr(svg, cross_label),
          "the SVG lacks the fits' legend");
    free(svg);
    figure_free(&f);

    /* without FIGURE_FITS: steps, linear, no fit */
    CHECK(figure_compare(s, ids, 3, COMPARE_GROUPS, CURVE_X_STEPS, 0, &f, err) == 0, "%s", err);
    CHECK(f.n_plots == 1 && !f.plots[0].log_x && series_of(&f.plots[0], FIG_FIT, fits, 8) == 0 &&
              series_of(&f.plots[0], FIG_CROSS, crosses, 8) == 0,
          "fits drawn without FIGURE_FITS");
    figure_free(&f);
    store_close(s);
}

/* A dashed terminal line across the canvas: dots with gaps of whole cells
   between them, where a PLOT_LINE has none. */
static void test_plot_dashed(void)
{
    double x[2] = {0, 1}, y[2] = {1, 1};
    char err[ERR_LEN] = "";
    for (int dashed = 0; dashed <= 1; dashed++) {
        PlotSeries sr = {x, y, 2, dashed ? PLOT_DASHED : PLOT_LINE, 0, 0};
        PlotOptions opt = {40, 8, 0, 0, 0, 0};
        PlotGrid g;
        CHECK(plot_render_grid(&opt, &sr, 1, &g, err) == 0, "%s", err);
        int drawn = 0, gaps = 0;
        for (int r = 0; r < g.rows; r++)
            for (int c = 0, started = 0; c < g.cols; c++) {
                const PlotCell *cell = &g.cells[(size_t)r * (size_t)g.cols + (size_t)c];
                if (cell->series == 1) started = 1, drawn++;
                else if (started && r < g.rows - 2 && !strcmp(cell->text, " ")) gaps++;
            }
        /* gaps: blank cells right of the line's start in its rows (a trailing run too) */
        CHECK(drawn > 10, "%s line: %d cells drawn", dashed ? "dashed" : "solid", drawn);
        CHECK(dashed ? gaps >= drawn / 2 - 2 : gaps == 0, "%s line: %d cells, %d gaps", dashed ? "dashed" : "solid", drawn,
              gaps);
        plot_grid_free(&g);
    }
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("figure-fits")) return 1;
    RUN(test_compare_fits);
    RUN(test_plot_dashed);
    figure_cleanup();
    tmp_dir_remove();
    CHECK_EXIT();
}
