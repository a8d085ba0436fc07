/*
 * screen_grid.c — the Grid screen: one sweep as a heatmap of a final
 * number (test loss, valid loss, test perplexity, test accuracy, train loss
 * or tokens/s) over two of its axes.  Each cell prints its value in 4
 * significant digits and is shaded by it (a colour, or on a monochrome
 * terminal a density glyph of ' .:-=+*#%@'); the best cell is highlighted;
 * a point still queued or running shows '…' and its status; where the
 * store's paper_figures table holds the paper's figure for that preset,
 * point and metric, it is printed beside ours.  The sweep's other axes are
 * fixed at one value each (f steps through their values) or averaged.
 *
 * Not for: curves (Compare, AE/Bidir) or queueing (New sweep).  A refresh
 * reads the sweep list and the jobs of the sweep shown (db/sweeps_read.h);
 * its axes and paper figures (db/results.h) are read once per sweep.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <ctype.h>
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "engine/text.h"
#include "experiments/adaptive.h"
#include "experiments/report.h"
#include "experiments/stats.h"
#include "experiments/sweep.h"
#include "ui/claims_view.h"
#include "ui/draw/heatmap.h"
#include "ui/ui.h"

#define GRID_MAX_AXES 12
#define GRID_MAX_VALUES 64
#define VALUE_LEN 48
#define MAX_SWEEPS 256
#define MAX_COMBOS 100000

/* The numbers m cycles through, in that order. */
typedef enum {
    M_TEST_LOSS, M_VALID_LOSS, M_TEST_PPL, M_TEST_ACC, M_TRAIN_LOSS, M_SPEED, M_TEST_LOSS_ALL, M_VALID_LOSS_ALL,
    M_SAMPLES, N_METRICS
} Metric;
static const struct {
    const char *label;
    const char *paper;           /* paper_figures.metric of the same measure (NULL: none) */
    int higher_better;
} METRICS[N_METRICS] = {
    [M_TEST_LOSS] = {"test loss", "test_loss", 0},
    [M_VALID_LOSS] = {"valid loss", "valid_loss", 0},
    [M_TEST_PPL] = {"test perplexity", "test_perplexity", 0},
    [M_TEST_ACC] = {"test accuracy", "test_accuracy", 1},
    [M_TRAIN_LOSS] = {"train loss", "train_loss", 0},
    [M_SPEED] = {"tokens/s", NULL, 1},
    [M_TEST_LOSS_ALL] = {"test loss_all", "test_loss", 0},
    [M_VALID_LOSS_ALL] = {"valid loss_all", "valid_loss", 0},
    [M_SAMPLES] = {"samples/s", "samples_per_s", 1},
};

/* The presets whose paper reports another measure than test loss: the Grid
   opens them on it.  The PairConnect loss presets train with mlm_loss=all
   and their paper's losses are over every position (shared/papers, S1), so
   its test and train losses sit beside our loss_all, not our masked loss. */
static const struct {
    const char *preset;
    Metric metric;
} PAPER_METRIC[] = {
    {"pairconnect-grid", M_TEST_LOSS_ALL},
    {"pairconnect-hash", M_TEST_LOSS_ALL},
    {"pairconnect-speed", M_SAMPLES},
    {"prefix-models", M_TEST_PPL},
};

static Metric preset_metric(const char *preset)
{
    for (size_t i = 0; i < sizeof PAPER_METRIC / sizeof PAPER_METRIC[0]; i++)
        if (!strcmp(PAPER_METRIC[i].preset, preset)) return PAPER_METRIC[i].metric;
    return M_TEST_LOSS;
}

/* The paper_figures metric shown beside ours for metric m of preset (NULL:
   none): a loss on the paper's all-positions scale only beside loss_all. */
static const char *paper_metric(const char *preset, Metric m)
{
    int all_scale = preset_metric(preset) == M_TEST_LOSS_ALL;
    if (m == M_TEST_LOSS || m == M_VALID_LOSS || m == M_TRAIN_LOSS) return all_scale ? NULL : METRICS[m].paper;
    if (m == M_TEST_LOSS_ALL || m == M_VALID_LOSS_ALL) return all_scale ? METRICS[m].paper : NULL;
    return METRICS[m].paper;
}

/* Metric m of a job (NAN: not known). */
static double job_value(const SweepJobRow *j, Metric m)
{
    switch (m) {
    case M_TEST_LOSS: return j->test_loss;
    case M_VALID_LOSS: return j->valid_loss;
    case M_TEST_PPL: return j->test_perplexity;
    case M_TEST_ACC: return j->test_accuracy;
    case M_TRAIN_LOSS: return j->train_loss;
    case M_SPEED: return j->tokens_per_s;
    case M_TEST_LOSS_ALL: return j->test_loss_all;
    case M_VALID_LOSS_ALL: return j->valid_loss_all;
    case M_SAMPLES: return j->infer_samples_per_s;
    case N_METRICS: break;
    }
    return NAN;
}

typedef struct {
    int64_t id;
    char name[64];
} GridSweep;

typedef struct {
    SweepJobRow job;
    int coord[GRID_MAX_AXES];    /* index into the axis's values, -1: absent */
} GridRun;

/* What one cell of the table holds. */
typedef struct {
    SeedStats stats;             /* over the finished runs with a value */
    int n_value;                 /* finished runs with a value */
    int n_runs;
    int n_pending;               /* queued, running, paused, interrupted */
    char pending[24];            /* "45%" of a running one, else its status */
    char stopped[16];            /* failed / diverged / cancelled */
    double paper;                /* NAN: none */
} Cell;

typedef struct {
    GridSweep sweeps[MAX_SWEEPS];
    int n_sweeps;
    int current;                 /* index into sweeps, -1: none */
    int64_t loaded_sweep;        /* the sweep runs/axes/paper belong to */

    int n_axes;
    char axis[GRID_MAX_AXES][64];
    char values[GRID_MAX_AXES][GRID_MAX_VALUES][VALUE_LEN];
    int n_values[GRID_MAX_AXES];

    GridRun *runs;
    int n_runs;
    FigureRow *paper;            /* the preset's figures with a value */
    int n_paper;

    int row_axis, col_axis;      /* -1: a single row / column */
    int fixed;                   /* 0..n_combos-1: other axes fixed at a combination; n_combos: averaged */
    Metric metric;
    ClaimsView claims;           /* the verdicts of the sweep's preset */

    /* R: the reproduction report of the sweep's preset in place of the table */
    int report_on;
    StrBuf report;               /* report_build's text */
    int64_t report_sweep;        /* built for this sweep ... */
    int report_done;             /* ... with this many finished runs */
    int report_scroll, report_page;
    char error[ERR_LEN];
} GridState;

/* ---- helpers ------------------------------------------------------------ */

/* The axes other than the row and column ones. */
static int other_axes(const GridState *st, int *others)
{
    int n = 0;
    for (int a = 0; a < st->n_axes; a++)
        if (a != st->row_axis && a != st->col_axis) others[n++] = a;
    return n;
}

/* Combinations of the other axes' values (1 when there are none). */
static int combo_count(const GridState *st)
{
    int others[GRID_MAX_AXES], n = other_axes(st, others);
    long count = 1;
    for (int i = 0; i < n; i++) {
        count *= st->n_values[others[i]] > 0 ? st->n_values[others[i]] : 1;
        if (count > MAX_COMBOS) return MAX_COMBOS;
    }
    return (int)count;
}

static int averaging(const GridState *st)
{
    int others[GRID_MAX_AXES];
    return other_axes(st, others) > 0 && st->fixed >= combo_count(st);
}

/* The value index each other axis is fixed at (the first varies slowest). */
static void fixed_values(const GridState *st, int *fixed_at)
{
    int others[GRID_MAX_AXES], n = other_axes(st, others);
    int rest = st->fixed;
    for (int a = 0; a < GRID_MAX_AXES; a++) fixed_at[a] = -1;
    for (int i = n - 1; i >= 0; i--) {
        int count = st->n_values[others[i]] > 0 ? st->n_values[others[i]] : 1;
        fixed_at[others[i]] = rest % count;
        rest /= count;
    }
}

/* Fixed at the first values, except that a lone seed axis (repeats) is
   averaged: repeats are there to be averaged. */
static void default_fixed(GridState *st)
{
    int others[GRID_MAX_AXES], n = other_axes(st, others);
    int only_seed = n > 0;
    for (int i = 0; i < n; i++) only_seed &= !strcmp(st->axis[others[i]], "seed");
    st->fixed = only_seed ? combo_count(st) : 0;
}

/* The first two axes but seed on the table (seeds are averaged: mean +-
   standard error per cell), one axis as a single row. */
static void default_axes(GridState *st)
{
    int table[2], n = 0;
    for (int a = 0; a < st->n_axes && n < 2; a++)
        if (strcmp(st->axis[a], "seed")) table[n++] = a;
    if (n == 0 && st->n_axes > 0) table[n++] = 0;
    st->row_axis = n == 2 ? table[0] : -1;
    st->col_axis = n == 2 ? table[1] : n == 1 ? table[0] : -1;
    default_fixed(st);
}

/* ---- loading ------------------------------------------------------------ */

/* The index of value text in axis a, added when new; -1 when full. */
static int value_index(GridState *st, int a, const char *text)
{
    for (int i = 0; i < st->n_values[a]; i++)
        if (!strcmp(st->values[a][i], text)) return i;
    if (st->n_values[a] == GRID_MAX_VALUES) return -1;
    ui_copy_text(st->values[a][st->n_values[a]], VALUE_LEN, text);
    return st->n_values[a]++;
}

/* The run's value index on each axis (-1: the job has no such coordinate). */
static void set_coords(GridState *st, GridRun *r)
{
    for (int a = 0; a < GRID_MAX_AXES; a++) r->coord[a] = -1;
    for (int a = 0; a < st->n_axes; a++) {
        const char *v = coord_value(r->job.coords, r->job.n_coords, st->axis[a]);
        char buf[VALUE_LEN];
        if (!v) continue;
        ui_copy_text(buf, sizeof buf, v);
        r->coord[a] = value_index(st, a, buf);
    }
}

/* The axes of the sweep shown, its paper figures; resets the view. */
static int load_sweep(GridState *st, UiContext *ctx, const GridSweep *s, char *err)
{
    st->n_axes = 0;
    memset(st->n_values, 0, sizeof st->n_values);
    st->n_runs = 0;
    free(st->paper);
    st->paper = NULL;
    st->n_paper = 0;
    SweepAxes axes;
    if (sweeps_read_axes(ctx->store, s->id, &axes, err)) return -1;
    for (int i = 0; i < axes.n && st->n_axes < GRID_MAX_AXES; i++)
        ui_copy_text(st->axis[st->n_axes++], sizeof st->axis[0], axes.key[i]);
    char preset[64];
    claims_view_preset(s->name, preset, sizeof preset);   /* NAME@paper: NAME's figures */
    FigureRow *figs;
    int n_figs;
    if (results_paper_figures(ctx->store, preset, &figs, &n_figs, err)) return -1;
    for (int p = 0; p < n_figs; p++)   /* a figure without a value says nothing */
        if (!isnan(figs[p].value)) figs[st->n_paper++] = figs[p];
    st->paper = figs;
    /* a store queued by an older mixbench lacks the setting: the preset's
       own figure of that metric and value names it */
    const Preset *pr = preset_find(preset);
    for (int p = 0; p < st->n_paper && pr; p++) {
        FigureRow *f = &st->paper[p];
        for (int k = 0; k < pr->n_paper && !f->setting[0]; k++)
            if (pr->paper[k].setting && !strcmp(pr->paper[k].metric, f->metric) && fabs(pr->paper[k].value - f->value) < 1e-9)
                ui_copy_text(f->setting, sizeof f->setting, pr->paper[k].setting);
        const char *text = f->setting[0] && !f->setting_text[0] ? paper_setting_text(f->setting) : NULL;
        if (text) ui_copy_text(f->setting_text, sizeof f->setting_text, text);
    }
    st->loaded_sweep = s->id;
    return 0;
}

/* Orders each axis whose values are all numbers by value (hash_size 100
   500 1000, not in the order the jobs came), renumbering the runs'
   coordinates; other axes keep the sweep's order. */
static void sort_numeric_axes(GridState *st)
{
    for (int a = 0; a < st->n_axes; a++) {
        int n = st->n_values[a], numeric = n > 1;
        double key[GRID_MAX_VALUES];
        for (int i = 0; i < n && numeric; i++) numeric = text_to_double(st->values[a][i], &key[i]) == 0;
        if (!numeric) continue;
        int order[GRID_MAX_VALUES], moved = 0;
        for (int i = 0; i < n; i++) order[i] = i;
        for (int i = 1; i < n; i++) /* insertion sort of the indices by value */
            for (int j = i; j > 0 && key[order[j]] < key[order[j - 1]]; j--) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        int new_index[GRID_MAX_VALUES];
        for (int i = 0; i < n; i++) {
            new_index[order[i]] = i;
            moved |= order[i] != i;
        }
        if (!moved) continue;
        char sorted[GRID_MAX_VALUES][VALUE_LEN];
        for (int i = 0; i < n; i++) memcpy(sorted[i], st->values[a][order[i]], VALUE_LEN);
        memcpy(st->values[a], sorted, (size_t)n * VALUE_LEN);
        for (int r = 0; r < st->n_runs; r++)
            if (st->runs[r].coord[a] >= 0) st->runs[r].coord[a] = new_index[st->runs[r].coord[a]];
    }
}

/* The sweep's jobs and their places on the axes; an axis keeps the values
   it has seen (in their sorted order) across reloads. */
static int load_runs(GridState *st, UiContext *ctx, char *err)
{
    SweepJobRow *jobs;
    int n_jobs;
    if (sweeps_read_jobs(ctx->store, st->loaded_sweep, &jobs, &n_jobs, err)) return -1;
    GridRun *runs = n_jobs ? malloc((size_t)n_jobs * sizeof *runs) : NULL;
    if (n_jobs && !runs) {
        free(jobs);
        return err_set(err, "grid: out of memory for sweep %lld", (long long)st->loaded_sweep);
    }
    free(st->runs);
    st->runs = runs;
    st->n_runs = n_jobs;
    for (int i = 0; i < n_jobs; i++) {
        runs[i].job = jobs[i];
        set_coords(st, &runs[i]);
    }
    free(jobs);
    sort_numeric_axes(st);
    return 0;
}

/* ---- screen ------------------------------------------------------------- */

static void *grid_create(UiContext *ctx)
{
    (void)ctx;
    GridState *st = calloc(1, sizeof *st);
    if (st) st->current = -1;
    return st;
}

static void grid_destroy(void *state)
{
    GridState *st = state;
    if (!st) return;
    free(st->runs);
    free(st->paper);
    claims_view_free(&st->claims);
    if (st->report.data) sb_free(&st->report);
    free(st);
}

/* The report of preset (report_build reads its newest sweep). */
static void build_report(GridState *st, UiContext *ctx, const char *preset, int64_t sweep_id, int n_done)
{
    if (st->report.data) sb_free(&st->report);
    sb_init(&st->report);
    char err[ERR_LEN];
    const char *presets[1] = {preset};
    if (report_build(ctx->store, presets, 1, 0, &st->report, err)) {
        sb_free(&st->report);
        sb_init(&st->report);
        sb_append(&st->report, err);
    }
    st->report_sweep = sweep_id;
    st->report_done = n_done;
}

static void grid_reload(void *state, UiContext *ctx)
{
    GridState *st = state;
    if (!st) return;
    char err[ERR_LEN];
    st->error[0] = 0;
    st->n_sweeps = 0;
    /* the latest MAX_SWEEPS, oldest first */
    SweepRow *sweeps;
    int n_sweeps;
    if (sweeps_read_latest(ctx->store, NULL, 0, MAX_SWEEPS, &sweeps, &n_sweeps, err)) {
        snprintf(st->error, sizeof st->error, "%s", err);
        return;
    }
    for (int i = 0; i < n_sweeps && st->n_sweeps < MAX_SWEEPS; i++) {
        GridSweep *g = &st->sweeps[st->n_sweeps++];
        g->id = sweeps[i].id;
        ui_copy_text(g->name, sizeof g->name, sweeps[i].name);
    }
    free(sweeps);
    st->current = st->n_sweeps - 1;
    for (int i = 0; i < st->n_sweeps; i++)
        if (st->sweeps[i].id == ctx->sweep_id) st->current = i;
    if (st->current < 0) return;
    const GridSweep *s = &st->sweeps[st->current];
    int fresh = s->id != st->loaded_sweep;
    if (fresh && load_sweep(st, ctx, s, err)) {
        snprintf(st->error, sizeof st->error, "%s", err);
        return;
    }
    if (load_runs(st, ctx, err)) {
        snprintf(st->error, sizeof st->error, "%s", err);
        return;
    }
    char preset[64];
    claims_view_preset(s->name, preset, sizeof preset);
    if (fresh) {
        default_axes(st);
        st->metric = preset_metric(preset);
    }
    if (preset_find(preset)) {
        int n_done = 0;
        for (int i = 0; i < st->n_runs; i++) n_done += st->runs[i].job.status == RUN_DONE;
        claims_view_update(&st->claims, ctx, s->name, s->id, n_done);
        if (st->report_on && (st->report_sweep != s->id || st->report_done != n_done))
            build_report(st, ctx, preset, s->id, n_done);
    } else {
        claims_view_free(&st->claims);
    }
}

/* Does paper figure p belong to the cell (row value r, column value c)
   under the current fixed values?  Keys that are not axes of the sweep do
   not decide; an averaged axis named by the figure does not match. */
static int paper_matches(const GridState *st, const FigureRow *p, int r, int c, const int *fixed_at, int avg)
{
    for (int k = 0; k < p->n_coords; k++) {
        int a = -1;
        for (int i = 0; i < st->n_axes && a < 0; i++)
            if (!strcmp(st->axis[i], p->coords[k].key)) a = i;
        if (a < 0) continue;
        int want = a == st->row_axis ? r : a == st->col_axis ? c : avg ? -1 : fixed_at[a];
        if (want < 0 || !heat_same_value(st->values[a][want], p->coords[k].value)) return 0;
    }
    return 1;
}

/* Fills cells[rows * cols] from the runs: each cell's finished values as
   mean, standard error and min-max (seed_stats), its pending and stopped
   jobs, and the paper's figure. */
static void fill_cells(const GridState *st, const char *preset, Cell *cells, int rows, int cols)
{
    int fixed_at[GRID_MAX_AXES];
    fixed_values(st, fixed_at);
    int avg = averaging(st);
    int *cell_of = malloc((size_t)(st->n_runs ? st->n_runs : 1) * sizeof *cell_of);
    double *values = malloc((size_t)(st->n_runs ? st->n_runs : 1) * sizeof *values);
    for (int i = 0; i < rows * cols; i++) {
        memset(&cells[i], 0, sizeof cells[i]);
        cells[i].stats = seed_stats(NULL, 0);
        cells[i].paper = NAN;
    }
    if (!cell_of || !values) {
        free(cell_of);
        free(values);
        return;
    }
    for (int i = 0; i < st->n_runs; i++) {
        const GridRun *run = &st->runs[i];
        cell_of[i] = -1;
        int r = st->row_axis >= 0 ? run->coord[st->row_axis] : 0;
        int c = st->col_axis >= 0 ? run->coord[st->col_axis] : 0;
        if (r < 0 || c < 0 || r >= rows || c >= cols) continue;
        int in_slice = 1;
        for (int a = 0; a < st->n_axes && !avg; a++)
            if (fixed_at[a] >= 0 && run->coord[a] != fixed_at[a]) in_slice = 0;
        if (!in_slice) continue;
        cell_of[i] = r * cols + c;
        Cell *cell = &cells[r * cols + c];
        cell->n_runs++;
        const SweepJobRow *job = &run->job;
        double v = job_value(job, st->metric);
        if (job->status == RUN_DONE && isfinite(v)) {
            cell->n_value++;
        } else if (!run_status_final(job->status)) {   /* queued, running, paused, interrupted */
            if (cell->n_pending++ == 0 || job->status == RUN_RUNNING) {
                if (job->status == RUN_RUNNING && job->total_steps > 0)
                    snprintf(cell->pending, sizeof cell->pending, "%lld%%",
                             (long long)(100 * job->steps_done / job->total_steps));
                else ui_copy_text(cell->pending, sizeof cell->pending, run_status_name(job->status));
            }
        } else {
            ui_copy_text(cell->stopped, sizeof cell->stopped,
                         job->status != RUN_DONE ? run_status_name(job->status) : "-");
        }
    }
    for (int k = 0; k < rows * cols; k++) {
        int n = 0;
        for (int i = 0; i < st->n_runs; i++) {
            double v = job_value(&st->runs[i].job, st->metric);
            if (cell_of[i] == k && st->runs[i].job.status == RUN_DONE && isfinite(v)) values[n++] = v;
        }
        cells[k].stats = seed_stats(values, n);
    }
    free(cell_of);
    free(values);
    const char *want = paper_metric(preset, st->metric);
    for (int p = 0; p < st->n_paper && want; p++) {
        if (strcmp(st->paper[p].metric, want)) continue;
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++)
                if (isnan(cells[r * cols + c].paper) && paper_matches(st, &st->paper[p], r, c, fixed_at, avg))
                    cells[r * cols + c].paper = st->paper[p].value;
    }
}

static double cell_value(const Cell *c) { return c->n_value ? c->stats.mean : NAN; }

/* "6.371", "6.371±0.002 n3" over several runs (n left out when every cell
   has the same count: show_n 0), " (paper 1.49)" beside when paper_inline
   (else the paper has rows of its own). */
static void cell_text(const Cell *c, UiContext *ctx, int paper_inline, int show_n, char *out, size_t cap)
{
    const char *more = ctx->utf8 ? "…" : "...";
    char value[64], paper[48] = "";
    if (!isnan(c->paper) && paper_inline) {
        char p[32];
        heat_format(c->paper, 4, p, sizeof p);
        snprintf(paper, sizeof paper, " (paper %s)", p);
    }
    if (c->n_value) {
        heat_format(cell_value(c), 4, value, sizeof value);
        if (c->n_value > 1) {
            /* the standard error to the mean's decimals (6.372±0.002) */
            char se[32];
            const char *dot = strchr(value, '.');
            if (dot && strspn(dot + 1, "0123456789") == strlen(dot + 1))
                snprintf(se, sizeof se, "%.*f", (int)strlen(dot + 1), c->stats.se);
            else
                heat_format(c->stats.se, 2, se, sizeof se);
            snprintf(value + strlen(value), sizeof value - strlen(value), "%s%s", ui_pm(ctx), se);
            if (show_n) snprintf(value + strlen(value), sizeof value - strlen(value), " n%d", c->n_value);
        }
        snprintf(out, cap, "%s%s%s", value, c->n_pending ? more : "", paper);
    } else if (c->n_pending) {
        snprintf(out, cap, "%s %s%s", more, c->pending, paper);
    } else if (c->n_runs) {
        snprintf(out, cap, "%s%s", c->stopped, paper);
    } else {
        snprintf(out, cap, "%s", paper[0] ? paper + 1 : "");
    }
}

/* Text right-aligned in width columns, with attributes. */
static void draw_cell(int y, int x, int width, int attr, const char *text)
{
    int pad = width - text_columns(text);
    ui_text(y, x, width, attr, "%*s%s", pad > 0 ? pad : 0, "", text);
}

/* The sizes and the budget of the sweep's runs: the least and most d,
   layers and n_ctx (0: no run says) and the most tokens a run saw. */
typedef struct {
    int64_t lo[3], hi[3];        /* d, layers, n_ctx */
    int64_t tokens;
} OurSizes;

static OurSizes our_sizes(const GridState *st)
{
    OurSizes o = {{0}, {0}, 0};
    for (int i = 0; i < st->n_runs; i++) {
        const SweepJobRow *r = &st->runs[i].job;
        const int64_t size[3] = {r->d, r->layers, r->n_ctx};
        for (int k = 0; k < 3; k++)
            if (size[k] > 0) o.lo[k] = o.lo[k] ? MB_MIN(o.lo[k], size[k]) : size[k], o.hi[k] = MB_MAX(o.hi[k], size[k]);
        o.tokens = MB_MAX(o.tokens, r->tokens_seen);
    }
    return o;
}

/* How the paper's setting (S1..S7) compares with the sweep's runs, by d
   and the layer count where it states them (experiments/presets.c). */
static const char *setting_relation(const GridState *st, const char *setting)
{
    const PaperSetting *ps = paper_setting(setting);
    long pd = ps ? ps->d : 0, pl = ps ? ps->layers : 0;
    OurSizes o = our_sizes(st);
    int64_t d_lo = o.lo[0], d_hi = o.hi[0], l_lo = o.lo[1], l_hi = o.hi[1];
    if ((pd && d_hi && pd > d_hi) || (pl && l_hi && pl > l_hi)) return "larger than ours";
    if ((pd && d_lo && pd < d_lo) || (pl && l_lo && pl < l_lo)) return "smaller than ours";
    if (pd || pl) return "as wide as ours; budget and data differ";
    return "not ours: compare the settings";
}

/* Under the header: where the paper's figures come from and how their
   setting differs from ours ("paper S1 (PairConnect Table 1) larger than
   ours", then the paper's setting and ours, on up to two rows). */
static void draw_settings(GridState *st, UiContext *ctx, const char *preset, int *y, int width)
{
    int dim = ui_attr(ctx, UI_PAIR_DIM);
    const char *want = paper_metric(preset, st->metric);
    int first = -1;
    char line[512];
    size_t len = (size_t)snprintf(line, sizeof line, "(paper X): the paper's figure;");
    for (int p = 0; p < st->n_paper && want; p++) {
        const FigureRow *f = &st->paper[p];
        if (strcmp(f->metric, want)) continue;
        int seen = 0;
        for (int q = 0; q < p && !seen; q++) seen = !strcmp(st->paper[q].metric, want) && !strcmp(st->paper[q].setting, f->setting);
        if (seen) continue;
        if (first < 0) first = p;
        if (len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s %s%s%s, %s", first == p ? "" : ";",
                                    f->setting[0] ? f->setting : "paper", f->note[0] ? " " : "", f->note,
                                    setting_relation(st, f->setting));
    }
    if (first < 0) {
        if (preset_metric(preset) != st->metric)
            ui_text((*y)++, 0, width, dim, "the paper reports no %s for preset %s (its metric: %s; m: next)",
                    METRICS[st->metric].label, preset, METRICS[preset_metric(preset)].label);
        else
            ui_text((*y)++, 0, width, dim, "the paper reports no %s for preset %s (m: another metric)",
                    METRICS[st->metric].label, preset);
        return;
    }
    ui_text((*y)++, 0, width, dim, "%s", line);
    /* ours: the sizes and the budget of the sweep's runs */
    OurSizes o = our_sizes(st);
    char ours[160], range[3][32];
    for (int k = 0; k < 3; k++)
        if (o.lo[k] == o.hi[k]) snprintf(range[k], sizeof range[k], "%d", (int)o.lo[k]);
        else snprintf(range[k], sizeof range[k], "%d-%d", (int)o.lo[k], (int)o.hi[k]);
    snprintf(ours, sizeof ours, "ours: d=%s L=%s n_ctx=%s, up to %lld tokens a run", range[0], range[1], range[2],
             (long long)o.tokens);
    const FigureRow *f = &st->paper[first];
    /* the setting's text to 255 bytes: two rows say no more */
    snprintf(line, sizeof line, "%s | paper %s: %.255s", ours, f->setting[0] ? f->setting : "-",
             f->setting_text[0] ? f->setting_text : "(no text)");
    *y += ui_wrap(*y, 0, width, 2, dim, line);
}

static void draw_header(GridState *st, UiContext *ctx, int *y, int width)
{
    const GridSweep *s = &st->sweeps[st->current];
    int title = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, dim = ui_attr(ctx, UI_PAIR_DIM);
    char name[96];
    snprintf(name, sizeof name, "Grid: sweep %lld %s", (long long)s->id, s->name);
    ui_text(*y, 0, width, title, "%s", name);
    int x = (int)strlen(name) + 3;
    if (x < width) ui_text(*y, x, width - x, dim, "(%d of %d, [ ] switch)", st->current + 1, st->n_sweeps);
    (*y)++;
    ui_text((*y)++, 0, width, 0, "metric: %s (%s is better)   rows: %s   columns: %s", METRICS[st->metric].label,
            METRICS[st->metric].higher_better ? "higher" : "lower",
            st->row_axis >= 0 ? st->axis[st->row_axis] : "-", st->col_axis >= 0 ? st->axis[st->col_axis] : "-");
    int others[GRID_MAX_AXES], n = other_axes(st, others);
    if (n > 0) {
        char text[512] = "";
        size_t len = 0;
        if (averaging(st)) {
            len += (size_t)snprintf(text, sizeof text, "other axes averaged over:");
            for (int i = 0; i < n && len < sizeof text; i++)
                len += (size_t)snprintf(text + len, sizeof text - len, " %s", st->axis[others[i]]);
            if (len < sizeof text) snprintf(text + len, sizeof text - len, "   (f: fix them)");
        } else {
            int fixed_at[GRID_MAX_AXES];
            fixed_values(st, fixed_at);
            len += (size_t)snprintf(text, sizeof text, "other axes fixed at:");
            for (int i = 0; i < n && len < sizeof text; i++) {
                int a = others[i];
                len += (size_t)snprintf(text + len, sizeof text - len, " %s=%s", st->axis[a],
                                        st->n_values[a] ? st->values[a][fixed_at[a]] : "?");
            }
            if (len < sizeof text)
                snprintf(text + len, sizeof text - len, "   (f: next value%s)",
                         st->fixed + 1 == combo_count(st) ? ", then averaged" : "");
        }
        ui_text((*y)++, 0, width, 0, "%s", text);
    }
    /* lr=tune: the learning rate each architecture trained at */
    char tuned[400], err[ERR_LEN];
    if (adaptive_tuned_summary(ctx->store, s->id, tuned, sizeof tuned, err) == 0 && tuned[0])
        ui_text((*y)++, 0, width, dim, "%s", tuned);
    char preset[64];
    claims_view_preset(s->name, preset, sizeof preset);
    if (!preset_find(preset)) {
        ui_text((*y)++, 0, width, dim, "paper figures: none (a %s sweep is not a preset)", s->name);
    } else if (st->n_paper == 0) {
        ui_text((*y)++, 0, width, dim, "the paper figures for preset %s are not in the store", s->name);
    } else {
        draw_settings(st, ctx, preset, y, width);
    }
}

/* The report, word-wrapped to the width, from line report_scroll. */
static void draw_report(GridState *st, UiContext *ctx, int top, int height, int width)
{
    const GridSweep *s = &st->sweeps[st->current];
    char preset[64];
    claims_view_preset(s->name, preset, sizeof preset);
    const char *text = st->report.data ? st->report.data : "";
    int n = ui_wrap_lines(text, width - 1, NULL, NULL, 0);
    st->report_page = MB_MAX(1, height - 2);
    st->report_scroll = MB_MAX(0, MB_MIN(st->report_scroll, n - st->report_page));
    int title = ui_attr(ctx, UI_PAIR_TITLE) | (int)A_BOLD;
    if (!preset_find(preset)) {
        ui_text(top, 0, width, title, "Report: sweep %lld %s is not a preset (R: back to the table)", (long long)s->id,
                s->name);
        return;
    }
    ui_text(top, 0, width, title, "Report: %s, newest sweep   lines %d-%d of %d   (j/k PgUp/PgDn, R: table)",
            preset, n ? st->report_scroll + 1 : 0, MB_MIN(n, st->report_scroll + st->report_page), n);
    int *starts = malloc((size_t)(n ? n : 1) * sizeof *starts), *lens = malloc((size_t)(n ? n : 1) * sizeof *lens);
    if (!starts || !lens) {
        free(starts);
        free(lens);
        return;
    }
    ui_wrap_lines(text, width - 1, starts, lens, n);
    for (int i = 0; i < st->report_page && st->report_scroll + i < n; i++) {
        int k = st->report_scroll + i;
        ui_text(top + 2 + i, 0, width, 0, "%.*s", lens[k], text + starts[k]);
    }
    free(starts);
    free(lens);
}

static void grid_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    GridState *st = state;
    if (!st) return;
    int y = top, bottom = top + height;
    if (st->error[0]) ui_text(bottom - 1, 0, width, ui_attr(ctx, UI_PAIR_BAD), "%s", st->error);
    if (st->current < 0) {
        ui_text(y++, 0, width, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "Grid: no sweeps in this store");
        y++;
        ui_text(y++, 2, width - 2, 0, "Queue one with `mixbench sweep layers=1,2 arch=attention,mixer ...` or a");
        ui_text(y++, 2, width - 2, 0, "preset (`mixbench sweep pairconnect-grid`), or from the New sweep screen;");
        ui_text(y++, 2, width - 2, 0, "this screen then shows its results as a table over two of its axes.");
        return;
    }
    if (st->report_on) {
        draw_report(st, ctx, top, height, width);
        return;
    }
    draw_header(st, ctx, &y, width);
    y++;
    int rows = st->row_axis >= 0 ? st->n_values[st->row_axis] : 1;
    int cols = st->col_axis >= 0 ? st->n_values[st->col_axis] : 1;
    if (st->n_runs == 0 || rows == 0 || cols == 0) {
        ui_text(y, 2, width - 2, 0, "this sweep has no jobs");
        return;
    }
    Cell *cells = calloc((size_t)rows * (size_t)cols, sizeof *cells);
    if (!cells) return;
    char preset[64];
    claims_view_preset(st->sweeps[st->current].name, preset, sizeof preset);
    fill_cells(st, preset, cells, rows, cols);

    /* column widths: the row labels, then each column's widest text */
    char text[128];
    const char *corner_row = st->row_axis >= 0 ? st->axis[st->row_axis] : "";
    const char *corner_col = st->col_axis >= 0 ? st->axis[st->col_axis] : "";
    char corner[160];
    snprintf(corner, sizeof corner, "%s%s%s", corner_row, corner_row[0] && corner_col[0] ? " \\ " : "", corner_col);
    int label_w = text_columns(corner);
    if (st->row_axis < 0) label_w = MB_MAX(label_w, text_columns(METRICS[st->metric].label));
    for (int r = 0; r < rows; r++)
        if (st->row_axis >= 0) label_w = MB_MAX(label_w, text_columns(st->values[st->row_axis][r]));
    label_w += 2;
    /* n per cell only where the counts differ; the paper's figures inline
       while the table fits, else on a row of their own under each row */
    int common_n = -1, show_n = 0, any_paper = 0;
    for (int i = 0; i < rows * cols; i++) {
        any_paper |= !isnan(cells[i].paper);
        if (!cells[i].n_value) continue;
        if (common_n < 0) common_n = cells[i].n_value;
        else if (common_n != cells[i].n_value) show_n = 1;
    }
    int col_w[GRID_MAX_VALUES], paper_inline = 1;
    for (int pass = 0; pass < 2; pass++) {
        int total = label_w;
        for (int c = 0; c < cols; c++) {
            col_w[c] = st->col_axis >= 0 ? text_columns(st->values[st->col_axis][c]) : 0;
            for (int r = 0; r < rows; r++) {
                cell_text(&cells[r * cols + c], ctx, paper_inline, show_n, text, sizeof text);
                col_w[c] = MB_MAX(col_w[c], text_columns(text) + (ctx->colors ? 0 : 2));
            }
            col_w[c] = MB_MAX(col_w[c] + 2, 8);
            total += col_w[c];
        }
        if (total <= width || !any_paper) break;
        paper_inline = 0;
    }

    double values[GRID_MAX_VALUES * GRID_MAX_VALUES];
    int n_cells = rows * cols;
    for (int i = 0; i < n_cells; i++) values[i] = cell_value(&cells[i]);
    int best = heat_best(values, n_cells, METRICS[st->metric].higher_better);
    double lo, hi;
    heat_range(values, n_cells, &lo, &hi);

    int head = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    ui_text(y, 0, label_w, head, "%s", corner);
    int x = label_w;
    for (int c = 0; c < cols && x < width; c++) {
        draw_cell(y, x, MB_MIN(col_w[c], width - x), head, st->col_axis >= 0 ? st->values[st->col_axis][c] : "");
        x += col_w[c];
    }
    y++;
    for (int r = 0; r < rows && y < bottom; r++, y++) {
        ui_text(y, 0, label_w, head, "%s", st->row_axis >= 0 ? st->values[st->row_axis][r] : METRICS[st->metric].label);
        x = label_w;
        for (int c = 0; c < cols && x < width; c++) {
            const Cell *cell = &cells[r * cols + c];
            cell_text(cell, ctx, paper_inline, show_n, text, sizeof text);
            int w = MB_MIN(col_w[c], width - x);
            double v = cell_value(cell);
            int attr = 0;
            if (r * cols + c == best) {
                attr = ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD;
            } else if (isfinite(v)) {
                double g = heat_goodness(v, lo, hi, METRICS[st->metric].higher_better);
                if (ctx->colors)
                    attr = ui_attr(ctx, g >= 2.0 / 3 ? UI_PAIR_GOOD : g >= 1.0 / 3 ? UI_PAIR_WARN : UI_PAIR_BAD) | A_REVERSE;
            } else if (cell->n_pending) {
                attr = ui_attr(ctx, UI_PAIR_DIM);
            } else if (cell->n_runs) {
                attr = ui_attr(ctx, UI_PAIR_BAD);
            }
            if (!ctx->colors && isfinite(v)) {
                char shaded[160];
                char shade = heat_shade_char(heat_goodness(v, lo, hi, METRICS[st->metric].higher_better));
                snprintf(shaded, sizeof shaded, "%c %s", shade, text);
                draw_cell(y, x + 1, w - 1, attr, shaded);
            } else {
                draw_cell(y, x + 1, w - 1, attr, text);
            }
            x += col_w[c];
        }
        if (paper_inline || y + 1 >= bottom) continue;
        int has = 0;
        for (int c = 0; c < cols; c++) has |= !isnan(cells[r * cols + c].paper);
        if (!has) continue;
        y++;
        ui_text(y, 2, label_w - 2, ui_attr(ctx, UI_PAIR_DIM), "paper");
        x = label_w;
        for (int c = 0; c < cols && x < width; c++) {
            if (!isnan(cells[r * cols + c].paper)) {
                heat_format(cells[r * cols + c].paper, 4, text, sizeof text);
                draw_cell(y, x + 1, MB_MIN(col_w[c], width - x) - 1, ui_attr(ctx, UI_PAIR_DIM), text);
            }
            x += col_w[c];
        }
    }
    free(cells);
    if (common_n > 1 && !show_n && y < bottom)
        ui_text(y++, 0, width, ui_attr(ctx, UI_PAIR_DIM), "each cell: mean %s standard error of %d runs%s",
                ui_pm(ctx), common_n, paper_inline ? "" : "; paper: the paper's figure");
    else if (!paper_inline && y < bottom)
        ui_text(y++, 0, width, ui_attr(ctx, UI_PAIR_DIM), "paper: the paper's figure for the cell above");
    if (y + 1 < bottom) {
        y++;
        if (ctx->colors)
            ui_text(y, 0, width, ui_attr(ctx, UI_PAIR_DIM), "shade: green better, yellow middle, red worse; best "
                    "cell highlighted; %s pending", ctx->utf8 ? "…" : "...");
        else
            ui_text(y, 0, width, ui_attr(ctx, UI_PAIR_DIM), "shade: '%s' worse to better; best cell reversed; %s "
                    "pending", HEAT_RAMP, ctx->utf8 ? "…" : "...");
        y++;
    }
    if (y + 1 < bottom) claims_view_draw(&st->claims, ctx, y + 1, width, bottom - y - 1 - (st->error[0] != 0));
}

/* Moves axis *which to the next axis; taking the other one's axis swaps
   them. */
static void cycle_axis(GridState *st, int *which, int *other)
{
    if (st->n_axes < 2) return;
    int next = (*which + 1) % st->n_axes;
    if (next == *other) *other = *which;
    *which = next;
    default_fixed(st);
}

static void switch_sweep(GridState *st, UiContext *ctx, int step)
{
    if (st->n_sweeps == 0) return;
    int i = st->current + step;
    if (i < 0) i = st->n_sweeps - 1;
    if (i >= st->n_sweeps) i = 0;
    ctx->sweep_id = st->sweeps[i].id;
}

static int grid_key(void *state, UiContext *ctx, int ch)
{
    GridState *st = state;
    if (!st) return 0;
    if (st->report_on) {
        int page = MB_MAX(1, st->report_page - 1);
        switch (ch) {
        case KEY_UP: case 'k': st->report_scroll = MB_MAX(0, st->report_scroll - 1); return 1;
        case KEY_DOWN: case 'j': st->report_scroll++; return 1;   /* clamped when drawn */
        case KEY_PPAGE: st->report_scroll = MB_MAX(0, st->report_scroll - page); return 1;
        case KEY_NPAGE: case ' ': st->report_scroll += page; return 1;
        case KEY_HOME: st->report_scroll = 0; return 1;
        case KEY_END: st->report_scroll = 1 << 30; return 1;
        case 'R': case 27: st->report_on = 0; return 1;
        default: break;
        }
    }
    switch (ch) {
    case 'R':
        if (st->current < 0) return 1;
        st->report_on = 1;
        st->report_scroll = 0;
        st->report_sweep = 0;    /* built at the reload that follows the key */
        return 1;
    case '[': switch_sweep(st, ctx, -1); return 1;
    case ']': switch_sweep(st, ctx, +1); return 1;
    case 'm':
        st->metric = (Metric)((st->metric + 1) % N_METRICS);
        return 1;
    case 'a':
        if (st->n_axes < 2) ui_say(ctx, "this sweep has %d axis: one row", st->n_axes);
        cycle_axis(st, &st->row_axis, &st->col_axis);
        return 1;
    case 'b':
        if (st->n_axes < 2) ui_say(ctx, "this sweep has %d axis: one row", st->n_axes);
        cycle_axis(st, &st->col_axis, &st->row_axis);
        return 1;
    case 'f': {
        int others[GRID_MAX_AXES];
        if (other_axes(st, others) == 0) {
            ui_say(ctx, "every axis of this sweep is on the table: nothing to fix");
            return 1;
        }
        st->fixed = (st->fixed + 1) % (combo_count(st) + 1);
        return 1;
    }
    default:
        return 0;
    }
}

const UiScreen ui_screen_grid = {
    "Grid",
    "[ ] sweep  m metric  a/b axes  f fix  R report",
    "[ / ]           previous / next sweep\n"
    "m               metric: test/valid/train loss, test perplexity and\n"
    "                accuracy, tokens/s, test/valid loss_all (mlm, every\n"
    "                position), samples/s (batch-1 inference); a preset\n"
    "                opens on its paper's (loss_all for PairConnect)\n"
    "a / b           next row / column axis (the other's: swap)\n"
    "f               other axes: next fixed value, then averaged\n"
    "R               the preset's reproduction report (mixbench report):\n"
    "                up/down, PgUp/PgDn, Home/End scroll; R or Esc: back\n"
    "                cells: shaded worst to best, the best highlighted,\n"
    "                ... pending; over seeds mean +- standard error;\n"
    "                (paper X) or a paper row: the paper's figure, with\n"
    "                its setting against ours above; numeric axes by value;\n"
    "                below: the paper's claims, judged on this sweep\n"
    "                (holds, does not hold, within noise, not run)",
    grid_create,
    grid_destroy,
    grid_reload,
    grid_draw,
    grid_key,
    NULL,
};
