/*
 * screen_grid.c — the Grid screen: one sweep as a heatmap of a final
 * number (test loss, valid loss, test perplexity, test accuracy, train loss
 * or tokens/s) over two of its axes.  Each cell prints its value in 4
 * significant digits and is shaded by it (a colour, or on a monochrome
 * terminal a density glyph of ' .:-=+*#%@'); the best cell is highlighted;
 * a point still queued or running shows '…' and its status; where the
 * store's paper_figures table holds the paper's figure for that preset,
 * point and metric, it is printed beside ours.  The sweep's other axes are
 * fixed at one value each (f steps through their values) or averaged;
 * seeds are always averaged, and an axis zipped with a shown one follows
 * it (experiments/pivot.h's default view, `plot grid`'s too).  A random
 * search shows its trials as a table sorted by the metric instead.
 *
 * Not for: curves (Compare, AE/Bidir) or queueing (New sweep).  A refresh
 * reads the sweep list and the jobs of the sweep shown (db/sweeps_read.h);
 * its axes and paper figures (db/results.h) are read once per sweep, and
 * the study it was queued from as the store holds its text
 * (experiments/study.h study_of_sweep): a study file's claims as queued,
 * even where the file was edited or deleted since.
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
#include "experiments/pivot.h"
#include "experiments/report.h"
#include "experiments/stats.h"
#include "experiments/study.h"
#include "experiments/sweep.h"
#include "ui/claims_view.h"
#include "ui/draw/heatmap.h"
#include "ui/figure_key.h"
#include "ui/grid_knobs.h"
#include "ui/grid_parallel.h"
#include "ui/ui.h"

#define PIVOT_MAX_AXES 12
#define PIVOT_MAX_VALUES 64
#define VALUE_LEN 48
#define MAX_SWEEPS 256
#define MAX_COMBOS 100000

typedef struct {
    int64_t id;
    char name[64];           /* what it was queued from (SweepRow.preset): its figures and claims */
    char label[64];          /* what it is called (SweepRow.name) */
} GridSweep;

typedef struct {
    GridSweep sweeps[MAX_SWEEPS];
    int n_sweeps;
    int current;                 /* index into sweeps, -1: none */
    int pending_switch;          /* [ and ] pressed before the sweeps were read:
                                    applied by the next reload */
    int64_t loaded_sweep;        /* the sweep runs/axes/paper belong to */

    Pivot pivot;                 /* the sweep's runs on its axes (experiments/pivot.h) */
    int n_axes;                  /* the sweep's axes (its axes_json) */
    char axis_keys[PIVOT_MAX_AXES][64];
    FigureRow *paper;            /* the preset's figures with a value */
    int n_paper;
    const Preset *study;         /* the study it was queued from (its stored text), NULL: none */

    int row_axis, col_axis;      /* -1: a single row / column */
    int fixed;                   /* 0..n_combos-1: other axes fixed at a combination; n_combos: averaged */
    PointMetric metric;          /* one of the first PM_SHOWN (experiments/points.h), or the best valid loss */
    int loss_best;               /* L: the valid loss is each run's lowest evaluation (with its step) */
    GridParallel parallel;       /* v: parallel coordinates instead of the heatmap (ui/grid_parallel.h) */
    GridKnobs knobs;             /* which knob matters, under the heatmap (ui/grid_knobs.h) */
    ClaimsView claims;           /* the verdicts of the sweep's preset */

    /* R: the reproduction report of the sweep's preset in place of the table */
    int report_on;
    StrBuf report;               /* report_build's text */
    int64_t report_sweep;        /* built for this sweep ... */
    int report_done;             /* ... with this many finished runs ... */
    int report_loss_best;        /* ... and this choice of valid loss (L) */
    UiList report_view;          /* its lines (a text view: scroll, page) */
    char error[ERR_LEN];
} GridState;

/* ---- helpers ------------------------------------------------------------ */

/* The axes the view fixes or averages (experiments/pivot.h
   pivot_axis_free): not shown, not seed (always averaged), not zipped with
   a shown axis (it follows that axis). */
static int other_axes(const GridState *st, int *others)
{
    int n = 0;
    for (int a = 0; a < st->pivot.n_axes; a++)
        if (pivot_axis_free(&st->pivot, a, st->row_axis, st->col_axis)) others[n++] = a;
    return n;
}

/* Combinations of the other axes' values (1 when there are none). */
static int combo_count(const GridState *st)
{
    int others[PIVOT_MAX_AXES], n = other_axes(st, others);
    long count = 1;
    for (int i = 0; i < n; i++) {
        count *= st->pivot.n_values[others[i]] > 0 ? st->pivot.n_values[others[i]] : 1;
        if (count > MAX_COMBOS) return MAX_COMBOS;
    }
    return (int)count;
}

static int averaging(const GridState *st)
{
    int others[PIVOT_MAX_AXES];
    return other_axes(st, others) > 0 && st->fixed >= combo_count(st);
}

/* The value index each other axis is fixed at (the first varies slowest),
   -1 for the rest (seed, the axes that follow a shown one), and for all
   when averaging. */
static void fixed_values(const GridState *st, int *fixed_at)
{
    int others[PIVOT_MAX_AXES], n = other_axes(st, others);
    int rest = st->fixed;
    for (int a = 0; a < PIVOT_MAX_AXES; a++) fixed_at[a] = -1;
    for (int i = n - 1; i >= 0 && !averaging(st); i--) {
        int count = st->pivot.n_values[others[i]] > 0 ? st->pivot.n_values[others[i]] : 1;
        fixed_at[others[i]] = rest % count;
        rest /= count;
    }
}

/* The default view (experiments/pivot.h, as `plot grid`'s): the first two
   axes that vary on their own down and across, the other axes at their
   first values, seeds averaged. */
static void default_axes(GridState *st)
{
    st->row_axis = st->col_axis = -1;
    pivot_default_axes(&st->pivot, NULL, &st->row_axis, &st->col_axis);
    st->fixed = 0;
}

/* ---- loading ------------------------------------------------------------ */

/* The axes of the sweep shown, its paper figures; resets the view. */
static int load_sweep(GridState *st, UiContext *ctx, const GridSweep *s, char *err)
{
    st->n_axes = 0;
    pivot_free(&st->pivot);
    free(st->paper);
    st->paper = NULL;
    st->n_paper = 0;
    st->study = NULL;
    SweepAxes axes;
    if (sweeps_read_axes(ctx->store, s->id, &axes, err)) return -1;
    for (int i = 0; i < axes.n && st->n_axes < PIVOT_MAX_AXES; i++)
        ui_copy_text(st->axis_keys[st->n_axes++], sizeof st->axis_keys[0], axes.key[i]);
    /* the study it was queued from, as the store holds it (a study file
       since edited or deleted: the text it was queued with) */
    if (study_of_sweep(ctx->store, s->name, &st->study, err)) return -1;
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
    const Preset *pr = st->study;
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

/* The sweep's runs on its axes (experiments/pivot.h); an axis keeps the
   values it had, in their order, across reloads. */
static int load_runs(GridState *st, UiContext *ctx, char *err)
{
    ResultRun *runs;
    int n;
    if (results_sweep_runs(ctx->store, st->loaded_sweep, 0, &runs, &n, err)) return -1;
    const char *axes[PIVOT_MAX_AXES];
    for (int a = 0; a < st->n_axes; a++) axes[a] = st->axis_keys[a];
    Pivot fresh;
    if (pivot_build(&fresh, axes, st->n_axes, runs, n, &st->pivot, err)) {
        free(runs);
        return -1;
    }
    pivot_free(&st->pivot);
    st->pivot = fresh;
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
    pivot_free(&st->pivot);
    free(st->paper);
    claims_view_free(&st->claims);
    if (st->report.data) sb_free(&st->report);
    free(st);
}

/* The report of the sweep shown (report_sweep: a preset's section on
   this sweep, a grid's points, a random search's trials best first). */
static void build_report(GridState *st, UiContext *ctx, int64_t sweep_id, int n_done)
{
    if (st->report.data) sb_free(&st->report);
    sb_init(&st->report);
    char err[ERR_LEN];
    if (report_sweep(ctx->store, sweep_id, st->loss_best ? REPORT_LOSS_BEST : 0, NULL, NULL, &st->report, err)) {
        sb_free(&st->report);
        sb_init(&st->report);
        sb_append(&st->report, err);
    }
    st->report_sweep = sweep_id;
    st->report_done = n_done;
    st->report_loss_best = st->loss_best;
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
        ui_copy_text(g->name, sizeof g->name, sweeps[i].preset);
        ui_copy_text(g->label, sizeof g->label, sweeps[i].name);
    }
    free(sweeps);
    st->current = st->n_sweeps - 1;
    for (int i = 0; i < st->n_sweeps; i++)
        if (st->sweeps[i].id == ctx->sweep_id) st->current = i;
    if (st->current < 0) {
        st->pending_switch = 0;   /* no sweep to switch to */
        return;
    }
    if (st->pending_switch) {
        int n = st->n_sweeps, i = ((st->current + st->pending_switch) % n + n) % n;
        st->pending_switch = 0;
        st->current = i;
        ctx->sweep_id = st->sweeps[i].id;
    }
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
        st->metric = headline_metric(preset, st->pivot.runs, st->pivot.n_runs);
    }
    int n_done = 0;
    for (int i = 0; i < st->pivot.n_runs; i++) n_done += st->pivot.runs[i].state == RUN_DONE;
    if (st->study) claims_view_update(&st->claims, ctx, s->name, s->id, n_done);
    else claims_view_free(&st->claims);
    if (st->report_on && (st->report_sweep != s->id || st->report_done != n_done || st->report_loss_best != st->loss_best))
        build_report(st, ctx, s->id, n_done);
}

static double cell_value(const PivotCell *c) { return c->n_value ? c->stats.mean : NAN; }

/* "6.371", "6.371±0.002 n3" over several runs (n left out when every cell
   has the same count: show_n 0), " (paper 1.49)" beside when paper_inline
   (else the paper has rows of its own); an answer accuracy with its test
   loss beside ("0.998 loss 0.012": loss, NAN for another metric). */
static void cell_text(const PivotCell *c, UiContext *ctx, int paper_inline, int show_n, int flag, double step,
                      double loss, char *out, size_t cap)
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
        /* the best valid loss: at its step (over seeds, their mean step) */
        if (isfinite(step)) snprintf(value + strlen(value), sizeof value - strlen(value), "@%.0f", step);
        if (isfinite(loss)) {
            char l[32];
            heat_format(loss, 3, l, sizeof l);
            snprintf(value + strlen(value), sizeof value - strlen(value), " loss %s", l);
        }
        /* '!': runs of the cell that did not learn (its mean is no claim's evidence) */
        snprintf(out, cap, "%s%s%s%s", value, flag && c->n_unlearned ? "!" : "", c->n_pending ? more : "", paper);
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
    for (int i = 0; i < st->pivot.n_runs; i++) {
        const ResultRun *r = &st->pivot.runs[i];
        const int64_t size[3] = {r->d, r->layers, r->n_ctx};
        for (int k = 0; k < 3; k++)
            if (size[k] > 0) o.lo[k] = o.lo[k] ? MB_MIN(o.lo[k], size[k]) : size[k], o.hi[k] = MB_MAX(o.hi[k], size[k]);
        o.tokens = MB_MAX(o.tokens, (int64_t)r->tokens);
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
    const char *want = paper_metric_beside(preset, st->metric);
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
        if (preset_paper_metric(preset) != st->metric)
            ui_text((*y)++, 0, width, dim, "the paper reports no %s for preset %s (its metric: %s; m: next)",
                    point_metric_info(st->metric)->label, preset, point_metric_info(preset_paper_metric(preset))->label);
        else
            ui_text((*y)++, 0, width, dim, "the paper reports no %s for preset %s (m: another metric)",
                    point_metric_info(st->metric)->label, preset);
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

/* "other axes fixed at: lr=1e-3; averaged: seed; heads with arch   (f:
   next value)", or "other axes averaged over: lr, seed ..." (f: fix them). */
static void header_axes(GridState *st, UiContext *ctx, int *y, int width)
{
    const Pivot *p = &st->pivot;
    int others[PIVOT_MAX_AXES], n = other_axes(st, others), fixed_at[PIVOT_MAX_AXES];
    fixed_values(st, fixed_at);
    char text[512] = "", averaged[256] = "", follow[256] = "";
    size_t len = 0, alen = 0, flen = 0;
    for (int a = 0; a < p->n_axes; a++) {
        if (a == st->row_axis || a == st->col_axis) continue;
        int with = pivot_follows(p, a, st->row_axis, st->col_axis);
        if (fixed_at[a] >= 0 && len < sizeof text)
            len += (size_t)snprintf(text + len, sizeof text - len, " %s=%s", p->axis[a], p->values[a][fixed_at[a]]);
        else if (!strcmp(p->axis[a], "seed") || (fixed_at[a] < 0 && pivot_axis_free(p, a, st->row_axis, st->col_axis)))
            alen += alen < sizeof averaged ? (size_t)snprintf(averaged + alen, sizeof averaged - alen, "%s%s",
                                                              alen ? ", " : "", p->axis[a]) : 0;
        else if (with >= 0 && flen < sizeof follow)
            flen += (size_t)snprintf(follow + flen, sizeof follow - flen, "; %s with %s", p->axis[a], p->axis[with]);
    }
    if (!len && !alen && !flen) return;
    char line[1024];
    if (len) snprintf(line, sizeof line, "other axes fixed at:%s%s%s%s", text, alen ? "; averaged: " : "", averaged, follow);
    else if (alen) snprintf(line, sizeof line, "other axes averaged over: %s%s", averaged, follow);
    else snprintf(line, sizeof line, "other axes: %s", follow + 2);
    const char *hint = !n ? "" : averaging(st) ? "   (f: fix them)"
                       : st->fixed + 1 == combo_count(st) ? "   (f: next value, then averaged)" : "   (f: next value)";
    ui_text((*y)++, 0, width, 0, "%s%s", line, hint);
    (void)ctx;
}

static void draw_header(GridState *st, UiContext *ctx, int *y, int width)
{
    const GridSweep *s = &st->sweeps[st->current];
    int title = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, dim = ui_attr(ctx, UI_PAIR_DIM);
    char name[96];
    snprintf(name, sizeof name, "Grid: sweep %lld %s", (long long)s->id, s->label);
    ui_text(*y, 0, width, title, "%s", name);
    int x = (int)strlen(name) + 3;
    if (x < width) ui_text(*y, x, width - x, dim, "(%d of %d, [ ] switch; R report)", st->current + 1, st->n_sweeps);
    (*y)++;
    const char *which = st->metric == PM_VALID_LOSS ? ", the last (L: best)"
                        : st->metric == PM_BEST_VALID_LOSS ? "@step, the lowest (L: last)" : "";
    if (pivot_is_search(&st->pivot)) {
        ui_text((*y)++, 0, width, 0, "metric: %s%s (%s is better)   the trials sorted by it", point_metric_info(st->metric)->label,
                which, point_metric_info(st->metric)->higher_better ? "higher" : "lower");
    } else {
        ui_text((*y)++, 0, width, 0, "metric: %s%s (%s is better)   rows: %s   columns: %s", point_metric_info(st->metric)->label,
                which, point_metric_info(st->metric)->higher_better ? "higher" : "lower",
                st->row_axis >= 0 ? st->pivot.axis[st->row_axis] : "-", st->col_axis >= 0 ? st->pivot.axis[st->col_axis] : "-");
        header_axes(st, ctx, y, width);
    }
    /* lr=tune: the learning rate each architecture trained at */
    char tuned[400], err[ERR_LEN];
    if (adaptive_tuned_summary(ctx->store, s->id, tuned, sizeof tuned, err) == 0 && tuned[0])
        ui_text((*y)++, 0, width, dim, "%s", tuned);
    char preset[64];
    claims_view_preset(s->name, preset, sizeof preset);
    if (!st->study) {
        ui_text((*y)++, 0, width, dim, "paper figures: none (a %s sweep is not a preset)", s->name);
    } else if (st->n_paper == 0) {
        ui_text((*y)++, 0, width, dim, "the paper figures for preset %s are not in the store", s->name);
    } else {
        draw_settings(st, ctx, preset, y, width);
    }
}

/* The report, word-wrapped to the width, from line report_view.scroll. */
static void draw_report(GridState *st, UiContext *ctx, int top, int height, int width)
{
    const GridSweep *s = &st->sweeps[st->current];
    const char *text = st->report.data ? st->report.data : "";
    int n = ui_wrap_lines(text, width - 1, NULL, NULL, 0);
    UiList *v = &st->report_view;
    ui_list_set_rows(v, NULL, n);
    ui_list_fit(v, top + 2, height - 2);
    int title = ui_attr(ctx, UI_PAIR_TITLE) | (int)A_BOLD;
    ui_text(top, 0, width, title, "Report: sweep %lld %s   lines %d-%d of %d   (j/k PgUp/PgDn, R: table)",
            (long long)s->id, s->label, n ? v->scroll + 1 : 0, MB_MIN(n, v->scroll + v->page), n);
    int *starts = malloc((size_t)(n ? n : 1) * sizeof *starts), *lens = malloc((size_t)(n ? n : 1) * sizeof *lens);
    if (!starts || !lens) {
        free(starts);
        free(lens);
        return;
    }
    ui_wrap_lines(text, width - 1, starts, lens, n);
    for (int i = 0; i < v->page && v->scroll + i < n; i++) {
        int k = v->scroll + i;
        ui_text(top + 2 + i, 0, width, 0, "%.*s", lens[k], text + starts[k]);
    }
    free(starts);
    free(lens);
}

/* The table of one draw: the cells, and where and how they are shown. */
typedef struct {
    PivotCell *cells;            /* [rows * cols] */
    PivotCell *steps;            /* [rows * cols]: the best valid loss's steps, NULL for another metric */
    PivotCell *losses;           /* [rows * cols]: answer accuracy's test losses, NULL for another metric */
    int rows, cols;
    char corner[160];            /* "row axis \\ column axis" */
    int label_w, col_w[PIVOT_MAX_VALUES];
    int common_n, show_n;        /* n per cell only where the counts differ */
    int flag;                    /* a metric of learning: '!' on cells with runs that did not learn */
    int paper_inline;            /* the paper's figures in the cells, else a row under each row */
    int best;                    /* the best cell, -1 none */
    double lo, hi;               /* the range of the finished cells' values */
} GridTable;

/* Cell i's best valid loss's step (the mean over its runs), NAN when the
   table is of another metric. */
static double cell_step(const GridTable *tab, int i)
{
    return tab->steps && tab->steps[i].n_value ? tab->steps[i].stats.mean : NAN;
}

/* Cell i's test loss (the mean over its runs) beside an answer accuracy,
   NAN when the table is of another metric. */
static double cell_loss(const GridTable *tab, int i)
{
    return tab->losses && tab->losses[i].n_value ? tab->losses[i].stats.mean : NAN;
}

/* The cells of the sweep shown and their layout in width columns. */
static int table_layout(GridState *st, UiContext *ctx, int width, GridTable *tab)
{
    tab->rows = st->row_axis >= 0 ? st->pivot.n_values[st->row_axis] : 1;
    tab->flag = point_metric_info(st->metric)->learned;
    tab->cols = st->col_axis >= 0 ? st->pivot.n_values[st->col_axis] : 1;
    int rows = tab->rows, cols = tab->cols;
    tab->cells = calloc((size_t)rows * (size_t)cols, sizeof *tab->cells);
    tab->steps = st->metric == PM_BEST_VALID_LOSS ? calloc((size_t)rows * (size_t)cols, sizeof *tab->steps) : NULL;
    tab->losses = st->metric == PM_ANSWER_ACCURACY ? calloc((size_t)rows * (size_t)cols, sizeof *tab->losses) : NULL;
    if (!tab->cells || (st->metric == PM_BEST_VALID_LOSS && !tab->steps) ||
        (st->metric == PM_ANSWER_ACCURACY && !tab->losses)) {
        free(tab->cells);
        free(tab->steps);
        free(tab->losses);
        return -1;
    }
    PivotCell *cells = tab->cells;
    char preset[64];
    claims_view_preset(st->sweeps[st->current].name, preset, sizeof preset);
    int fixed_at[PIVOT_MAX_AXES];
    fixed_values(st, fixed_at);
    pivot_cells(&st->pivot, st->row_axis, st->col_axis, fixed_at, st->metric, st->paper, st->n_paper,
                paper_metric_beside(preset, st->metric), cells);
    if (tab->steps)
        pivot_cells(&st->pivot, st->row_axis, st->col_axis, fixed_at, PM_BEST_VALID_STEP, NULL, 0, NULL, tab->steps);
    if (tab->losses)
        pivot_cells(&st->pivot, st->row_axis, st->col_axis, fixed_at, PM_TEST_LOSS, NULL, 0, NULL, tab->losses);

    /* column widths: the row labels, then each column's widest text */
    char text[128];
    const char *corner_row = st->row_axis >= 0 ? st->pivot.axis[st->row_axis] : "";
    const char *corner_col = st->col_axis >= 0 ? st->pivot.axis[st->col_axis] : "";
    snprintf(tab->corner, sizeof tab->corner, "%s%s%s", corner_row, corner_row[0] && corner_col[0] ? " \\ " : "",
             corner_col);
    int label_w = text_columns(tab->corner);
    if (st->row_axis < 0) label_w = MB_MAX(label_w, text_columns(point_metric_info(st->metric)->label));
    char label[PIVOT_VALUE_LEN];
    for (int r = 0; r < rows; r++)
        if (st->row_axis >= 0) {
            pivot_value_label(&st->pivot, st->row_axis, r, label, sizeof label);
            label_w = MB_MAX(label_w, text_columns(label));
        }
    tab->label_w = label_w + 2;
    /* n per cell only where the counts differ; the paper's figures inline
       while the table fits, else on a row of their own under each row */
    int any_paper = 0;
    tab->common_n = -1;
    tab->show_n = 0;
    for (int i = 0; i < rows * cols; i++) {
        any_paper |= !isnan(cells[i].paper);
        if (!cells[i].n_value) continue;
        if (tab->common_n < 0) tab->common_n = cells[i].n_value;
        else if (tab->common_n != cells[i].n_value) tab->show_n = 1;
    }
    tab->paper_inline = 1;
    for (int pass = 0; pass < 2; pass++) {
        int total = tab->label_w;
        for (int c = 0; c < cols; c++) {
            if (st->col_axis >= 0) pivot_value_label(&st->pivot, st->col_axis, c, label, sizeof label);
            tab->col_w[c] = st->col_axis >= 0 ? text_columns(label) : 0;
            for (int r = 0; r < rows; r++) {
                cell_text(&cells[r * cols + c], ctx, tab->paper_inline, tab->show_n, tab->flag, cell_step(tab, r * cols + c),
                          cell_loss(tab, r * cols + c),
                          text, sizeof text);
                tab->col_w[c] = MB_MAX(tab->col_w[c], text_columns(text) + (ctx->colors ? 0 : 2));
            }
            tab->col_w[c] = MB_MAX(tab->col_w[c] + 2, 8);
            total += tab->col_w[c];
        }
        if (total <= width || !any_paper) break;
        tab->paper_inline = 0;
    }

    double values[PIVOT_MAX_VALUES * PIVOT_MAX_VALUES];
    for (int i = 0; i < rows * cols; i++) values[i] = cell_value(&cells[i]);
    tab->best = heat_best(values, rows * cols, point_metric_info(st->metric)->higher_better);
    heat_range(values, rows * cols, &tab->lo, &tab->hi);
    return 0;
}

/* A cell's attribute: the best highlighted, finished ones shaded from
   worse to better, pending dim, stopped bad. */
static int cell_attr(const GridState *st, UiContext *ctx, const GridTable *tab, int i)
{
    const PivotCell *cell = &tab->cells[i];
    double v = cell_value(cell);
    if (i == tab->best) return ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD;
    if (isfinite(v)) {
        double g = heat_goodness(v, tab->lo, tab->hi, point_metric_info(st->metric)->higher_better);
        return ctx->colors
                   ? ui_attr(ctx, g >= 2.0 / 3 ? UI_PAIR_GOOD : g >= 1.0 / 3 ? UI_PAIR_WARN : UI_PAIR_BAD) | A_REVERSE
                   : 0;
    }
    if (cell->n_pending) return ui_attr(ctx, UI_PAIR_DIM);
    if (cell->n_runs) return ui_attr(ctx, UI_PAIR_BAD);
    return 0;
}

/* Row r of the table at line y (and its paper row below when the figures
   are not inline); returns the lines used. */
static int draw_table_row(GridState *st, UiContext *ctx, const GridTable *tab, int r, int y, int bottom, int width)
{
    int head = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, cols = tab->cols;
    char text[128], label[PIVOT_VALUE_LEN];
    if (st->row_axis >= 0) pivot_value_label(&st->pivot, st->row_axis, r, label, sizeof label);
    ui_text(y, 0, tab->label_w, head, "%s", st->row_axis >= 0 ? label : point_metric_info(st->metric)->label);
    int x = tab->label_w;
    for (int c = 0; c < cols && x < width; c++) {
        const PivotCell *cell = &tab->cells[r * cols + c];
        cell_text(cell, ctx, tab->paper_inline, tab->show_n, tab->flag, cell_step(tab, r * cols + c),
                  cell_loss(tab, r * cols + c), text, sizeof text);
        int w = MB_MIN(tab->col_w[c], width - x);
        double v = cell_value(cell);
        int attr = cell_attr(st, ctx, tab, r * cols + c);
        if (!ctx->colors && isfinite(v)) {
            char shaded[160];
            char shade =
                heat_shade_char(heat_goodness(v, tab->lo, tab->hi, point_metric_info(st->metric)->higher_better));
            snprintf(shaded, sizeof shaded, "%c %s", shade, text);
            draw_cell(y, x + 1, w - 1, attr, shaded);
        } else {
            draw_cell(y, x + 1, w - 1, attr, text);
        }
        x += tab->col_w[c];
    }
    if (tab->paper_inline || y + 1 >= bottom) return 1;
    int has = 0;
    for (int c = 0; c < cols; c++) has |= !isnan(tab->cells[r * cols + c].paper);
    if (!has) return 1;
    y++;
    ui_text(y, 2, tab->label_w - 2, ui_attr(ctx, UI_PAIR_DIM), "paper");
    x = tab->label_w;
    for (int c = 0; c < cols && x < width; c++) {
        if (!isnan(tab->cells[r * cols + c].paper)) {
            heat_format(tab->cells[r * cols + c].paper, 4, text, sizeof text);
            draw_cell(y, x + 1, MB_MIN(tab->col_w[c], width - x) - 1, ui_attr(ctx, UI_PAIR_DIM), text);
        }
        x += tab->col_w[c];
    }
    return 2;
}

/* What a cell holds and what the shades mean, under the table; returns
   the next free line. */
static int draw_legend(UiContext *ctx, const GridTable *tab, int y, int bottom, int width)
{
    int dim = ui_attr(ctx, UI_PAIR_DIM);
    if (tab->common_n > 1 && !tab->show_n && y < bottom)
        ui_text(y++, 0, width, dim, "each cell: mean %s standard error of %d runs%s", ui_pm(ctx), tab->common_n,
                tab->paper_inline ? "" : "; paper: the paper's figure");
    else if (!tab->paper_inline && y < bottom)
        ui_text(y++, 0, width, dim, "paper: the paper's figure for the cell above");
    int pending = 0;   /* "… pending" only when runs are queued or running */
    for (int i = 0; i < tab->rows * tab->cols; i++) pending += tab->cells[i].n_pending;
    char more[32] = "";
    if (pending) snprintf(more, sizeof more, "; %s pending", ctx->utf8 ? "…" : "...");
    if (y + 1 < bottom) {
        y++;
        if (ctx->colors)
            ui_text(y, 0, width, dim, "shade: green better, yellow middle, red worse; best cell highlighted%s", more);
        else
            ui_text(y, 0, width, dim, "shade: '%s' worse to better; best cell reversed%s", HEAT_RAMP, more);
        y++;
    }
    int tied = pivot_tied_with_best(tab->cells, tab->rows * tab->cols, tab->best);
    if (tied && y < bottom)
        ui_text(y++, 0, width, dim, "%d cell%s within seed noise of the best (Welch's t at 95%%): the shades do not "
                "tell %s apart", tied, tied == 1 ? "" : "s", tied == 1 ? "the two" : "them");
    int flagged = 0;
    for (int i = 0; i < tab->rows * tab->cols && tab->flag; i++) flagged += tab->cells[i].n_unlearned > 0;
    if (flagged && y < bottom)
        ui_text(y++, 0, width, ui_attr(ctx, UI_PAIR_BAD), "!: not learned (runs short of the claims' gate: best valid "
                "loss 0.3 nat below the unigram entropy; loss_all under 2 p H)");
    return y;
}

/* The run of a trial a pruner stopped (NULL when none): the one that got
   furthest, so that a pruned trial shows the metric it was stopped at. */
static const ResultRun *pruned_run(const Pivot *p, const Point *pt)
{
    const ResultRun *best = NULL;
    for (int r = 0; r < p->n_runs; r++) {
        const ResultRun *run = &p->runs[r];
        if (run->state != RUN_PRUNED) continue;
        int same = 1;
        for (int k = 0; k < pt->n_coords && same; k++) {
            const char *v = coord_value(run->coords, run->n_coords, pt->coords[k].key);
            same = v && !strcmp(v, pt->coords[k].value);
        }
        if (same && (!best || run->steps_done > best->steps_done)) best = run;
    }
    return best;
}

/* The search's order: the finished trials by the metric (pivot_sort_points),
   then those a pruner stopped, the furthest first and by the metric they
   were stopped at (trials at different budgets: not one ranking), then the
   rest. */
static void order_trials(const Pivot *p, Point *pts, int np, PointMetric m)
{
    pivot_sort_points(pts, np, m);
    int higher = point_metric_info(m)->higher_better;
    for (int i = 1; i < np; i++)
        for (int j = i; j > 0 && !pts[j].stat[m].n && !pts[j - 1].stat[m].n; j--) {
            const ResultRun *a = pruned_run(p, &pts[j]), *b = pruned_run(p, &pts[j - 1]);
            if (!a) break;
            double va = result_metric(a, m), vb = b ? result_metric(b, m) : NAN;
            int before = !b || a->steps_done > b->steps_done ||
                         (a->steps_done == b->steps_done && isfinite(va) && (!isfinite(vb) || (higher ? va > vb : va < vb)));
            if (!before) break;
            Point t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
}

/* A random search (experiments/pivot.h pivot_is_search): its trials (a
   seed group each) as a table sorted by the metric, the best first (a
   pruned trial after the finished ones, with the metric it was stopped
   at), a column per axis but seed; returns the next free line. */
static int draw_search(GridState *st, UiContext *ctx, int y, int bottom, int width)
{
    const Pivot *p = &st->pivot;
    Point *pts = NULL;
    int np = 0;
    if (points_group(p->runs, p->n_runs, &pts, &np, NULL)) return y;
    order_trials(p, pts, np, st->metric);
    const PointMetricInfo *info = point_metric_info(st->metric);
    int head = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, dim = ui_attr(ctx, UI_PAIR_DIM), pending = 0;
    for (int i = 0; i < np; i++) pending += pts[i].n_pending;
    ui_text(y++, 0, width, dim, "a random search: %d trial%s, the best %s first%s   (v: parallel coordinates)", np,
            np == 1 ? "" : "s", info->label, pending ? ", some pending" : "");
    /* columns: rank, each axis but seed, the metric, seeds */
    int axes[PIVOT_MAX_AXES], n_axes = 0, w[PIVOT_MAX_AXES];
    for (int a = 0; a < p->n_axes; a++)
        if (strcmp(p->axis[a], "seed")) {
            axes[n_axes] = a;
            w[n_axes] = text_columns(p->axis[a]);
            for (int v = 0; v < p->n_values[a]; v++) w[n_axes] = MB_MAX(w[n_axes], text_columns(p->values[a][v]));
            n_axes++;
        }
    char line[1024], cell[96];
    int len = snprintf(line, sizeof line, "%4s", "#");
    for (int k = 0; k < n_axes; k++) len += snprintf(line + len, sizeof line - (size_t)len, "  %-*s", w[k], p->axis[axes[k]]);
    snprintf(line + len, sizeof line - (size_t)len, "  %-20s  seeds", info->label);
    ui_text(y++, 0, width, head, "%s", line);
    for (int i = 0; i < np && y < bottom - 1; i++) {
        const Point *pt = &pts[i];
        len = snprintf(line, sizeof line, "%4d", i + 1);
        for (int k = 0; k < n_axes; k++) {
            const char *v = coord_value(pt->coords, pt->n_coords, p->axis[axes[k]]);
            len += snprintf(line + len, sizeof line - (size_t)len, "  %-*s", w[k], v ? v : "-");
        }
        const SeedStats *sd = &pt->stat[st->metric];
        if (sd->n) {
            heat_format(sd->mean, 4, cell, sizeof cell);
            if (sd->n > 1) snprintf(cell + strlen(cell), sizeof cell - strlen(cell), "%s%.3g", ui_pm(ctx), sd->se);
        } else if (pruned_run(p, pt)) {
            const ResultRun *r = pruned_run(p, pt);
            char v[32];
            heat_format(result_metric(r, st->metric), 4, v, sizeof v);
            snprintf(cell, sizeof cell, "%s pruned@%lld", v, (long long)r->steps_done);
        } else {
            snprintf(cell, sizeof cell, "%s", pt->n_pending ? (ctx->utf8 ? "… pending" : "... pending") : "-");
        }
        snprintf(line + len, sizeof line - (size_t)len, "  %-20s  %d", cell, pt->n_runs);
        ui_text(y++, 0, width, i == 0 && sd->n ? ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD : 0, "%s", line);
    }
    free(pts);
    return y;
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
    if (st->parallel.on) {
        grid_parallel_draw(&st->parallel, ctx, st->sweeps[st->current].id, &st->pivot, st->metric, y, bottom - y, width);
        return;
    }
    int rows = st->row_axis >= 0 ? st->pivot.n_values[st->row_axis] : 1;
    int cols = st->col_axis >= 0 ? st->pivot.n_values[st->col_axis] : 1;
    if (st->pivot.n_runs && pivot_is_search(&st->pivot)) {
        int free_end = bottom - (st->error[0] != 0);
        y = draw_search(st, ctx, y, free_end, width);
        grid_knobs_draw(&st->knobs, ctx, &st->pivot, st->loaded_sweep, st->metric, y + 1, free_end, width);
        return;
    }
    if (st->pivot.n_runs == 0 || rows == 0 || cols == 0) {
        ui_text(y, 2, width - 2, 0, "this sweep has no jobs");
        return;
    }
    GridTable tab;
    if (table_layout(st, ctx, width, &tab)) return;
    int head = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    ui_text(y, 0, tab.label_w, head, "%s", tab.corner);
    int x = tab.label_w;
    for (int c = 0; c < cols && x < width; c++) {
        char label[PIVOT_VALUE_LEN] = "";
        if (st->col_axis >= 0) pivot_value_label(&st->pivot, st->col_axis, c, label, sizeof label);
        draw_cell(y, x, MB_MIN(tab.col_w[c], width - x), head, label);
        x += tab.col_w[c];
    }
    y++;
    for (int r = 0; r < rows && y < bottom; r++) y += draw_table_row(st, ctx, &tab, r, y, bottom, width);
    y = draw_legend(ctx, &tab, y, bottom, width);
    free(tab.cells);
    free(tab.steps);
    free(tab.losses);
    /* the claims' verdicts first; which knob matters where rows remain */
    int free_end = bottom - (st->error[0] != 0), claims = 0;
    if (y + 1 < free_end) claims = claims_view_draw(&st->claims, ctx, y + 1, width, free_end - y - 1);
    if (claims) y += claims + 2;
    grid_knobs_draw(&st->knobs, ctx, &st->pivot, st->loaded_sweep, st->metric, y, free_end, width);
}

/* Moves axis *which to the next axis; taking the other one's axis swaps
   them. */
static void cycle_axis(GridState *st, int *which, int *other)
{
    if (st->n_axes < 2) return;
    int next = (*which + 1) % st->n_axes;
    if (next == *other) *other = *which;
    *which = next;
    st->fixed = 0;
}

static void switch_sweep(GridState *st, UiContext *ctx, int step)
{
    if (st->n_sweeps == 0 || st->current < 0) {   /* not read yet: at the reload */
        st->pending_switch += step;
        return;
    }
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
        if (ui_list_key(&st->report_view, ch, 0)) return 1;
        if (ch == 'R' || ch == 27) {
            st->report_on = 0;
            return 1;
        }
    }
    int64_t sweep_id = st->current >= 0 ? st->sweeps[st->current].id : 0;
    if (st->parallel.on && st->current >= 0 && grid_parallel_key(&st->parallel, ctx, sweep_id, &st->pivot, st->metric, ch))
        return 1;
    switch (ch) {
    case 'v':
        st->parallel.on = !st->parallel.on;
        return 1;
    case 'L':
        st->loss_best = !st->loss_best;
        st->metric = st->loss_best ? PM_BEST_VALID_LOSS : PM_VALID_LOSS;
        ui_say(ctx, "valid loss: %s", st->loss_best ? "each run's lowest evaluation, at its step" : "the last evaluation");
        return 1;
    case 'R':
        if (st->current < 0) return 1;
        st->report_on = 1;
        st->report_view.scroll = 0;
        st->report_sweep = 0;    /* built at the reload that follows the key */
        return 1;
    case '[': switch_sweep(st, ctx, -1); return 1;
    case ']': switch_sweep(st, ctx, +1); return 1;
    case 'm': {
        int next = ((st->metric == PM_BEST_VALID_LOSS ? PM_VALID_LOSS : st->metric) + 1) % PM_SHOWN;
        /* answer accuracy only for a sweep on data that scores answers */
        if (next == PM_ANSWER_ACCURACY && (int)headline_metric(NULL, st->pivot.runs, st->pivot.n_runs) != next)
            next = (next + 1) % PM_SHOWN;
        st->metric = next == PM_VALID_LOSS && st->loss_best ? PM_BEST_VALID_LOSS : (PointMetric)next;
        return 1;
    }
    case 'a':
        if (st->n_axes < 2) ui_say(ctx, "this sweep has %d axis: one row", st->n_axes);
        cycle_axis(st, &st->row_axis, &st->col_axis);
        return 1;
    case 'b':
        if (st->n_axes < 2) ui_say(ctx, "this sweep has %d axis: one row", st->n_axes);
        cycle_axis(st, &st->col_axis, &st->row_axis);
        return 1;
    case 'f': {
        int others[PIVOT_MAX_AXES];
        if (other_axes(st, others) == 0) {
            ui_say(ctx, "nothing to fix: the other axes are seed (always averaged) or follow a shown axis");
            return 1;
        }
        st->fixed = (st->fixed + 1) % (combo_count(st) + 1);
        return 1;
    }
    case UI_FIGURE_KEY: {
        if (st->parallel.on || pivot_is_search(&st->pivot)) {   /* a search's figure: its parallel coordinates */
            grid_parallel_figure(&st->parallel, ctx, sweep_id, &st->pivot, st->metric);
            return 1;
        }
        int fixed_at[PIVOT_MAX_AXES];
        fixed_values(st, fixed_at);
        ui_figure_grid(ctx, st->current >= 0 ? st->sweeps[st->current].id : 0, (int)st->metric, &st->pivot,
                       st->row_axis, st->col_axis, averaging(st) ? NULL : fixed_at);
        return 1;
    }
    default:
        return 0;
    }
}

const UiScreen ui_screen_grid = {
    "Grid",
    "[ ] sweep  m/L metric  a/b/f axes  v parallel",
    "[ / ]           previous / next sweep\n"
    "m               metric: test/valid/train loss, test perplexity and\n"
    "                accuracy, tokens/s, test/valid loss_all (mlm), samples/s;\n"
    "                a preset opens on its paper's (loss_all for PairConnect)\n"
    "L               valid loss: the last evaluation, or the lowest @ its step\n"
    "a / b           next row / column axis (the other's: swap)\n"
    "f               other axes: next fixed value, then averaged (seeds: always)\n"
    "v               parallel coordinates: a line per run (g: seed group);\n"
    "                left/right axis, up/down its range's top, PgUp/PgDn its\n"
    "                bottom, x / X clear one / all (lines outside: dim)\n"
    "P               write this figure as SVG beside the store (mixbench plot)\n"
    "R               this sweep's report (mixbench report ID): scroll; R/Esc back\n"
    "                cells: shaded worst to best, the best highlighted, ...\n"
    "                pending; over seeds mean +- se; (paper X) or a paper row:\n"
    "                the paper's figure, its setting against ours above;\n"
    "                below: the claims judged on this sweep, then which knob\n"
    "                matters (each axis's and pair's share of the variance)",
    grid_create,
    grid_destroy,
    grid_reload,
    grid_draw,
    grid_key,
    NULL,
    NULL,
};
