/*
 * screen_runs.c — the Runs screen (tab 1): every run in the store not in
 * the trash, one row each (id, arch, task, data, status, step/total,
 * smoothed train loss, last valid loss, tokens/s, ETA, the sweep's axes,
 * tags, a sparkline of the train loss: ui/runs_table.c draws them),
 * sortable, filtered by the expression of experiments/run_filter.h, with
 * the job controls (pause / resume / cancel), the organising keys
 * (ui/organise.h: delete, undo, tag, note, rename, star), the picking of
 * runs for Compare, and on an empty store a welcome that queues the demo
 * sweep.
 *
 * Not for: training (the scheduler does it) or a run's details (the Run
 * screen).  Rows come from one read of every run (db/runs_read.h: the
 * results view's last metric and valid evaluation); running jobs are overlaid with
 * the scheduler's live progress, so they move between the workers'
 * once-a-second writes.  Sparklines are cached per run and extended
 * incrementally (only metrics past the last cached step), only for rows on
 * screen, and at most once a second for running ones.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs_read.h"
#include "engine/common.h"
#include "experiments/adaptive.h"
#include "experiments/extend.h"
#include "experiments/format.h"
#include "experiments/pivot.h"
#include "experiments/stats.h"
#include "experiments/sweep_queue.h"
#include "ui/runs_table.h"
#include "ui/runs_view.h"

#define MAX_LIVE 64              /* running jobs overlaid from the scheduler */
#define SPARK_REFRESH_SECONDS 1.0
#define SPARK_SAMPLES (8 * SPARK_MAX_WIDTH)   /* points a sparkline's first fetch reads at most */
#define SPARK_BUDGET_SECONDS 0.03             /* first fetches a reload makes at most */

const char *const RUNS_SORT_NAMES[N_SORTS] = {"id",   "arch",       "task",       "data",     "status",
                                              "step", "train loss", "valid loss", "tokens/s", "ETA"};

/* ---- helpers ------------------------------------------------------------ */

const char *runs_status_text(const RunRow *r, char *buf, size_t cap)
{
    if (r->n_seeds == 0) return run_status_name(r->run.status);
    snprintf(buf, cap, "%d seeds", r->n_seeds);
    return buf;
}

/* Sorting by status: the live ones first, a group's "N seeds" last. */
static int status_rank(const RunRow *r)
{
    static const int rank[RUN_STATUS_COUNT] = {
        [RUN_RUNNING] = 0, [RUN_QUEUED] = 1, [RUN_PAUSED] = 2, [RUN_INTERRUPTED] = 3,
        [RUN_DONE] = 4,    [RUN_FAILED] = 5, [RUN_DIVERGED] = 6, [RUN_CANCELLED] = 7, [RUN_PRUNED] = 8,
    };
    return r->n_seeds || r->run.status >= RUN_STATUS_COUNT ? RUN_STATUS_COUNT : rank[r->run.status];
}

/* ---- loading ------------------------------------------------------------ */

static void spark_free(Spark *sp)
{
    free(sp->loss);
    memset(sp, 0, sizeof *sp);
}

/* Fetches the metrics past the last cached step (those with a smoothed loss). */
static int spark_fetch(Spark *sp, Store *store, int64_t run_id, RunStatus status, char *err)
{
    RunCurvePoint *points;
    int n;
    /* the first fetch samples a long history (SPARK_SAMPLES points by index
       seeks); later ones add the steps since */
    int rc = sp->last_step == 0
                 ? runs_read_curve_sampled(store, run_id, RUN_CURVE_TRAIN_SMOOTH, 0, SPARK_SAMPLES, &points, &n, err)
                 : runs_read_curve(store, run_id, RUN_CURVE_TRAIN_SMOOTH, sp->last_step, 0, &points, &n, err);
    for (int i = 0; i < n; i++) {
        if (!isfinite(points[i].value)) continue;
        if (sp->n == sp->cap) {
            int cap = sp->cap ? 2 * sp->cap : 256;
            double *grown = realloc(sp->loss, (size_t)cap * sizeof *grown);
            if (!grown) break;
            sp->loss = grown;
            sp->cap = cap;
        }
        sp->last_step = points[i].step;
        sp->loss[sp->n++] = points[i].value;
    }
    free(points);
    sp->fetched_at = now_seconds();
    sp->fetched_status = status;
    return rc;
}

/* Replaces the rows with runs (ascending by id, as the old rows), carrying
   over the sparklines of the runs that stay. */
static int set_rows(RunsState *st, const RunSummary *runs, int n)
{
    RunRow *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
    if (!rows) return -1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        RunRow *r = &rows[i];
        r->run = runs[i];
        r->eta = NAN;
        while (k < st->n && st->rows[k].run.id < r->run.id) k++;
        if (k < st->n && st->rows[k].run.id == r->run.id) {
            r->spark = st->rows[k].spark;
            memset(&st->rows[k].spark, 0, sizeof(Spark));
        }
    }
    for (int i = 0; i < st->n; i++) spark_free(&st->rows[i].spark);
    free(st->rows);
    st->rows = rows;
    st->n = st->cap = n;
    return 0;
}

/* Running jobs: the workers' live step, loss and speed. */
static void overlay_progress(RunsState *st, UiContext *ctx)
{
    if (!ctx->scheduler) return;
    JobProgress live[MAX_LIVE];
    int n = scheduler_progress(ctx->scheduler, live, MAX_LIVE);
    for (int k = 0; k < n; k++) {
        if (live[k].status != RUN_RUNNING) continue;
        for (int i = 0; i < st->n; i++) {
            RunSummary *r = &st->rows[i].run;
            if (r->id != live[k].run_id) continue;
            if (r->status != RUN_RUNNING) break; /* the store knows it ended */
            if (live[k].step >= r->steps_done) {
                r->steps_done = live[k].step;
                if (isfinite(live[k].loss_smooth)) r->train_loss = live[k].loss_smooth;
            }
            if (live[k].total_steps > 0) r->total_steps = live[k].total_steps;
            if (isfinite(live[k].valid_loss) && live[k].valid_loss > 0) r->valid_loss = live[k].valid_loss;
            if (live[k].tokens_per_s > 0) r->tokens_per_s = live[k].tokens_per_s;
            st->rows[i].eta = live[k].eta_seconds;
            break;
        }
    }
}

/* ---- filtering and sorting ---------------------------------------------- */

/* Missing numbers sort last in both directions. */
static int cmp_number(double a, double b, int descending)
{
    int fa = isfinite(a), fb = isfinite(b);
    if (!fa || !fb) return fa == fb ? 0 : fa ? -1 : 1;
    int c = a < b ? -1 : a > b;
    return descending ? -c : c;
}

static int cmp_rows(const RunRow *ra, const RunRow *rb, SortKey key, int descending)
{
    const RunSummary *a = &ra->run, *b = &rb->run;
    int c = 0;
    switch (key) {
    case SORT_ARCH: c = strcmp(a->arch, b->arch); break;
    case SORT_TASK: c = strcmp(a->task, b->task); break;
    case SORT_DATA: c = strcmp(a->data, b->data); break;
    case SORT_STATUS: c = status_rank(ra) - status_rank(rb); break;
    case SORT_STEP: c = cmp_number((double)a->steps_done, (double)b->steps_done, descending); break;
    case SORT_ETA: c = cmp_number(ra->eta, rb->eta, descending); break;
    case SORT_TRAIN: c = cmp_number(a->train_loss, b->train_loss, descending); break;
    case SORT_VALID: c = cmp_number(a->valid_loss, b->valid_loss, descending); break;
    case SORT_SPEED: c = cmp_number(a->tokens_per_s, b->tokens_per_s, descending); break;
    default: break;
    }
    if (key == SORT_ARCH || key == SORT_TASK || key == SORT_DATA || key == SORT_STATUS) c = descending ? -c : c;
    if (c == 0) c = (a->id > b->id) - (a->id < b->id); /* ties by id, always ascending */
    if (key == SORT_ID && descending) c = -c;
    return c;
}

/* The seed groups of the rows (st->rows ascend by id, so a group's first
   member is its lowest id; experiments/pivot.h): means over the finished
   members, the livest status of one not done. */
static void build_groups(RunsState *st)
{
    GroupRow *g = realloc(st->groups, (size_t)(st->n ? st->n : 1) * sizeof *g);
    RunSummary *runs = malloc((size_t)(st->n ? st->n : 1) * sizeof *runs);
    SeedGroup *sg = malloc((size_t)(st->n ? st->n : 1) * sizeof *sg);
    int *member = malloc((size_t)(st->n ? st->n : 1) * sizeof *member);
    st->n_groups = 0;
    if (g) st->groups = g;
    for (int i = 0; runs && i < st->n; i++) runs[i] = st->rows[i].run;
    int n = 0;
    if (!g || !runs || !sg || !member || pivot_seed_groups(runs, st->n, sg, &n, member)) n = 0;
    for (int k = 0; k < n; k++) {
        GroupRow *grp = &g[k];
        memset(grp, 0, sizeof *grp);
        grp->row = st->rows[sg[k].first];
        memset(&grp->row.spark, 0, sizeof grp->row.spark);
        grp->n = sg[k].n;
        grp->n_not_learning = sg[k].n_not_learning;
        for (int i = 0, m = 0; i < st->n && m < GROUP_IDS; i++)
            if (member[i] == k) grp->ids[m++] = st->rows[i].run.id;
        grp->train = sg[k].train, grp->valid = sg[k].valid, grp->test = sg[k].test, grp->speed = sg[k].speed;
        RunSummary *row = &grp->row.run;
        row->train_loss = grp->train.mean;
        row->valid_loss = grp->valid.mean;
        row->test_loss = grp->test.mean;
        row->tokens_per_s = grp->speed.mean;
        row->not_learning = grp->n_not_learning > 0;
        int live = sg[k].live;
        if (live >= 0) {
            row->status = st->rows[live].run.status;
            row->steps_done = st->rows[live].run.steps_done;
            row->total_steps = st->rows[live].run.total_steps;
            grp->row.eta = st->rows[live].eta;
        } else if (grp->n > 1) {
            grp->row.n_seeds = grp->n;
        }
    }
    st->n_groups = n;
    free(runs);
    free(sg);
    free(member);
}

RunRow *runs_row_at(RunsState *st, int i)
{
    return st->grouped ? &st->groups[i].row : &st->rows[i];
}

static int64_t visible_id(const void *rows, int i)
{
    RunsState *st = (RunsState *)rows;
    return runs_row_at(st, st->visible[i])->run.id;
}

/* A group's row stands for each of its members. */
static int visible_holds(const void *rows, int i, int64_t id)
{
    RunsState *st = (RunsState *)rows;
    if (runs_row_at(st, st->visible[i])->run.id == id) return 1;
    if (st->grouped)
        for (int k = 0; k < st->groups[st->visible[i]].n && k < GROUP_IDS; k++)
            if (st->groups[st->visible[i]].ids[k] == id) return 1;
    return 0;
}

static const UiListRows VISIBLE_ROWS = {visible_id, visible_holds, NULL};

/* Insertion sort: a few hundred rows, mostly in order from the last time. */
static void rebuild_visible(RunsState *st)
{
    if (st->grouped) build_groups(st);
    int n = st->grouped ? st->n_groups : st->n;
    int *vis = realloc(st->visible, (size_t)(n ? n : 1) * sizeof *vis);
    if (!vis) {
        st->n_visible = 0; /* the old indices may point past the new rows */
        ui_list_set_rows(&st->list, st, 0);
        return;
    }
    st->visible = vis;
    st->n_visible = 0;
    /* the filter's text parsed (experiments/run_filter.h); one that does not
       parse keeps no row, and the screen says why */
    st->filter_error[0] = 0;
    if (run_filter_parse(st->list.filter, &st->filter, st->filter_error)) n = 0;
    for (int i = 0; i < n; i++)
        if (run_filter_match(&st->filter, &runs_row_at(st, i)->run)) vis[st->n_visible++] = i;
    for (int i = 1; i < st->n_visible; i++) {
        int v = vis[i], j = i;
        while (j > 0 && cmp_rows(runs_row_at(st, vis[j - 1]), runs_row_at(st, v), st->sort, st->descending) > 0) {
            vis[j] = vis[j - 1];
            j--;
        }
        vis[j] = v;
    }
    /* keep the selected run (or its group) under the cursor */
    ui_list_set_rows(&st->list, st, st->n_visible);
}

static const RunSummary *selected_run(RunsState *st)
{
    int i = ui_list_selected(&st->list);
    return i >= 0 ? &runs_row_at(st, st->visible[i])->run : NULL;
}

/* ---- the screen --------------------------------------------------------- */

/* The sort, its order, the filter and the grouping the store remembers
   ("id desc", "arch=mixer", "1"). */
static void recall_view(RunsState *st, UiContext *ctx)
{
    char value[sizeof st->list.filter];
    if (ui_setting_get(ctx, "runs.sort", value, sizeof value)) {
        for (int k = 0; k < N_SORTS; k++)
            if (!strncmp(value, RUNS_SORT_NAMES[k], strlen(RUNS_SORT_NAMES[k])) &&
                value[strlen(RUNS_SORT_NAMES[k])] == ' ')
                st->sort = (SortKey)k;
        st->descending = strstr(value, " desc") != NULL;
    }
    if (ui_setting_get(ctx, "runs.filter", value, sizeof value)) snprintf(st->list.filter, sizeof st->list.filter, "%s", value);
    st->grouped = ui_setting_get(ctx, "runs.grouped", value, sizeof value) && !strcmp(value, "1");
}

static void remember_view(const RunsState *st, UiContext *ctx)
{
    char sort[64];
    snprintf(sort, sizeof sort, "%s %s", RUNS_SORT_NAMES[st->sort], st->descending ? "desc" : "asc");
    ui_setting_put(ctx, "runs.sort", sort);
    ui_setting_put(ctx, "runs.filter", st->list.filter);
    ui_setting_put(ctx, "runs.grouped", st->grouped ? "1" : "0");
}

static void *runs_create(UiContext *ctx)
{
    RunsState *st = calloc(1, sizeof *st);
    if (st) {
        st->list.of = &VISIBLE_ROWS;
        st->list.page = 10;
        recall_view(st, ctx);
    }
    return st;
}

static void runs_destroy(void *state)
{
    RunsState *st = state;
    if (!st) return;
    for (int i = 0; i < st->n; i++) spark_free(&st->rows[i].spark);
    free(st->rows);
    free(st->visible);
    free(st->groups);
    free(st);
}

static void runs_reload(void *state, UiContext *ctx)
{
    RunsState *st = state;
    if (!st) return;
    char err[ERR_LEN];
    RunSummary *runs;
    int n;
    if (runs_read_all(ctx->store, &runs, &n, err)) ui_say(ctx, "runs: %s", err);
    else if (set_rows(st, runs, n)) ui_say(ctx, "runs: out of memory");
    free(runs);
    st->loaded = 1;
    overlay_progress(st, ctx);
    rebuild_visible(st);

    /* sparklines of the rows on screen; the first fetches stop after
       SPARK_BUDGET_SECONDS (a page of long runs in a big store), the next
       reload, half a second later, goes on: the keys stay quick */
    double now = now_seconds();
    const UiList *l = &st->list;
    for (int i = l->scroll; i < st->n_visible && i < l->scroll + l->page && !st->grouped; i++) {
        const RunSummary *r = &st->rows[st->visible[i]].run;
        Spark *sp = &st->rows[st->visible[i]].spark;
        if (sp->fetched_at == 0 && now_seconds() - now > SPARK_BUDGET_SECONDS) continue;
        int due = sp->fetched_at == 0 || sp->fetched_status != r->status ||
                  (r->status == RUN_RUNNING && now - sp->fetched_at >= SPARK_REFRESH_SECONDS);
        if (due && spark_fetch(sp, ctx->store, r->id, r->status, err))
            ui_say(ctx, "runs: %s", err);
    }
}

static void runs_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    runs_view_draw(state, ctx, top, height, width);
}

/* ---- keys --------------------------------------------------------------- */

static void queue_demo(RunsState *st, UiContext *ctx)
{
    if (st->n > 0) {
        ui_say(ctx, "the demo is offered on an empty store only");
        return;
    }
    char err[ERR_LEN];
    char spec[] = DEMO_SWEEP_SPEC;
    char *argv[1] = {spec};
    Config base;
    config_defaults(&base);
    Sweep sw;
    if (sweep_parse(1, argv, &base, &sw, err)) {
        ui_say(ctx, "demo: %s", err);
        return;
    }
    snprintf(sw.name, sizeof sw.name, "demo");
    int64_t sweep_id = 0;
    if (sweep_enqueue(ctx->store, &sw, 0, &sweep_id, err))
        ui_say(ctx, "demo: %s", err);
    else
        ui_say(ctx, "demo sweep %lld queued: %d jobs (attention, mixer, dispatcher, cumsum)", (long long)sweep_id,
               sw.n_jobs);
    sweep_free(&sw);
}

static void toggle_compare(UiContext *ctx, int64_t id)
{
    for (int k = 0; k < ctx->n_compare; k++)
        if (ctx->compare[k] == id) {
            memmove(&ctx->compare[k], &ctx->compare[k + 1], (size_t)(ctx->n_compare - k - 1) * sizeof ctx->compare[0]);
            ctx->n_compare--;
            ui_say(ctx, "run %lld left the comparison (%d picked)", (long long)id,
                   ctx->n_compare);
            return;
        }
    if (ctx->n_compare == UI_MAX_COMPARE) {
        ui_say(ctx, "Compare holds %d runs at most: unpick one first", UI_MAX_COMPARE);
        return;
    }
    ctx->compare[ctx->n_compare++] = id;
    ui_say(ctx, "run %lld picked for Compare (%d picked; c opens Compare)",
           (long long)id, ctx->n_compare);
}

/* `e`: the selected run's new budget, twice its present one to start from. */
static void start_extend(RunsState *st, UiContext *ctx, const RunSummary *r)
{
    if (store_read_only(ctx->store)) {
        ui_say(ctx, "the store is read-only: nothing can be extended");
        return;
    }
    char text[64];
    if (r->tokens_seen > 0 && r->steps_done > 0 && r->total_steps > 0)
        snprintf(text, sizeof text, "tokens=%lld", (long long)(2 * r->total_steps * (r->tokens_seen / r->steps_done)));
    else snprintf(text, sizeof text, "steps=%lld", (long long)(2 * (r->total_steps > 0 ? r->total_steps : 1)));
    ui_field_set(&st->budget, text);
    st->extending = r->id;
}

/* A key while the new budget is typed: Enter extends (experiments/extend.h),
   Esc gives up. */
static int extend_key(RunsState *st, UiContext *ctx, int ch)
{
    if (ch == 27) {
        st->extending = 0;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        Extension x;
        char err[ERR_LEN];
        if (run_extend(ctx->store, st->extending, st->budget.text, &x, err)) ui_say(ctx, "%s", err);
        else if (x.ckpt[0])
            ui_say(ctx, "run %lld extended to %lld steps: queued to continue from step %lld", (long long)st->extending,
                   (long long)x.new_steps, (long long)x.from_step);
        else
            ui_say(ctx, "run %lld extended to %lld steps: queued to train again from the start", (long long)st->extending,
                   (long long)x.new_steps);
        st->extending = 0;
    } else {
        ui_field_key(&st->budget, ch);
    }
    return 1;
}

/* The runs the selected row stands for: the run, or every run of its seed
   group (rows ascend by id); returns how many went into ids[cap]. */
static int selected_ids(RunsState *st, int64_t *ids, int cap)
{
    int i = ui_list_selected(&st->list);
    if (i < 0) return 0;
    const RunSummary *r = &runs_row_at(st, st->visible[i])->run;
    if (!st->grouped) {
        ids[0] = r->id;
        return 1;
    }
    int n = 0;
    for (int k = 0; k < st->n && n < cap; k++)
        if (st->rows[k].run.seed_group == r->seed_group && st->rows[k].run.sweep_id == r->sweep_id)
            ids[n++] = st->rows[k].run.id;
    return n;
}

/* D, u, t, n, R, * (ui/organise.h) on the selected run or seed group. */
static int organise_key(RunsState *st, UiContext *ctx, int ch)
{
    int64_t ids[UI_UNDO_MAX];
    int n = ui_organise_typing(&st->org) ? 0 : selected_ids(st, ids, UI_UNDO_MAX), deleted = 0;
    const RunSummary *r = selected_run(st);
    if (!ui_organise_key(&st->org, ctx, ch, ids, n, r, &deleted)) return 0;
    runs_reload(st, ctx);   /* the rows as the store has them now */
    return 1;
}

static int runs_key(void *state, UiContext *ctx, int ch)
{
    RunsState *st = state;
    if (!st) return 0;
    if (st->extending) return extend_key(st, ctx, ch);
    if (ui_organise_typing(&st->org)) return organise_key(st, ctx, ch);
    int was_filtering = st->list.filtering;
    int took = ui_list_key(&st->list, ch, 1);
    if (took == UI_LIST_FILTERED) rebuild_visible(st);
    if (took && (was_filtering || took == UI_LIST_FILTERED) && !st->list.filtering)
        remember_view(st, ctx);   /* the filter kept (Enter) or cleared (Esc) */
    if (took) return 1;
    if (organise_key(st, ctx, ch)) return 1;
    const RunSummary *r = selected_run(st);
    switch (ch) {
    case '\n': case '\r': case KEY_ENTER:
        if (!r) return 1;
        ctx->run_id = r->id;
        ui_show_screen(ctx, &ui_screen_run);
        return 1;
    case 's':
        st->sort = (SortKey)((st->sort + 1) % N_SORTS);
        rebuild_visible(st);
        remember_view(st, ctx);
        ui_say(ctx, "sorted by %s (S reverses)", RUNS_SORT_NAMES[st->sort]);
        return 1;
    case 'S':
        st->descending = !st->descending;
        rebuild_visible(st);
        remember_view(st, ctx);
        return 1;
    case ' ':
        if (r) toggle_compare(ctx, r->id);
        return 1;
    case 'c':
        ui_show_screen(ctx, &ui_screen_compare);
        return 1;
    case 'p': case 'r': case 'x': case 'X':
        if (r) ui_control_run(ctx, r->id, r->arch, r->status, ch == 'X' ? 'x' : ch);
        return 1;
    case 'd':
        queue_demo(st, ctx);
        return 1;
    case 'e':
        if (r) start_extend(st, ctx, r);
        return 1;
    case 'g':
        st->grouped = !st->grouped;
        rebuild_visible(st);
        remember_view(st, ctx);
        ui_say(ctx, "%s", st->grouped ? "one row per seed group: mean of the finished seeds (g: every run)"
                                      : "every run (g: one row per seed group)");
        return 1;
    default:
        return 0;
    }
}

/* A click selects the run under it; a double click opens it. */
static int runs_mouse(void *state, UiContext *ctx, int y, int x, int double_click)
{
    (void)x;
    RunsState *st = state;
    if (!st || st->extending || st->list.filtering) return 0;
    int i = ui_list_at(&st->list, y);
    if (i < 0) return 0;
    ui_list_move(&st->list, i);
    if (double_click) runs_key(st, ctx, '\n');
    return 1;
}

static int runs_typing(void *state)
{
    RunsState *st = state;
    return st && (st->list.filtering || st->extending || ui_organise_typing(&st->org));
}

const UiScreen ui_screen_runs = {
    "Runs",
    "Enter open  / filter  space pick (+)  * star",
    "up/down j/k     move (PgUp/PgDn, Home/End); Enter opens the run\n"
    "s / S           sort by the next column / reverse the order\n"
    "/               filter: words, key=value key>v key<v key!=v (config\n"
    "                keys, axes, valid, train, test, status, star, ...),\n"
    "                tag:NAME or #NAME, !term; all must hold (Enter keeps,\n"
    "                Esc clears; / again edits it, Ctrl-U empties it)\n"
    "space / c       pick the run for Compare (8 at most) / open Compare\n"
    "                marks: + (first column) picked for Compare, * (tags\n"
    "                column) starred\n"
    "p / r / x       pause / resume / cancel the job\n"
    "e               extend a done or stopped decay=wsd run (tokens=N|steps=N)\n"
    "g               one row per seed group (runs that differ only in seed):\n"
    "                means, valid +- se and min-max; keys act on its runs\n"
    "D / Delete      delete the run (a group: its runs) to the trash, asked\n"
    "u               undo the last delete\n"
    "t / n / R / *   tag (-tag untags) / note / rename / star (protects from D)\n"
    "N / M           the run's sweep: rename it / its note\n"
    "!               after the status: not learning (unigram level)\n"
    "d               queue the demo sweep (on an empty store)",
    runs_create,
    runs_destroy,
    runs_reload,
    runs_draw,
    runs_key,
    runs_typing,
    runs_mouse,
};
