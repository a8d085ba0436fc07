/*
 * screen_compare.c — the Compare screen: the runs picked on the Runs screen
 * (ctx->compare; when none are picked, the last finished runs of the latest
 * sweep) side by side: their smoothed train curves overlaid in one plot, a
 * colour each (in ASCII a digit each), with their valid evaluations as
 * markers of the same colour (in ASCII or without colours a character each);
 * a legend naming each run with the config keys in which the runs differ
 * (where they apply to its architecture and task; reals in 4 digits);
 * and a table of their final numbers with the best of each column
 * highlighted.
 *
 * Not for: one run's details (the Run screen) or a sweep's grid (Grid).
 * A finished run is read once; a run still going is read again on every
 * refresh, its curve only past the last row held (ui/draw/run_curve.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs_read.h"
#include "engine/common.h"
#include "engine/data/data.h"
#include "experiments/stats.h"
#include "ui/draw/curve_fits.h"
#include "ui/draw/heatmap.h"
#include "ui/draw/run_curve.h"
#include "ui/figure_key.h"
#include "ui/ui.h"

#define MAX_HIDDEN 64            /* fallback runs removed with space */
#define DIFF_LEN 256
#define MAX_VALID_MARKERS 16     /* more valid points are drawn as dots */
#define MAX_SEEDS UI_MAX_COMPARE /* runs of a seed group read (g) */
#define MAX_CONFIG 96            /* config keys of a run */
#define FIT_REACH 3.0            /* F draws a fit to 3x its curve's last point: on this linear x
                                    axis the written figures' 10x (log x) would squeeze the
                                    curves into a tenth of the width */

/* The columns of the final-number table. */
enum { COL_TRAIN, COL_BEST_VALID, COL_VALID, COL_TEST, COL_PPL, COL_ACC, COL_SPEED, COL_PARAMS, N_COLS };
static const struct {
    const char *head;
    int higher_better;
    int sig;                     /* significant digits shown */
    double scale;                /* shown value = stored value * scale */
} TABLE_COLS[N_COLS] = {
    [COL_TRAIN] = {"train", 0, 4, 1},     [COL_BEST_VALID] = {"best vl", 0, 4, 1},
    [COL_VALID] = {"valid", 0, 4, 1},     [COL_TEST] = {"test", 0, 4, 1},
    [COL_PPL] = {"ppl", 0, 4, 1},    [COL_ACC] = {"acc %", 1, 3, 100},
    [COL_SPEED] = {"tok/s", 1, 4, 1},     [COL_PARAMS] = {"params", 0, 3, 1},
};
/* Runs on data that scores only answers (builtin:mqar, copy, selective-
   copy): their accuracy column, the headline, comes first as "answer %"
   (a run on other data shows "-" there). */
static const int ANSWER_ORDER[N_COLS] = {COL_ACC,  COL_TRAIN, COL_BEST_VALID, COL_VALID,
                                         COL_TEST, COL_PPL,   COL_SPEED,      COL_PARAMS};
#define COL_WIDTH 8
#define FIRST_COL_WIDTH 9

/* Keys the legend names otherwise (the bookkeeping keys, which change
   neither what a run learns nor what it reports, are left out too:
   engine/config.h config_key_bookkeeping). */
static const char *const NOT_DIFFERENCES[] = {"arch", "task"};
/* What the legend shows of a run compared with nothing else. */
static const char *const ALONE_KEYS[] = {"d", "layers", "n_ctx", "data"};

/* A valid-loss marker per run for terminals without colour or UTF-8, and
   the character its train curve is drawn with in ASCII (none a marker). */
static const char MARKERS[UI_MAX_COMPARE] = {'o', 'x', '+', '*', '#', '@', '%', '&'};
static const char LINE_GLYPHS[UI_MAX_COMPARE] = {'1', '2', '3', '4', '5', '6', '7', '8'};

typedef struct {
    int64_t id;
    int present;                 /* the run is in the store */
    int answers;                 /* on data that scores only answers: acc is the answer accuracy */
    int terminal;                /* done / failed / diverged / cancelled: read once */
    char arch[32], task[32];
    RunStatus status;
    int64_t steps_done, total_steps;
    double final[N_COLS];        /* NAN: not known */
    RunConfigEntry *config;      /* malloc'd, n_config entries */
    int n_config;
    Config cfg;                  /* what config describes (config_key_applies) */
    char diff[DIFF_LEN];         /* "layers=2 lr=0.001": what sets it apart */
    RunCurve curve;
    double unigram;              /* the dataset's unigram entropy, NAN: not known */
} CompareRun;

/* With g: the seed group of the run in the same place of runs[]. */
typedef struct {
    int64_t of;                  /* the run it belongs to (0: none) */
    CompareRun members[MAX_SEEDS];
    int n;
    MeanCurve train, valid;      /* mean curves with min-max bands */
    SeedStats final[N_COLS];     /* over the finished members */
} SeedGroup;

typedef struct {
    CompareRun runs[UI_MAX_COMPARE];
    int n;
    int fallback;                /* nothing picked: showing the latest sweep's runs */
    int64_t fallback_sweep;      /* 0: finished runs of no sweep */
    char fallback_name[64];
    int64_t hidden[MAX_HIDDEN];  /* fallback runs the user removed */
    int n_hidden;
    int cursor;
    CurveAxis align;
    int log_y;
    int grouped;                 /* g: each run as its seed group's mean and band */
    int fits;                    /* F: each curve's valid points fitted, L = E + A x^-a,
                                    drawn dashed from its last point to FIT_REACH x it */
    double fit_x[UI_MAX_COMPARE][FIT_SAMPLES], fit_y[UI_MAX_COMPARE][FIT_SAMPLES];
    SeedGroup groups[UI_MAX_COMPARE];
    char error[ERR_LEN];
} CompareState;

/* ---- helpers ------------------------------------------------------------ */

static void run_clear(CompareRun *r)
{
    free(r->config);
    run_curve_free(&r->curve);
    memset(r, 0, sizeof *r);
}

static void run_init(CompareRun *r, int64_t id)
{
    memset(r, 0, sizeof *r);
    r->id = id;
    for (int c = 0; c < N_COLS; c++) r->final[c] = NAN;
    r->unigram = NAN;
    run_curve_init(&r->curve, id);
}

static void group_clear(SeedGroup *g)
{
    for (int i = 0; i < g->n; i++) run_clear(&g->members[i]);
    mean_curve_free(&g->train);
    mean_curve_free(&g->valid);
    memset(g, 0, sizeof *g);
}

/* ---- which runs ------------------------------------------------------------ */

typedef struct {
    int64_t ids[UI_MAX_COMPARE];
    int n;
    const CompareState *st;
    int64_t sweep;
    char sweep_name[64];
} Wanted;

static int is_hidden(const CompareState *st, int64_t id)
{
    for (int i = 0; i < st->n_hidden; i++)
        if (st->hidden[i] == id) return 1;
    return 0;
}

/* The last finished runs of the latest sweep that has any, else the last
   finished runs of no sweep; in id order. */
static int fallback_runs(CompareState *st, UiContext *ctx, Wanted *w, char *err)
{
    int64_t ids[UI_MAX_COMPARE + MAX_HIDDEN];
    int n;
    if (runs_read_last_finished(ctx->store, ids, UI_MAX_COMPARE + st->n_hidden, &n, &w->sweep, w->sweep_name,
                                err))
        return -1;
    for (int i = 0; i < n && w->n < UI_MAX_COMPARE; i++)
        if (!is_hidden(st, ids[i])) w->ids[w->n++] = ids[i];
    for (int i = 0; i < w->n / 2; i++) {
        int64_t t = w->ids[i];
        w->ids[i] = w->ids[w->n - 1 - i];
        w->ids[w->n - 1 - i] = t;
    }
    return 0;
}

/* Makes list[0..*n_list) hold exactly ids[0..n) in order (n at most
   UI_MAX_COMPARE), keeping what is loaded of the runs that stay. */
static void sync_list(CompareRun *list, int *n_list, const int64_t *ids, int n)
{
    CompareRun next[UI_MAX_COMPARE];
    int used[UI_MAX_COMPARE] = {0};
    for (int i = 0; i < n; i++) {
        int found = -1;
        for (int k = 0; k < *n_list && found < 0; k++)
            if (!used[k] && list[k].id == ids[i]) found = k;
        if (found >= 0) {
            next[i] = list[found];
            used[found] = 1;
        } else {
            run_init(&next[i], ids[i]);
        }
    }
    for (int k = 0; k < *n_list; k++)
        if (!used[k]) run_clear(&list[k]);
    memcpy(list, next, (size_t)n * sizeof next[0]);
    *n_list = n;
}

static void sync_runs(CompareState *st, const int64_t *ids, int n)
{
    sync_list(st->runs, &st->n, ids, n);
    if (st->cursor >= n) st->cursor = n > 0 ? n - 1 : 0;
}

/* ---- loading ------------------------------------------------------------ */

static int load_run(CompareRun *r, Store *store, char *err)
{
    RunSummary x;
    if (runs_read_one(store, r->id, &x, &r->present, err)) return -1;
    if (!r->present) return 0;
    ui_copy_text(r->arch, sizeof r->arch, x.arch);
    ui_copy_text(r->task, sizeof r->task, x.task);
    r->answers = data_scores_answers(x.data);
    r->status = x.status;
    r->steps_done = x.steps_done;
    r->total_steps = x.total_steps;
    const double final[N_COLS] = {
        [COL_TRAIN] = x.train_loss,     [COL_BEST_VALID] = x.best_valid_loss, [COL_VALID] = x.valid_loss,
        [COL_TEST] = x.test_loss,       [COL_PPL] = x.test_perplexity,        [COL_ACC] = x.test_accuracy,
        [COL_SPEED] = x.tokens_per_s,   [COL_PARAMS] = (double)x.n_params,
    };
    for (int c = 0; c < N_COLS; c++) r->final[c] = final[c] * TABLE_COLS[c].scale;
    r->unigram = x.unigram_nats;
    /* the config may still change until the job starts (threads) */
    if (!r->terminal || !r->config) {
        free(r->config);
        r->config = NULL;
        r->n_config = 0;
        if (runs_read_config(store, r->id, &r->config, &r->n_config, err)) return -1;
        ui_config_of(r->config, r->n_config, &r->cfg);
    }
    if (run_curve_update(&r->curve, store, err)) return -1;
    r->terminal = run_status_final(r->status);
    return 0;
}

/* Reads the seed group of run r into g (members by id, r among them), their
   curves past what is held, and the mean curves and final statistics. */
static int load_group(SeedGroup *g, const CompareRun *r, Store *store, char *err)
{
    if (g->of != r->id) {
        group_clear(g);
        g->of = r->id;
    }
    int64_t ids[MAX_SEEDS];
    int n;
    if (runs_read_seed_group(store, r->id, ids, MAX_SEEDS, &n, err)) return -1;
    sync_list(g->members, &g->n, ids, n);
    const CurvePoints *train[MAX_SEEDS], *valid[MAX_SEEDS];
    for (int i = 0; i < n; i++) {
        CompareRun *m = &g->members[i];
        if (!m->terminal && load_run(m, store, err)) return -1;
        train[i] = &m->curve.train;
        valid[i] = &m->curve.valid;
    }
    if (mean_curve_build(&g->train, train, n, err) || mean_curve_build(&g->valid, valid, n, err)) return -1;
    for (int c = 0; c < N_COLS; c++) {
        double values[MAX_SEEDS];
        int k = 0;
        for (int i = 0; i < n; i++)
            if (g->members[i].status == RUN_DONE) values[k++] = g->members[i].final[c];
        g->final[c] = seed_stats(values, k);
    }
    return 0;
}

/* The finished members and all members of run i's group ("2/3"). */
static int group_done(const SeedGroup *g)
{
    int done = 0;
    for (int i = 0; i < g->n; i++) done += g->members[i].status == RUN_DONE;
    return done;
}

/* A config value of run r as text (NULL when absent). */
static const char *config_value(const CompareRun *r, const char *key)
{
    for (int i = 0; i < r->n_config; i++)
        if (r->config[i].scalar && !strcmp(r->config[i].key, key)) return r->config[i].value;
    return NULL;
}

/* NULL also for a key that changes nothing of the run (another
   architecture's, a budget it does not use). */
static const char *config_text(const CompareRun *r, const char *key)
{
    const char *v = config_value(r, key);
    return v && (!config_is_key(key) || config_key_applies(&r->cfg, key)) ? v : NULL;
}

static int skip_key(const char *key, int grouped)
{
    if (grouped && !strcmp(key, "seed")) return 1;
    for (size_t i = 0; i < sizeof NOT_DIFFERENCES / sizeof NOT_DIFFERENCES[0]; i++)
        if (!strcmp(key, NOT_DIFFERENCES[i])) return 1;
    for (int k = 0; k < config_key_count(); k++)
        if (!strcmp(key, config_key_name(k))) return config_key_bookkeeping(k);
    return 0;
}

/* " key=value", a real number in 4 digits (figure_config_value). */
static void append_pair(char *diff, const char *key, const char *value)
{
    size_t len = strlen(diff);
    char shown[128];
    figure_config_value(key, value, shown, sizeof shown);
    snprintf(diff + len, DIFF_LEN - len, "%s%s=%s", len ? " " : "", key, shown);
}

/* Each run's legend text: the keys whose values are not the same in every
   run, each named only for the runs it applies to (or, for a run alone,
   its size and data). */
static void compute_diffs(CompareState *st)
{
    for (int i = 0; i < st->n; i++) st->runs[i].diff[0] = 0;
    if (st->n == 1) {
        CompareRun *r = &st->runs[0];
        for (size_t k = 0; k < sizeof ALONE_KEYS / sizeof ALONE_KEYS[0]; k++)
            if (config_text(r, ALONE_KEYS[k])) append_pair(r->diff, ALONE_KEYS[k], config_text(r, ALONE_KEYS[k]));
        return;
    }
    /* every key of any run, in the order of the first run holding it */
    for (int owner = 0; owner < st->n; owner++) {
        const CompareRun *cfg = &st->runs[owner];
        for (int k = 0; k < cfg->n_config; k++) {
            const char *key = cfg->config[k].key;
            if (skip_key(key, st->grouped)) continue;
            int seen_before = 0;
            for (int o = 0; o < owner && !seen_before; o++) seen_before = config_value(&st->runs[o], key) != NULL;
            if (seen_before) continue;
            const char *first = config_text(&st->runs[0], key);
            int differs = 0;
            for (int i = 1; i < st->n && !differs; i++) {
                const char *v = config_text(&st->runs[i], key);
                differs = !v != !first || (v && strcmp(first, v));
            }
            if (!differs) continue;
            for (int i = 0; i < st->n; i++)
                if (config_text(&st->runs[i], key)) append_pair(st->runs[i].diff, key, config_text(&st->runs[i], key));
        }
    }
}

/* ---- screen ------------------------------------------------------------- */

/* Keeps one run per seed group among the wanted (the group's first id, in
   the order wanted), so that picking two seeds of a point shows it once. */
static int one_per_group(UiContext *ctx, Wanted *w, char *err)
{
    int64_t kept[UI_MAX_COMPARE];
    int n = 0;
    for (int i = 0; i < w->n; i++) {
        int64_t ids[MAX_SEEDS];
        int k;
        if (runs_read_seed_group(ctx->store, w->ids[i], ids, MAX_SEEDS, &k, err)) return -1;
        int64_t first = k > 0 ? ids[0] : w->ids[i];
        int seen = 0;
        for (int j = 0; j < n; j++) seen |= kept[j] == first;
        if (!seen) kept[n++] = first;
    }
    memcpy(w->ids, kept, (size_t)n * sizeof kept[0]);
    w->n = n;
    return 0;
}

static void *compare_create(UiContext *ctx)
{
    (void)ctx;
    CompareState *st = calloc(1, sizeof *st);
    return st;
}

static void compare_destroy(void *state)
{
    CompareState *st = state;
    if (!st) return;
    for (int i = 0; i < st->n; i++) run_clear(&st->runs[i]);
    for (int i = 0; i < UI_MAX_COMPARE; i++) group_clear(&st->groups[i]);
    free(st);
}

static void compare_reload(void *state, UiContext *ctx)
{
    CompareState *st = state;
    if (!st) return;
    char err[ERR_LEN];
    st->error[0] = 0;
    Wanted w;
    memset(&w, 0, sizeof w);
    w.st = st;
    if (ctx->n_compare > 0) {
        st->fallback = 0;
        for (int i = 0; i < ctx->n_compare && i < UI_MAX_COMPARE; i++) w.ids[w.n++] = ctx->compare[i];
    } else {
        st->fallback = 1;
        if (fallback_runs(st, ctx, &w, err)) {
            snprintf(st->error, sizeof st->error, "%s", err);
            return;
        }
        st->fallback_sweep = w.sweep;
        ui_copy_text(st->fallback_name, sizeof st->fallback_name, w.sweep_name);
    }
    if (st->grouped && one_per_group(ctx, &w, err)) {
        snprintf(st->error, sizeof st->error, "%s", err);
        return;
    }
    sync_runs(st, w.ids, w.n);
    for (int i = 0; i < st->n; i++) {
        CompareRun *r = &st->runs[i];
        if (!r->terminal && load_run(r, ctx->store, err)) {
            snprintf(st->error, sizeof st->error, "%s", err);
            return;
        }
    }
    for (int i = 0; i < UI_MAX_COMPARE; i++) {
        SeedGroup *g = &st->groups[i];
        if (!st->grouped || i >= st->n) {
            if (g->of) group_clear(g);
            continue;
        }
        if (load_group(g, &st->runs[i], ctx->store, err)) {
            snprintf(st->error, sizeof st->error, "%s", err);
            return;
        }
    }
    compute_diffs(st);
}

/* "running 45%", "queued", "" for a finished run. */
static void progress_text(const CompareRun *r, char *out, size_t cap)
{
    if (!r->present) snprintf(out, cap, "not in the store");
    else if (r->status == RUN_DONE) out[0] = 0;
    else if (r->status == RUN_RUNNING && r->total_steps > 0)
        snprintf(out, cap, "running %lld%%", (long long)(100 * r->steps_done / r->total_steps));
    else snprintf(out, cap, "%s", run_status_name(r->status));
}

static void draw_sample(UiContext *ctx, int y, int x, int k)
{
    int attr = ui_attr(ctx, UI_PAIR_SERIES0 + k % 8) | A_BOLD;
    if (ctx->utf8) ui_text(y, x, 3, attr, "━━%c", ctx->colors ? ' ' : MARKERS[k]);
    else ui_text(y, x, 3, attr, "%c%c ", LINE_GLYPHS[k], MARKERS[k]);
}

/* "  3 seeds test 6.372±0.002 (6.370-6.375)" */
static void group_text(const SeedGroup *g, const char *pm, char *out, size_t cap)
{
    int done = group_done(g);
    int len = snprintf(out, cap, "  %d seed%s", g->n, g->n == 1 ? "" : "s");
    if (done < g->n) len += snprintf(out + len, cap - len, " (%d done)", done);
    const SeedStats *t = &g->final[COL_TEST];
    if (t->n > 1) snprintf(out + len, cap - len, " test %.3f%s%.3f (%.3f-%.3f)", t->mean, pm, t->se, t->min, t->max);
    else if (t->n == 1) snprintf(out + len, cap - len, " test %.3f", t->mean);
}

static void draw_legend(CompareState *st, UiContext *ctx, int top, int rows, int columns, int width)
{
    int col_width = width / columns;
    for (int i = 0; i < st->n; i++) {
        const CompareRun *r = &st->runs[i];
        int y = top + i % rows, x = (i / rows) * col_width;
        int sel = i == st->cursor;
        int base = sel ? ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD : 0;
        if (sel) ui_text(y, x, col_width - 1, base, "%*s", col_width - 1, "");
        draw_sample(ctx, y, x, i);
        char progress[48], seeds[96] = "";
        progress_text(r, progress, sizeof progress);
        if (st->grouped) group_text(&st->groups[i], ui_pm(ctx), seeds, sizeof seeds);
        ui_text(y, x + 4, col_width - 5, base, "#%lld %s/%s %s%s%s%s", (long long)r->id, r->arch, r->task, r->diff,
                seeds, progress[0] ? "  " : "", progress);
    }
}

/* Column c of row i: the run's number, or its seed group's mean; with
   answers (a run on answer-scored data is compared) no accuracy for a run
   on other data, whose token accuracy is another measure. */
static double table_value(const CompareState *st, int i, int c, int answers)
{
    if (answers && c == COL_ACC && !st->runs[i].answers) return NAN;
    return st->grouped ? st->groups[i].final[c].mean : st->runs[i].final[c];
}

static void draw_table(CompareState *st, UiContext *ctx, int top, int width)
{
    int head = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    int answers = 0, order[N_COLS];
    for (int i = 0; i < st->n; i++) answers |= st->runs[i].answers;
    for (int c = 0; c < N_COLS; c++) order[c] = answers ? ANSWER_ORDER[c] : c;
    ui_text(top, 0, FIRST_COL_WIDTH, head, "%-*s", FIRST_COL_WIDTH, "  run");
    for (int k = 0; k < N_COLS; k++) {
        int x = FIRST_COL_WIDTH + k * COL_WIDTH, c = order[k];
        if (x >= width) break;
        ui_text(top, x, MB_MIN(COL_WIDTH, width - x), head, "%*s", COL_WIDTH,
                answers && c == COL_ACC ? "answer %" : TABLE_COLS[c].head);
    }
    int best[N_COLS];
    for (int c = 0; c < N_COLS; c++) {
        double values[UI_MAX_COMPARE];
        for (int i = 0; i < st->n; i++) values[i] = table_value(st, i, c, answers);
        best[c] = st->n > 1 ? heat_best(values, st->n, TABLE_COLS[c].higher_better) : -1;
    }
    int best_attr = ctx->colors ? ui_attr(ctx, UI_PAIR_GOOD) | A_BOLD : A_BOLD | A_UNDERLINE;
    for (int i = 0; i < st->n; i++) {
        const CompareRun *r = &st->runs[i];
        int y = top + 1 + i;
        int sel = i == st->cursor;
        int base = sel ? ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD : 0;
        if (sel) ui_text(y, 0, width, base, "%*s", width, "");
        draw_sample(ctx, y, 0, i);
        ui_text(y, 3, FIRST_COL_WIDTH - 3, base, "#%lld", (long long)r->id);
        for (int k = 0; k < N_COLS; k++) {
            int x = FIRST_COL_WIDTH + k * COL_WIDTH, c = order[k];
            if (x >= width) break;
            char text[32];
            heat_format(table_value(st, i, c, answers), TABLE_COLS[c].sig, text, sizeof text);
            ui_text(y, x, MB_MIN(COL_WIDTH, width - x), best[c] == i ? best_attr : base, "%*s", COL_WIDTH, text);
        }
        int x = FIRST_COL_WIDTH + N_COLS * COL_WIDTH + 2;
        char progress[48];
        progress_text(r, progress, sizeof progress);
        if (x < width && progress[0]) ui_text(y, x, width - x, ui_attr(ctx, UI_PAIR_WARN), "%s", progress);
    }
}

/* Valid points are drawn as markers (a full cell) while there are few of
   them; more would bury the train curves, so they become single dots. */
static PlotMark valid_mark(const RunCurve *c) { return c->valid.n > MAX_VALID_MARKERS ? PLOT_DOTS : PLOT_MARKERS; }

/* The distinct unigram levels of the runs shown (their datasets'). */
static int unigram_levels(const CompareState *st, double *levels)
{
    int n = 0;
    for (int k = 0; k < st->n; k++) {
        double u = st->runs[k].unigram;
        int seen = !isfinite(u);
        for (int j = 0; j < n && !seen; j++) seen = fabs(levels[j] - u) < 5e-3;
        if (!seen) levels[n++] = u;
    }
    return n;
}

/* Curve k's valid points (with g: every seed's, as one cloud) fitted in
   the shown x axis (ui/draw/curve_fits.h; a power law keeps its shape
   whatever the x unit) and sampled from its last point to FIT_REACH x it;
   0 when they cannot be fitted (fewer than 4 points, or the fit fails). */
static int fit_curve(CompareState *st, int k)
{
    const CurvePoints *valid[MAX_SEEDS];
    int n = 0;
    if (st->grouped)
        for (int i = 0; i < st->groups[k].n; i++) valid[n++] = &st->groups[k].members[i].curve.valid;
    else
        valid[n++] = &st->runs[k].curve.valid;
    CurveFit f;
    char err[ERR_LEN];
    if (curves_fit(valid, n, st->align, &f, err)) return 0;
    fit_past_budget(&f, FIT_REACH, st->fit_x[k], st->fit_y[k]);
    return 1;
}

static void draw_plot(CompareState *st, UiContext *ctx, int top, int height, int width)
{
    /* run k's series are k + 8j: ui_plot colours series s with colour s % 8,
       so all of them get the run's colour.  Bands (j = 0, with g) under the
       train curves (j = 1) and valid points (j = 2); the unigram levels
       (j = 3, drawn dim) under everything */
    PlotSeries series[5 * UI_MAX_COMPARE];
    memset(series, 0, sizeof series);
    for (int k = 0; k < st->n; k++) {
        const RunCurve *c = &st->runs[k].curve;
        const SeedGroup *g = &st->groups[k];
        if (st->grouped) {
            series[k] = (PlotSeries){g->train.x[st->align], g->train.band, g->train.n, PLOT_BAND, 0, 0};
            series[UI_MAX_COMPARE + k] =
                (PlotSeries){g->train.x[st->align], g->train.mean, g->train.n, PLOT_LINE, LINE_GLYPHS[k], 0};
            PlotMark mark = g->valid.n > MAX_VALID_MARKERS ? PLOT_DOTS : PLOT_MARKERS;
            series[2 * UI_MAX_COMPARE + k] =
                (PlotSeries){g->valid.x[st->align], g->valid.mean, g->valid.n, mark, MARKERS[k], 0};
        } else {
            series[UI_MAX_COMPARE + k] =
                (PlotSeries){c->train.x[st->align], c->train.loss, c->train.n, PLOT_LINE, LINE_GLYPHS[k], 0};
            series[2 * UI_MAX_COMPARE + k] =
                (PlotSeries){c->valid.x[st->align], c->valid.loss, c->valid.n, valid_mark(c), MARKERS[k], 0};
        }
    }
    double levels[UI_MAX_COMPARE];
    int n_levels = unigram_levels(st, levels);
    for (int j = 0; j < n_levels; j++)
        series[3 * UI_MAX_COMPARE + j] = (PlotSeries){NULL, &levels[j], 1, PLOT_HLINE, 0, 0};
    /* F: the fits, dashed in the run's colour, past the levels */
    int n_series = 3 * UI_MAX_COMPARE + n_levels;
    for (int k = 0; st->fits && k < st->n; k++)
        if (fit_curve(st, k))
            series[n_series++] = (PlotSeries){st->fit_x[k], st->fit_y[k], FIT_SAMPLES, PLOT_DASHED, '.', 0};
    /* the levels go first in drawing order only by their fill: ui_plot
       draws fills under every dot whatever the order */
    ui_plot(ctx, top, 0, height, width, series, n_series, st->log_y);
}

/* How the valid points look: "blocks", "dots" or both. */
static const char *valid_look(const CompareState *st, int utf8)
{
    int markers = 0, dots = 0;
    for (int k = 0; k < st->n; k++) {
        if (st->runs[k].curve.valid.n == 0) continue;
        if (valid_mark(&st->runs[k].curve) == PLOT_DOTS) dots = 1;
        else markers = 1;
    }
    const char *marker = utf8 ? "blocks" : "markers";
    if (markers && dots) return utf8 ? "blocks or dots" : "markers or dots";
    return dots ? "dots" : marker;
}

static void compare_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    CompareState *st = state;
    if (!st) return;
    int title = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    int y = top, bottom = top + height;
    if (st->error[0]) ui_text(bottom - 1, 0, width, ui_attr(ctx, UI_PAIR_BAD), "%s", st->error);
    if (st->n == 0) {
        ui_text(y++, 0, width, title, "Compare: no runs to compare");
        y++;
        ui_text(y++, 2, width - 2, 0, "Pick runs with space on the Runs screen (8 at most), then come back here.");
        ui_text(y++, 2, width - 2, 0, "With none picked, this screen shows the last finished runs of the latest");
        ui_text(y++, 2, width - 2, 0, "sweep; there are none yet: queue one with `mixbench sweep ...` or the");
        ui_text(y++, 2, width - 2, 0, "New sweep screen, and the workbench's workers will run it.");
        return;
    }
    if (st->fallback) {
        char what[128];
        if (st->fallback_sweep)
            snprintf(what, sizeof what, "the last finished runs of sweep %lld %s", (long long)st->fallback_sweep,
                     st->fallback_name);
        else
            snprintf(what, sizeof what, "the last finished runs");
        int len = (int)strlen(what) + 9;
        ui_text(y, 0, width, title, "Compare: %s", what);
        const char *hint = "(none picked: space on Runs picks)";
        if (len + 2 + (int)strlen(hint) > width) hint = "(none picked)";
        if (len + 2 + (int)strlen(hint) <= width)
            ui_text(y, len + 2, width - len - 2, ui_attr(ctx, UI_PAIR_DIM), "%s", hint);
        y++;
    } else {
        ui_text(y++, 0, width, title, "Compare: %d picked run%s%s", st->n, st->n == 1 ? "" : "s",
                st->grouped ? " as seed groups" : "");
    }

    int table_rows = st->n + 1;
    int legend_columns = 1, legend_rows = st->n;
    if (height - 2 - table_rows - legend_rows < 8 && width >= 80) {
        legend_columns = 2;
        legend_rows = (st->n + 1) / 2;
    }
    draw_legend(st, ctx, y, legend_rows, legend_columns, width);
    y += legend_rows;
    int plot_height = bottom - y - 1 - table_rows - 1;
    if (plot_height >= 4) {
        char line[256];
        int len = snprintf(line, sizeof line, "x: %s  y: loss, %s   ", curve_axis_name(st->align),
                           st->log_y ? "log" : "linear");
        if (st->grouped)
            len += snprintf(line + len, sizeof line - len, "mean of seeds, %s min-max",
                            plot_fill_text(PLOT_FILL_SHADE, !ctx->utf8));
        else
            len += snprintf(line + len, sizeof line - len, "%s: smoothed train, %s: valid", ctx->utf8 ? "lines" : "1-8",
                            valid_look(st, ctx->utf8 && ctx->colors));
        if (st->fits) len += snprintf(line + len, sizeof line - len, ", dashed: fits");
        double levels[UI_MAX_COMPARE];
        int n_levels = unigram_levels(st, levels);
        for (int j = 0; j < n_levels && j < 2; j++)
            len += snprintf(line + len, sizeof line - len, "%s%s unigram %.2f", j ? "," : "  ",
                            plot_fill_text(PLOT_FILL_RULE, !ctx->utf8), levels[j]);
        ui_text(y++, 0, width, ui_attr(ctx, UI_PAIR_DIM), "%s", line);
        draw_plot(st, ctx, y, plot_height, width);
        y += plot_height;
    }
    if (y + 1 < bottom) y++;
    draw_table(st, ctx, y, width);
}

static void remove_run(CompareState *st, UiContext *ctx)
{
    if (st->n == 0) return;
    int64_t id = st->runs[st->cursor].id;
    if (st->fallback) {
        if (st->n_hidden < MAX_HIDDEN) st->hidden[st->n_hidden++] = id;
    } else {
        for (int k = 0; k < ctx->n_compare; k++)
            if (ctx->compare[k] == id) {
                memmove(&ctx->compare[k], &ctx->compare[k + 1],
                        (size_t)(ctx->n_compare - k - 1) * sizeof ctx->compare[0]);
                ctx->n_compare--;
                break;
            }
    }
    ui_say(ctx, "run %lld left the comparison", (long long)id);
}

static int compare_key(void *state, UiContext *ctx, int ch)
{
    CompareState *st = state;
    if (!st) return 0;
    switch (ch) {
    case KEY_UP: case 'k':
        if (st->cursor > 0) st->cursor--;
        return 1;
    case KEY_DOWN: case 'j':
        if (st->cursor + 1 < st->n) st->cursor++;
        return 1;
    case ' ':
        remove_run(st, ctx);
        return 1;
    case 'a':
        st->align = (CurveAxis)((st->align + 1) % CURVE_X_COUNT);
        ui_say(ctx, "curves aligned by %s", curve_axis_name(st->align));
        return 1;
    case 'l':
        st->log_y = !st->log_y;
        return 1;
    case 'F':
        st->fits = !st->fits;
        ui_say(ctx, "%s", st->fits ? "fits on: valid points, L = E + A x^-a, dashed past the last to 3x (F: off)"
                                   : "fits off (F: on)");
        return 1;
    case 'g':
        st->grouped = !st->grouped;
        ui_say(ctx, "%s", st->grouped ? "each run as its seed group: the mean curve, min-max shaded (g: runs)"
                                      : "each run on its own (g: seed groups)");
        return 1;
    case UI_FIGURE_KEY: {
        Figure fig;
        char err[ERR_LEN];
        int64_t ids[UI_MAX_COMPARE];
        for (int i = 0; i < st->n; i++) ids[i] = st->runs[i].id;
        int flags = (st->log_y ? FIGURE_LOG_Y : 0) | (st->fits ? FIGURE_FITS : 0);
        int built = figure_compare(ctx->store, ids, st->n, st->grouped ? COMPARE_GROUPS : COMPARE_RUNS, st->align,
                                   flags, &fig, err);
        ui_figure_save(ctx, &fig, built, err, "compare");
        return 1;
    }
    case '\n': case '\r': case KEY_ENTER: {
        if (st->n == 0) return 1;
        ui_show_screen(ctx, &ui_screen_run);
        ctx->run_id = st->runs[st->cursor].id;
        return 1;
    }
    default:
        return 0;
    }
}

const UiScreen ui_screen_compare = {
    "Compare",
    "space drop  a align  l log  g seeds  F fits  Enter open",
    "up/down j/k     select a run in the legend\n"
    "space           remove the selected run from the comparison\n"
    "a               align the curves by steps, tokens or wall seconds\n"
    "l               y axis: log / linear\n"
    "g               each run as its seed group (the runs that differ only\n"
    "                in seed): the mean curve, the min-max shaded around it,\n"
    "                the table's means, test mean +- se in the legend\n"
    "F               fit each curve's valid points (with g: every seed's),\n"
    "                L = E + A x^-a (least squares; docs/statistics.md),\n"
    "                drawn dashed from the last point to 3x it: where more\n"
    "                compute would lead (P then writes the fits to 10x, on\n"
    "                a log tokens axis, as the report's figures)\n"
    "Enter           open the selected run (Run screen)\n"
    "P               write this figure as SVG beside the store (mixbench plot)\n"
    "                lines (ASCII: the run's digit, 1-8): smoothed train\n"
    "                loss; blocks (ASCII or no colours: the run's marker\n"
    "                o x + * # @ % &), or dots past 16 evaluations: valid\n"
    "                table: final numbers, the best of each column\n"
    "                highlighted (lowest loss, perplexity and params,\n"
    "                highest accuracy and tokens/s)\n"
    "                dashed: the datasets' unigram entropy\n"
    "                runs: those picked with space on Runs, or else\n"
    "                the last finished runs of the latest sweep",
    compare_create,
    compare_destroy,
    compare_reload,
    compare_draw,
    compare_key,
    NULL,
    NULL,
};
