/*
 * runs_table.c — the drawing of the Runs screen (runs_view.h): the summary
 * line (counts, sort, the filter or what is typed), the table, and the
 * line under it (the selected run's data, sweep and point, or a seed
 * group's members and statistics).
 *
 * The columns are laid out for the width: id, arch, task, data (from 90
 * columns), status, step, train, valid, answer (the answer accuracy,
 * while a row shown is on data that scores only answers: builtin:mqar,
 * copy, selective-copy), tok/s, ETA (while a row shown is
 * running: the others have none), then the sweep's axes
 * (one column each, or their values in one "point" column when they do not
 * fit), the tags (* for a starred run) and the sparkline in what is left.
 * Under 70 columns the ETA, tok/s, train and task columns go, in that
 * order, until the rest fits; a column is drawn whole or not at all, and
 * nothing is written past the last column.  A run picked for Compare has
 * "+" in column 0 (not "*", the tags' mark of a starred run).
 *
 * Not for: loading, filtering, sorting or keys (screen_runs.c).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/data/data.h"
#include "experiments/adaptive.h"
#include "experiments/format.h"
#include "ui/runs_table.h"

#define MAX_AXES 8
#define AXIS_MAX_WIDTH 12
#define TAGS_MAX_WIDTH 16

/* ---- text of the cells ---------------------------------------------------- */

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

/* The tags cell: "*" first for a starred run. */
static void tags_text(const RunSummary *r, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s%s", r->starred ? "*" : "", r->starred && r->tags[0] ? " " : "", r->tags);
}

/* ---- the columns ---------------------------------------------------------- */

typedef enum { C_ID, C_ARCH, C_TASK, C_DATA, C_STATUS, C_STEP, C_TRAIN, C_VALID, C_ANSWER, C_SPEED, C_ETA, C_AXES,
               C_TAGS, C_SPARK, N_COLS } Col;

typedef struct {
    int x[N_COLS], w[N_COLS];    /* w 0: not shown */
    int n_axes;                  /* the sweep's axes among the rows shown (seed left out when grouped) */
    char axis[MAX_AXES][32];
    int axis_w[MAX_AXES];
    int point;                   /* the axes as one column of values ("2,4") */
} Columns;

/* The coordinate keys of the rows shown, in first-seen order, and widths. */
static void find_axes(RunsState *st, Columns *c)
{
    for (int i = 0; i < st->n_visible; i++) {
        const RunSummary *r = &runs_row_at(st, st->visible[i])->run;
        for (const char *p = r->coords; *p;) {
            size_t len = strcspn(p, " "), klen = strcspn(p, "=");
            char key[32];
            snprintf(key, sizeof key, "%.*s", (int)MB_MIN(klen, len), p);
            p += len;
            while (*p == ' ') p++;
            if (!strcmp(key, "arch") || !strcmp(key, "task") || !strcmp(key, "data") ||
                (st->grouped && !strcmp(key, "seed")))
                continue;
            int k = 0;
            while (k < c->n_axes && strcmp(c->axis[k], key)) k++;
            if (k == c->n_axes) {
                if (k == MAX_AXES) continue;
                snprintf(c->axis[c->n_axes], sizeof c->axis[0], "%s", key);
                c->axis_w[c->n_axes++] = (int)strlen(key);
            }
            int vlen = klen < len ? (int)(len - klen - 1) : 0;
            c->axis_w[k] = MB_MIN(AXIS_MAX_WIDTH, MB_MAX(c->axis_w[k], vlen));
        }
    }
}

/* The widest tags cell of the rows shown (0: none has tags or a star). */
static int tags_width(RunsState *st)
{
    int w = 0;
    char text[300];
    for (int i = 0; i < st->n_visible; i++) {
        tags_text(&runs_row_at(st, st->visible[i])->run, text, sizeof text);
        w = MB_MAX(w, (int)strlen(text));
    }
    return w ? MB_MIN(TAGS_MAX_WIDTH, MB_MAX(w, 4)) : 0;
}

/* Columns for the width: see the file's comment. */
static Columns layout(RunsState *st, int width)
{
    Columns c;
    memset(&c, 0, sizeof c);
    int64_t max_id = st->n ? st->rows[st->n - 1].run.id : 1;
    static const int FIXED_W[N_COLS] = {[C_ARCH] = 11, [C_TASK] = 5, [C_STATUS] = 9, [C_STEP] = 9, [C_TRAIN] = 6,
                                        [C_VALID] = 6, [C_ANSWER] = 6, [C_SPEED] = 6, [C_ETA] = 5};
    memcpy(c.w, FIXED_W, sizeof c.w);
    c.w[C_ID] = 3;
    for (int64_t v = max_id; v >= 1000; v /= 10) c.w[C_ID]++;
    find_axes(st, &c);
    int running = 0;
    for (int i = 0; i < st->n_visible && !running; i++)
        running = runs_row_at(st, st->visible[i])->run.status == RUN_RUNNING;
    if (!running) c.w[C_ETA] = 0;
    int answers = 0;
    for (int i = 0; i < st->n_visible && !answers; i++)
        answers = data_scores_answers(runs_row_at(st, st->visible[i])->run.data);
    if (!answers) c.w[C_ANSWER] = 0;
    int axes_need = 0;
    for (int k = 0; k < c.n_axes; k++) axes_need += c.axis_w[k] + 1;
    int used = 1;   /* column 0: the Compare mark */
    for (int k = C_ID; k <= C_ETA; k++) used += c.w[k] ? c.w[k] + 1 : 0;
    /* narrow: the less needed columns go until the rest (and a little of the axes) fits */
    static const Col DROP[] = {C_ETA, C_SPEED, C_TRAIN, C_TASK};
    for (int d = 0; d < 4 && (used > width || (c.n_axes && width - used < MB_MIN(axes_need, 8))); d++) {
        used -= c.w[DROP[d]] ? c.w[DROP[d]] + 1 : 0;
        c.w[DROP[d]] = 0;
    }
    int rest = width - used;
    if (axes_need && axes_need <= rest) {
        c.w[C_AXES] = axes_need - 1;
    } else if (c.n_axes && rest >= 3) {
        c.point = 1;
        c.w[C_AXES] = MB_MIN(rest - 1, 2 * axes_need);
    }
    rest -= c.w[C_AXES] ? c.w[C_AXES] + 1 : 0;
    int tw = tags_width(st), se = st->grouped ? 6 : 0;   /* a group's "±0.003" before the tags */
    if (tw && rest - se >= 5) c.w[C_TAGS] = MB_MIN(tw, rest - se - 1);
    rest -= c.w[C_TAGS] ? c.w[C_TAGS] + 1 : 0;
    if (rest + 1 >= 19) c.w[C_DATA] = MB_MIN(rest + 1 - 10, 24);   /* from 90 columns without axes */
    rest -= c.w[C_DATA] ? c.w[C_DATA] + 1 : 0;
    c.w[C_SPARK] = rest >= MB_MAX(se, 3) ? MB_MIN(rest, SPARK_MAX_WIDTH) : 0;
    int x = 1;
    for (int k = 0; k < N_COLS; k++) {
        c.x[k] = x;
        if (c.w[k]) x += c.w[k] + 1;
    }
    return c;
}

/* ---- the lines ------------------------------------------------------------- */

/* "not learning: unigram level (best 6.469 vs unigram 6.500)" */
static int not_learning_text(const RunSummary *r, char *out, size_t cap)
{
    return snprintf(out, cap, "not learning: unigram level (best %.3f vs unigram %.3f)", r->unigram_nats - r->unigram_gap,
                    r->unigram_nats);
}

/* The line under the table for a run: its flag or error (a pruned run's
   why, an early stop's reason), data, sweep, coordinates, name, tags and
   note. */
static int run_line(const RunSummary *r, char *line, size_t cap)
{
    int failed = r->error[0] && run_status_error(r->status);
    int len = snprintf(line, cap, "run %lld", (long long)r->id);
    if (failed) len += snprintf(line + len, cap - len, " %s: %s", run_status_name(r->status), r->error);
    /* a pruned run's why says how it compared, and stands for the unigram
       flag; a done run's why it stopped early ("solved at step ...") */
    int why = r->status == RUN_PRUNED && r->error[0];
    if (why || (r->status == RUN_DONE && r->error[0])) len += snprintf(line + len, cap - len, " %s", r->error);
    if (r->not_learning && !why) {
        len += snprintf(line + len, cap - len, "  ");
        len += not_learning_text(r, line + len, cap - len);
    }
    if (len < (int)cap) len += snprintf(line + len, cap - len, "  data %s", r->data);
    if (r->sweep_id && len < (int)cap)
        len += snprintf(line + len, cap - len, "  sweep %lld %s", (long long)r->sweep_id, r->sweep);
    if (r->is_search && len < (int)cap) len += snprintf(line + len, cap - len, "  lr-search trial: lr %.3g", r->lr);
    else if (r->coords[0] && len < (int)cap) len += snprintf(line + len, cap - len, "  %s", r->coords);
    if (r->name[0] && len < (int)cap) len += snprintf(line + len, cap - len, "  name %s", r->name);
    if (r->starred && len < (int)cap) len += snprintf(line + len, cap - len, "  starred");
    if (r->tags[0] && len < (int)cap) len += snprintf(line + len, cap - len, "  tags %s", r->tags);
    if (r->note[0] && len < (int)cap) len += snprintf(line + len, cap - len, "  note: %s", r->note);
    return len;
}

/* A group's point: its arch, task and coordinates without seed
   ("attention clm layers=2"). */
static int group_point(const RunSummary *r, char *out, size_t cap)
{
    int len = snprintf(out, cap, "%s %s", r->arch, r->task);
    for (const char *p = r->coords; *p && len < (int)cap;) {
        size_t n = strcspn(p, " ");
        if (strncmp(p, "seed=", 5) && strncmp(p, "arch=", 5) && strncmp(p, "task=", 5))
            len += snprintf(out + len, cap - len, " %.*s", (int)n, p);
        p += n;
        while (*p == ' ') p++;
    }
    return len;
}

/* "attention clm layers=2: runs 1 2 3: valid 6.371 +- 0.002 (min 6.369, max
   6.375, 3 done); test ...; 3 of 3 not learning: unigram level" (the point
   first, so that it shows however narrow); one finished seed has no
   spread: "valid 6.371 (1 done)". */
static int group_line(const GroupRow *g, const char *pm, char *line, size_t cap)
{
    int len = group_point(&g->row.run, line, cap);
    len += snprintf(line + len, cap - len, ": run%s", g->n == 1 ? "" : "s");
    for (int k = 0; k < g->n && k < GROUP_IDS && len < (int)cap; k++)
        len += snprintf(line + len, cap - len, " %lld", (long long)g->ids[k]);
    if (g->n > GROUP_IDS && len < (int)cap) len += snprintf(line + len, cap - len, " ... (%d)", g->n);
    const SeedStats *stats[2] = {&g->valid, &g->test};
    const char *names[2] = {"valid", "test"};
    for (int k = 0; k < 2 && len < (int)cap; k++)
        if (stats[k]->n > 1)
            len += snprintf(line + len, cap - len, "%s %s %.3f %s %.3f (min %.3f, max %.3f, %d done)",
                            k ? ";" : ":", names[k], stats[k]->mean, pm, stats[k]->se, stats[k]->min,
                            stats[k]->max, stats[k]->n);
        else if (stats[k]->n == 1)
            len += snprintf(line + len, cap - len, "%s %s %.3f (1 done)", k ? ";" : ":", names[k], stats[k]->mean);
    if (g->n_not_learning && len < (int)cap)
        len += snprintf(line + len, cap - len, "; %d of %d not learning: unigram level", g->n_not_learning, g->n);
    return len;
}

/* The summary line: counts, sort, and the filter or what is typed. */
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
                       st->n == 1 ? "" : "s", running, queued, RUNS_SORT_NAMES[st->sort],
                       st->descending ? "desc" : "asc");
    if (st->grouped) snprintf(summary + len, sizeof summary - len, "   %d seed groups", st->n_groups);
    ui_text(top, 1, width - 1, ui_attr(ctx, UI_PAIR_TITLE), "%s", summary);
    int x = (int)strlen(summary) + 4;
    /* too narrow for both: what is typed takes the whole line */
    if ((st->extending || l->filtering || ui_organise_typing(&st->org)) && width - x < 40) {
        x = 1;
        ui_text(top, 0, width, 0, "%*s", width, "");
    }
    if (ui_organise_typing(&st->org)) {
        ui_organise_draw(&st->org, ctx, top, x, width - x);
    } else if (st->extending) {
        char label[64];
        snprintf(label, sizeof label, "extend run %lld to ", (long long)st->extending);
        ui_text(top, x, width - x, A_BOLD, "%s", label);
        x += (int)strlen(label);
        ui_field_draw(&st->budget, 1, top, x, MB_MIN(24, width - x - 14));
        ui_text(top, x + 25, width - x - 25, ui_attr(ctx, UI_PAIR_DIM), "(Enter/Esc)");
    } else if (l->filtering) {
        ui_text(top, x, width - x, A_BOLD, "filter: ");
        int hint = width - x - 8 >= 40 ? 20 : 0;
        ui_field_draw(&l->edit, 1, top, x + 8, width - x - 8 - hint);
        if (hint) ui_text(top, width - hint + 1, hint - 1, ui_attr(ctx, UI_PAIR_DIM), "(Enter/Esc, ^U)");
    } else if (l->filter[0]) {
        ui_text(top, x, width - x, ui_attr(ctx, UI_PAIR_WARN), "filter: %s", l->filter);
    }
}

/* The column heads at line y. */
static void draw_heads(RunsState *st, const Columns *c, int y, int width)
{
    int head = A_BOLD | A_UNDERLINE;
    ui_text(y, 0, width, head, "%*s", width, "");
    static const char *const NAMES[N_COLS] = {"id",    "arch",   "task",  "data", "status", "step", "train",
                                              "valid", "answer", "tok/s", "ETA",  "",       "tags", ""};
    static const int RIGHT[N_COLS] = {[C_ID] = 1,     [C_STEP] = 1,  [C_TRAIN] = 1, [C_VALID] = 1,
                                      [C_ANSWER] = 1, [C_SPEED] = 1, [C_ETA] = 1};
    for (int k = 0; k < N_COLS; k++)
        if (c->w[k] && NAMES[k][0])
            ui_text(y, c->x[k], c->w[k], head, RIGHT[k] ? "%*s" : "%-*s", c->w[k], NAMES[k]);
    if (c->w[C_AXES]) {
        char names[160] = "";
        int len = 0;
        for (int k = 0; k < c->n_axes && len < (int)sizeof names; k++)
            len += c->point ? snprintf(names + len, sizeof names - len, "%s%s", k ? "," : "", c->axis[k])
                            : snprintf(names + len, sizeof names - len, "%-*s ", c->axis_w[k], c->axis[k]);
        ui_text(y, c->x[C_AXES], c->w[C_AXES], head, "%s", names);
    }
    if (c->w[C_SPARK])
        ui_text(y, c->x[C_SPARK], c->w[C_SPARK], head, "%s",
                st->grouped ? (c->w[C_SPARK] >= 20 ? "valid se, min-max" : c->w[C_SPARK] >= 8 ? "valid se" : "se")
                            : "loss");
}

/* The axes' cells of r: one column each, or the values joined by ','. */
static void draw_axes(const Columns *c, const RunSummary *r, int y, int attr)
{
    char cells[256] = "", value[64];
    int len = 0;
    for (int k = 0; k < c->n_axes && len < (int)sizeof cells; k++) {
        run_filter_coord(r, c->axis[k], value, sizeof value);   /* a run without the axis: blank */
        len += c->point ? snprintf(cells + len, sizeof cells - len, "%s%s", k ? "," : "", value[0] ? value : "-")
                        : snprintf(cells + len, sizeof cells - len, "%-*.*s ", c->axis_w[k], c->axis_w[k], value);
    }
    ui_text(y, c->x[C_AXES], c->w[C_AXES], attr, "%s", cells);
}

/* Row i of the list at line y in columns c. */
static void draw_row(RunsState *st, UiContext *ctx, const Columns *c, int i, int y, int width)
{
    const UiList *l = &st->list;
    const RunRow *row = runs_row_at(st, st->visible[i]);
    const RunSummary *r = &row->run;
    const GroupRow *grp = st->grouped ? &st->groups[st->visible[i]] : NULL;
    int sel = i == l->cursor;
    int base = sel ? ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD : 0;
    if (sel) ui_text(y, 0, width, base, "%*s", width, "");
    int picked = 0;
    for (int k = 0; k < ctx->n_compare; k++) picked |= ctx->compare[k] == r->id;
    if (picked) ui_text(y, 0, 1, base | A_BOLD, "+"); /* not "*": a starred run's mark (tags_text) */
    char buf[300];
    ui_text(y, c->x[C_ID], c->w[C_ID], base, "%*lld", c->w[C_ID], (long long)r->id);
    ui_text(y, c->x[C_ARCH], c->w[C_ARCH], base, "%s", r->arch);
    if (c->w[C_TASK]) ui_text(y, c->x[C_TASK], c->w[C_TASK], base, "%s", r->task);
    if (c->w[C_DATA]) ui_text(y, c->x[C_DATA], c->w[C_DATA], base, "%s", short_data(r->data, buf, sizeof buf));
    const char *status = runs_status_text(row, buf, sizeof buf);
    int pair = row->n_seeds == 0 ? ui_status_pair(r->status) : 0;
    ui_text(y, c->x[C_STATUS], c->w[C_STATUS], sel ? base : ui_attr(ctx, pair), "%s", status);
    if (r->not_learning) /* in the blank before the step column */
        ui_text(y, c->x[C_STATUS] + c->w[C_STATUS], 1, sel ? base : ui_attr(ctx, UI_PAIR_BAD) | (int)A_BOLD, "!");
    char step[24], total[24];
    fmt_steps(r->steps_done, step, sizeof step);
    fmt_steps(r->total_steps, total, sizeof total);
    if (r->total_steps > 0) snprintf(buf, sizeof buf, "%s/%s", step, total);
    else snprintf(buf, sizeof buf, "%s", step);
    ui_text(y, c->x[C_STEP], c->w[C_STEP], base, "%9s", buf);
    if (c->w[C_TRAIN]) ui_text(y, c->x[C_TRAIN], 6, base, "%6s", fmt_real(r->train_loss, 3, buf, sizeof buf));
    ui_text(y, c->x[C_VALID], c->w[C_VALID], base, "%6s", fmt_real(r->valid_loss, 3, buf, sizeof buf));
    if (c->w[C_ANSWER])   /* the answer accuracy: the test accuracy of data scoring only answers */
        ui_text(y, c->x[C_ANSWER], 6, base, "%6s",
                fmt_real(data_scores_answers(r->data) ? r->test_accuracy : NAN, 3, buf, sizeof buf));
    if (c->w[C_SPEED]) ui_text(y, c->x[C_SPEED], 6, base, "%6s", fmt_rate(r->tokens_per_s, buf, sizeof buf));
    /* the ETA of a running job only, blank for the others */
    buf[0] = 0;
    if (r->status == RUN_RUNNING && row->n_seeds == 0 && isfinite(row->eta) && row->eta >= 0)
        fmt_duration(row->eta, buf, sizeof buf);
    if (c->w[C_ETA]) ui_text(y, c->x[C_ETA], 5, base, "%5s", buf);
    if (c->w[C_AXES]) draw_axes(c, r, y, base);
    tags_text(r, buf, sizeof buf);
    if (c->w[C_TAGS]) ui_text(y, c->x[C_TAGS], c->w[C_TAGS], base, "%s", buf);
    int ws = c->w[C_SPARK];
    if (ws > 0 && grp && grp->valid.n > 1) {
        /* the standard error, and the min-max when it fits */
        char text[96];
        int len = snprintf(text, sizeof text, "%s%.3f", ui_pm(ctx), grp->valid.se);
        if (ws >= 20) snprintf(text + len, sizeof text - len, " %.3f-%.3f", grp->valid.min, grp->valid.max);
        ui_text(y, c->x[C_SPARK], ws, base, "%s", text);
    } else if (ws > 0 && row->spark.n > 0) {
        char line[3 * SPARK_MAX_WIDTH + 1];
        if (plot_sparkline(row->spark.loss, row->spark.n, ws, !ctx->utf8, line, sizeof line) >= 0)
            ui_text(y, c->x[C_SPARK], ws, sel ? base : ui_attr(ctx, UI_PAIR_SERIES0), "%s", line);
    }
}

/* The last line: the selected run's data, sweep and coordinates (a seed
   group's point and members), and its sweep's tuned lr. */
static void draw_selected_line(RunsState *st, UiContext *ctx, int y, int width)
{
    const UiList *l = &st->list;
    const RunSummary *r = &runs_row_at(st, st->visible[l->cursor])->run;
    char line[1024];
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

void runs_view_draw(RunsState *st, UiContext *ctx, int top, int height, int width)
{
    if (!st || height < 3) return;
    UiList *l = &st->list;
    if (st->loaded && st->n == 0 && !l->filter[0] && !l->filtering) {
        l->page = 1;
        draw_welcome(ctx, top, height, width);
        return;
    }
    draw_summary(st, ctx, top, width);
    Columns c = layout(st, width);
    draw_heads(st, &c, top + 1, width);
    /* the last row: the selected run's data, sweep and coordinates (the
       data column is there from 90 columns only) */
    ui_list_fit(l, top + 2, height - 3);
    if (st->filter_error[0]) {
        ui_wrap(top + 3, 2, width - 2, 3, ui_attr(ctx, UI_PAIR_BAD), st->filter_error);
        return;
    }
    if (st->n_visible == 0) {
        ui_text(top + 3, 2, width - 2, ui_attr(ctx, UI_PAIR_DIM), "no run matches \"%s\" (Esc clears the filter)",
                l->filter);
        return;
    }
    for (int i = l->scroll; i < st->n_visible && i < l->scroll + l->page; i++)
        draw_row(st, ctx, &c, i, top + 2 + i - l->scroll, width);
    if (ui_list_selected(l) >= 0) draw_selected_line(st, ctx, top + height - 1, width);
}
