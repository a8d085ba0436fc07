/*
 * figure_curves.c — the figures of loss curves (figure_build.h): Run,
 * Compare and AE/Bidir.  Curves come from ui/draw/run_curve.h (a run's
 * smoothed train and valid losses; a seed group's mean curve, here with
 * its +- standard error band), runs from db/runs_read.h, a sweep's points
 * from experiments/points.h.  Labels say what differs between the curves;
 * a note says what they share.  With FIGURE_FITS the curves' power-law fits
 * (ui/draw/curve_fits.h) go on past their budgets.
 */
#include "ui/draw/figure_build.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "db/runs_read.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "experiments/format.h"
#include "experiments/points.h"
#include "experiments/sweep.h"
#include "ui/draw/curve_fits.h"

#define Y_LABEL "loss (nats per token)"
#define MAX_MEMBERS 64           /* seeds of a group read */
#define RAW_POINTS 4000          /* the raw train loss, sampled */

static const char *x_label(CurveAxis x)
{
    return x == CURVE_X_TOKENS ? "training tokens" : x == CURVE_X_WALL ? "training time (s)" : "steps";
}

void figure_config_value(const char *key, const char *value, char *out, size_t cap)
{
    char *end;
    double v = value[0] ? strtod(value, &end) : NAN;
    if (config_key_number(key) == CONFIG_REAL && isfinite(v) && !*end) snprintf(out, cap, "%.4g", v);
    else snprintf(out, cap, "%s", value[0] ? value : "-");
}

/* Appends " key=value" to out (cap bytes), the value as figure_config_value. */
static void add_pair(char *out, size_t cap, const char *key, const char *value)
{
    size_t len = strlen(out);
    char shown[128];
    figure_config_value(key, value, shown, sizeof shown);
    if (len < cap) snprintf(out + len, cap - len, "%s%s=%s", len ? " " : "", key, shown);
}

static const char *config_value(const RunConfigEntry *cfg, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (cfg[i].scalar && !strcmp(cfg[i].key, key)) return cfg[i].value;
    return NULL;
}

/* Keys that never tell runs apart: bookkeeping (config.h), and those the
   labels name anyway. */
static int quiet_key(const char *key, int skip_seed)
{
    if (!strcmp(key, "arch") || !strcmp(key, "task") || (skip_seed && !strcmp(key, "seed"))) return 1;
    for (int k = 0; k < config_key_count(); k++)
        if (!strcmp(key, config_key_name(k))) return config_key_bookkeeping(k);
    return 0;
}

/* 1 when key has its default value in the config. */
static int is_default(const Config *defaults, const char *key, const char *value)
{
    char def[128];
    return config_get(defaults, key, def, sizeof def) == 0 && !strcmp(def, value);
}

/* The distinct unigram levels (within 0.005) as dashed gray lines. */
static int add_levels(FigPlot *p, const double *levels, int n, char *err)
{
    for (int i = 0; i < n; i++) {
        if (!isfinite(levels[i])) continue;
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= fabs(levels[j] - levels[i]) < 5e-3;
        if (seen) continue;
        FigSeries *s = fig_plot_series(p, FIG_LEVEL, FIG_GRAY, NULL, &levels[i], 1);
        if (!s) return err_set(err, "figure: out of memory");
        snprintf(s->label, sizeof s->label, "unigram level %.3f (token frequencies alone)", levels[i]);
    }
    return 0;
}

/* A curve as a series of p on axis x; NULL when out of memory. */
static FigSeries *curve_series(FigPlot *p, const CurvePoints *c, CurveAxis x, FigMark mark, int color)
{
    static const double none[1] = {0};
    return fig_plot_series(p, mark, color, c->n ? c->x[x] : none, c->n ? c->loss : none, c->n);
}

/* ---- Run ------------------------------------------------------------------ */

/* The raw train loss, RAW_POINTS of it at most, faint under the smoothed. */
static int raw_series(Store *s, int64_t run_id, FigPlot *p, CurveAxis x, char *err)
{
    RunCurvePoint *rows = NULL;
    int n = 0;
    if (runs_read_curve_sampled(s, run_id, RUN_CURVE_TRAIN_RAW, 0, RAW_POINTS, &rows, &n, err)) return -1;
    double *xs = malloc((size_t)(n ? n : 1) * sizeof *xs), *ys = malloc((size_t)(n ? n : 1) * sizeof *ys);
    FigSeries *fs = NULL;
    if (xs && ys) {
        for (int i = 0; i < n; i++) {
            xs[i] = x == CURVE_X_TOKENS ? rows[i].tokens : x == CURVE_X_WALL ? rows[i].wall : (double)rows[i].step;
            ys[i] = rows[i].value;
        }
        fs = fig_plot_series(p, FIG_LINE, 0, xs, ys, n);
    }
    if (fs) {
        fs->faint = 1;
        snprintf(fs->label, sizeof fs->label, "train loss (each step%s)", n == RAW_POINTS ? ", sampled" : "");
    }
    free(rows);
    free(xs);
    free(ys);
    return fs ? 0 : err_set(err, "figure: out of memory");
}

/* "config (not the defaults): d=64 layers=2 ..." of one run. */
static int config_note(Figure *f, Store *s, int64_t run_id, char *err)
{
    RunConfigEntry *cfg = NULL;
    int n = 0;
    if (runs_read_config(s, run_id, &cfg, &n, err)) return -1;
    Config defaults, run;
    config_defaults(&defaults);
    runs_config_of(cfg, n, &run);
    char text[2048] = "";
    for (int i = 0; i < n; i++)
        if (cfg[i].scalar && !quiet_key(cfg[i].key, 0) && strcmp(cfg[i].key, "data") &&
            (!config_is_key(cfg[i].key) || config_key_applies(&run, cfg[i].key)) &&
            !is_default(&defaults, cfg[i].key, cfg[i].value))
            add_pair(text, sizeof text, cfg[i].key, cfg[i].value);
    free(cfg);
    if (figure_note(f, FIG_TONE_DIM, "config (where not the defaults): %s", text[0] ? text : "the defaults"))
        return err_set(err, "figure: out of memory");
    return 0;
}

static int run_notes(Figure *f, const RunSummary *r, char *err)
{
    char tokens[24], wall[24], line[512];
    fmt_short((double)r->tokens_seen, tokens, sizeof tokens);
    fmt_duration(r->wall_seconds, wall, sizeof wall);
    int len = snprintf(line, sizeof line, "%s at step %lld of %lld, %s tokens, %s of training", run_status_name(r->status),
                       (long long)r->steps_done, (long long)r->total_steps, tokens, wall);
    if (isfinite(r->valid_loss)) len += snprintf(line + len, sizeof line - len, "; valid loss %.4f", r->valid_loss);
    if (data_scores_answers(r->data) && isfinite(r->test_accuracy) && len < (int)sizeof line)
        len += snprintf(line + len, sizeof line - len, ", answer accuracy %.4f", r->test_accuracy);
    if (isfinite(r->test_loss) && len < (int)sizeof line)
        len += snprintf(line + len, sizeof line - len, ", test loss %.4f (perplexity %.2f)", r->test_loss,
                        r->test_perplexity);
    if (isfinite(r->test_loss_all) && len < (int)sizeof line)
        snprintf(line + len, sizeof line - len, ", test loss_all %.4f", r->test_loss_all);
    int rc = figure_note(f, FIG_TONE_PLAIN, "%s", line);
    if (!rc && r->not_learning)
        rc = figure_note(f, FIG_TONE_BAD, "not learning: its best valid loss %.3f never got 0.1 nat below the "
                                          "unigram level %.3f", r->best_valid_loss, r->unigram_nats);
    return rc ? err_set(err, "figure: out of memory") : 0;
}

int figure_run(Store *s, int64_t run_id, CurveAxis x, int log_y, Figure *f, char *err)
{
    assert(s && f && err);
    figure_init(f);
    RunSummary r;
    int found;
    if (runs_read_one(s, run_id, &r, &found, err)) return -1;
    if (!found) return err_set(err, "no run %lld in the store", (long long)run_id);
    RunCurve c;
    run_curve_init(&c, run_id);
    int rc = run_curve_update(&c, s, err);
    snprintf(f->title, sizeof f->title, "Run %lld%s%.60s: %s, %s on %.100s", (long long)run_id, r.name[0] ? " " : "", r.name,
             r.arch, r.task, r.data);
    FigPlot *p = rc ? NULL : figure_add_plot(f, "", x_label(x), Y_LABEL, log_y);
    if (!rc && !p) rc = err_set(err, "figure: out of memory");
    if (!rc) rc = run_notes(f, &r, err);
    if (!rc) rc = config_note(f, s, run_id, err);
    if (!rc) rc = raw_series(s, run_id, p, x, err);
    FigSeries *smooth = rc ? NULL : curve_series(p, &c.train, x, FIG_LINE, 0);
    if (smooth) snprintf(smooth->label, sizeof smooth->label, "train loss, smoothed (moving average 0.95)");
    FigSeries *valid = smooth ? curve_series(p, &c.valid, x, FIG_MARKERS, 1) : NULL;
    if (valid) snprintf(valid->label, sizeof valid->label, "valid loss (%d evaluation%s)", c.valid.n, c.valid.n == 1 ? "" : "s");
    if (!rc && !valid) rc = err_set(err, "figure: out of memory");
    if (!rc) rc = add_levels(p, &r.unigram_nats, 1, err);
    run_curve_free(&c);
    if (rc) figure_free(f);
    return rc;
}

/* ---- Compare ---------------------------------------------------------------- */

typedef struct {
    int64_t ids[MAX_MEMBERS];    /* the members, the first stands for the group */
    int n;
    RunSummary head;             /* the first member */
    RunConfigEntry *config;      /* the first member's */
    int n_config;
    Config cfg;                  /* what it describes (config_key_applies) */
    RunCurve curves[MAX_MEMBERS];
    SeedStats test;              /* over the finished members */
    SeedStats answer;            /* their answer accuracy (data scoring only answers; else n 0) */
    int n_done;                  /* members finished (status done) */
    unsigned char done[MAX_MEMBERS];   /* which */
    char diff[1024];             /* the keys in which it differs from the others */
} Curves;

static void curves_free(Curves *g, int n)
{
    for (int i = 0; i < n; i++) {
        free(g[i].config);
        for (int k = 0; k < g[i].n; k++) run_curve_free(&g[i].curves[k]);
    }
    free(g);
}

/* The groups of the runs given: their members' ids. */
static int group_ids(Store *s, const int64_t *ids, int n, CompareSeeds seeds, Curves *g, int *n_groups, char *err)
{
    uint64_t key[FIGURE_MAX_CURVES];
    *n_groups = 0;
    for (int i = 0; i < n; i++) {
        RunSummary r;
        int found, at = -1;
        if (runs_read_one(s, ids[i], &r, &found, err)) return -1;
        if (!found) return err_set(err, "no run %lld in the store", (long long)ids[i]);
        int64_t members[MAX_MEMBERS];
        int n_members = 1;
        members[0] = ids[i];
        if (seeds == COMPARE_GROUPS && runs_read_seed_group(s, ids[i], members, MAX_MEMBERS, &n_members, err)) return -1;
        for (int k = 0; k < *n_groups && seeds != COMPARE_RUNS; k++)
            if (key[k] == r.seed_group) at = k;
        if (at >= 0 && seeds == COMPARE_GROUPS) continue;
        if (at >= 0) {
            if (g[at].n < MAX_MEMBERS) g[at].ids[g[at].n++] = ids[i];
            continue;
        }
        if (*n_groups == FIGURE_MAX_CURVES)
            return err_set(err, "at most %d runs or seed groups in one figure", FIGURE_MAX_CURVES);
        Curves *c = &g[(*n_groups)++];
        key[*n_groups - 1] = r.seed_group;
        for (int k = 0; k < n_members; k++) c->ids[c->n++] = members[k];
    }
    return 0;
}

/* Each group's first member, config, curves and test statistics. */
static int load_groups(Store *s, Curves *g, int n, char *err)
{
    for (int i = 0; i < n; i++) {
        int found;
        double tests[MAX_MEMBERS], answers[MAX_MEMBERS];
        int n_tests = 0, n_answers = 0;
        for (int k = 0; k < g[i].n; k++) {
            RunSummary r;
            if (runs_read_one(s, g[i].ids[k], &r, &found, err)) return -1;
            if (k == 0) g[i].head = r;
            if (r.status == RUN_DONE) tests[n_tests++] = r.test_loss;
            if (r.status == RUN_DONE && data_scores_answers(r.data) && isfinite(r.test_accuracy))
                answers[n_answers++] = r.test_accuracy;
            g[i].n_done += r.status == RUN_DONE;
            g[i].done[k] = r.status == RUN_DONE;
            run_curve_init(&g[i].curves[k], g[i].ids[k]);
            if (run_curve_update(&g[i].curves[k], s, err)) return -1;
        }
        g[i].test = seed_stats(tests, n_tests);
        g[i].answer = seed_stats(answers, n_answers);
        if (runs_read_config(s, g[i].ids[0], &g[i].config, &g[i].n_config, err)) return -1;
        runs_config_of(g[i].config, g[i].n_config, &g[i].cfg);
    }
    return 0;
}

/* Group g's value of key, NULL when it has none or the key changes
   nothing of its runs (another architecture's, a budget it does not use). */
static const char *applied(const Curves *g, const char *key)
{
    const char *v = config_value(g->config, g->n_config, key);
    return v && (!config_is_key(key) || config_key_applies(&g->cfg, key)) ? v : NULL;
}

/* Each group's differing keys (diff), and the note of the keys all share
   that are not the defaults. */
static int differences(Figure *f, Curves *g, int n, int skip_seed, char *err)
{
    Config defaults;
    config_defaults(&defaults);
    char shared[2048] = "";
    for (int owner = 0; owner < n; owner++)
        for (int k = 0; k < g[owner].n_config; k++) {
            const RunConfigEntry *e = &g[owner].config[k];
            int earlier = 0, differs = 0;
            for (int o = 0; o < owner; o++) earlier |= config_value(g[o].config, g[o].n_config, e->key) != NULL;
            if (!e->scalar || earlier || quiet_key(e->key, skip_seed)) continue;
            const char *v0 = applied(&g[0], e->key);
            int anywhere = v0 != NULL;
            for (int i = 1; i < n; i++) {
                const char *v = applied(&g[i], e->key);
                anywhere |= v != NULL;
                differs |= (!v0 != !v) || (v && strcmp(v, v0));
            }
            if (!anywhere) continue;
            if (differs) {   /* named only where it applies */
                for (int i = 0; i < n; i++) {
                    const char *v = applied(&g[i], e->key);
                    if (v) add_pair(g[i].diff, sizeof g[i].diff, e->key, v);
                }
            } else if (!is_default(&defaults, e->key, e->value) && (n > 1 || strcmp(e->key, "seed"))) {
                add_pair(shared, sizeof shared, e->key, e->value);
            }
        }
    if (figure_note(f, FIG_TONE_DIM, "%s: %s", n > 1 ? "shared config (where not the defaults)" : "config (where not the defaults)",
                    shared[0] ? shared : "the defaults"))
        return err_set(err, "figure: out of memory");
    return 0;
}

/* Group i's series in colour `color`: the train curve (a mean with its
   +- se band over several seeds) and the valid points; labelled when
   label is not NULL. */
static int group_series(FigPlot *p, const Curves *g, CurveAxis x, int valid, int color, const char *label, char *err)
{
    FigSeries *line = NULL, *points = NULL;
    if (g->n == 1) {
        line = curve_series(p, valid ? &g->curves[0].valid : &g->curves[0].train, x, FIG_LINE, color);
        points = line && !valid ? curve_series(p, &g->curves[0].valid, x, FIG_MARKERS, color) : line;
    } else {
        const CurvePoints *train[MAX_MEMBERS], *valids[MAX_MEMBERS];
        for (int k = 0; k < g->n; k++) train[k] = &g->curves[k].train, valids[k] = &g->curves[k].valid;
        MeanCurve mean, mean_valid;
        memset(&mean, 0, sizeof mean);
        memset(&mean_valid, 0, sizeof mean_valid);
        if (mean_curve_build(&mean, valid ? valids : train, g->n, err) ||
            mean_curve_build(&mean_valid, valids, g->n, err)) {
            mean_curve_free(&mean);
            mean_curve_free(&mean_valid);
            return -1;
        }
        static const double none[1] = {0};
        int n = mean.n;
        FigSeries *band = fig_plot_series(p, FIG_BAND, color, n ? mean.x[x] : none, n ? mean.se_band : none, n);
        line = band ? fig_plot_series(p, FIG_LINE, color, n ? mean.x[x] : none, n ? mean.mean : none, n) : NULL;
        points = line && !valid ? fig_plot_series(p, FIG_MARKERS, color, mean_valid.n ? mean_valid.x[x] : none,
                                                   mean_valid.n ? mean_valid.mean : none, mean_valid.n)
                                : line;
        mean_curve_free(&mean);
        mean_curve_free(&mean_valid);
    }
    if (!line || !points) return err_set(err, "figure: out of memory");
    /* the line is last but the markers (adding those may have moved it) */
    line = &p->series[p->n_series - (valid ? 1 : 2)];
    if (label) snprintf(line->label, sizeof line->label, "%s", label);
    return 0;
}

/* "#3 attention/clm layers=2: test 5.123", "#3 attention/clm layers=2, 3 seeds (#3 #4 #5): test 5.12 ± 0.01",
   "..., 2 seeds (#3 #4), 1 of 2 seeds finished: test 5.123" (the test loss is its finished runs'). */
static void group_label(const Curves *g, char *out, size_t cap)
{
    int len = snprintf(out, cap, "#%lld %s/%s%s%s", (long long)g->ids[0], g->head.arch, g->head.task,
                       g->diff[0] ? " " : "", g->diff);
    if (g->n > 1) {
        len += snprintf(out + len, cap - (size_t)MB_MIN(len, (int)cap), ", %d seeds (", g->n);
        for (int k = 0; k < g->n && len < (int)cap; k++)
            len += snprintf(out + len, cap - (size_t)len, "%s#%lld", k ? " " : "", (long long)g->ids[k]);
        if (len < (int)cap) len += snprintf(out + len, cap - (size_t)len, ")");
        if (g->n_done < g->n && len < (int)cap)
            len += snprintf(out + len, cap - (size_t)len, ", %d of %d seeds finished", g->n_done, g->n);
    }
    if (len >= (int)cap) return;
    /* data scoring only answers: the answer accuracy first, its loss beside */
    if (g->answer.n > 1)
        len += snprintf(out + len, cap - (size_t)len, ": answer accuracy %.3f ± %.3f,", g->answer.mean, g->answer.se);
    else if (g->answer.n == 1)
        len += snprintf(out + len, cap - (size_t)len, ": answer accuracy %.4f,", g->answer.mean);
    if (len >= (int)cap) return;
    const char *sep = g->answer.n ? "" : ":";
    if (g->test.n > 1) snprintf(out + len, cap - (size_t)len, "%s test %.3f ± %.3f", sep, g->test.mean, g->test.se);
    else if (g->test.n == 1) snprintf(out + len, cap - (size_t)len, "%s test %.4f", sep, g->test.mean);
}

/* ---- fits past the budget (FIGURE_FITS) -------------------------------------- */

/* Group g's valid evaluations in tokens fitted as one cloud: its finished
   members' (those the report's numbers fit), every member's while none has
   finished; 0 when they cannot be fitted. */
static int group_fit(const Curves *g, CurveFit *fit)
{
    const CurvePoints *valid[MAX_MEMBERS];
    int n = 0;
    for (int k = 0; k < g->n; k++)
        if (g->done[k] || g->n_done == 0) valid[n++] = &g->curves[k].valid;
    char err[ERR_LEN];
    return curves_fit(valid, n, CURVE_X_TOKENS, fit, err) == 0;
}

/* Into p: the fits of the curves i with fitted[i] and in_plot[i] (curve i
   in colour i), from each one's budget to FIT_HORIZON x it, and an x where
   two fits cross while both are drawn, for every pair with one of them in
   p (names[i] says which in the legend). */
static int add_fits(FigPlot *p, const CurveFit *fits, const int *fitted, const int *in_plot, char (*names)[64], int n,
                    char *err)
{
    for (int i = 0; i < n; i++) {
        if (!fitted[i] || !in_plot[i]) continue;
        double x[FIT_SAMPLES], y[FIT_SAMPLES];
        fit_past_budget(&fits[i], FIT_HORIZON, x, y);
        if (!fig_plot_series(p, FIG_FIT, i, x, y, FIT_SAMPLES)) return err_set(err, "figure: out of memory");
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (!fitted[i] || !fitted[j] || (!in_plot[i] && !in_plot[j])) continue;
            double at = fits_crossing(&fits[i], &fits[j]), y = at > 0 ? curve_predict(&fits[i], at) : 0;
            FigSeries *cross = at > 0 ? fig_plot_series(p, FIG_CROSS, FIG_GRAY, &at, &y, 1) : NULL;
            if (at > 0 && !cross) return err_set(err, "figure: out of memory");
            char where[32];
            if (cross)
                snprintf(cross->label, sizeof cross->label, "the fits of %s and %s cross near %s tokens", names[i], names[j],
                         fmt_short(at, where, sizeof where));
        }
    return 0;
}

/* The legend's entry for the fits, on p (the last plot: last in the
   legend), when some curve of the n was fitted; and a note naming the
   curves with too few valid evaluations to fit. */
static int fits_key(Figure *f, FigPlot *p, const int *fitted, char (*names)[64], int n, char *err)
{
    int any = 0;
    for (int i = 0; i < n; i++) any |= fitted[i];
    static const double none[1] = {0};
    FigSeries *key = any ? fig_plot_series(p, FIG_FIT, FIG_GRAY, none, none, 0) : NULL;
    if (any && !key) return err_set(err, "figure: out of memory");
    if (key)
        snprintf(key->label, sizeof key->label, "dashed past the budget: fit L = E + A t^-a of the valid loss, to %gx "
                                                "the last evaluation", FIT_HORIZON);
    char list[640] = "";
    for (int i = 0, len = 0; i < n; i++)
        if (!fitted[i]) len += snprintf(list + len, sizeof list - (size_t)len, "%s%s", len ? ", " : "", names[i]);
    if (list[0] && figure_note(f, FIG_TONE_DIM, "no fit (fewer than 4 valid evaluations at 3 token counts, or the fit "
                                                "failed): %s", list))
        return err_set(err, "figure: out of memory");
    return 0;
}

int figure_compare(Store *s, const int64_t *ids, int n, CompareSeeds seeds, CurveAxis x, int flags, Figure *f,
                   char *err)
{
    assert(s && f && err && n >= 0);
    figure_init(f);
    if (n == 0) return err_set(err, "no runs to compare");
    Curves *g = calloc(FIGURE_MAX_CURVES, sizeof *g);
    if (!g) return err_set(err, "figure: out of memory");
    int n_groups = 0, banded = 0;
    int rc = group_ids(s, ids, n, seeds, g, &n_groups, err);
    if (!rc) rc = load_groups(s, g, n_groups, err);
    for (int i = 0; i < n_groups; i++) banded |= g[i].n > 1;
    int len = snprintf(f->title, sizeof f->title, "Compare: %d %s%s", n_groups, banded ? "seed group" : "run",
                       n_groups == 1 ? "" : "s");
    for (int i = 0; i < n_groups && len < (int)sizeof f->title; i++)
        len += snprintf(f->title + len, sizeof f->title - (size_t)len, "%s#%lld", i ? ", " : " (", (long long)g[i].ids[0]);
    if (n_groups && len < (int)sizeof f->title) snprintf(f->title + len, sizeof f->title - (size_t)len, ")");
    if (!rc) rc = differences(f, g, n_groups, seeds != COMPARE_RUNS, err);
    if (!rc && figure_note(f, FIG_TONE_DIM, "lines (a dash pattern each): the smoothed train loss; markers (a shape each): the valid loss%s",
                           banded ? "; a seed group: the mean over its seeds, shaded +- standard error" : ""))
        rc = err_set(err, "figure: out of memory");
    int fits = (flags & FIGURE_FITS) != 0;
    if (fits) x = CURVE_X_TOKENS;
    FigPlot *p = rc ? NULL : figure_add_plot(f, "", x_label(x), Y_LABEL, flags & FIGURE_LOG_Y);
    if (!rc && !p) rc = err_set(err, "figure: out of memory");
    if (p) p->log_x = fits;
    double levels[FIGURE_MAX_CURVES];
    for (int i = 0; i < n_groups && !rc; i++) {
        char label[512];
        group_label(&g[i], label, sizeof label);
        rc = group_series(p, &g[i], x, 0, i, label, err);
        levels[i] = g[i].head.unigram_nats;
    }
    if (!rc) rc = add_levels(p, levels, n_groups, err);
    if (!rc && fits) {
        CurveFit fit[FIGURE_MAX_CURVES];
        int fitted[FIGURE_MAX_CURVES], all[FIGURE_MAX_CURVES];
        char names[FIGURE_MAX_CURVES][64];
        for (int i = 0; i < n_groups; i++) {
            fitted[i] = group_fit(&g[i], &fit[i]);
            all[i] = 1;
            snprintf(names[i], sizeof names[i], "#%lld", (long long)g[i].ids[0]);
        }
        rc = add_fits(p, fit, fitted, all, names, n_groups, err);
        if (!rc) rc = fits_key(f, p, fitted, names, n_groups, err);
    }
    curves_free(g, FIGURE_MAX_CURVES);
    if (rc) figure_free(f);
    return rc;
}

/* ---- AE/Bidir ------------------------------------------------------------- */

int figure_ae_preset(const char *preset)
{
    return !strcmp(preset, "autoencoder") || !strcmp(preset, "bidirectional") || !strcmp(preset, "completion");
}

/* Mixer first, attention second, the others after: the paper's order. */
static int arch_rank(const char *arch) { return !strcmp(arch, "mixer") ? 0 : !strcmp(arch, "attention") ? 1 : 2; }

/* "mixer/bidir d=160, 3 seeds: test 4.912 ± 0.020", "..., 2 seeds, 1 of 2 finished: test 4.912" */
static void point_label(const Point *p, char *out, size_t cap)
{
    int len = snprintf(out, cap, "%s/%s", p->arch, p->task);
    for (int k = 0; k < p->n_coords && len < (int)cap; k++)
        if (strcmp(p->coords[k].key, "arch") && strcmp(p->coords[k].key, "task"))
            len += snprintf(out + len, cap - (size_t)len, " %s=%s", p->coords[k].key, p->coords[k].value);
    if (len < (int)cap) len += snprintf(out + len, cap - (size_t)len, ", %d seed%s", p->n_runs, p->n_runs == 1 ? "" : "s");
    if (p->n_done < p->n_runs && len < (int)cap)   /* the test loss is the finished runs' */
        len += snprintf(out + len, cap - (size_t)len, ", %d of %d finished", p->n_done, p->n_runs);
    const SeedStats *t = &p->stat[PM_TEST_LOSS];
    if (len >= (int)cap || t->n == 0) return;
    if (t->n > 1) snprintf(out + len, cap - (size_t)len, ": test %.3f ± %.3f", t->mean, t->se);
    else snprintf(out + len, cap - (size_t)len, ": test %.4f", t->mean);
}

/* The points' curves, a panel per architecture when there are 2 or 3;
   with FIGURE_FITS against training tokens, each point's fit in its panel
   and a cross where two fits meet in the panel of each. */
static int ae_panels(Figure *f, Store *s, const ResultRun *jobs, int n_jobs, const Point *pts, int np,
                     const int *owner, int valid, int flags, char *err)
{
    const char *archs[FIGURE_MAX_CURVES];
    int n_archs = 0, shown = MB_MIN(np, FIGURE_MAX_CURVES);
    for (int rank = 0; rank < 3; rank++)
        for (int g = 0; g < shown; g++) {
            int seen = arch_rank(pts[g].arch) != rank;
            for (int a = 0; a < n_archs; a++) seen |= !strcmp(archs[a], pts[g].arch);
            if (!seen) archs[n_archs++] = pts[g].arch;
        }
    int panels = n_archs >= 2 && n_archs <= 3 ? n_archs : 1, fits = (flags & FIGURE_FITS) != 0;
    CurveAxis x = fits ? CURVE_X_TOKENS : CURVE_X_STEPS;
    const char *what = valid ? "valid loss" : "smoothed train loss";
    Curves *g = calloc(FIGURE_MAX_CURVES, sizeof *g);
    if (!g) return err_set(err, "figure: out of memory");
    int rc = 0;
    for (int j = 0; j < n_jobs && !rc; j++) {   /* each point's members */
        Curves *c = owner[j] >= 0 && owner[j] < shown ? &g[owner[j]] : NULL;
        if (!c || c->n == MAX_MEMBERS) continue;
        c->ids[c->n] = jobs[j].run_id;
        c->done[c->n] = jobs[j].state == RUN_DONE;
        c->n_done += jobs[j].state == RUN_DONE;
        run_curve_init(&c->curves[c->n], jobs[j].run_id);
        rc = run_curve_update(&c->curves[c->n++], s, err);
    }
    CurveFit fit[FIGURE_MAX_CURVES];
    int fitted[FIGURE_MAX_CURVES] = {0};
    char names[FIGURE_MAX_CURVES][64];
    for (int pt = 0; pt < shown && fits && !rc; pt++) {
        fitted[pt] = g[pt].n && group_fit(&g[pt], &fit[pt]);
        char label[512];
        point_label(&pts[pt], label, sizeof label);
        snprintf(names[pt], sizeof names[pt], "%.*s", (int)strcspn(label, ","), label);
    }
    for (int a = 0; a < panels && !rc; a++) {
        const char *arch = panels > 1 ? archs[a] : NULL;
        char title[96];
        snprintf(title, sizeof title, "%s: %s", arch ? (!strcmp(arch, "mixer") ? "masked mixer" : arch) : "every architecture", what);
        FigPlot *p = figure_add_plot(f, title, x_label(x), Y_LABEL, flags & FIGURE_LOG_Y);
        if (!p) rc = err_set(err, "figure: out of memory");
        int in_plot[FIGURE_MAX_CURVES];
        for (int pt = 0; pt < shown && !rc; pt++) {
            in_plot[pt] = !arch || !strcmp(pts[pt].arch, arch);
            char label[512];
            point_label(&pts[pt], label, sizeof label);
            if (in_plot[pt] && g[pt].n) rc = group_series(p, &g[pt], x, valid, pt, label, err);
        }
        if (!rc && fits) {
            p->log_x = 1;
            rc = add_fits(p, fit, fitted, in_plot, names, shown, err);
        }
    }
    if (!rc && fits && f->n_plots) rc = fits_key(f, &f->plots[f->n_plots - 1], fitted, names, shown, err);
    curves_free(g, FIGURE_MAX_CURVES);
    return rc;
}

/* Appends word to list (cap bytes, ", " between) unless it is there already. */
static void add_distinct(char *list, size_t cap, const char *word)
{
    size_t len = strlen(list), n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n])) return;
    if (len < cap) snprintf(list + len, cap - len, "%s%s", len ? ", " : "", word);
}

/* What the sweep's runs are, from their configs (not the preset's own
   description, which a sweep queued with tokens=40000 overrides):
   "Masked Mixers II (preset completion) as queued: 40k tokens a run, d=128,
   layers=4; 2 points x 3 seeds; 5 of 6 runs finished". */
static int ae_what_ran(Figure *f, Store *s, const Preset *pr, const ResultRun *jobs, int n_jobs, const Point *pts,
                       int np, char *err)
{
    char budget[256] = "", d[128] = "", layers[128] = "", word[48];
    int seeds = 0, done = 0;
    for (int j = 0; j < n_jobs; j++) {
        RunConfigEntry *cfg = NULL;
        int n = 0;
        if (runs_read_config(s, jobs[j].run_id, &cfg, &n, err)) return -1;
        Config c;
        runs_config_of(cfg, n, &c);
        free(cfg);
        char amount[24];
        if (c.tokens > 0) snprintf(word, sizeof word, "%s tokens", fmt_short((double)c.tokens, amount, sizeof amount));
        else if (c.seconds > 0) snprintf(word, sizeof word, "%g s", c.seconds);
        else snprintf(word, sizeof word, "%lld steps", (long long)c.steps);
        add_distinct(budget, sizeof budget, word);
        snprintf(word, sizeof word, "%d", c.d);
        add_distinct(d, sizeof d, word);
        snprintf(word, sizeof word, "%d", c.layers);
        add_distinct(layers, sizeof layers, word);
        done += jobs[j].state == RUN_DONE;
    }
    for (int p = 0; p < np; p++) seeds = MB_MAX(seeds, pts[p].n_runs);
    char from[160] = "";
    if (pr) snprintf(from, sizeof from, "%s (preset %s) as queued: ", pr->source, pr->name);
    if (figure_note(f, FIG_TONE_PLAIN, "%s%s a run, d=%s, layers=%s; %d point%s x %d seed%s; %d of %d runs finished", from,
                    budget, d, layers, np, np == 1 ? "" : "s", seeds, seeds == 1 ? "" : "s", done, n_jobs))
        return err_set(err, "figure: out of memory");
    return 0;
}

int figure_ae(Store *s, int64_t sweep_id, int valid_curves, int flags, Figure *f, char *err)
{
    assert(s && f && err);
    figure_init(f);
    SweepRow sw;
    char preset[64];
    if (figure_load_sweep(s, sweep_id, &sw, preset, err)) return -1;
    ResultRun *jobs = NULL;
    int n_jobs = 0, np = 0;
    if (results_sweep_runs(s, sweep_id, 0, &jobs, &n_jobs, err)) return -1;
    if (n_jobs == 0) {
        free(jobs);
        return err_set(err, "sweep %lld has no jobs", (long long)sweep_id);
    }
    Point *pts = NULL;
    int *owner = malloc((size_t)n_jobs * sizeof *owner);
    int rc = !owner || points_group(jobs, n_jobs, &pts, &np, owner) ? err_set(err, "figure: out of memory") : 0;
    const Preset *pr = preset_find(preset);
    snprintf(f->title, sizeof f->title, "AE/Bidir: sweep %lld %s", (long long)sweep_id, sw.name);
    if (!rc) rc = ae_what_ran(f, s, pr, jobs, n_jobs, pts, np, err);
    if (!rc && figure_note(f, FIG_TONE_DIM, "each colour a point of the sweep (its runs equal apart from seed): the mean "
                                            "over its seeds, shaded +- standard error%s%s; made by mixbench sweep %s",
                           valid_curves ? "" : "; markers: the valid loss", np > FIGURE_MAX_CURVES ? " (the first 8 points)" : "",
                           sw.spec))
        rc = err_set(err, "figure: out of memory");
    if (!rc) rc = ae_panels(f, s, jobs, n_jobs, pts, np, owner, valid_curves, flags, err);
    if (!rc) rc = figure_add_verdicts(f, s, sw.preset, sweep_id, err);
    free(owner);
    free(pts);
    free(jobs);
    if (rc) figure_free(f);
    return rc;
}
