/*
 * screen_runs.c — the Runs screen (tab 1): every run in the store, one row
 * each (id, arch, task, data, status, step/total, smoothed train loss, last
 * valid loss, tokens/s, ETA, a sparkline of the train loss), sortable,
 * filterable, with the job controls (pause / resume / cancel), the picking
 * of runs for Compare, and on an empty store a welcome that queues the demo
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
#include <ctype.h>
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
#include "ui/ui.h"

#define MAX_LIVE 64              /* running jobs overlaid from the scheduler */
#define SPARK_REFRESH_SECONDS 1.0
#define SPARK_MAX_WIDTH 30
#define SPARK_SAMPLES (8 * SPARK_MAX_WIDTH)   /* points a sparkline's first fetch reads at most */
#define SPARK_BUDGET_SECONDS 0.03             /* first fetches a reload makes at most */

/* Every column of the table, in its order (the sparkline aside). */
typedef enum {
    SORT_ID, SORT_ARCH, SORT_TASK, SORT_DATA, SORT_STATUS, SORT_STEP, SORT_TRAIN, SORT_VALID, SORT_SPEED, SORT_ETA,
    N_SORTS
} SortKey;
static const char *const SORT_NAMES[N_SORTS] = {"id",   "arch",       "task",       "data",     "status",
                                                "step", "train loss", "valid loss", "tokens/s", "ETA"};

/* A run's train-loss history for its sparkline, extended as it trains. */
typedef struct {
    double *loss;                /* smoothed train loss, by step */
    int n, cap;
    int64_t last_step;           /* the last step fetched */
    double fetched_at;           /* now_seconds() of the last fetch, 0: never */
    RunStatus fetched_status;    /* the run's status then (one more fetch when it changes) */
} Spark;

typedef struct {
    RunSummary run;              /* the store's, overlaid with the scheduler's live progress */
    double eta;                  /* seconds, NAN: not known */
    int n_seeds;                 /* a group's row: its status column says "N seeds" */
    Spark spark;
} RunRow;

/* One row per seed group (the g view): a RunRow holding the means, "N
   seeds" (or the livest member's status), the first member's id. */
#define GROUP_IDS 16             /* member ids listed under the table */
typedef struct {
    RunRow row;                  /* no sparkline */
    int n, n_not_learning;
    int64_t ids[GROUP_IDS];
    SeedStats train, valid, test, speed;
} GroupRow;

typedef struct {
    RunRow *rows;                /* every run, by id */
    int n, cap;
    int *visible;                /* indices into rows (groups when grouped): filtered and sorted */
    GroupRow *groups;            /* the seed groups of rows, by first id */
    int n_groups;
    int grouped;                 /* g: one row per seed group */
    int n_visible;
    UiList list;                 /* over visible: cursor, scroll, the selected run, the filter */
    SortKey sort;
    int descending;
    int64_t extending;           /* the run whose new budget is being typed (`e`), 0 none */
    UiTextField budget;          /* its "tokens=N" or "steps=N" */
    int loaded;                  /* the store was read at least once */
} RunsState;

/* ---- helpers ------------------------------------------------------------ */

/* The data spec in a few characters: "builtin:stories" -> "stories",
   "../shared/data/ptb" -> "ptb", "../x/tinyshakespeare/input.txt" ->
   "tinyshakespeare/input.txt" clipped by the caller. */
static const char *short_data(const char *data, char *buf, size_t cap)
{
    if (!strncmp(data, "builtin:", 8)) return data + 8;
    size_t len = strlen(data);
    while (len > 1 && data[len - 1] == '/') len--;
    size_t start = len;
    while (start > 0 && data[start - 1] != '/') start--;
    /* a file: keep its folder too, which usually names the corpus */
    if (memchr(data + start, '.', len - start) && start > 1) {
        size_t dir = start - 1;
        while (dir > 0 && data[dir - 1] != '/') dir--;
        if (data[dir] != '.') start = dir;
    }
    snprintf(buf, cap, "%.*s", (int)(len - start), data + start);
    return buf;
}

/* The step column is 9 wide and holds "step/total": exact below 10,000 (a
   run visibly ticks), whole thousands below 100,000 ("12k/200k" fits where
   fmt_short's "12.3k" would not), fmt_short above. */
static void fmt_steps(int64_t n, char *out, size_t cap)
{
    if (n < 10000) snprintf(out, cap, "%lld", (long long)n);
    else if (n < 100000) snprintf(out, cap, "%lldk", (long long)(n / 1000));
    else fmt_short((double)n, out, cap);
}

/* What the status column says of a row. */
static const char *status_text(const RunRow *r, char *buf, size_t cap)
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
        [RUN_DONE] = 4,    [RUN_FAILED] = 5, [RUN_DIVERGED] = 6, [RUN_CANCELLED] = 7,
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

static int contains_ci(const char *hay, const char *needle, size_t len)
{
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < len && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k])) k++;
        if (k == len) return 1;
    }
    return 0;
}

/* Every word of the filter is in the arch, task, status, data, sweep or name. */
static int matches(const RunRow *row, const char *filter)
{
    const RunSummary *r = &row->run;
    char seeds[32];
    const char *status = status_text(row, seeds, sizeof seeds);
    const char *p = filter;
    for (;;) {
        while (*p == ' ') p++;
        if (!*p) return 1;
        size_t len = strcspn(p, " ");
        const char *fields[] = {r->arch, r->task, status, r->data, r->sweep, r->name};
        int found = 0;
        for (size_t f = 0; f < sizeof fields / sizeof fields[0] && !found; f++) found = contains_ci(fields[f], p, len);
        if (!found) return 0;
        p += len;
    }
}

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

/* The row at index i of the list shown (a run, or a group when grouped). */
static RunRow *row_at(RunsState *st, int i)
{
    return st->grouped ? &st->groups[i].row : &st->rows[i];
}

static int64_t visible_id(const void *rows, int i)
{
    RunsState *st = (RunsState *)rows;
    return row_at(st, st->visible[i])->run.id;
}

/* A group's row stands for each of its members. */
static int visible_holds(const void *rows, int i, int64_t id)
{
    RunsState *st = (RunsState *)rows;
    if (row_at(st, st->visible[i])->run.id == id) return 1;
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
    for (int i = 0; i < n; i++)
        if (matches(row_at(st, i), st->list.filter)) vis[st->n_visible++] = i;
    for (int i = 1; i < st->n_visible; i++) {
        int v = vis[i], j = i;
        while (j > 0 && cmp_rows(row_at(st, vis[j - 1]), row_at(st, v), st->sort, st->descending) > 0) {
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
    return i >= 0 ? &row_at(st, st->visible[i])->run : NULL;
}

/* ---- the screen --------------------------------------------------------- */

static void *runs_create(UiContext *ctx)
{
    (void)ctx;
    RunsState *st = calloc(1, sizeof *st);
    if (st) {
        st->list.of = &VISIBLE_ROWS;
        st->list.page = 10;
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

static void draw_welcome(UiContext *ctx, int top, int height, int width)
{
    const char *lines[] = {
        "mixbench: train and compare language models that replace self-attention",
        "",
        "The store has no runs yet.",
        "",
        "press d to queue the demo sweep",
        "(attention, mixer, dispatcher and cumsum on builtin:stories,",
        "about a minute of training)",
        "",
        "The other screens are on Tab / 1-8; ? lists every key.",
    };
    int n = (int)(sizeof lines / sizeof lines[0]);
    int y = top + (height - n) / 2;
    if (y < top) y = top;
    for (int i = 0; i < n && y + i < top + height; i++) {
        int len = (int)strlen(lines[i]);
        int x = len < width ? (width - len) / 2 : 0;
        int attr = i == 0 ? ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD : !strncmp(lines[i], "press d", 7) ? (int)A_BOLD : 0;
        ui_text(y + i, x, width - x, attr, "%s", lines[i]);
    }
}

/* Column positions for a terminal width: the fixed columns, then the data
   column and the sparkline share what is left (data first from 90
   columns on). */
typedef struct {
    int id, arch, task, data, status, step, train, valid, speed, eta, spark;
    int w_id, w_data, w_spark;
} Columns;

static Columns layout(int width, int64_t max_id)
{
    Columns c;
    c.w_id = 3;
    for (int64_t v = max_id; v >= 1000; v /= 10) c.w_id++;
    c.id = 1;
    c.arch = c.id + c.w_id + 1;
    c.task = c.arch + 12;
    int x = c.task + 6;
    int rest = width - (x + 10 + 10 + 7 + 7 + 7 + 5);
    c.w_data = rest >= 19 ? MB_MIN(rest - 10, 24) : 0;
    c.data = x;
    if (c.w_data) x += c.w_data + 1;
    c.status = x;
    c.step = c.status + 10;      /* step/total right-aligned in 9 */
    c.train = c.step + 10;
    c.valid = c.train + 7;
    c.speed = c.valid + 7;
    c.eta = c.speed + 7;
    c.spark = c.eta + 6;
    c.w_spark = MB_MIN(width - c.spark, SPARK_MAX_WIDTH);
    return c;
}

/* "not learning: unigram level (best 6.469 vs unigram 6.500)" */
static int not_learning_text(const RunSummary *r, char *out, size_t cap)
{
    return snprintf(out, cap, "not learning: unigram level (best %.3f vs unigram %.3f)", r->unigram_nats - r->unigram_gap,
                    r->unigram_nats);
}

/* The line under the table for a run: its flag or error, data, sweep,
   coordinates and name. */
static int run_line(const RunSummary *r, char *line, size_t cap)
{
    int failed = r->error[0] && run_status_error(r->status);
    int len = snprintf(line, cap, "run %lld", (long long)r->id);
    if (failed) len += snprintf(line + len, cap - len, " %s: %s", run_status_name(r->status), r->error);
    if (r->not_learning) {
        len += snprintf(line + len, cap - len, "  ");
        len += not_learning_text(r, line + len, cap - len);
    }
    if (len < (int)cap) len += snprintf(line + len, cap - len, "  data %s", r->data);
    if (r->sweep_id && len < (int)cap)
        len += snprintf(line + len, cap - len, "  sweep %lld %s", (long long)r->sweep_id, r->sweep);
    if (r->is_search && len < (int)cap) len += snprintf(line + len, cap - len, "  lr-search trial: lr %.3g", r->lr);
    else if (r->coords[0] && len < (int)cap) len += snprintf(line + len, cap - len, "  %s", r->coords);
    if (r->name[0] && len < (int)cap) len += snprintf(line + len, cap - len, "  name %s", r->name);
    return len;
}

/* "3 seeds (runs 1 2 3): valid 6.371 +- 0.002 (min 6.369, max 6.375), test
   ...; 3 of 3 not learning: unigram level" */
static int group_line(const GroupRow *g, const char *pm, char *line, size_t cap)
{
    int len = snprintf(line, cap, "%d seed%s (run%s", g->n, g->n == 1 ? "" : "s", g->n == 1 ? "" : "s");
    for (int k = 0; k < g->n && k < GROUP_IDS && len < (int)cap; k++)
        len += snprintf(line + len, cap - len, " %lld", (long long)g->ids[k]);
    if (g->n > GROUP_IDS && len < (int)cap) len += snprintf(line + len, cap - len, " ...");
    if (len < (int)cap) len += snprintf(line + len, cap - len, ")");
    const SeedStats *stats[2] = {&g->valid, &g->test};
    const char *names[2] = {"valid", "test"};
    for (int k = 0; k < 2 && len < (int)cap; k++)
        if (stats[k]->n > 0)
            len += snprintf(line + len, cap - len, "%s %s %.3f %s %.3f (min %.3f, max %.3f, %d done)",
                             k ? ";" : ":", names[k], stats[k]->mean, pm, stats[k]->se, stats[k]->min,
                             stats[k]->max, stats[k]->n);
    if (g->n_not_learning && len < (int)cap)
        len += snprintf(line + len, cap - len, "; %d of %d not learning: unigram level", g->n_not_learning, g->n);
    return len;
}

/* The summary line: counts, sort, and the filter or the budget typed. */
static void draw_summary(RunsState *st, UiContext *ctx, int top, int width)
{
    const UiList *l = &st->list;
    int running = 0, queued = 0;
    for (int i = 0; i < st->n; i++) {
        running += st->rows[i].run.status == RUN_RUNNING;
        queued += st->rows[i].run.status == RUN_QUEUED;
    }
    char summary[160];
    int len = snprintf(summary, sizeof summary, "%d run%s  %d running  %d queued   sort: %s %s", st->n,
                       st->n == 1 ? "" : "s", running, queued, SORT_NAMES[st->sort], st->descending ? "desc" : "asc");
    if (st->grouped) snprintf(summary + len, sizeof summary - len, "   %d seed groups", st->n_groups);
    ui_text(top, 1, width - 1, ui_attr(ctx, UI_PAIR_TITLE), "%s", summary);
    if (st->extending) {
        int x = (int)strlen(summary) + 4;
        char label[64];
        snprintf(label, sizeof label, "extend run %lld to ", (long long)st->extending);
        ui_text(top, x, width - x, A_BOLD, "%s", label);
        x += (int)strlen(label);
        ui_field_draw(&st->budget, 1, top, x, MB_MIN(24, width - x - 14));
        ui_text(top, x + 25, width - x - 25, ui_attr(ctx, UI_PAIR_DIM), "(Enter/Esc)");
    } else if (l->filtering || l->filter[0]) {
        int x = (int)strlen(summary) + 4;
        ui_text(top, x, width - x, l->filtering ? (int)A_BOLD : ui_attr(ctx, UI_PAIR_WARN), "filter: %s%s%s", l->filter,
                l->filtering ? "_" : "", l->filtering ? "  (Enter/Esc)" : "");
    }
}

/* The column heads at line y. */
static void draw_heads(RunsState *st, Columns c, int y, int width)
{
    int head = A_BOLD | A_UNDERLINE;
    ui_text(y, 0, width, head, "%*s", width, "");
    ui_text(y, c.id, c.w_id, head, "%*s", c.w_id, "id");
    ui_text(y, c.arch, 11, head, "arch");
    ui_text(y, c.task, 5, head, "task");
    if (c.w_data) ui_text(y, c.data, c.w_data, head, "data");
    ui_text(y, c.status, 9, head, "status");
    ui_text(y, c.step, 9, head, "%9s", "step");
    ui_text(y, c.train, 6, head, "%6s", "train");
    ui_text(y, c.valid, 6, head, "%6s", "valid");
    ui_text(y, c.speed, 6, head, "%6s", "tok/s");
    ui_text(y, c.eta, 5, head, "%5s", "ETA");
    if (c.w_spark > 0) ui_text(y, c.spark, c.w_spark, head, "%s",
                                st->grouped ? (c.w_spark >= 20 ? "valid se, min-max" : "valid se") : "loss");
}

/* Row i of the list at line y in columns c. */
static void draw_row(RunsState *st, UiContext *ctx, Columns c, int i, int y, int width)
{
    const UiList *l = &st->list;
    const RunRow *row = row_at(st, st->visible[i]);
    const RunSummary *r = &row->run;
    const GroupRow *grp = st->grouped ? &st->groups[st->visible[i]] : NULL;
    int sel = i == l->cursor;
    int base = sel ? ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD : 0;
    if (sel) ui_text(y, 0, width, base, "%*s", width, "");
    int picked = 0;
    for (int k = 0; k < ctx->n_compare; k++) picked |= ctx->compare[k] == r->id;
    if (picked) ui_text(y, 0, 1, base | A_BOLD, "*");
    ui_text(y, c.id, c.w_id, base, "%*lld", c.w_id, (long long)r->id);
    ui_text(y, c.arch, 11, base, "%s", r->arch);
    ui_text(y, c.task, 5, base, "%s", r->task);
    char buf[64];
    if (c.w_data) ui_text(y, c.data, c.w_data, base, "%s", short_data(r->data, buf, sizeof buf));
    const char *status = status_text(row, buf, sizeof buf);
    int pair = row->n_seeds == 0 ? ui_status_pair(r->status) : 0;
    ui_text(y, c.status, 9, sel ? base : ui_attr(ctx, pair), "%s", status);
    if (r->not_learning) /* in the blank before the step column */
        ui_text(y, c.status + 9, 1, sel ? base : ui_attr(ctx, UI_PAIR_BAD) | (int)A_BOLD, "!");
    char step[24], total[24];
    fmt_steps(r->steps_done, step, sizeof step);
    fmt_steps(r->total_steps, total, sizeof total);
    if (r->total_steps > 0) snprintf(buf, sizeof buf, "%s/%s", step, total);
    else snprintf(buf, sizeof buf, "%s", step);
    ui_text(y, c.step, 9, base, "%9s", buf);
    ui_text(y, c.train, 6, base, "%6s", fmt_real(r->train_loss, 3, buf, sizeof buf));
    ui_text(y, c.valid, 6, base, "%6s", fmt_real(r->valid_loss, 3, buf, sizeof buf));
    ui_text(y, c.speed, 6, base, "%6s", fmt_rate(r->tokens_per_s, buf, sizeof buf));
    /* the ETA of a running job only, blank for the others */
    buf[0] = 0;
    if (r->status == RUN_RUNNING && row->n_seeds == 0 && isfinite(row->eta) && row->eta >= 0)
        fmt_duration(row->eta, buf, sizeof buf);
    ui_text(y, c.eta, 5, base, "%5s", buf);
    if (c.w_spark > 0 && grp && grp->valid.n > 1) {
        /* the standard error, and the min-max when it fits */
        char text[96];
        int len = snprintf(text, sizeof text, "%s%.3f", ui_pm(ctx), grp->valid.se);
        if (c.w_spark >= 20) snprintf(text + len, sizeof text - len, " %.3f-%.3f", grp->valid.min, grp->valid.max);
        ui_text(y, c.spark, c.w_spark, base, "%s", text);
    } else if (c.w_spark > 0 && row->spark.n > 0) {
        char line[3 * SPARK_MAX_WIDTH + 1];
        if (plot_sparkline(row->spark.loss, row->spark.n, c.w_spark, !ctx->utf8, line, sizeof line) >= 0)
            ui_text(y, c.spark, c.w_spark, sel ? base : ui_attr(ctx, UI_PAIR_SERIES0), "%s", line);
    }
}

/* The last line: the selected run's data, sweep and coordinates (a seed
   group's members), and its sweep's tuned lr. */
static void draw_selected_line(RunsState *st, UiContext *ctx, int y, int width)
{
    const UiList *l = &st->list;
    const RunSummary *r = &row_at(st, st->visible[l->cursor])->run;
    char line[768];
    if (st->grouped) group_line(&st->groups[st->visible[l->cursor]], ui_pm(ctx), line, sizeof line);
    else {
        int len = run_line(r, line, sizeof line);
        /* its sweep's lr=tune, when it has one */
        char tuned[400], err[ERR_LEN];
        if (r->sweep_id && len < (int)sizeof line &&
            adaptive_tuned_summary(ctx->store, r->sweep_id, tuned, sizeof tuned, err) == 0 && tuned[0])
            snprintf(line + len, sizeof line - (size_t)len, "  %s", tuned);
    }
    int failed = !st->grouped && r->error[0] && run_status_error(r->status);
    int flag = r->not_learning || failed ? UI_PAIR_BAD : UI_PAIR_DIM;
    ui_text(y, 1, width - 1, ui_attr(ctx, flag), "%s", line);
}

static void runs_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    RunsState *st = state;
    if (!st || height < 3) return;
    UiList *l = &st->list;
    if (st->loaded && st->n == 0 && !l->filter[0] && !l->filtering) {
        l->page = 1;
        draw_welcome(ctx, top, height, width);
        return;
    }
    draw_summary(st, ctx, top, width);
    int64_t max_id = st->n ? st->rows[st->n - 1].run.id : 1;
    Columns c = layout(width, max_id);
    draw_heads(st, c, top + 1, width);
    /* the last row: the selected run's data, sweep and coordinates (the
       data column is there from 90 columns only) */
    ui_list_fit(l, top + 2, height - 3);
    if (st->n_visible == 0) {
        ui_text(top + 3, 2, width - 2, ui_attr(ctx, UI_PAIR_DIM), "no run matches \"%s\" (Esc clears the filter)",
                l->filter);
        return;
    }
    for (int i = l->scroll; i < st->n_visible && i < l->scroll + l->page; i++)
        draw_row(st, ctx, c, i, top + 2 + i - l->scroll, width);
    if (ui_list_selected(l) >= 0) draw_selected_line(st, ctx, top + height - 1, width);
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

static int runs_key(void *state, UiContext *ctx, int ch)
{
    RunsState *st = state;
    if (!st) return 0;
    if (st->extending) return extend_key(st, ctx, ch);
    int took = ui_list_key(&st->list, ch, 1);
    if (took == UI_LIST_FILTERED) rebuild_visible(st);
    if (took) return 1;
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
        ui_say(ctx, "sorted by %s (S reverses)", SORT_NAMES[st->sort]);
        return 1;
    case 'S':
        st->descending = !st->descending;
        rebuild_visible(st);
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
    return st && (st->list.filtering || st->extending);
}

const UiScreen ui_screen_runs = {
    "Runs",
    "Enter open  s sort  / filter  space pick  g seeds",
    "up/down j/k     move (PgUp/PgDn, Home/End)\n"
    "Enter           open the run (Run screen)\n"
    "s / S           sort by the next column (id, arch, task, data, status, step,\n"
    "                train, valid, tokens/s, ETA) / reverse the order\n"
    "/               filter by arch, task, status, data, sweep or name (Enter keeps, Esc clears)\n"
    "space           pick / unpick the run for Compare (* in the row, 8 at most)\n"
    "c               open Compare\n"
    "p / r / x       pause / resume / cancel the job\n"
    "e               extend a done or stopped decay=wsd run to a larger budget\n"
    "                (tokens=N or steps=N; it continues from before its cool-down)\n"
    "g               one row per seed group (runs that differ only in seed):\n"
    "                the means of its finished runs, valid +- standard error\n"
    "                and min-max; the line below: every member and its test\n"
    "                loss; Enter, space, p/r/x act on its first run\n"
    "!               after the status: not learning (ended less than 0.1\n"
    "                nat below the dataset's unigram entropy)\n"
    "d               queue the demo sweep (on an empty store)",
    runs_create,
    runs_destroy,
    runs_reload,
    runs_draw,
    runs_key,
    runs_typing,
    runs_mouse,
};
