/*
 * cmd_store.c — `mixbench ls` and `mixbench show RUN`: the store read back
 * (`ls --where EXPR`: the runs the filter of experiments/run_filter.h
 * chooses; `ls --trash`: what is in the trash, db/organise.h),
 * for people (aligned tables, a sparkline per run, a braille plot of the loss
 * curve; ASCII when the locale is not UTF-8) or for programs (--json, built
 * by SQLite's JSON functions so numbers keep their types).  The reads are
 * db/cli_read.h's; the numbers are written by experiments/format.h; every
 * text a user typed (names, notes, tags, sweep names, config values) is
 * printed through text_shown (engine/text.h): a control character in it is
 * shown, never sent to the terminal.
 *
 * Not for: writing runs (cmd_run does) or the interactive workbench (ui/).
 * Reading never creates a store: a missing file is an error.
 */
#include "app/cli.h"
#include "app/commands.h"
#include "db/ckpt_owner.h"
#include "db/cli_read.h"
#include "db/organise.h"
#include "db/results.h"
#include "db/runs_read.h"
#include "db/store.h"
#include "engine/common.h"
#include "engine/data/data.h"
#include "engine/io/json.h"
#include "engine/text.h"
#include "experiments/format.h"
#include "experiments/run_filter.h"
#include "ui/draw/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_DB "mixbench.db"
#define SPARK_WIDTH 10
#define PLOT_WIDTH 72
#define PLOT_HEIGHT 14

static int use_color(void)
{
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !(no_color && *no_color) && term && strcmp(term, "dumb");
}

/* ---- arguments ------------------------------------------------------------ */

typedef struct {
    const char *db;
    int json, log_y, trash;
    int loss_best;             /* ls --loss best: the lowest valid evaluation and its step */
    const char *status, *arch, *where; /* ls filters */
    const char *run;           /* show's run id or name */
} Args;

static int parse_args(const char *cmd, int argc, char **argv, int is_show, Args *a)
{
    const char *json = NULL, *log_y = NULL, *trash = NULL, *loss = NULL;
    memset(a, 0, sizeof *a);
    a->db = DEFAULT_DB;
    const CliOpt ls_opts[] = {{"db", 1, &a->db, NULL},         {"json", 0, &json, NULL},
                              {"status", 1, &a->status, NULL}, {"arch", 1, &a->arch, NULL},
                              {"where", 1, &a->where, NULL},   {"trash", 0, &trash, NULL},
                              {"loss", 1, &loss, NULL},        {NULL, 0, NULL, NULL}};
    const CliOpt show_opts[] = {{"db", 1, &a->db, NULL}, {"json", 0, &json, NULL},
                                {"log", 0, &log_y, NULL}, {NULL, 0, NULL, NULL}};
    const char *run[1] = {NULL};
    int n_run = 0;
    char err[ERR_LEN];
    if (cli_parse(argc, argv, is_show ? show_opts : ls_opts, NULL, run, is_show, &n_run, err))
        return cli_fail("%s: %s (try `mixbench %s --help`)", cmd, err, cmd);
    a->json = json != NULL;
    a->log_y = log_y != NULL;
    a->trash = trash != NULL;
    a->run = run[0];
    return cli_loss_choice(cmd, loss, &a->loss_best);
}

/* ---- text helpers ------------------------------------------------------------ */

/* "2026-11-22T02:41:34.123Z" -> "2026-11-22 02:41" (UTC); "" -> "-". */
static void format_time(const char *iso, int with_seconds, char *out, size_t cap)
{
    if (strlen(iso) < 16) {
        snprintf(out, cap, "%s", iso[0] ? iso : "-");
        return;
    }
    snprintf(out, cap, "%.10s %.*s", iso, with_seconds ? 8 : 5, iso + 11);
}

/* The last part of a path: "../shared/data/ptb" -> "ptb". */
static void format_data(const char *path, char *out, size_t cap)
{
    if (!*path) {
        snprintf(out, cap, "-");
        return;
    }
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    snprintf(out, cap, "%.*s", (int)(n - start), path + start);
}

/* A count, "-" when the store has none. */
static char *format_count(int64_t n, char *out, size_t cap)
{
    if (n == CLI_NO_COUNT)
        snprintf(out, cap, "-");
    else
        fmt_count(n, out, cap);
    return out;
}

/* ---- a table printed in aligned columns --------------------------------------- */

typedef struct {
    int ncols, nrows, cap;
    const char *align; /* 'l' or 'r' per column */
    char **cells;      /* [(nrows) * ncols], row 0 is the header */
} Table;

static int table_add(Table *t, const char *const *values)
{
    if (t->nrows == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        char **cells = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *cells);
        if (!cells)
            return -1;
        t->cells = cells;
        t->cap = cap;
    }
    for (int c = 0; c < t->ncols; c++) {
        const char *value = values[c] ? values[c] : "";
        size_t cap = TEXT_SHOWN_CAP(strlen(value));
        char *copy = malloc(cap);
        if (copy) text_shown(value, copy, cap);
        if (!copy) {
            for (int k = 0; k < c; k++)
                free(t->cells[(size_t)t->nrows * (size_t)t->ncols + (size_t)k]);
            return -1;
        }
        t->cells[(size_t)t->nrows * (size_t)t->ncols + (size_t)c] = copy;
    }
    t->nrows++;
    return 0;
}

static void table_print(const Table *t, const char *indent)
{
    int width[32] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols && c < 32; c++)
            width[c] = MB_MAX(width[c], text_columns(t->cells[r * t->ncols + c]));
    for (int r = 0; r < t->nrows; r++) {
        /* Build the line, then drop trailing blanks. */
        char line[2048];
        size_t len = 0;
        len += (size_t)snprintf(line, sizeof line, "%s", indent);
        for (int c = 0; c < t->ncols && len < sizeof line; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            int pad = width[c] - text_columns(cell);
            int right = t->align[c] == 'r';
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%*s%s%*s",
                                    c ? "  " : "", right ? pad : 0, "", cell,
                                    right ? 0 : pad, "");
        }
        len = MB_MIN(len, sizeof line - 1);
        while (len > 0 && line[len - 1] == ' ')
            len--;
        line[len] = 0;
        puts(line);
    }
}

static void table_free(Table *t)
{
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

static Store *open_existing(const char *path)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    if (store_open_existing(path, &s, err)) {
        cli_fail("%s", err);
        return NULL;
    }
    return s;
}

/* ---- ls ------------------------------------------------------------------------ */


/* The VALID cell: the last evaluation, or with loss_best the lowest and
   its step ("4.123@1200"). */
static void valid_cell(const CliRunRow *r, int loss_best, char *out, size_t cap)
{
    fmt_real(loss_best ? r->best_valid_loss : r->valid_loss, 3, out, cap);
    if (loss_best && isfinite(r->best_valid_step))
        snprintf(out + strlen(out), cap - strlen(out), "@%lld", (long long)r->best_valid_step);
}

static int ls_table(Store *s, const CliRunRow *runs, int n_runs, int utf8, int loss_best)
{
    char err[ERR_LEN] = "";
    int any_name = 0, any_tag = 0, any_answer = 0;
    for (int i = 0; i < n_runs; i++) {
        any_name |= runs[i].name[0] != 0;
        any_tag |= runs[i].tags[0] || runs[i].starred;
        any_answer |= data_scores_answers(runs[i].data);
    }
    /* ANSWER ACC: the headline of data that scores only answers (builtin:mqar,
       copy, selective-copy), beside its TEST loss; shown when a run has it */
    enum { COLS = 15, C_ANSWER = 10, C_TAGS = 13, C_NAME = 14 };
    static const char *const header[COLS] = {"ID",    "STATUS", "ARCH",       "TASK",  "DATA",
                                             "STEPS", "TRAIN",  "CURVE",      "VALID", "TEST",
                                             "ANSWER ACC", "TOK/S", "CREATED", "TAGS", "NAME"};
    static const char ALIGN[COLS + 1] = "rllllrrlrrrrlll";
    const char *heads[COLS];
    char align[COLS + 1];
    int ncols = 0, shown[COLS];
    for (int c = 0; c < COLS; c++)
        if ((c != C_ANSWER || any_answer) && (c != C_TAGS || any_tag) && (c != C_NAME || any_name)) {
            align[ncols] = ALIGN[c];
            shown[ncols] = c;
            heads[ncols++] = c == 8 && loss_best ? "BEST VALID@STEP" : header[c];
        }
    align[ncols] = 0;
    Table t = {.ncols = ncols, .align = align};
    if (table_add(&t, heads))
        return cli_fail("ls: out of memory");
    for (int i = 0; i < n_runs; i++) {
        const CliRunRow *r = &runs[i];
        char id[24], data[64], steps[48], train[32], valid[64], test[32], answer[32], rate[32], created[32];
        char spark[3 * SPARK_WIDTH + 1] = "";
        snprintf(id, sizeof id, "%lld", (long long)r->id);
        format_data(r->data, data, sizeof data);
        if (r->total_steps > 0)
            snprintf(steps, sizeof steps, "%lld/%lld", (long long)r->steps_done, (long long)r->total_steps);
        else
            snprintf(steps, sizeof steps, "%lld", (long long)r->steps_done);
        fmt_real(r->train_loss, 3, train, sizeof train);
        valid_cell(r, loss_best, valid, sizeof valid);
        fmt_real(r->test_loss, 3, test, sizeof test);
        fmt_real(r->answer_accuracy, 3, answer, sizeof answer);
        fmt_rate(r->tokens_per_s, rate, sizeof rate);
        format_time(r->created_at, 0, created, sizeof created);

        double *x = NULL, *y = NULL;
        int n = 0;
        /* 8 points a character (80 index seeks, whatever the run's length):
           the bars of a full read, but for a level now and then */
        if (store_run_series_sampled(s, r->id, STORE_SERIES_TRAIN_LOSS_SMOOTH, 8 * SPARK_WIDTH, &x, &y,
                                     &n, err)) {
            table_free(&t);
            return cli_fail("%s", err);
        }
        plot_sparkline(y, n, SPARK_WIDTH, !utf8, spark, sizeof spark);
        free(x);
        free(y);

        char tags[300];
        snprintf(tags, sizeof tags, "%s%s%s", r->starred ? "*" : "", r->starred && r->tags[0] ? " " : "", r->tags);
        const char *all[COLS] = {id,    run_status_name(r->status), r->arch, r->task, data,    steps, train, spark,
                                 valid, test, answer, rate, created, tags, r->name};
        const char *cells[COLS];
        for (int c = 0; c < ncols; c++) cells[c] = all[shown[c]];
        if (table_add(&t, cells)) {
            table_free(&t);
            return cli_fail("ls: out of memory");
        }
    }
    table_print(&t, "");
    table_free(&t);
    return 0;
}

/* Keeps the rows whose id is among ids (both ascending); returns how many. */
static int keep_listed(CliRunRow *rows, int n, const int64_t *ids, int n_ids)
{
    int kept = 0;
    for (int i = 0, k = 0; i < n; i++) {
        while (k < n_ids && ids[k] < rows[i].id) k++;
        if (k < n_ids && ids[k] == rows[i].id) rows[kept++] = rows[i];
    }
    return kept;
}

/* `ls --trash`: the runs and sweeps in the trash, newest first. */
static int ls_trash(Store *s, int json)
{
    char err[ERR_LEN] = "";
    TrashItem *items = NULL;
    int n = 0;
    if (store_trash_list(s, &items, &n, err)) return cli_fail("ls: %s", err);
    if (!json && n == 0) printf("the trash of %s is empty\n", store_file_name(s));
    static const char *const header[] = {"KIND", "ID", "NAME", "WHAT", "STATUS", "DELETED"};
    Table t = {.ncols = 6, .align = "lrllll"};
    StrBuf sb;
    sb_init(&sb);
    int bad = json ? 0 : table_add(&t, header);
    for (int i = 0; i < n && !bad; i++) {
        const TrashItem *it = &items[i];
        char id[24], when[32];
        snprintf(id, sizeof id, "%lld", (long long)it->id);
        format_time(it->deleted_at, 1, when, sizeof when);
        const char *cells[6] = {it->is_sweep ? "sweep" : "run", id, it->name, it->what, it->status, when};
        if (!json) {
            bad = table_add(&t, cells);
            continue;
        }
        sb_append(&sb, i ? ",\n {\"kind\": " : "[{\"kind\": ");
        sb_json_string(&sb, cells[0]);
        sb_printf(&sb, ", \"id\": %s, \"name\": ", id);
        sb_json_string(&sb, it->name);
        sb_append(&sb, ", \"what\": ");
        sb_json_string(&sb, it->what);
        sb_append(&sb, ", \"status\": ");
        sb_json_string(&sb, it->status);
        sb_append(&sb, ", \"deleted_at\": ");
        sb_json_string(&sb, it->deleted_at);
        sb_append(&sb, "}");
    }
    if (json) puts(n ? (sb_append(&sb, "]"), sb.data) : "[]");
    else if (n && !bad) table_print(&t, "");
    sb_free(&sb);
    table_free(&t);
    free(items);
    return bad ? cli_fail("ls: out of memory") : 0;
}

int cmd_ls(int argc, char **argv)
{
    Args a;
    if (parse_args("ls", argc, argv, 0, &a))
        return 1;
    RunStatus status = a.status ? run_status_parse(a.status) : RUN_STATUS_COUNT;
    if (a.status && status == RUN_STATUS_COUNT)
        return cli_fail("ls: unknown status %s (queued, running, paused, done, failed, diverged, "
                    "cancelled, interrupted)", a.status);
    int utf8 = text_locale_utf8();
    Store *s = open_existing(a.db);
    if (!s)
        return 1;
    char err[ERR_LEN] = "", *ids_json = NULL;
    int64_t *ids = NULL;
    int rc = 0, n_ids = 0;
    if (a.trash) {
        rc = ls_trash(s, a.json);
    } else if (a.where && (a.json ? run_filter_select_json(s, a.where, 0, &ids_json, &n_ids, err)
                                  : run_filter_select(s, a.where, 0, &ids, &n_ids, err))) {
        rc = cli_fail("ls: %s", err);
    } else if (a.json) {
        char *json = NULL;
        if (cli_runs_json_of(s, status, a.arch, ids_json, &json, err))
            rc = cli_fail("%s", err);
        else if (json)
            puts(json);
        free(json);
    } else {
        CliRunRow *runs = NULL;
        int n = 0;
        if (cli_runs(s, status, a.arch, &runs, &n, err))
            rc = cli_fail("%s", err);
        n = a.where ? keep_listed(runs, n, ids, n_ids) : n;
        if (!rc && n == 0)
            printf("no runs in %s%s\n", a.db, a.status || a.arch || a.where ? " match" : "");
        else if (!rc)
            rc = ls_table(s, runs, n, utf8, a.loss_best);
        free(runs);
    }
    free(ids);
    free(ids_json);
    store_close(s);
    return rc;
}

/* ---- show ---------------------------------------------------------------------- */


/* The run's id from an id or a unique name (db/organise.h: the rule of
   every command); 0 with the line printed when there is none. */
static int64_t resolve_run(Store *s, const char *run)
{
    char err[ERR_LEN] = "", shown[TEXT_SHOWN_CAP(ERR_LEN)];
    int64_t id = 0;
    if (store_run_lookup(s, run, 0, &id, err)) {
        cli_fail("show: %s", text_shown(err, shown, sizeof shown));
        return 0;
    }
    return id;
}

/* show's lines for the run's sweep (its point and note), tags, star and
   note: those that it has. */
static int show_organised(Store *s, int64_t id)
{
    char err[ERR_LEN] = "";
    RunSummary r;
    int found = 0;
    if (runs_read_one(s, id, &r, &found, err))
        return cli_fail("%s", err);
    if (!found)
        return 0;
    char text[TEXT_SHOWN_CAP(STORE_NOTE_MAX)], text2[TEXT_SHOWN_CAP(sizeof r.coords)];
    if (r.sweep_id) {
        SweepRow sw;
        int have = 0;
        if (results_sweep(s, r.sweep_id, &sw, &have, err))
            return cli_fail("%s", err);
        printf("  sweep %lld %s%s%s\n", (long long)r.sweep_id, text_shown(r.sweep, text, sizeof text),
               r.coords[0] ? "  at " : "", text_shown(r.coords, text2, sizeof text2));
        if (have && sw.note[0])
            printf("  sweep note: %s\n", text_shown(sw.note, text, sizeof text));
    }
    if (r.tags[0] || r.starred)
        printf("  %s%s%s%s\n", r.starred ? "starred (protected)" : "", r.starred && r.tags[0] ? "  " : "",
               r.tags[0] ? "tags " : "", text_shown(r.tags, text, sizeof text));
    /* the whole note (RunSummary holds its start) */
    char note[STORE_NOTE_MAX];
    if (r.note[0] && store_run_note_read(s, id, note, sizeof note, err))
        return cli_fail("%s", err);
    if (r.note[0])
        printf("  note: %s\n", text_shown(note, text, sizeof text));
    return 0;
}

static int show_header(Store *s, int64_t id)
{
    char err[ERR_LEN] = "";
    CliRunDetail r;
    int found = 0;
    if (cli_run_detail(s, id, &r, &found, err))
        return cli_fail("%s", err);
    if (!found)
        return cli_fail("show: run %lld disappeared while reading", (long long)id);
    char when[3][32], tokens[32], params_total[32], params_ne[32], rate[32];
    char name[TEXT_SHOWN_CAP(sizeof r.name)], data[TEXT_SHOWN_CAP(sizeof r.data)];
    char tokenizer[TEXT_SHOWN_CAP(sizeof r.tokenizer)], error[TEXT_SHOWN_CAP(sizeof r.error)];
    printf("run %lld%s%s  [%s]\n", (long long)r.id, r.name[0] ? "  " : "", text_shown(r.name, name, sizeof name),
           run_status_name(r.status));
    printf("  arch %s  task %s  data %s  tokenizer %s\n", r.arch, r.task,
           r.data[0] ? text_shown(r.data, data, sizeof data) : "-",
           r.tokenizer[0] ? text_shown(r.tokenizer, tokenizer, sizeof tokenizer) : "-");
    format_time(r.created_at, 1, when[0], sizeof when[0]);
    format_time(r.started_at, 1, when[1], sizeof when[1]);
    format_time(r.finished_at, 1, when[2], sizeof when[2]);
    printf("  created %s  started %s  finished %s (UTC)\n", when[0], when[1], when[2]);
    printf("  steps %lld", (long long)r.steps_done);
    if (r.total_steps > 0)
        printf("/%lld", (long long)r.total_steps);
    printf("  tokens %s  tokens/s %s", fmt_count(r.tokens_seen, tokens, sizeof tokens),
           fmt_rate(r.tokens_per_s, rate, sizeof rate));
    if (!isnan(r.wall_seconds))
        printf("  wall %.1f s", r.wall_seconds);
    if (!isnan(r.peak_mem_mb))
        printf("  peak mem %.1f MB", r.peak_mem_mb);
    printf("\n");
    if (!isnan(r.infer_samples_per_s))
        printf("  inference %.1f samples/s (batch 1, 1 thread)\n", r.infer_samples_per_s);
    printf("  params %s (non-embedding %s)\n", format_count(r.n_params, params_total, sizeof params_total),
           format_count(r.n_params_nonembedding, params_ne, sizeof params_ne));
    /* a failure's error; a done or pruned run's why it stopped early */
    if (r.error[0])
        printf("  %s: %s\n", run_status_error(r.status) ? "error" : "stopped", text_shown(r.error, error, sizeof error));
    return show_organised(s, id);
}

/* The config as "key value" cells in columns, filled top to bottom. */
static int show_config(Store *s, int64_t id)
{
    char err[ERR_LEN] = "";
    RunConfigEntry *items = NULL;
    int n = 0;
    if (runs_read_config(s, id, &items, &n, err))
        return cli_fail("%s", err);
    printf("\nconfig\n");
    if (n == 0)
        printf("  (empty)\n");
    int key_w = 0, cell_w = 0;
    char shown[sizeof items[0].value];
    for (int i = 0; i < n; i++)   /* the value as shown, in place (cut at its size) */
        memcpy(items[i].value, text_shown(items[i].value, shown, sizeof shown), sizeof shown);
    for (int i = 0; i < n; i++)
        key_w = MB_MAX(key_w, text_columns(items[i].key));
    for (int i = 0; i < n; i++)
        cell_w = MB_MAX(cell_w, key_w + 1 + text_columns(items[i].value));
    int ncols = MB_MAX(1, 78 / (cell_w + 3));
    int nlines = (n + ncols - 1) / ncols;
    for (int line = 0; line < nlines; line++) {
        for (int c = 0; c < ncols; c++) {
            int i = c * nlines + line;
            if (i >= n)
                break;
            int last = c == ncols - 1 || (c + 1) * nlines + line >= n;
            int pad = last ? 0 : cell_w - key_w - 1 - text_columns(items[i].value);
            printf("  %-*s %s%*s", key_w, items[i].key, items[i].value, pad, "");
        }
        printf("\n");
    }
    free(items);
    return 0;
}

static int show_evals(Store *s, int64_t id)
{
    char err[ERR_LEN] = "";
    RunEval *evals = NULL;
    int n = 0;
    if (runs_read_evals(s, id, 0, 0, &evals, &n, err))
        return cli_fail("%s", err);
    printf("\nevals\n");
    if (n == 0) {
        printf("  (none yet)\n");
        return 0;
    }
    static const char *const header[] = {"STEP", "SPLIT", "LOSS", "PPL", "ACC", "BPB", "TOKENS"};
    Table t = {.ncols = 7, .align = "rlrrrrr"};
    int bad = table_add(&t, header);
    for (int i = 0; i < n && !bad; i++) {
        const RunEval *e = &evals[i];
        char step[24], loss[32], ppl[32], acc[32], bpb[32], tokens[32];
        snprintf(step, sizeof step, "%lld", (long long)e->step);
        const char *cells[7] = {step,
                                e->split,
                                fmt_real(e->loss, 4, loss, sizeof loss),
                                fmt_real(e->perplexity, 2, ppl, sizeof ppl),
                                fmt_real(e->accuracy, 4, acc, sizeof acc),
                                fmt_real(e->bits_per_byte, 4, bpb, sizeof bpb),
                                format_count(e->n_tokens, tokens, sizeof tokens)};
        bad = table_add(&t, cells);
    }
    free(evals);
    if (!bad)
        table_print(&t, "  ");
    table_free(&t);
    return bad ? cli_fail("show: out of memory") : 0;
}

static int show_checkpoints(Store *s, int64_t id)
{
    char err[ERR_LEN] = "";
    RunCheckpoint *ckpts = NULL;
    int n = 0;
    if (runs_read_checkpoints(s, id, 0, 0, &ckpts, &n, err))
        return cli_fail("%s", err);
    printf("\ncheckpoints\n");
    if (n == 0)
        printf("  (none)\n");
    for (int i = 0; i < n; i++) {
        char when[32];
        format_time(ckpts[i].created_at, 1, when, sizeof when);
        char path[TEXT_SHOWN_CAP(sizeof ckpts[i].path)];
        printf("  step %-8lld %s  %s\n", (long long)ckpts[i].step, when, text_shown(ckpts[i].path, path, sizeof path));
    }
    free(ckpts);
    return 0;
}

/* Points read for each series of the plot of `show`: many more than its
   columns can show, few enough that a run of a million steps plots at once. */
#define SHOW_PLOT_POINTS 4000

/* Raw loss as dots, smoothed loss as a line, valid losses as markers. */
static int show_plot(Store *s, int64_t run, int utf8, int log_y)
{
    char err[ERR_LEN] = "";
    double *x[3] = {NULL, NULL, NULL}, *y[3] = {NULL, NULL, NULL};
    int n[3] = {0, 0, 0};
    static const StoreSeries what[3] = {STORE_SERIES_TRAIN_LOSS, STORE_SERIES_TRAIN_LOSS_SMOOTH,
                                        STORE_SERIES_VALID_LOSS};
    int rc = 0;
    for (int k = 0; k < 3 && !rc; k++)
        if (store_run_series_sampled(s, run, what[k], SHOW_PLOT_POINTS, &x[k], &y[k], &n[k], err))
            rc = cli_fail("%s", err);
    if (!rc && n[0] + n[1] == 0) {
        printf("\ntrain loss: no metrics yet\n");
    } else if (!rc) {
        /* ASCII cannot tell a dot cloud from a line, so there the smoothed
           curve is drawn as '*' markers over the raw dots. */
        PlotSeries series[3] = {
            {x[0], y[0], n[0], PLOT_DOTS, 0, 90},
            {x[1], y[1], n[1], utf8 ? PLOT_LINE : PLOT_MARKERS, '*', 36},
            {x[2], y[2], n[2], PLOT_MARKERS, 'o', 33},
        };
        PlotOptions opt = {PLOT_WIDTH, PLOT_HEIGHT, log_y, !utf8, use_color(), 0};
        char *text = NULL;
        if (plot_render(&opt, series, 3, &text, err)) {
            rc = cli_fail("%s", err);
        } else {
            printf("\ntrain loss by step%s: %s raw, %s smoothed, %s valid\n",
                   log_y ? " (log scale)" : "", utf8 ? "⠂" : ".", utf8 ? "⠤" : "*",
                   utf8 ? "⣿" : "o");
            fputs(text, stdout);
            free(text);
        }
    }
    for (int k = 0; k < 3; k++) {
        free(x[k]);
        free(y[k]);
    }
    return rc;
}

int cmd_show(int argc, char **argv)
{
    Args a;
    if (parse_args("show", argc, argv, 1, &a))
        return 1;
    if (!a.run)
        return cli_fail("show: which run? (mixbench show RUN; see `mixbench ls`)");
    int utf8 = text_locale_utf8();
    Store *s = open_existing(a.db);
    if (!s)
        return 1;
    int rc = 0;
    int64_t run = resolve_run(s, a.run);
    if (!run) {
        store_close(s);
        return 1;
    }
    if (a.json) {
        char err[ERR_LEN] = "", *json = NULL;
        if (cli_run_json(s, run, &json, err))
            rc = cli_fail("%s", err);
        else if (json)
            puts(json);
        free(json);
    } else {
        rc = show_header(s, run);
        if (!rc)
            rc = show_config(s, run);
        if (!rc)
            rc = show_evals(s, run);
        if (!rc)
            rc = show_checkpoints(s, run);
        if (!rc)
            rc = show_plot(s, run, utf8, a.log_y);
    }
    store_close(s);
    return rc;
}
