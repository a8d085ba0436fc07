/*
 * screen_run.c — the Run screen (tab 2): one run in detail.  A header (id,
 * name, arch/task/data, status, step/total, tokens/s, ETA, parameters,
 * threads), the loss curve in braille cells (raw train loss as dots, an
 * exponential moving average of it as a line, valid losses as markers)
 * over steps, tokens or wall time on a log or linear y axis, and beside or
 * below it the run's config (keys that differ from the defaults first), its
 * evaluations and its checkpoints.
 *
 * Not for: choosing runs (the Runs screen) or comparing them (Compare).
 * The curve is loaded incrementally: each reload fetches only the metric
 * rows past the last step held (a running job adds rows every second), so
 * a long run costs one read once.  The smoothing is recomputed here from
 * the raw losses, so its factor can change without touching the store.
 * The header of a running job comes from the scheduler's live progress.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "db/ui_reads.h"
#include "engine/config.h"
#include "ui/ui.h"

/* The screen this one opens ('g') may be missing from a build. */

#define MAX_LIVE 64              /* running jobs read from the scheduler */
#define FETCH_ROWS 50000         /* metric rows read per reload at most */
#define MAX_EVALS 64             /* evaluations listed (the latest) */
#define MAX_CKPTS 16
#define STR_(x) #x
#define STR(x) STR_(x)           /* the limits above inside SQL text */
#define MAX_CONFIG 96            /* config keys */
#define SIDE_WIDTH 38            /* the side panel, from WIDE columns on */
#define WIDE 110

typedef enum { X_STEPS, X_TOKENS, X_WALL, N_XAXES } XAxis;
static const char *const XAXIS_NAMES[N_XAXES] = {"steps", "tokens", "wall seconds"};

static const double SMOOTHING[] = {0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99};
#define N_SMOOTHING ((int)(sizeof SMOOTHING / sizeof SMOOTHING[0]))
#define DEFAULT_SMOOTHING 5      /* 0.95, the trainer's own factor */

typedef struct {
    int64_t step;
    char split[8];
    double loss, perplexity, accuracy;
    double loss_all;             /* mlm: every position a target; NAN otherwise */
} EvalLine;

typedef struct {
    int64_t step;
    char path[256];
} CkptLine;

typedef struct {
    char key[32], value[96];
    int changed;                 /* differs from the default */
} ConfigLine;

typedef struct {
    int64_t run_id;              /* the run shown (0: none) */
    int found;                   /* the run is in the store */

    /* header, from the runs row (and the scheduler while it runs) */
    char name[64], arch[32], task[32], data[256], status[16], sweep[64], coords[256], error[256];
    int64_t step, total, tokens, n_params, n_nonemb;
    double wall, tokens_per_s, eta;
    int threads;
    UiRunFacts facts;            /* unigram level, not learning, loss_all */

    /* the curve: one entry per metric row, by step */
    double *x[N_XAXES];          /* step, tokens, wall */
    double *raw, *smooth;
    int n, cap;
    int64_t last_step;
    double ema;                  /* the running average behind smooth[n-1] */
    int ema_count;               /* finite losses folded into it */

    /* valid losses (the markers) and the tables */
    double *valid_x[N_XAXES], *valid_y;
    int n_valid, cap_valid;
    EvalLine evals[MAX_EVALS];
    int n_evals;
    CkptLine ckpts[MAX_CKPTS];
    int n_ckpts;
    ConfigLine config[MAX_CONFIG];
    int n_config;
    char *config_json;           /* the text parsed into config (re-parsed when it changes) */
    int tables_loaded;           /* evals/checkpoints read since the run last ran */

    XAxis xaxis;
    int log_y;
    int smoothing;               /* index into SMOOTHING */
} RunState;

/* ---- helpers ------------------------------------------------------------ */

static double parse_double(const char *s) { return s ? strtod(s, NULL) : NAN; }
static int64_t parse_int(const char *s) { return s ? atoll(s) : 0; }

/* "1.23M", "45.6k", "789" */
static void fmt_big(double v, char *out, size_t cap)
{
    if (!isfinite(v)) snprintf(out, cap, "-");
    else if (v >= 1e9) snprintf(out, cap, "%.2fG", v / 1e9);
    else if (v >= 1e6) snprintf(out, cap, "%.2fM", v / 1e6);
    else if (v >= 1e4) snprintf(out, cap, "%.1fk", v / 1e3);
    else snprintf(out, cap, "%.0f", v);
}

/* "45s", "3m05s", "1h02m" */
static void fmt_duration(double s, char *out, size_t cap)
{
    if (!isfinite(s) || s < 0) snprintf(out, cap, "-");
    else if (s < 60) snprintf(out, cap, "%.0fs", s);
    else if (s < 3600) snprintf(out, cap, "%dm%02ds", (int)s / 60, (int)s % 60);
    else snprintf(out, cap, "%dh%02dm", (int)(s / 3600), ((int)s % 3600) / 60);
}

/* ---- the curve ---------------------------------------------------------- */

static void clear_run(RunState *st)
{
    st->n = st->n_valid = st->n_evals = st->n_ckpts = st->n_config = 0;
    st->last_step = 0;
    st->ema = 0;
    st->ema_count = 0;
    st->tables_loaded = 0;
    st->facts = (UiRunFacts){NAN, NAN, 0, NAN, NAN, NAN};
    free(st->config_json);
    st->config_json = NULL;
    st->found = 0;
}

/* Folds raw[i] into the running average: Adam-style bias correction, so the
   first points are not pulled towards 0; a missing loss keeps the last value. */
static void smooth_point(RunState *st, int i)
{
    double f = SMOOTHING[st->smoothing];
    if (!isfinite(st->raw[i])) {
        st->smooth[i] = i > 0 ? st->smooth[i - 1] : NAN;
        return;
    }
    st->ema = f * st->ema + (1 - f) * st->raw[i];
    st->ema_count++;
    double correction = 1 - pow(f, st->ema_count);
    st->smooth[i] = correction > 0 ? st->ema / correction : st->raw[i];
}

static void resmooth(RunState *st)
{
    st->ema = 0;
    st->ema_count = 0;
    for (int i = 0; i < st->n; i++) smooth_point(st, i);
}

static int grow(double **arrays[], int n_arrays, int *cap, int need)
{
    if (need <= *cap) return 0;
    int grown = *cap ? *cap : 256;
    while (grown < need) grown *= 2;
    for (int k = 0; k < n_arrays; k++) {
        double *p = realloc(*arrays[k], (size_t)grown * sizeof *p);
        if (!p) return -1;
        *arrays[k] = p;
    }
    *cap = grown;
    return 0;
}

static int add_metric(void *state, int ncols, char **v, char **names)
{
    (void)names;
    RunState *st = state;
    if (ncols < 4 || !v[0]) return 0;
    double **arrays[] = {&st->x[X_STEPS], &st->x[X_TOKENS], &st->x[X_WALL], &st->raw, &st->smooth};
    if (grow(arrays, 5, &st->cap, st->n + 1)) return 1;
    int i = st->n++;
    st->last_step = parse_int(v[0]);
    st->x[X_STEPS][i] = (double)st->last_step;
    st->x[X_TOKENS][i] = parse_double(v[1]);
    st->x[X_WALL][i] = parse_double(v[2]);
    st->raw[i] = parse_double(v[3]);
    smooth_point(st, i);
    return 0;
}

/* Index of the last metric row at or before step (-1: none). */
static int metric_at(const RunState *st, int64_t step)
{
    int lo = 0, hi = st->n - 1, found = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (st->x[X_STEPS][mid] <= (double)step) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

/* The valid markers, on every x axis, from the evaluations table. */
static void build_valid(RunState *st)
{
    st->n_valid = 0;
    for (int k = st->n_evals - 1; k >= 0; k--) { /* evals are held newest first */
        const EvalLine *e = &st->evals[k];
        if (strcmp(e->split, "valid") || !isfinite(e->loss)) continue;
        double **arrays[] = {&st->valid_x[X_STEPS], &st->valid_x[X_TOKENS], &st->valid_x[X_WALL], &st->valid_y};
        if (grow(arrays, 4, &st->cap_valid, st->n_valid + 1)) return;
        int at = metric_at(st, e->step), i = st->n_valid++;
        st->valid_x[X_STEPS][i] = (double)e->step;
        st->valid_x[X_TOKENS][i] = at >= 0 ? st->x[X_TOKENS][at] : NAN;
        st->valid_x[X_WALL][i] = at >= 0 ? st->x[X_WALL][at] : NAN;
        st->valid_y[i] = e->loss;
    }
}

/* ---- loading ------------------------------------------------------------ */

static int read_id(void *state, int ncols, char **v, char **names)
{
    (void)names;
    if (ncols > 0 && v[0]) *(int64_t *)state = atoll(v[0]);
    return 0;
}

typedef struct {
    RunState *st;
    char *config_json;           /* this row's config text (malloc'd) */
} HeaderLoad;

static int read_header(void *state, int ncols, char **v, char **names)
{
    (void)names;
    HeaderLoad *hl = state;
    RunState *st = hl->st;
    if (ncols < 17) return 0;
    st->found = 1;
    ui_copy_text(st->name, sizeof st->name, v[0]);
    ui_copy_text(st->arch, sizeof st->arch, v[1]);
    ui_copy_text(st->task, sizeof st->task, v[2]);
    ui_copy_text(st->data, sizeof st->data, v[3]);
    ui_copy_text(st->status, sizeof st->status, v[4]);
    st->step = parse_int(v[5]);
    st->total = parse_int(v[6]);
    st->tokens = parse_int(v[7]);
    st->wall = parse_double(v[8]);
    st->tokens_per_s = parse_double(v[9]);
    st->n_params = parse_int(v[10]);
    st->n_nonemb = parse_int(v[11]);
    st->threads = (int)parse_int(v[12]);
    ui_copy_text(st->error, sizeof st->error, v[13]);
    ui_copy_text(st->sweep, sizeof st->sweep, v[14]);
    ui_copy_text(st->coords, sizeof st->coords, v[15]);
    hl->config_json = v[16] ? strdup(v[16]) : NULL;
    st->eta = NAN;
    return 0;
}

static int add_eval(void *state, int ncols, char **v, char **names)
{
    (void)names;
    RunState *st = state;
    if (ncols < 6 || st->n_evals == MAX_EVALS) return 0;
    EvalLine *e = &st->evals[st->n_evals++];
    e->step = parse_int(v[0]);
    ui_copy_text(e->split, sizeof e->split, v[1]);
    e->loss = parse_double(v[2]);
    e->perplexity = parse_double(v[3]);
    e->accuracy = parse_double(v[4]);
    e->loss_all = parse_double(v[5]);
    return 0;
}

static int add_ckpt(void *state, int ncols, char **v, char **names)
{
    (void)names;
    RunState *st = state;
    if (ncols < 2 || st->n_ckpts == MAX_CKPTS) return 0;
    CkptLine *c = &st->ckpts[st->n_ckpts++];
    c->step = parse_int(v[0]);
    const char *path = v[1] ? v[1] : "";
    const char *slash = strrchr(path, '/');
    ui_copy_text(c->path, sizeof c->path, slash ? slash + 1 : path);
    return 0;
}

/* The config as key = value lines, the keys that differ from the defaults
   first (in the key table's order within each group). */
static void parse_config(RunState *st, const char *json)
{
    st->n_config = 0;
    char err[ERR_LEN];
    JsonValue *obj = json ? json_parse(json, strlen(json), err) : NULL;
    if (!obj) return;
    Config defaults;
    config_defaults(&defaults);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < obj->count && st->n_config < MAX_CONFIG; i++) {
            const JsonValue *v = &obj->items[i];
            char value[96], def[96];
            if (v->type == JSON_STRING) ui_copy_text(value, sizeof value, v->string);
            else if (v->type == JSON_NUMBER || v->type == JSON_BOOL) snprintf(value, sizeof value, "%g", v->number);
            else continue;
            int changed = config_get(&defaults, obj->keys[i], def, sizeof def) != 0 || strcmp(def, value) != 0;
            if (changed != (pass == 0)) continue;
            ConfigLine *c = &st->config[st->n_config++];
            ui_copy_text(c->key, sizeof c->key, obj->keys[i]);
            ui_copy_text(c->value, sizeof c->value, value);
            c->changed = changed;
        }
    json_free(obj);
}

static const char HEADER_SQL[] =
    "SELECT r.name, r.arch, r.task, r.data, r.status, r.steps_done, r.total_steps, r.tokens_seen,"
    "       r.wall_seconds, r.tokens_per_s, r.n_params, r.n_params_nonembedding, r.threads, r.error,"
    "       s.name, coalesce((SELECT group_concat(j.key || '=' || j.value, ' ') FROM json_each(r.coords_json) j), ''),"
    "       r.config_json"
    "  FROM runs r LEFT JOIN sweeps s ON s.id = r.sweep_id WHERE r.id = ?1";

static void load(RunState *st, UiContext *ctx)
{
    char err[ERR_LEN], id[24], after[24];
    snprintf(id, sizeof id, "%lld", (long long)st->run_id);
    const char *params[2] = {id, after};
    char was[16];
    ui_copy_text(was, sizeof was, st->status);
    st->found = 0;
    HeaderLoad hl = {st, NULL};
    if (store_query_params(ctx->store, HEADER_SQL, params, 1, read_header, &hl, err)) {
        ui_say(ctx, "run %s: %s", id, err);
        return;
    }
    if (!st->found) {
        free(hl.config_json);
        return;
    }
    if (!st->config_json || !hl.config_json || strcmp(st->config_json, hl.config_json)) {
        parse_config(st, hl.config_json);
        free(st->config_json);
        st->config_json = hl.config_json;
    } else {
        free(hl.config_json);
    }

    snprintf(after, sizeof after, "%lld", (long long)st->last_step);
    int before = st->n;
    if (store_query_params(ctx->store,
                           "SELECT step, tokens, wall, train_loss FROM metrics WHERE run_id = ?1 AND step > ?2"
                           " ORDER BY step LIMIT " STR(FETCH_ROWS),
                           params, 2, add_metric, st, err))
        ui_say(ctx, "run %s: %s", id, err);

    /* evaluations and checkpoints change only while the run trains */
    int live = !strcmp(st->status, "running");
    if (!st->tables_loaded || live || strcmp(was, st->status) || st->n != before) {
        st->n_evals = st->n_ckpts = 0;
        if (store_ui_evals(ctx->store, st->run_id, MAX_EVALS, add_eval, st, err) ||
            store_ui_run_facts(ctx->store, st->run_id, &st->facts, err) ||
            store_query_params(ctx->store,
                               "SELECT step, path FROM checkpoints WHERE run_id = ?1 ORDER BY step DESC"
                               " LIMIT " STR(MAX_CKPTS),
                               params, 1, add_ckpt, st, err))
            ui_say(ctx, "run %s: %s", id, err);
        build_valid(st);
        st->tables_loaded = !live;
    }

    if (live && ctx->scheduler) {
        JobProgress progress[MAX_LIVE];
        int n = scheduler_progress(ctx->scheduler, progress, MAX_LIVE);
        for (int k = 0; k < n; k++) {
            const JobProgress *p = &progress[k];
            if (p->run_id != st->run_id || p->status != RUN_RUNNING) continue;
            if (p->step >= st->step) {
                st->step = p->step;
                st->tokens = p->tokens;
            }
            if (p->total_steps > 0) st->total = p->total_steps;
            if (p->tokens_per_s > 0) st->tokens_per_s = p->tokens_per_s;
            if (p->threads > 0) st->threads = p->threads;
            st->eta = p->eta_seconds;
        }
    }
}

/* ---- the screen --------------------------------------------------------- */

static void *run_create(UiContext *ctx)
{
    (void)ctx;
    RunState *st = calloc(1, sizeof *st);
    if (st) st->smoothing = DEFAULT_SMOOTHING, st->log_y = 1;
    return st;
}

static void run_destroy(void *state)
{
    RunState *st = state;
    if (!st) return;
    for (int k = 0; k < N_XAXES; k++) free(st->x[k]), free(st->valid_x[k]);
    free(st->raw);
    free(st->smooth);
    free(st->valid_y);
    free(st->config_json);
    free(st);
}

static void run_reload(void *state, UiContext *ctx)
{
    RunState *st = state;
    if (!st) return;
    int64_t want = ctx->run_id;
    char err[ERR_LEN];
    if (want == 0 && store_query(ctx->store, "SELECT max(id) FROM runs", read_id, &want, err))
        ui_say(ctx, "run: %s", err);
    if (want != st->run_id) {
        clear_run(st);
        st->run_id = want;
    }
    if (st->run_id) load(st, ctx);
}

static void draw_header(RunState *st, UiContext *ctx, int y, int width)
{
    char steps[64], rate[24], eta[24], params[24], nonemb[24], tokens[24], wall[24];
    if (st->total > 0) snprintf(steps, sizeof steps, "step %lld/%lld", (long long)st->step, (long long)st->total);
    else snprintf(steps, sizeof steps, "step %lld", (long long)st->step);
    fmt_big(st->tokens_per_s, rate, sizeof rate);
    fmt_duration(st->eta, eta, sizeof eta);
    fmt_big((double)st->n_params, params, sizeof params);
    fmt_big((double)st->n_nonemb, nonemb, sizeof nonemb);
    fmt_big((double)st->tokens, tokens, sizeof tokens);
    fmt_duration(st->wall, wall, sizeof wall);

    char line[512];
    int x = 1;
    snprintf(line, sizeof line, "run %lld%s%s  ", (long long)st->run_id, st->name[0] ? " " : "", st->name);
    ui_text(y, x, width - x, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "%s", line);
    x += (int)strlen(line);
    ui_text(y, x, width - x, ui_attr(ctx, ui_status_pair(run_status_parse(st->status))) | A_BOLD, "%s", st->status);
    x += (int)strlen(st->status) + 2;
    if (st->facts.not_learning) {
        static const char FLAG[] = "not learning: unigram level";
        ui_text(y, x, width - x, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD, "%s", FLAG);
        x += (int)sizeof FLAG + 1;
    }
    snprintf(line, sizeof line, "%s", steps);
    if (!strcmp(st->status, "running")) snprintf(line + strlen(line), sizeof line - strlen(line), "  ETA %s", eta);
    snprintf(line + strlen(line), sizeof line - strlen(line), "  %s %s %s", st->arch, st->task, st->data);
    ui_text(y, x, width - x, A_BOLD, "%s", line);
    x += (int)strlen(line);
    if (st->sweep[0] && x + 8 + (int)strlen(st->sweep) <= width) ui_text(y, x, width - x, 0, "  sweep %s", st->sweep);

    /* mlm: the loss over every position (the PairConnect paper's scale);
       to make room for it the parameters lose their detail */
    char all[64] = "";
    if (isfinite(st->facts.test_loss_all) || isfinite(st->facts.valid_loss_all)) {
        snprintf(all, sizeof all, "  loss_all");
        if (isfinite(st->facts.valid_loss_all))
            snprintf(all + strlen(all), sizeof all - strlen(all), " valid %.3f", st->facts.valid_loss_all);
        if (isfinite(st->facts.test_loss_all))
            snprintf(all + strlen(all), sizeof all - strlen(all), " test %.3f", st->facts.test_loss_all);
    }
    size_t len = 0;
    for (int brief = 0; brief < 3; brief++) {
        len = (size_t)snprintf(line, sizeof line, "%s tok/s  ", rate);
        if (st->n_params > 0 && brief == 0)
            len += (size_t)snprintf(line + len, sizeof line - len, "params %s (%s non-emb)  threads %d  tokens %s  wall %s",
                                    params, nonemb, st->threads, tokens, wall);
        else if (st->n_params > 0 && brief == 1)
            len += (size_t)snprintf(line + len, sizeof line - len, "params %s  tokens %s  wall %s", params, tokens, wall);
        else if (st->n_params > 0)
            len += (size_t)snprintf(line + len, sizeof line - len, "params %s", params);
        else
            len += (size_t)snprintf(line + len, sizeof line - len, "params - (counted when the job starts)");
        if ((int)(len + strlen(all)) <= width - 1) break;
    }
    if ((int)(len + strlen(all)) <= width - 1) len += (size_t)snprintf(line + len, sizeof line - len, "%s", all);
    /* the sweep's coordinates only when they fit whole (the config panel
       lists the same keys first) */
    if (st->coords[0] && (int)(len + 2 + strlen(st->coords)) < width - 1)
        snprintf(line + len, sizeof line - len, "  %s", st->coords);
    ui_text(y + 1, 1, width - 1, 0, "%s", line);
    if (st->error[0] && strcmp(st->status, "queued") && strcmp(st->status, "running"))
        ui_text(y + 1, 1, width - 1, ui_attr(ctx, UI_PAIR_BAD), "%-*s", width, st->error);
}

static void draw_legend(RunState *st, UiContext *ctx, int y, int width)
{
    char line[160];
    /* the keys in brackets from 100 columns on (the footer lists them too) */
    if (width >= 100)
        snprintf(line, sizeof line, "x: %s (x)  y: %s (l)  smoothing %.2f (+/-)   ", XAXIS_NAMES[st->xaxis],
                 st->log_y ? "log" : "linear", SMOOTHING[st->smoothing]);
    else
        snprintf(line, sizeof line, "x: %s  y: %s  smooth %.2f   ", XAXIS_NAMES[st->xaxis],
                 st->log_y ? "log" : "linear", SMOOTHING[st->smoothing]);
    ui_text(y, 1, width - 1, ui_attr(ctx, UI_PAIR_DIM), "%s", line);
    int x = 1 + (int)strlen(line);
    char unigram[32];
    snprintf(unigram, sizeof unigram, "unigram %.2f", st->facts.unigram_nats);
    const char *names[4] = {"raw", "smoothed", "valid", unigram};
    const char *marks_utf8[4] = {"⠂", "⠒", "⣿", plot_fill_text(PLOT_FILL_RULE, 0)};
    const char *marks_ascii[4] = {".", "-", "o", plot_fill_text(PLOT_FILL_RULE, 1)};
    int n = isfinite(st->facts.unigram_nats) ? 4 : 3;
    for (int k = 0; k < n && x < width; k++) {
        /* the valid marker is its glyph without colours (ui_plot) */
        int glyph = !ctx->utf8 || (k == 2 && !ctx->colors);
        int attr = k == 3 ? ui_attr(ctx, UI_PAIR_DIM) : ui_attr(ctx, UI_PAIR_SERIES0 + k) | (int)A_BOLD;
        ui_text(y, x, width - x, attr, "%s", glyph ? marks_ascii[k] : marks_utf8[k]);
        ui_text(y, x + 2, width - x - 2, 0, "%s", names[k]);
        x += 2 + (int)strlen(names[k]) + 2;
    }
}

static void draw_curve(RunState *st, UiContext *ctx, int y, int x, int height, int width)
{
    if (st->n == 0) {
        ui_text(y + height / 2, x + 2, width - 2, ui_attr(ctx, UI_PAIR_DIM), "%s",
                !strcmp(st->status, "queued") ? "queued: the curve starts when a worker takes the job"
                                              : "no training steps stored yet");
        return;
    }
    /* the unigram level (ui_plot draws it dim), under the curves */
    double unigram[1] = {st->facts.unigram_nats};
    PlotSeries series[4] = {
        {st->x[st->xaxis], st->raw, st->n, PLOT_DOTS, 0, 0},
        {st->x[st->xaxis], st->smooth, st->n, PLOT_LINE, 0, 0},
        {st->valid_x[st->xaxis], st->valid_y, st->n_valid, PLOT_MARKERS, 'o', 0},
        {NULL, unigram, isfinite(unigram[0]) ? 1 : 0, PLOT_HLINE, 0, 0},
    };
    ui_plot(ctx, y, x, height, width, series, 4, st->log_y);
}

/* Config, evaluations and checkpoints in a column of the given size;
   returns the rows used. */
static int draw_config(RunState *st, UiContext *ctx, int y, int x, int height, int width)
{
    if (height <= 0) return 0;
    ui_text(y, x, width, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "config (changed first)");
    int row = 1;
    for (int i = 0; i < st->n_config && row < height; i++, row++)
        ui_text(y + row, x, width, st->config[i].changed ? 0 : ui_attr(ctx, UI_PAIR_DIM), "%s=%s", st->config[i].key,
                st->config[i].value);
    return row;
}

static int draw_evals(RunState *st, UiContext *ctx, int y, int x, int height, int width)
{
    if (height <= 0) return 0;
    /* mlm runs: the all-positions loss too, in place of accuracy when narrow */
    int has_all = 0;
    for (int i = 0; i < st->n_evals; i++) has_all |= isfinite(st->evals[i].loss_all);
    int with_acc = !has_all || width >= 32;
    int step_w = has_all && width < 26 ? 5 : 6;
    char head[64];
    int len = snprintf(head, sizeof head, "%*s %-5s %6s", step_w, "step", "split", "loss");
    if (has_all) len += snprintf(head + len, sizeof head - len, " %6s", "all");
    if (with_acc) len += snprintf(head + len, sizeof head - len, " %5s", "acc");
    if (!has_all) snprintf(head + len, sizeof head - len, "  (evals)");
    ui_text(y, x, width, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "%s", head);
    int row = 1;
    if (st->n_evals == 0 && row < height) ui_text(y + row++, x, width, ui_attr(ctx, UI_PAIR_DIM), "none yet");
    for (int i = 0; i < st->n_evals && row < height; i++, row++) {
        const EvalLine *e = &st->evals[i];
        char text[64], acc[16];
        if (isfinite(e->accuracy)) snprintf(acc, sizeof acc, "%4.1f%%", 100 * e->accuracy);
        else snprintf(acc, sizeof acc, "-");
        len = snprintf(text, sizeof text, "%*lld %-5s %6.3f", step_w, (long long)e->step, e->split, e->loss);
        if (has_all) {
            if (isfinite(e->loss_all)) len += snprintf(text + len, sizeof text - len, " %6.3f", e->loss_all);
            else len += snprintf(text + len, sizeof text - len, " %6s", "-");
        }
        if (with_acc) snprintf(text + len, sizeof text - len, " %5s", acc);
        ui_text(y + row, x, width, 0, "%s", text);
    }
    return row;
}

static int draw_ckpts(RunState *st, UiContext *ctx, int y, int x, int height, int width)
{
    if (height <= 0) return 0;
    ui_text(y, x, width, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "%6s  %s", "step", "checkpoints");
    int row = 1;
    if (st->n_ckpts == 0 && row < height) ui_text(y + row++, x, width, ui_attr(ctx, UI_PAIR_DIM), "none yet");
    for (int i = 0; i < st->n_ckpts && row < height; i++, row++)
        ui_text(y + row, x, width, 0, "%6lld  %s", (long long)st->ckpts[i].step, st->ckpts[i].path);
    return row;
}

static void run_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    RunState *st = state;
    if (!st) return;
    if (!st->run_id || !st->found) {
        ui_text(top + height / 2, 2, width - 2, ui_attr(ctx, UI_PAIR_DIM), "%s",
                st->run_id ? "this run is not in the store (any more)"
                           : "no runs yet: the Runs screen (1) queues the demo with d");
        return;
    }
    draw_header(st, ctx, top, width);
    if (height < 6) return;
    draw_legend(st, ctx, top + 2, width);
    int y = top + 3, rest = height - 3;
    if (width >= WIDE) {
        int plot_w = width - SIDE_WIDTH - 2, side_x = plot_w + 2;
        draw_curve(st, ctx, y, 0, rest, plot_w);
        int evals_h = MB_MIN(st->n_evals + 2, 8), ckpts_h = MB_MIN(st->n_ckpts + 2, 4);
        int config_h = rest - evals_h - ckpts_h;
        int used = draw_config(st, ctx, y, side_x, config_h, SIDE_WIDTH);
        used += draw_evals(st, ctx, y + used, side_x, evals_h, SIDE_WIDTH);
        draw_ckpts(st, ctx, y + used, side_x, rest - used, SIDE_WIDTH);
    } else {
        int panel_h = rest >= 18 ? MB_MIN(10, rest / 3) : MB_MIN(6, rest / 3);
        int plot_h = rest - panel_h;
        draw_curve(st, ctx, y, 0, plot_h, width);
        int col = width / 3;
        int py = y + plot_h;
        draw_config(st, ctx, py, 1, panel_h, col - 2);
        draw_evals(st, ctx, py, col, panel_h, col - 1);
        draw_ckpts(st, ctx, py, 2 * col, panel_h, width - 2 * col);
    }
}

static int run_key(void *state, UiContext *ctx, int ch)
{
    RunState *st = state;
    if (!st) return 0;
    switch (ch) {
    case 'x':
        st->xaxis = (XAxis)((st->xaxis + 1) % N_XAXES);
        return 1;
    case 'l':
        st->log_y = !st->log_y;
        return 1;
    case '+': case '=':
        if (st->smoothing + 1 < N_SMOOTHING) st->smoothing++;
        resmooth(st);
        return 1;
    case '-': case '_':
        if (st->smoothing > 0) st->smoothing--;
        resmooth(st);
        return 1;
    case 'p': case 'r': case 'X':
        if (st->run_id && st->found) ui_control_run(ctx, st->run_id, st->arch, run_status_parse(st->status), ch == 'X' ? 'x' : ch);
        return 1;
    case 'g':
        ui_show_screen(ctx, &ui_screen_generate);
        ctx->run_id = st->run_id;
        return 1;
    default:
        return 0;
    }
}

const UiScreen ui_screen_run = {
    "Run",
    "x axis  l log  +/- smooth  p/r/X job  g generate",
    "x               x axis: steps, tokens, wall seconds\n"
    "l               y axis: log / linear\n"
    "+ / -           more / less smoothing of the train loss (0 .. 0.99)\n"
    "p / r / X       pause / resume / cancel the job\n"
    "g               generate text from this run (Generate screen)\n"
    "                the curve: raw loss (dots), smoothed (line), valid\n"
    "                (markers), the dataset's unigram entropy (dashed:\n"
    "                a model that learned only token frequencies)\n"
    "                \"not learning: unigram level\": the run ended less\n"
    "                than 0.1 nat below it; mlm runs: loss_all, the loss\n"
    "                over every position (header, evals \"all\")\n"
    "                the run shown is the one opened on Runs, else the latest",
    run_create,
    run_destroy,
    run_reload,
    run_draw,
    run_key,
    NULL,
};
