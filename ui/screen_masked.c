/*
 * screen_masked.c — the AE/Bidir screen: the Masked Mixers II comparisons
 * of the autoencoder, bidirectional and completion presets, the masked
 * mixer beside attention as in the paper's figures, and any other sweep
 * (a study of one's own) with a job of their tasks (autoencode, bidir,
 * complete).  For the sweep shown ([ / ] between those sweeps) the runs
 * are grouped by their
 * point (arch, task and the preset's other axes; repeats over seeds pooled)
 * and drawn one panel per architecture, a colour per group: the smoothed
 * train loss (or, with v, the valid loss) against steps.  Below, a table of
 * each group's final losses, and a few lines saying which is lower: each
 * mixer group against its attention counterpart, and within an
 * architecture the groups against each other (bidir against clm).  The
 * groups are the sweep's points (experiments/points.h).
 *
 * Not for: other sweeps (Grid) or arbitrary runs (Compare).  A refresh
 * reads the sweep's jobs (db/results.h) and each unfinished run's curve
 * past its last loaded row (ui/draw/run_curve.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "experiments/points.h"
#include "experiments/study.h"
#include "experiments/sweep.h"
#include "ui/claims_view.h"
#include "ui/draw/heatmap.h"
#include "ui/draw/run_curve.h"
#include "ui/figure_key.h"
#include "ui/ui.h"

#define MAX_MASKED_SWEEPS 64
#define MAX_RUNS 64
#define MAX_GROUPS 8             /* a colour each */
#define MIN_PANEL_WIDTH 30

/* The presets this screen is for (its sweeps: sweeps_read_latest_ae, also
   any other with a job of their tasks). */
static const char *const PRESETS[] = {"autoencoder", "bidirectional", "completion"};
#define N_PRESETS ((int)(sizeof PRESETS / sizeof PRESETS[0]))

typedef struct {
    int64_t id;
    char name[64];           /* what it was queued from (SweepRow.preset) */
    char label[64];          /* what it is called (SweepRow.name) */
} MaskedSweep;

typedef struct {
    int64_t run_id;
    RunStatus status;
    char arch[32], task[32];
    int64_t steps_done, total_steps;
    int group;
    int curve_final;             /* the curve was read after the run ended */
    RunCurve curve;
} MaskedRun;

typedef struct {
    char arch[32], task[32];
    char extra[128];             /* the other axes but seed: "d=160" */
    int n_runs, n_done, n_pending;
    int64_t running_steps, running_total;
    double train, best_valid, test, test_acc;   /* means over the finished runs */
} Group;

typedef struct {
    MaskedSweep sweeps[MAX_MASKED_SWEEPS];
    int n_sweeps;
    int64_t sweep_id;            /* shown; 0: the latest */
    int current;                 /* index into sweeps, -1: none */
    MaskedRun runs[MAX_RUNS];
    int n_runs;
    int64_t runs_of;             /* the sweep runs[] belong to */
    Group groups[MAX_GROUPS];
    int n_groups;
    int same_task;               /* every group has the same task */
    int valid_curves;            /* plot the valid loss instead of the train loss */
    int log_y;
    ClaimsView claims;           /* the verdicts of the sweep's preset */
    const Preset *study;         /* the study it was queued from (its stored text), NULL: none */
    char error[ERR_LEN];
} MaskedState;

/* ---- helpers ------------------------------------------------------------ */

/* "mixer/bidir", "mixer d=160": the task only when the sweep's groups do
   not all share it; without_arch leaves the architecture out ("bidir"). */
static void group_label(const MaskedState *st, const Group *g, int without_arch, char *out, size_t cap)
{
    int task = !st->same_task;
    snprintf(out, cap, "%s%s%s%s%s", without_arch ? "" : g->arch, task && !without_arch ? "/" : "",
             task ? g->task : "", g->extra[0] && (task || !without_arch) ? " " : "", g->extra);
}

/* The loss the comparison uses: test, else the best valid, else train. */
static double group_loss(const Group *g, const char **which)
{
    if (isfinite(g->test)) {
        *which = "test loss";
        return g->test;
    }
    if (isfinite(g->best_valid)) {
        *which = "best valid loss";
        return g->best_valid;
    }
    *which = "train loss";
    return g->train;
}

/* Mixer first, attention second, the rest after: the paper's order. */
static int arch_rank(const char *arch)
{
    return !strcmp(arch, "mixer") ? 0 : !strcmp(arch, "attention") ? 1 : 2;
}

/* ---- loading ------------------------------------------------------------ */

typedef struct {
    MaskedState *st;
    MaskedRun old[MAX_RUNS];     /* the previous load: curves are kept */
    int n_old;
} RunLoad;

/* Run r of the sweep, in group g (-1: past MAX_GROUPS), keeping its curve
   from the previous load. */
static void add_run(RunLoad *load, const ResultRun *job, int g)
{
    MaskedState *st = load->st;
    if (st->n_runs == MAX_RUNS) return;
    MaskedRun *r = &st->runs[st->n_runs++];
    int kept = 0;
    for (int i = 0; i < load->n_old && !kept; i++)
        if (load->old[i].run_id == job->run_id) {
            *r = load->old[i];
            load->old[i].run_id = 0; /* taken: not freed below */
            kept = 1;
        }
    if (!kept) {
        memset(r, 0, sizeof *r);
        r->run_id = job->run_id;
        run_curve_init(&r->curve, job->run_id);
    }
    r->status = job->state;
    ui_copy_text(r->arch, sizeof r->arch, job->arch);
    ui_copy_text(r->task, sizeof r->task, job->task);
    r->steps_done = job->steps_done;
    r->total_steps = job->total_steps;
    r->group = g < MAX_GROUPS ? g : -1;
}

/* The groups are the sweep's points (experiments/points.h: every
   coordinate but seed), their numbers the means of the finished runs. */
static void set_groups(MaskedState *st, const Point *pts, int np)
{
    st->n_groups = MB_MIN(np, MAX_GROUPS);
    for (int g = 0; g < st->n_groups; g++) {
        const Point *p = &pts[g];
        Group *grp = &st->groups[g];
        memset(grp, 0, sizeof *grp);
        ui_copy_text(grp->arch, sizeof grp->arch, p->arch);
        ui_copy_text(grp->task, sizeof grp->task, p->task);
        for (int k = 0; k < p->n_coords; k++) {
            const char *name = p->coords[k].key;
            if (!strcmp(name, "arch") || !strcmp(name, "task")) continue;
            size_t len = strlen(grp->extra);
            snprintf(grp->extra + len, sizeof grp->extra - len, "%s%s=%s", len ? " " : "", name, p->coords[k].value);
        }
        grp->n_runs = p->n_runs;
        grp->n_done = p->n_done;
        grp->n_pending = p->n_pending;
        grp->running_steps = p->running_steps;
        grp->running_total = p->running_total;
        grp->train = p->stat[PM_TRAIN_LOSS].mean;
        grp->best_valid = p->stat[PM_BEST_VALID_LOSS].mean;
        grp->test = p->stat[PM_TEST_LOSS].mean;
        grp->test_acc = p->stat[PM_TEST_ACCURACY].mean;
    }
    st->same_task = 1;
    for (int g = 1; g < st->n_groups; g++) st->same_task &= !strcmp(st->groups[g].task, st->groups[0].task);
}

static int load_runs(MaskedState *st, UiContext *ctx, int64_t sweep_id, char *err)
{
    ResultRun *jobs = NULL;
    int n_jobs = 0, np = 0;
    Point *pts = NULL;
    if (results_sweep_runs(ctx->store, sweep_id, 0, &jobs, &n_jobs, err)) return -1;
    RunLoad *load = malloc(sizeof *load);
    int *owner = malloc(sizeof *owner * (size_t)(n_jobs ? n_jobs : 1));
    if (!load || !owner || points_group(jobs, n_jobs, &pts, &np, owner)) {
        free(jobs);
        free(load);
        free(owner);
        return err_set(err, "AE/Bidir: out of memory");
    }
    load->st = st;
    load->n_old = 0;
    if (st->runs_of == sweep_id) {
        memcpy(load->old, st->runs, (size_t)st->n_runs * sizeof st->runs[0]);
        load->n_old = st->n_runs;
    } else {
        for (int i = 0; i < st->n_runs; i++) run_curve_free(&st->runs[i].curve);
    }
    st->n_runs = 0;
    st->runs_of = sweep_id;
    set_groups(st, pts, np);
    for (int i = 0; i < n_jobs; i++) add_run(load, &jobs[i], owner[i]);
    free(jobs);
    free(pts);
    free(owner);
    for (int i = 0; i < load->n_old; i++)
        if (load->old[i].run_id) run_curve_free(&load->old[i].curve);
    free(load);
    for (int i = 0; i < st->n_runs; i++) {
        MaskedRun *r = &st->runs[i];
        if (r->curve_final) continue;
        if (run_curve_update(&r->curve, ctx->store, err)) return -1;
        r->curve_final = run_status_final(r->status);
    }
    return 0;
}

/* ---- screen ------------------------------------------------------------- */

static void *masked_create(UiContext *ctx)
{
    (void)ctx;
    MaskedState *st = calloc(1, sizeof *st);
    if (st) st->current = -1;
    return st;
}

static void masked_destroy(void *state)
{
    MaskedState *st = state;
    if (!st) return;
    for (int i = 0; i < st->n_runs; i++) run_curve_free(&st->runs[i].curve);
    claims_view_free(&st->claims);
    free(st);
}

static void masked_reload(void *state, UiContext *ctx)
{
    MaskedState *st = state;
    if (!st) return;
    char err[ERR_LEN];
    st->error[0] = 0;
    st->n_sweeps = 0;
    /* the latest MAX_MASKED_SWEEPS of those presets and tasks, oldest first */
    SweepRow *sweeps;
    int n_sweeps;
    if (sweeps_read_latest_ae(ctx->store, MAX_MASKED_SWEEPS, &sweeps, &n_sweeps, err)) {
        snprintf(st->error, sizeof st->error, "%s", err);
        return;
    }
    for (int i = 0; i < n_sweeps && st->n_sweeps < MAX_MASKED_SWEEPS; i++) {
        MaskedSweep *m = &st->sweeps[st->n_sweeps++];
        m->id = sweeps[i].id;
        ui_copy_text(m->name, sizeof m->name, sweeps[i].preset);
        ui_copy_text(m->label, sizeof m->label, sweeps[i].name);
    }
    free(sweeps);
    st->current = st->n_sweeps - 1;
    for (int i = 0; i < st->n_sweeps; i++)
        if (st->sweeps[i].id == st->sweep_id) st->current = i;
    if (st->current < 0) return;
    const MaskedSweep *s = &st->sweeps[st->current];
    /* a study file's sweep is known by the text stored with it */
    if (study_of_sweep(ctx->store, s->name, &st->study, err) || load_runs(st, ctx, s->id, err)) {
        snprintf(st->error, sizeof st->error, "%s", err);
        return;
    }
    int n_done = 0;
    for (int i = 0; i < st->n_runs; i++) n_done += st->runs[i].status == RUN_DONE;
    claims_view_update(&st->claims, ctx, s->name, s->id, n_done);
}

static const char *arch_title(const char *arch)
{
    if (!strcmp(arch, "mixer")) return "masked mixer";
    if (!strcmp(arch, "attention")) return "attention (Transformer)";
    return arch;
}

static void draw_panel(MaskedState *st, UiContext *ctx, const char *arch, int top, int height, int x, int width)
{
    /* group g's runs get series g, g + 8, g + 16, ...: ui_plot colours
       series s with colour s % 8, so every run of a group has its colour */
    int per_group[MAX_GROUPS] = {0}, n_series = 0;
    PlotSeries series[2 * MAX_GROUPS * MAX_RUNS];   /* the lines, then (no colours) their end markers */
    memset(series, 0, sizeof series);
    for (int i = 0; i < st->n_runs; i++) {
        const MaskedRun *r = &st->runs[i];
        if (r->group < 0 || (arch && strcmp(r->arch, arch))) continue;
        int s = r->group + MAX_GROUPS * per_group[r->group]++;
        if (s >= MAX_GROUPS * MAX_RUNS) continue;
        const CurvePoints *p = st->valid_curves ? &r->curve.valid : &r->curve.train;
        series[s] = (PlotSeries){p->x[CURVE_X_STEPS], p->loss, p->n, PLOT_LINE, 0, 0};
        if (s + 1 > n_series) n_series = s + 1;
    }
    /* without colours a group's lines end in its letter (the table's legend) */
    int n_lines = n_series;
    for (int s = 0; s < n_lines && !ctx->colors; s++) {
        if (series[s].n == 0) continue;
        int last = series[s].n - 1;
        series[n_series++] = (PlotSeries){series[s].x + last, series[s].y + last, 1, PLOT_MARKERS,
                                          (char)('a' + s % MAX_GROUPS), 0};
    }
    int title = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    ui_text(top, x, width, title, "%s", arch ? arch_title(arch) : "all architectures");
    ui_plot(ctx, top + 1, x, height - 1, width - 1, series, n_series, st->log_y);
}

static void draw_table(MaskedState *st, UiContext *ctx, int top, int width)
{
    int head = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    int label_w = 10;
    char label[160];
    for (int g = 0; g < st->n_groups; g++) {
        group_label(st, &st->groups[g], 0, label, sizeof label);
        label_w = MB_MAX(label_w, (int)strlen(label));
    }
    label_w = MB_MIN(label_w + 1, 32);
    int x0 = 3 + label_w;
    ui_text(top, 0, width, head, "   %-*s%9s%9s%9s%9s  %s", label_w, "group", "train", "best vl", "test", "acc %",
            "runs");
    /* the lowest of each loss column, the highest accuracy */
    double cols[4][MAX_GROUPS];
    for (int g = 0; g < st->n_groups; g++) {
        const Group *grp = &st->groups[g];
        cols[0][g] = grp->train;
        cols[1][g] = grp->best_valid;
        cols[2][g] = grp->test;
        cols[3][g] = grp->test_acc * 100;
    }
    int best[4];
    for (int k = 0; k < 4; k++) best[k] = st->n_groups > 1 ? heat_best(cols[k], st->n_groups, k == 3) : -1;
    int best_attr = ctx->colors ? ui_attr(ctx, UI_PAIR_GOOD) | A_BOLD : A_BOLD | A_UNDERLINE;
    for (int g = 0; g < st->n_groups; g++) {
        const Group *grp = &st->groups[g];
        int y = top + 1 + g;
        if (ctx->colors) ui_text(y, 0, 2, ui_attr(ctx, UI_PAIR_SERIES0 + g) | A_BOLD, "%s", ctx->utf8 ? "━━" : "**");
        else ui_text(y, 0, 2, A_BOLD, "%c%s", 'a' + g, ctx->utf8 ? "━" : "*");
        group_label(st, grp, 0, label, sizeof label);
        ui_text(y, 3, label_w, 0, "%s", label);
        for (int k = 0; k < 4; k++) {
            char text[32];
            heat_format(cols[k][g], k == 3 ? 3 : 4, text, sizeof text);
            int x = x0 + 9 * k;
            if (x < width) ui_text(y, x, MB_MIN(9, width - x), best[k] == g ? best_attr : 0, "%9s", text);
        }
        char runs[64];
        if (grp->n_pending && grp->running_total > 0)
            snprintf(runs, sizeof runs, "%d/%d done, %lld%%", grp->n_done, grp->n_runs,
                     (long long)(100 * grp->running_steps / grp->running_total));
        else
            snprintf(runs, sizeof runs, "%d/%d done", grp->n_done, grp->n_runs);
        int x = x0 + 36 + 2;
        if (x < width) ui_text(y, x, width - x, grp->n_done == grp->n_runs ? 0 : ui_attr(ctx, UI_PAIR_WARN), "%s", runs);
    }
}

/* How many of a's coordinates (task, extra) b shares. */
static int shared(const Group *a, const Group *b)
{
    return !strcmp(a->task, b->task) + !strcmp(a->extra, b->extra);
}

/* "which is lower" lines; returns how many were written. */
static int draw_summary(MaskedState *st, UiContext *ctx, int top, int rows, int width)
{
    int y = top;
    char la[160], lb[160], va[32], vb[32];
    /* each non-attention group against its closest attention group(s) */
    for (int g = 0; g < st->n_groups && y < top + rows; g++) {
        const Group *m = &st->groups[g];
        if (!strcmp(m->arch, "attention")) continue;
        int most = -1;
        for (int h = 0; h < st->n_groups; h++)
            if (!strcmp(st->groups[h].arch, "attention")) most = MB_MAX(most, shared(m, &st->groups[h]));
        for (int h = 0; h < st->n_groups && y < top + rows; h++) {
            const Group *a = &st->groups[h];
            if (strcmp(a->arch, "attention") || shared(m, a) != most) continue;
            const char *which_m, *which_a;
            double lm = group_loss(m, &which_m), lat = group_loss(a, &which_a);
            group_label(st, m, 0, la, sizeof la);
            group_label(st, a, 0, lb, sizeof lb);
            if (!isfinite(lm) || !isfinite(lat)) {
                ui_text(y++, 0, width, ui_attr(ctx, UI_PAIR_DIM), "%s vs %s: not finished yet", la, lb);
                continue;
            }
            if (strcmp(which_m, which_a)) which_m = "loss";
            heat_format(lm, 4, va, sizeof va);
            heat_format(lat, 4, vb, sizeof vb);
            const char *lower = lm < lat ? m->arch : lm > lat ? "attention" : NULL;
            if (lower)
                ui_text(y++, 0, width, 0, "%s lower by %.3g (%s): %s %s vs %s %s", lower, fabs(lm - lat), which_m, la,
                        va, lb, vb);
            else
                ui_text(y++, 0, width, 0, "equal (%s): %s %s vs %s %s", which_m, la, va, lb, vb);
        }
    }
    /* within an architecture: its groups from lowest to highest */
    for (int g = 0; g < st->n_groups && y < top + rows; g++) {
        const Group *first = &st->groups[g];
        int earlier = 0;
        for (int h = 0; h < g; h++) earlier |= !strcmp(st->groups[h].arch, first->arch);
        if (earlier) continue;
        int members[MAX_GROUPS], n = 0;
        for (int h = g; h < st->n_groups; h++)
            if (!strcmp(st->groups[h].arch, first->arch)) {
                const char *which;
                if (isfinite(group_loss(&st->groups[h], &which))) members[n++] = h;
            }
        if (n < 2) continue;
        for (int i = 1; i < n; i++) /* insertion sort by loss */
            for (int j = i; j > 0; j--) {
                const char *w;
                if (group_loss(&st->groups[members[j]], &w) >= group_loss(&st->groups[members[j - 1]], &w)) break;
                int t = members[j];
                members[j] = members[j - 1];
                members[j - 1] = t;
            }
        char line[512];
        size_t len = (size_t)snprintf(line, sizeof line, "%s, lowest first:", first->arch);
        for (int i = 0; i < n && len < sizeof line; i++) {
            const Group *grp = &st->groups[members[i]];
            const char *which;
            heat_format(group_loss(grp, &which), 4, va, sizeof va);
            group_label(st, grp, 1, la, sizeof la);
            len += (size_t)snprintf(line + len, sizeof line - len, "%s %s %s", i ? " <" : "", la, va);
        }
        ui_text(y++, 0, width, 0, "%s", line);
    }
    return y - top;
}

static void draw_empty(UiContext *ctx, int top, int height, int width)
{
    int y = top, bottom = top + height;
    y += ui_wrap(y, 0, width, bottom - y, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD,
                 "AE/Bidir: no autoencoder, bidirectional or completion sweep in this store, and no other sweep "
                 "that trains autoencode, bidir or complete");
    y++;
    y += ui_wrap(y, 2, width - 2, bottom - y, 0,
                 "These are the Masked Mixers II comparisons of the masked mixer and attention:");
    for (int i = 0; i < N_PRESETS && y < bottom; i++) {
        const Preset *p = preset_find(PRESETS[i]);
        ui_text(y, 4, width - 4, A_BOLD, "%s", PRESETS[i]);
        y += MB_MAX(1, ui_wrap(y, 19, width - 19, bottom - y, 0, p ? p->what : ""));
    }
    y++;
    if (y < bottom)
        ui_wrap(y, 2, width - 2, bottom - y, 0,
                "Queue one with `mixbench sweep autoencoder` (or bidirectional, completion), or from the New sweep "
                "screen; the workbench's workers run it and this screen draws the mixer beside attention as the "
                "runs train.  A sweep or study of your own with task=autoencode, bidir or complete shows here "
                "too.");
}

static void masked_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    MaskedState *st = state;
    if (!st) return;
    int bottom = top + height, y = top;
    if (st->error[0]) ui_text(bottom - 1, 0, width, ui_attr(ctx, UI_PAIR_BAD), "%s", st->error);
    if (st->current < 0) {
        draw_empty(ctx, top, height, width);
        return;
    }
    const MaskedSweep *s = &st->sweeps[st->current];
    const Preset *preset = st->study;
    char name[96];
    snprintf(name, sizeof name, "AE/Bidir: sweep %lld %s", (long long)s->id, s->label);
    ui_text(y, 0, width, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "%s", name);
    int x = (int)strlen(name) + 3;
    if (x < width)
        ui_text(y, x, width - x, ui_attr(ctx, UI_PAIR_DIM), "(%d of %d, [ ] switch)", st->current + 1, st->n_sweeps);
    y++;
    if (preset) ui_text(y++, 0, width, ui_attr(ctx, UI_PAIR_DIM), "%s: %s", preset->source, preset->what);
    if (st->n_runs == 0) {
        ui_text(y + 1, 2, width - 2, 0, "this sweep has no jobs");
        return;
    }

    /* panels: one per architecture, mixer first; one for all when narrow */
    const char *archs[MAX_GROUPS];
    int n_archs = 0;
    for (int rank = 0; rank < 3; rank++)
        for (int g = 0; g < st->n_groups; g++) {
            if (arch_rank(st->groups[g].arch) != rank) continue;
            int seen = 0;
            for (int a = 0; a < n_archs; a++) seen |= !strcmp(archs[a], st->groups[g].arch);
            if (!seen) archs[n_archs++] = st->groups[g].arch;
        }
    int table_rows = st->n_groups + 1;
    /* with claims to show, the "which is lower" lines give them room */
    int summary_rows = MB_MIN(st->claims.n ? 3 : 4, st->n_groups + 1);
    /* the claims: a title, each claim, and its numbers while the plot keeps
       at least 8 rows */
    int claims_rows = st->claims.n ? 1 + st->claims.n : st->claims.error[0] ? 1 : 0;
    int spare = bottom - y - 1 - table_rows - 1 - summary_rows - claims_rows - 8;
    claims_rows += MB_MAX(0, MB_MIN(spare, 2 * st->claims.n));
    int plot_height = bottom - y - 1 - table_rows - 1 - summary_rows - claims_rows;
    if (plot_height >= 5) {
        ui_text(y++, 0, width, ui_attr(ctx, UI_PAIR_DIM), "%s vs steps, %s y   (v %s, l log)",
                st->valid_curves ? "valid loss" : "smoothed train loss", st->log_y ? "log" : "linear",
                st->valid_curves ? "train loss" : "valid loss");
        if (n_archs >= 2 && width / n_archs >= MIN_PANEL_WIDTH) {
            int panel_w = width / n_archs;
            for (int a = 0; a < n_archs; a++) draw_panel(st, ctx, archs[a], y, plot_height, a * panel_w, panel_w);
        } else {
            draw_panel(st, ctx, NULL, y, plot_height, 0, width);
        }
        y += plot_height;
    }
    if (y + 1 < bottom) y++;
    draw_table(st, ctx, y, width);
    y += table_rows;
    if (y < bottom) y += draw_summary(st, ctx, y, MB_MIN(summary_rows, bottom - y - claims_rows), width);
    if (y < bottom) claims_view_draw(&st->claims, ctx, y, width, bottom - y);
}

static int masked_key(void *state, UiContext *ctx, int ch)
{
    MaskedState *st = state;
    if (!st) return 0;
    switch (ch) {
    case '[':
    case ']': {
        if (st->n_sweeps == 0) {
            ui_say(ctx, "no autoencoder, bidirectional or completion sweep yet");
            return 1;
        }
        int i = st->current + (ch == ']' ? 1 : -1);
        if (i < 0) i = st->n_sweeps - 1;
        if (i >= st->n_sweeps) i = 0;
        st->sweep_id = st->sweeps[i].id;
        return 1;
    }
    case 'v':
        st->valid_curves = !st->valid_curves;
        return 1;
    case 'l':
        st->log_y = !st->log_y;
        return 1;
    case UI_FIGURE_KEY: {
        Figure fig;
        char err[ERR_LEN] = "no autoencoder, bidirectional or completion sweep yet", name[48];
        int64_t id = st->current >= 0 ? st->sweeps[st->current].id : 0;
        snprintf(name, sizeof name, "ae-sweep%lld", (long long)id);
        ui_figure_save(ctx, &fig, id ? figure_ae(ctx->store, id, st->valid_curves, st->log_y, &fig, err) : (figure_init(&fig), -1), err, name);
        return 1;
    }
    default:
        return 0;
    }
}

const UiScreen ui_screen_masked = {
    "AE/Bidir",
    "[ ] sweep  v train/valid  l log",
    "[ / ]           previous / next autoencoder, bidirectional or\n"
    "                completion sweep, or other sweep with a job of\n"
    "                task autoencode, bidir or complete\n"
    "v               curves: smoothed train loss / valid loss\n"
    "l               y axis: log / linear\n"
    "P               write this figure as SVG beside the store (mixbench plot)\n"
    "                a panel per architecture (masked mixer, attention),\n"
    "                a colour per group of runs (task and the preset's\n"
    "                axes; seeds pooled); the table: each group's final\n"
    "                losses, means over seeds, the best highlighted;\n"
    "                below it, which is lower; then each claim of the\n"
    "                preset's paper (or the study's own) judged on this\n"
    "                sweep (holds, does not hold, undecided, not run) and\n"
    "                its numbers",
    masked_create,
    masked_destroy,
    masked_reload,
    masked_draw,
    masked_key,
    NULL,
    NULL,
};
