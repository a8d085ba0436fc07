/*
 * screen_queue.c — the Queue screen: the store's `queue` view (running jobs
 * first, then the queued ones in claim order, then the paused ones) with
 * the live progress of the jobs this process's workers are running (step,
 * loss, tokens/s, ETA, threads), and the keys that steer the queue: raise
 * or lower a job's priority, pause, resume, cancel.
 *
 * Not for: running jobs (experiments/scheduler.c) or the rules of the queue
 * (db/jobs.c): the rows come from db/queue_read.h, every change goes
 * through db/jobs.h, whose error, if any, is what the message line shows.  Jobs run by another process (`mixbench
 * worker`) show the progress the store has, updated once a second.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "db/queue_read.h"
#include "engine/common.h"
#include "experiments/format.h"
#include "ui/ui.h"

enum { MAX_ROWS = 500, MAX_PROGRESS = 64, BAR_CELLS = 12 };

typedef struct {
    QueueJob *rows;              /* [MAX_ROWS + 1]: one more tells "there are more" */
    int n;
    int n_running, n_queued, n_paused;
    JobProgress progress[MAX_PROGRESS];
    int n_progress;
    UiList list;                 /* over rows: the selection follows its job across reloads */
    char load_error[ERR_LEN];
} QueueScreen;

/* Lines a row takes: running jobs have a second line with their progress. */
static int row_lines(const QueueJob *r)
{
    return r->status == RUN_RUNNING ? 2 : 1;
}

static int64_t job_id(const void *rows, int i) { return ((const QueueJob *)rows)[i].id; }
static int job_lines(const void *rows, int i) { return row_lines(&((const QueueJob *)rows)[i]); }
static const UiListRows JOB_ROWS = {job_id, NULL, job_lines};

static void *queue_create(UiContext *ctx)
{
    (void)ctx;
    QueueScreen *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->rows = calloc(MAX_ROWS + 1, sizeof *q->rows);
    if (!q->rows) {
        free(q);
        return NULL;
    }
    q->list.of = &JOB_ROWS;
    return q;
}

static void queue_destroy(void *state)
{
    QueueScreen *q = state;
    if (!q) return;
    free(q->rows);
    free(q);
}

static int shown_rows(const QueueScreen *q)
{
    return q->n > MAX_ROWS ? MAX_ROWS : q->n;
}

static void queue_reload(void *state, UiContext *ctx)
{
    QueueScreen *q = state;
    if (!q) return;
    q->n = 0;
    q->load_error[0] = 0;
    if (queue_read_jobs(ctx->store, q->rows, MAX_ROWS + 1, &q->n, q->load_error)) q->n = 0;
    q->n_running = q->n_queued = q->n_paused = 0;
    for (int i = 0; i < shown_rows(q); i++) {
        RunStatus s = q->rows[i].status;
        if (s == RUN_RUNNING) q->n_running++;
        else if (s == RUN_QUEUED) q->n_queued++;
        else q->n_paused++;
    }
    q->n_progress = ctx->scheduler ? scheduler_progress(ctx->scheduler, q->progress, MAX_PROGRESS) : 0;
    /* keep the selection on its job; if the job left the queue, keep the place */
    ui_list_set_rows(&q->list, q->rows, shown_rows(q));
}

static const JobProgress *progress_of(const QueueScreen *q, int64_t run_id)
{
    for (int i = 0; i < q->n_progress; i++)
        if (q->progress[i].run_id == run_id) return &q->progress[i];
    return NULL;
}

/* A progress bar of `cells` cells: eighth blocks on light shade in UTF-8,
   '#' on '.' in ASCII. */
static void format_bar(double fraction, int cells, int utf8, char *out, size_t cap)
{
    static const char *const EIGHTHS[8] = {"░", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (fraction < 0) fraction = 0;
    if (fraction > 1) fraction = 1;
    int eighths = (int)(fraction * cells * 8 + 0.5);
    size_t len = 0;
    out[0] = 0;
    for (int c = 0; c < cells && len + 4 < cap; c++) {
        int here = eighths - 8 * c;
        const char *piece = utf8 ? (here >= 8 ? "█" : here > 0 ? EIGHTHS[here] : "░") : (here >= 4 ? "#" : ".");
        len += (size_t)snprintf(out + len, cap - len, "%s", piece);
    }
}

static const char *shown_status(const QueueJob *r)
{
    return job_shown_status(r->status, r->control);
}

static int status_attr(UiContext *ctx, const QueueJob *r)
{
    if (r->status == RUN_RUNNING) return ui_attr(ctx, UI_PAIR_GOOD) | A_BOLD;
    if (r->status == RUN_PAUSED) return ui_attr(ctx, UI_PAIR_WARN);
    return 0;
}

static void draw_progress_line(QueueScreen *q, UiContext *ctx, const QueueJob *r, int y, int width)
{
    const JobProgress *p = progress_of(q, r->id);
    int dim = ui_attr(ctx, UI_PAIR_DIM);
    if (!p) {
        ui_text(y, 6, width - 6, dim, "step %lld/%lld  (run by another worker process; the store's numbers)",
                (long long)r->steps_done, (long long)r->total_steps);
        return;
    }
    char bar[BAR_CELLS * 4 + 1], rate[32], eta[32];
    double fraction = p->total_steps > 0 ? (double)p->step / (double)p->total_steps : 0;
    format_bar(fraction, BAR_CELLS, ctx->utf8, bar, sizeof bar);
    fmt_rate(p->tokens_per_s, rate, sizeof rate);
    fmt_duration(p->eta_seconds, eta, sizeof eta);
    int x = 6;
    ui_text(y, x, width - x, ui_attr(ctx, UI_PAIR_GOOD), "%s", bar);
    x += BAR_CELLS + 2;
    char loss[24];
    fmt_real(p->step > 0 ? p->loss_smooth : NAN, 4, loss, sizeof loss);
    ui_text(y, x, width - x, 0, "%lld/%lld %3.0f%%  loss %s  %s tok/s  ETA %s  thr %d",
            (long long)p->step, (long long)p->total_steps, 100 * fraction, loss, rate,
            p->step > 0 ? eta : "?", p->threads);
}

static void queue_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    QueueScreen *q = state;
    if (!q) return;
    int title = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, dim = ui_attr(ctx, UI_PAIR_DIM);
    int n = shown_rows(q);
    ui_text(top, 1, width - 1, title, "Queue");
    ui_text(top, 8, width - 8, 0, "%d running  %d%s queued  %d paused", q->n_running, q->n_queued,
            q->n > MAX_ROWS ? "+" : "", q->n_paused);
    if (q->load_error[0]) {
        ui_text(top + 2, 1, width - 1, ui_attr(ctx, UI_PAIR_BAD), "%s", q->load_error);
        return;
    }
    if (n == 0) {
        ui_text(top + 2, 1, width - 1, 0, "The queue is empty: nothing is running, queued or paused.");
        ui_text(top + 3, 1, width - 1, dim,
                "Queue a sweep on the New sweep screen, or with `mixbench sweep` in a shell.");
        return;
    }
    int detail_lines = height >= 12 ? 2 : 0;
    int list_top = top + 2, list_height = height - 2 - detail_lines;
    if (list_height < 1) return;
    ui_text(top + 1, 0, width, A_BOLD, "%4s %6s %-9s %4s %-11s %-10s %-12s %s", "pos", "id", "status", "pri",
            "arch", "task", "sweep", "point");

    /* scroll so that the selected row (with its progress line) is visible */
    ui_list_fit(&q->list, list_top, list_height);
    int y = list_top;
    for (int i = q->list.scroll; i < n && y < list_top + list_height; i++) {
        const QueueJob *r = &q->rows[i];
        int selected = i == q->list.cursor;
        int attr = selected ? ui_attr(ctx, UI_PAIR_SELECTED) : 0;
        if (selected) mvhline(y, 0, ' ' | attr, width);
        char pos[8] = "";
        if (r->position) snprintf(pos, sizeof pos, "%d", r->position);
        ui_text(y, 0, width, attr, "%4s %6lld", pos, (long long)r->id);
        ui_text(y, 12, width - 12, selected ? attr : status_attr(ctx, r), "%-9s", shown_status(r));
        ui_text(y, 22, width - 22, attr, "%4d %-11.11s %-10.10s %-12.12s %s", r->priority, r->arch, r->task,
                r->sweep[0] ? r->sweep : "-", r->point);
        y++;
        if (row_lines(r) == 2 && y < list_top + list_height) draw_progress_line(q, ctx, r, y++, width);
    }
    if (q->n > MAX_ROWS && y < list_top + list_height)
        ui_text(y, 1, width - 1, dim, "(the first %d jobs; `mixbench queue` lists them all)", MAX_ROWS);

    if (!detail_lines) return;
    const QueueJob *r = &q->rows[q->list.cursor];
    int dy = top + height - 2;
    char where[160] = "";
    if (r->status == RUN_QUEUED) snprintf(where, sizeof where, "position %d of %d", r->position, q->n_queued);
    else if (r->status == RUN_RUNNING) snprintf(where, sizeof where, "running");
    else snprintf(where, sizeof where, "paused at step %lld", (long long)r->resume_step);
    ui_text(dy, 1, width - 1, title, "job %lld%s%s  %s  priority %d  %s %s%s%s", (long long)r->id,
            r->name[0] ? " " : "", r->name, where, r->priority, r->arch, r->task, r->sweep[0] ? "  sweep " : "",
            r->sweep);
    char more[512];
    if (r->control != JOB_CONTROL_NONE)
        snprintf(more, sizeof more, "%s requested: the job checkpoints, then stops", job_control_name(r->control));
    else if (r->resume_step > 0) snprintf(more, sizeof more, "resumes from its checkpoint at step %lld%s%s",
                                          (long long)r->resume_step, r->error[0] ? ": " : "", r->error);
    else snprintf(more, sizeof more, "%s", r->coords[0] ? r->coords : "no sweep coordinates");
    ui_text(dy + 1, 1, width - 1, dim, "%s", more);
}

static const QueueJob *selected_row(QueueScreen *q, UiContext *ctx)
{
    if (shown_rows(q) == 0) {
        ui_say(ctx, "the queue is empty");
        return NULL;
    }
    return &q->rows[q->list.cursor];
}

/* After a change: the job's place in line, read back from the store. */
static void report_place(QueueScreen *q, UiContext *ctx, int64_t id, const char *what)
{
    queue_reload(q, ctx);
    for (int i = 0; i < shown_rows(q); i++) {
        const QueueJob *r = &q->rows[i];
        if (r->id != id) continue;
        if (r->position)
            ui_say(ctx, "job %lld: %s; priority %d, position %d of %d",
                   (long long)id, what, r->priority, r->position, q->n_queued);
        else
            ui_say(ctx, "job %lld: %s; priority %d (%s)", (long long)id, what,
                   r->priority, shown_status(r));
        return;
    }
    ui_say(ctx, "job %lld: %s", (long long)id, what);
}

static int queue_key(void *state, UiContext *ctx, int ch)
{
    QueueScreen *q = state;
    if (!q) return 0;
    if (ui_list_key(&q->list, ch == 'g' ? KEY_HOME : ch == 'G' ? KEY_END : ch, 0)) return 1;
    char err[ERR_LEN];
    switch (ch) {
    case '+':
    case '=':
    case 'K':
    case '-':
    case 'J': {
        const QueueJob *r = selected_row(q, ctx);
        if (!r) return 1;
        int64_t id = r->id;
        int up = ch == '+' || ch == '=' || ch == 'K';
        if (store_job_set_priority(ctx->store, id, r->priority + (up ? 1 : -1), err)) {
            ui_say(ctx, "%s", err);
            return 1;
        }
        q->list.selected_id = id;
        report_place(q, ctx, id, up ? "priority raised" : "priority lowered");
        return 1;
    }
    case 'p':
    case 'r':
    case 'x': {
        const QueueJob *r = selected_row(q, ctx);
        if (!r) return 1;
        int64_t id = r->id;
        int running = r->status == RUN_RUNNING;
        const char *done;
        char stopped[160];
        int rc;
        if (ch == 'x') {
            char question[200];
            snprintf(question, sizeof question, "Cancel job %lld (%s %s%s%.100s)?", (long long)id, r->arch, r->task,
                     r->coords[0] ? " " : "", r->coords);
            if (!ui_confirm(ctx, question)) {
                ui_say(ctx, "job %lld: not cancelled", (long long)id);
                return 1;
            }
            rc = store_job_request(ctx->store, id, "cancel", err);
            done = running ? "cancel requested (it stops within a second)" : "cancelled";
            if (rc == 0) {
                ui_cancel_said(ctx, id, done, stopped, sizeof stopped);
                done = stopped;
            }
        } else if (ch == 'p') {
            rc = store_job_request(ctx->store, id, "pause", err);
            done = running ? "pause requested (it checkpoints, then stops)" : "paused";
        } else {
            rc = store_job_resume(ctx->store, id, err);
            done = running ? "still running (a pending pause was withdrawn)" : "queued again";
        }
        if (rc) {
            ui_say(ctx, "%s", err);
            return 1;
        }
        q->list.selected_id = id;
        report_place(q, ctx, id, done);
        return 1;
    }
    default:
        return 0;
    }
}

/* A click selects the job under it (its progress line too). */
static int queue_mouse(void *state, UiContext *ctx, int y, int x, int double_click)
{
    (void)ctx, (void)x, (void)double_click;
    QueueScreen *q = state;
    int i = q ? ui_list_at(&q->list, y) : -1;
    if (i < 0) return 0;
    ui_list_move(&q->list, i);
    return 1;
}

static int queue_typing(void *state)
{
    (void)state;
    return 0;
}

const UiScreen ui_screen_queue = {
    "Queue",
    "+/- priority  p pause  r resume  x cancel",
    "up/down, j/k      select a job (PgUp/PgDn, g/G: page, first, last)\n"
    "+ (or =, K)       raise the job's priority (claimed sooner)\n"
    "- or J            lower the job's priority\n"
    "p                 pause (a running job checkpoints first)\n"
    "r                 resume a paused or interrupted job (back in the queue)\n"
    "x                 cancel the job (asks first)\n"
    "Running jobs show step/total, smoothed loss, tokens/s, ETA and threads.\n",
    queue_create,
    queue_destroy,
    queue_reload,
    queue_draw,
    queue_key,
    queue_typing,
    queue_mouse,
};
