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
 * a long run costs one read once; a run of more than SAMPLE_ABOVE steps
 * is first read as SAMPLE_POINTS points evenly spaced (index seeks), the
 * legend saying "1 in N steps", so a million-step run opens at once.  The smoothing is recomputed here from
 * the raw losses, so its factor can change without touching the store.
 * The header of a running job comes from the scheduler's live progress.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs_read.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "experiments/format.h"
#include "db/organise.h"
#include "ui/organise.h"
#include "ui/figure_key.h"
#include "ui/ui.h"

#define MAX_LIVE 64              /* running jobs read from the scheduler */
#define FETCH_ROWS 50000         /* metric rows read per reload at most */
#define SAMPLE_ABOVE FETCH_ROWS   /* a run of more steps is first read sampled, */
#define SAMPLE_POINTS 2000       /* as this many points */
#define MAX_EVALS 64             /* evaluations listed (the latest) */
#define MAX_CKPTS 16
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
    char path[256];
} CkptLine;

typedef struct {
    RunConfigEntry entry;
    int changed;                 /* differs from the default */
} ConfigLine;

typedef struct {
    int64_t run_id;              /* the run shown (0: none) */
    int found;                   /* the run is in the store */
    int trashed;                 /* not found: it is in the trash */

    /* header, from the store (and the scheduler while it runs): its
       steps_done, total_steps, tokens_seen, run_tokens_per_s and threads
       are overlaid with the live progress */
    RunSummary run;
    double eta;

    /* the curve: one entry per metric row, by step */
    double *x[N_XAXES];          /* step, tokens, wall */
    double *raw, *smooth;
    int n, cap;
    int64_t last_step;
    int64_t sampled_every;       /* steps between the points first read (0: every step) */
    double ema;                  /* the running average behind smooth[n-1] */
    double ema_count;            /* the steps folded into it (in points when sampled) */
    double ema_step;             /* the step of the last loss folded in */

    /* valid losses (the markers) and the tables */
    double *valid_x[N_XAXES], *valid_y;
    int n_valid, cap_valid;
    RunEval evals[MAX_EVALS];
    int n_evals;
    CkptLine ckpts[MAX_CKPTS];
    int n_ckpts;
    ConfigLine config[MAX_CONFIG];
    int n_config;
    int tables_loaded;           /* config/evals/checkpoints read since the run last ran */

    XAxis xaxis;
    int log_y;
    int smoothing;               /* index into SMOOTHING */
    UiOrganise org;              /* a tag, note or name being typed (ui/organise.h) */
} RunState;

/* ---- helpers ------------------------------------------------------------ */

/* ---- the curve ---------------------------------------------------------- */

static void clear_run(RunState *st)
{
    st->n = st->n_valid = st->n_evals = st->n_ckpts = st->n_config = 0;
    st->last_step = 0;
    st->sampled_every = 0;
    st->ema = 0;
    st->ema_count = 0;
    st->ema_step = 0;
    st->tables_loaded = 0;
    memset(&st->run, 0, sizeof st->run);
    st->found = 0;
}

/* Folds raw[i] into the running average: Adam-style bias correction, so the
   first points are not pulled towards 0; a missing loss keeps the last value.
   The factor applies per step, as the trainer's does: a row standing for g
   steps (metrics_every: their mean) decays the average by f^g.  A run
   first read sampled decays it per sampled point (its points are single
   steps, far apart). */
static void smooth_point(RunState *st, int i)
{
    double f = SMOOTHING[st->smoothing];
    if (!isfinite(st->raw[i])) {
        st->smooth[i] = i > 0 ? st->smooth[i - 1] : NAN;
        return;
    }
    double unit = st->sampled_every > 1 ? (double)st->sampled_every : 1.0;
    double g = (st->x[X_STEPS][i] - st->ema_step) / unit;
    if (!(g > 0)) g = 1;
    double decay = g == 1 ? f : pow(f, g);
    st->ema = decay * st->ema + (1 - decay) * st->raw[i];
    st->ema_count += g;
    st->ema_step = st->x[X_STEPS][i];
    double correction = 1 - pow(f, st->ema_count);
    st->smooth[i] = correction > 0 ? st->ema / correction : st->raw[i];
}

static void resmooth(RunState *st)
{
    st->ema = 0;
    st->ema_count = 0;
    st->ema_step = 0;
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

/* Appends the metric rows past the last step held (FETCH_ROWS at most). */
static int fetch_metrics(RunState *st, Store *store, char *err)
{
    RunCurvePoint *rows;
    int n;
    int sample = st->last_step == 0 && st->run.steps_done > SAMPLE_ABOVE;
    if (sample ? runs_read_curve_sampled(store, st->run_id, RUN_CURVE_TRAIN_RAW, 0, SAMPLE_POINTS, &rows, &n, err)
               : runs_read_curve(store, st->run_id, RUN_CURVE_TRAIN_RAW, st->last_step, FETCH_ROWS, &rows, &n, err))
        return -1;
    if (sample && n > 1) st->sampled_every = (rows[n - 1].step - rows[0].step) / (n - 1);
    double **arrays[] = {&st->x[X_STEPS], &st->x[X_TOKENS], &st->x[X_WALL], &st->raw, &st->smooth};
    if (grow(arrays, 5, &st->cap, st->n + n)) {
        free(rows);
        return err_set(err, "out of memory for the curve");
    }
    for (int k = 0; k < n; k++) {
        int i = st->n++;
        st->last_step = rows[k].step;
        st->x[X_STEPS][i] = (double)rows[k].step;
        st->x[X_TOKENS][i] = rows[k].tokens;
        st->x[X_WALL][i] = rows[k].wall;
        st->raw[i] = rows[k].value;
        smooth_point(st, i);
    }
    free(rows);
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
        const RunEval *e = &st->evals[k];
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

/* The config as key = value lines, the keys that differ from the defaults
   first (in the config's order within each group); keys that change
   nothing of this run left out. */
static void order_config(RunState *st, const RunConfigEntry *entries, int n)
{
    st->n_config = 0;
    Config defaults, run;
    config_defaults(&defaults);
    ui_config_of(entries, n, &run);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n && st->n_config < MAX_CONFIG; i++) {
            /* not another architecture's keys, nor a budget it does not use */
            if (!entries[i].scalar || !config_key_applies(&run, entries[i].key)) continue;
            char def[96];
            int changed = config_get(&defaults, entries[i].key, def, sizeof def) != 0 ||
                          strcmp(def, entries[i].value) != 0;
            if (changed != (pass == 0)) continue;
            st->config[st->n_config++] = (ConfigLine){entries[i], changed};
        }
}

/* Config, evaluations (the latest) and checkpoints (the newest). */
static int load_tables(RunState *st, Store *store, char *err)
{
    RunConfigEntry *entries = NULL;
    RunEval *evals = NULL;
    RunCheckpoint *ckpts = NULL;
    int n_entries = 0, n_evals = 0, n_ckpts = 0, rc = -1;
    st->n_evals = st->n_ckpts = 0;
    if (runs_read_config(store, st->run_id, &entries, &n_entries, err) ||
        runs_read_evals(store, st->run_id, 1, MAX_EVALS, &evals, &n_evals, err) ||
        runs_read_checkpoints(store, st->run_id, 1, MAX_CKPTS, &ckpts, &n_ckpts, err))
        goto done;
    order_config(st, entries, n_entries);
    for (int i = 0; i < n_evals && i < MAX_EVALS; i++) st->evals[st->n_evals++] = evals[i];
    for (int i = 0; i < n_ckpts && i < MAX_CKPTS; i++) {
        CkptLine *c = &st->ckpts[st->n_ckpts++];
        c->step = ckpts[i].step;
        const char *slash = strrchr(ckpts[i].path, '/');
        ui_copy_text(c->path, sizeof c->path, slash ? slash + 1 : ckpts[i].path);
    }
    rc = 0;
done:
    free(entries);
    free(evals);
    free(ckpts);
    return rc;
}

static void load(RunState *st, UiContext *ctx)
{
    char err[ERR_LEN];
    RunStatus was = st->found ? st->run.status : RUN_STATUS_COUNT;
    if (runs_read_one(ctx->store, st->run_id, &st->run, &st->found, err)) {
        ui_say(ctx, "run %lld: %s", (long long)st->run_id, err);
        return;
    }
    if (!st->found) {
        if (st->run_id && store_run_trashed(ctx->store, st->run_id, &st->trashed, err)) st->trashed = 0;
        return;
    }
    st->eta = NAN;

    int before = st->n;
    if (fetch_metrics(st, ctx->store, err)) ui_say(ctx, "run %lld: %s", (long long)st->run_id, err);

    /* the config, evaluations and checkpoints change only while the run trains */
    int live = st->run.status == RUN_RUNNING;
    if (!st->tables_loaded || live || was != st->run.status || st->n != before) {
        if (load_tables(st, ctx->store, err)) ui_say(ctx, "run %lld: %s", (long long)st->run_id, err);
        build_valid(st);
        st->tables_loaded = !live;
    }

    if (live && ctx->scheduler) {
        JobProgress progress[MAX_LIVE];
        int n = scheduler_progress(ctx->scheduler, progress, MAX_LIVE);
        for (int k = 0; k < n; k++) {
            const JobProgress *p = &progress[k];
            if (p->run_id != st->run_id || p->status != RUN_RUNNING) continue;
            if (p->step >= st->run.steps_done) {
                st->run.steps_done = p->step;
                st->run.tokens_seen = p->tokens;
            }
            if (p->total_steps > 0) st->run.total_steps = p->total_steps;
            if (p->tokens_per_s > 0) st->run.run_tokens_per_s = p->tokens_per_s;
            if (p->threads > 0) st->run.threads = p->threads;
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
    free(st);
}

static void run_reload(void *state, UiContext *ctx)
{
    RunState *st = state;
    if (!st) return;
    int64_t want = ctx->run_id;
    char err[ERR_LEN];
    if (want == 0 && runs_read_latest_id(ctx->store, &want, err))
        ui_say(ctx, "run: %s", err);
    if (want != st->run_id) {
        clear_run(st);
        st->run_id = want;
    }
    if (st->run_id) load(st, ctx);
}

/* Two lines, or more when a failed run's error needs them: the whole error
   is wrapped over up to max_error_rows lines in place of the second line.
   Returns the lines used. */
static int draw_header(RunState *st, UiContext *ctx, int y, int width, int max_error_rows)
{
    const RunSummary *r = &st->run;
    const char *status = run_status_name(r->status);
    char steps[64], rate[24], eta[24], params[24], nonemb[24], tokens[24], wall[24];
    if (r->total_steps > 0)
        snprintf(steps, sizeof steps, "step %lld/%lld", (long long)r->steps_done, (long long)r->total_steps);
    else snprintf(steps, sizeof steps, "step %lld", (long long)r->steps_done);
    fmt_rate(r->run_tokens_per_s, rate, sizeof rate);
    fmt_duration(st->eta, eta, sizeof eta);
    fmt_short((double)r->n_params, params, sizeof params);
    fmt_short((double)r->n_params_nonembedding, nonemb, sizeof nonemb);
    fmt_short((double)r->tokens_seen, tokens, sizeof tokens);
    fmt_duration(r->wall_seconds, wall, sizeof wall);

    char line[512];
    int x = 1;
    snprintf(line, sizeof line, "run %lld%s%s%s  ", (long long)st->run_id, r->name[0] ? " " : "", r->name,
             r->starred ? " *" : "");
    ui_text(y, x, width - x, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "%s", line);
    x += (int)strlen(line);
    ui_text(y, x, width - x, ui_attr(ctx, ui_status_pair(r->status)) | A_BOLD, "%s", status);
    x += (int)strlen(status) + 2;
    if (r->not_learning) {
        static const char FLAG[] = "not learning: unigram level";
        ui_text(y, x, width - x, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD, "%s", FLAG);
        x += (int)sizeof FLAG + 1;
    }
    snprintf(line, sizeof line, "%s", steps);
    /* after a restart the job replays from its checkpoint: say from where */
    if (r->resumed_step >= 0 && r->status == RUN_RUNNING)
        snprintf(line + strlen(line), sizeof line - strlen(line), " (resumed from %lld)", (long long)r->resumed_step);
    if (r->status == RUN_RUNNING) snprintf(line + strlen(line), sizeof line - strlen(line), "  ETA %s", eta);
    snprintf(line + strlen(line), sizeof line - strlen(line), "  %s %s %s", r->arch, r->task, r->data);
    ui_text(y, x, width - x, A_BOLD, "%s", line);
    x += (int)strlen(line);
    if (r->sweep[0] && x + 8 + (int)strlen(r->sweep) <= width) {
        ui_text(y, x, width - x, 0, "  sweep %s", r->sweep);
        x += 8 + (int)strlen(r->sweep);
    }
    if (r->tags[0] && x + 7 + (int)strlen(r->tags) <= width) ui_text(y, x, width - x, 0, "  tags %s", r->tags);

    /* mlm: the loss over every position (the PairConnect paper's scale);
       to make room for it the parameters lose their detail */
    char all[64] = "";
    if (isfinite(r->test_loss_all) || isfinite(r->valid_loss_all)) {
        snprintf(all, sizeof all, "  loss_all");
        if (isfinite(r->valid_loss_all))
            snprintf(all + strlen(all), sizeof all - strlen(all), " valid %.3f", r->valid_loss_all);
        if (isfinite(r->test_loss_all))
            snprintf(all + strlen(all), sizeof all - strlen(all), " test %.3f", r->test_loss_all);
    }
    /* data that scores only answers (builtin:mqar, copy, selective-copy):
       the answer accuracy first, its test loss beside */
    char answer[96] = "", acc[32], loss[32];
    if (data_scores_answers(r->data))
        snprintf(answer, sizeof answer, "answer accuracy %s (test loss %s)  ", fmt_real(r->test_accuracy, 3, acc, sizeof acc),
                 fmt_real(r->test_loss, 3, loss, sizeof loss));
    size_t len = 0;
    for (int brief = 0; brief < 3; brief++) {
        len = (size_t)snprintf(line, sizeof line, "%s%s tok/s  ", answer, rate);
        if (r->n_params > 0 && brief == 0)
            len += (size_t)snprintf(line + len, sizeof line - len, "params %s (%s non-emb)  threads %d  tokens %s  wall %s",
                                    params, nonemb, (int)r->threads, tokens, wall);
        else if (r->n_params > 0 && brief == 1)
            len += (size_t)snprintf(line + len, sizeof line - len, "params %s  tokens %s  wall %s", params, tokens, wall);
        else if (r->n_params > 0)
            len += (size_t)snprintf(line + len, sizeof line - len, "params %s", params);
        else
            len += (size_t)snprintf(line + len, sizeof line - len, "params - (counted when the job starts)");
        if ((int)(len + strlen(all)) <= width - 1) break;
    }
    if ((int)(len + strlen(all)) <= width - 1) len += (size_t)snprintf(line + len, sizeof line - len, "%s", all);
    /* the sweep's coordinates only when they fit whole (the config panel
       lists the same keys first) */
    if (r->coords[0] && (int)(len + 2 + strlen(r->coords)) < width - 1)
        len += (size_t)snprintf(line + len, sizeof line - len, "  %s", r->coords);
    if (r->note[0] && (int)(len + 8) < width - 1) snprintf(line + len, sizeof line - len, "  note: %s", r->note);
    /* an error in red; a done run's early stop ("solved at step ...") plain */
    if (r->error[0] && r->status != RUN_QUEUED && r->status != RUN_RUNNING)
        return 1 + ui_wrap(y + 1, 1, width - 2, max_error_rows < 1 ? 1 : max_error_rows,
                           run_status_error(r->status) ? ui_attr(ctx, UI_PAIR_BAD) : 0, r->error);
    ui_text(y + 1, 1, width - 1, 0, "%s", line);
    return 2;
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
    if (st->sampled_every > 1) {
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, "1 in %lld steps   ", (long long)st->sampled_every);
    }
    ui_text(y, 1, width - 1, ui_attr(ctx, UI_PAIR_DIM), "%s", line);
    int x = 1 + (int)strlen(line);
    char unigram[32];
    snprintf(unigram, sizeof unigram, "unigram %.2f", st->run.unigram_nats);
    const char *names[4] = {"raw", "smoothed", "valid", unigram};
    const char *marks_utf8[4] = {"⠂", "⠒", "⣿", plot_fill_text(PLOT_FILL_RULE, 0)};
    const char *marks_ascii[4] = {".", "*", "o", plot_fill_text(PLOT_FILL_RULE, 1)};
    int n = isfinite(st->run.unigram_nats) ? 4 : 3;
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
                st->run.status == RUN_QUEUED ? "queued: the curve starts when a worker takes the job"
                                              : "no training steps stored yet");
        return;
    }
    /* the unigram level (ui_plot draws it dim), under the curves */
    double unigram[1] = {st->run.unigram_nats};
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
        ui_text(y + row, x, width, st->config[i].changed ? 0 : ui_attr(ctx, UI_PAIR_DIM), "%s=%s",
                st->config[i].entry.key, st->config[i].entry.value);
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
        const RunEval *e = &st->evals[i];
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
        char line[ERR_LEN];
        if (!st->run_id) snprintf(line, sizeof line, "no runs yet: the Runs screen (1) queues the demo with d");
        else if (st->trashed) store_err_trashed(st->run_id, line);
        else snprintf(line, sizeof line, "run %lld is not in the store (any more)", (long long)st->run_id);
        ui_text(top + height / 2, 2, width - 2, ui_attr(ctx, UI_PAIR_DIM), "%s", line);
        return;
    }
    int header = draw_header(st, ctx, top, width, MB_MIN(8, height - 6));
    if (height < 6) return;
    draw_legend(st, ctx, top + header, width);
    if (ui_organise_typing(&st->org)) ui_organise_draw(&st->org, ctx, top + header, 0, width);
    int y = top + header + 1, rest = height - header - 1;
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
    /* D, u, t, n, R, * (ui/organise.h) */
    int deleted = 0, shown = st->run_id && st->found;
    if (ui_organise_key(&st->org, ctx, ch, &st->run_id, shown, shown ? &st->run : NULL, &deleted)) {
        if (deleted) {
            ctx->run_id = 0;
            ui_show_screen(ctx, &ui_screen_runs);
        }
        run_reload(st, ctx);
        return 1;
    }
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
        if (st->run_id && st->found) ui_control_run(ctx, st->run_id, st->run.arch, st->run.status, ch == 'X' ? 'x' : ch);
        return 1;
    case 'g':
        ui_show_screen(ctx, &ui_screen_generate);
        ctx->run_id = st->run_id;
        return 1;
    case UI_FIGURE_KEY: {
        Figure fig;
        char err[ERR_LEN], name[32];
        snprintf(name, sizeof name, "run%lld", (long long)st->run_id);
        ui_figure_save(ctx, &fig, figure_run(ctx->store, st->run_id, (CurveAxis)st->xaxis, st->log_y, &fig, err), err, name);
        return 1;
    }
    default:
        return 0;
    }
}

static int run_typing(void *state)
{
    RunState *st = state;
    return st && ui_organise_typing(&st->org);
}

const UiScreen ui_screen_run = {
    "Run",
    "x axis  l log  +/- smooth  p/r/X job  g generate",
    "x               x axis: steps, tokens, wall seconds\n"
    "l               y axis: log / linear\n"
    "+ / -           more / less smoothing of the train loss (0 .. 0.99)\n"
    "p / r / X       pause / resume / cancel the job\n"
    "g               generate text from this run (Generate screen)\n"
    "P               write this figure as SVG beside the store (mixbench plot)\n"
    "D / Delete      delete the run to the trash (after a question; back to\n"
    "                Runs); u undoes the last delete\n"
    "t / n / R       tag (-word untags) / note / rename the run\n"
    "N / M           rename the run's sweep / its note\n"
    "*               star / unstar: a starred run is protected from D\n"
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
    run_typing,
    NULL,
};
