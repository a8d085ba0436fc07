/*
 * cmd_store.c — `mixbench ls` and `mixbench show RUN`: the store read back,
 * for people (aligned tables, a sparkline per run, a braille plot of the loss
 * curve; ASCII when the locale is not UTF-8) or for programs (--json, built
 * by SQLite's JSON functions so numbers keep their types).
 *
 * Not for: writing runs (cmd_run does) or the interactive workbench (ui/).
 * Reading never creates a store: a missing file is an error.
 */
#include "app/cli.h"
#include "app/commands.h"
#include "db/store.h"
#include "engine/common.h"
#include "ui/draw/plot.h"

#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEFAULT_DB "mixbench.db"
#define SPARK_WIDTH 10
#define PLOT_WIDTH 72
#define PLOT_HEIGHT 14

/* Whether the user's locale speaks UTF-8 (braille and block characters).
   Numbers stay in the C locale so "0.5" never prints as "0,5". */
static int utf8_locale(void)
{
    if (!setlocale(LC_ALL, ""))
        return 0;
    setlocale(LC_NUMERIC, "C");
    const char *codeset = nl_langinfo(CODESET);
    return codeset && (strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "utf8") == 0);
}

static int use_color(void)
{
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !(no_color && *no_color) && term && strcmp(term, "dumb");
}

/* ---- arguments ------------------------------------------------------------ */

typedef struct {
    const char *db;
    int json, log_y, help;
    const char *status, *arch; /* ls filters */
    const char *run;           /* show's run id or name */
} Args;

static int parse_args(const char *cmd, int argc, char **argv, int is_show, Args *a)
{
    memset(a, 0, sizeof *a);
    a->db = DEFAULT_DB;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char **value = NULL;
        const char *name = arg;
        if (strcmp(arg, "--json") == 0) {
            a->json = 1;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            a->help = 1;
            continue;
        }
        if (is_show && strcmp(arg, "--log") == 0) {
            a->log_y = 1;
            continue;
        }
        if (strncmp(arg, "--db", 4) == 0 && (arg[4] == 0 || arg[4] == '='))
            value = &a->db, name = "--db";
        else if (!is_show && strncmp(arg, "--status", 8) == 0 && (arg[8] == 0 || arg[8] == '='))
            value = &a->status, name = "--status";
        else if (!is_show && strncmp(arg, "--arch", 6) == 0 && (arg[6] == 0 || arg[6] == '='))
            value = &a->arch, name = "--arch";
        if (value) {
            const char *eq = strchr(arg, '=');
            if (eq)
                *value = eq + 1;
            else if (i + 1 < argc)
                *value = argv[++i];
            else
                return cli_fail("%s: %s needs a value", cmd, name);
            if (!**value)
                return cli_fail("%s: %s needs a value", cmd, name);
            continue;
        }
        if (arg[0] == '-' && arg[1])
            return cli_fail("%s: unknown option %s (try `mixbench %s --help`)", cmd, arg, cmd);
        if (is_show && !a->run) {
            a->run = arg;
            continue;
        }
        return cli_fail("%s: unexpected argument %s", cmd, arg);
    }
    return 0;
}

/* ---- text helpers ------------------------------------------------------------ */

/* Columns a UTF-8 string takes (one per code point: our text has no wide
   characters). */
static int text_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

/* 1234567 -> "1,234,567" */
static void format_count(const char *text, char *out, size_t cap)
{
    if (!text || !*text) {
        snprintf(out, cap, "-");
        return;
    }
    long long v = strtoll(text, NULL, 10);
    char digits[32];
    snprintf(digits, sizeof digits, "%lld", v < 0 ? -v : v);
    size_t n = strlen(digits), k = 0;
    if (v < 0 && k + 1 < cap)
        out[k++] = '-';
    for (size_t i = 0; i < n && k + 2 < cap; i++) {
        out[k++] = digits[i];
        if ((n - i - 1) % 3 == 0 && i + 1 < n)
            out[k++] = ',';
    }
    out[k] = 0;
}

/* A number from the store as "%.<decimals>f", "-" for NULL. */
static void format_real(const char *text, int decimals, char *out, size_t cap)
{
    if (!text)
        snprintf(out, cap, "-");
    else
        snprintf(out, cap, "%.*f", decimals, strtod(text, NULL));
}

static void format_rate(const char *text, char *out, size_t cap)
{
    if (!text) {
        snprintf(out, cap, "-");
        return;
    }
    double v = strtod(text, NULL);
    if (v >= 1e6)
        snprintf(out, cap, "%.1fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(out, cap, "%.1fk", v / 1e3);
    else
        snprintf(out, cap, "%.0f", v);
}

/* "2026-11-22T02:41:34.123Z" -> "2026-11-22 02:41" (UTC). */
static void format_time(const char *iso, int with_seconds, char *out, size_t cap)
{
    if (!iso || strlen(iso) < 16) {
        snprintf(out, cap, "%s", iso ? iso : "-");
        return;
    }
    snprintf(out, cap, "%.10s %.*s", iso, with_seconds ? 8 : 5, iso + 11);
}

/* The last part of a path: "../shared/data/ptb" -> "ptb". */
static void format_data(const char *path, char *out, size_t cap)
{
    if (!path || !*path) {
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
        char *copy = dup_or_empty(values[c]);
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
            width[c] = MB_MAX(width[c], text_width(t->cells[r * t->ncols + c]));
    for (int r = 0; r < t->nrows; r++) {
        /* Build the line, then drop trailing blanks. */
        char line[2048];
        size_t len = 0;
        len += (size_t)snprintf(line, sizeof line, "%s", indent);
        for (int c = 0; c < t->ncols && len < sizeof line; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            int pad = width[c] - text_width(cell);
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

/* ---- store access ------------------------------------------------------------ */

/* store_query callback: prints the first column of each row as a line. */
static int print_value(void *ctx, int ncols, char **values, char **names)
{
    (void)ctx;
    (void)names;
    if (ncols > 0 && values[0])
        puts(values[0]);
    return 0;
}

/* store_query callback: collects rows as strdup'd cells into a list. */
typedef struct {
    int ncols, nrows, cap, failed;
    char ***rows;
} Rows;

static int collect_row(void *ctx, int ncols, char **values, char **names)
{
    (void)names;
    Rows *r = ctx;
    if (r->nrows == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        char ***rows = realloc(r->rows, (size_t)cap * sizeof *rows);
        if (!rows) {
            r->failed = 1;
            return 1;
        }
        r->rows = rows;
        r->cap = cap;
    }
    char **row = calloc((size_t)ncols, sizeof *row);
    if (!row) {
        r->failed = 1;
        return 1;
    }
    for (int c = 0; c < ncols; c++)
        if (values[c] && !(row[c] = strdup(values[c])))
            r->failed = 1;
    r->ncols = ncols;
    r->rows[r->nrows++] = row;
    return r->failed;
}

static void rows_free(Rows *r)
{
    for (int i = 0; i < r->nrows; i++) {
        for (int c = 0; c < r->ncols; c++)
            free(r->rows[i][c]);
        free(r->rows[i]);
    }
    free(r->rows);
    memset(r, 0, sizeof *r);
}

static int query_rows(Store *s, const char *sql, const char *const *params, int n_params,
                      Rows *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (store_query_params(s, sql, params, n_params, collect_row, out, err))
        return -1;
    if (out->failed)
        return err_set(err, "out of memory");
    return 0;
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

static const char LS_JSON_SQL[] =
    "SELECT json_group_array(json_object("
    " 'id', id, 'name', name, 'arch', arch, 'task', task, 'data', data,"
    " 'tokenizer', tokenizer, 'status', status, 'd', d, 'layers', layers, 'heads', heads,"
    " 'n_ctx', n_ctx, 'vocab', vocab, 'seed', seed, 'threads', threads,"
    " 'n_params', n_params, 'n_params_nonembedding', n_params_nonembedding,"
    " 'total_steps', total_steps, 'steps_done', steps_done, 'tokens_seen', tokens_seen,"
    " 'train_loss', train_loss, 'train_loss_raw', train_loss_raw,"
    " 'best_valid_loss', best_valid_loss, 'valid_loss', valid_loss,"
    " 'valid_accuracy', valid_accuracy, 'test_loss', test_loss,"
    " 'test_perplexity', test_perplexity, 'test_accuracy', test_accuracy,"
    " 'test_bits_per_byte', test_bits_per_byte, 'tokens_per_s', tokens_per_s,"
    " 'wall_seconds', wall_seconds, 'peak_mem_mb', peak_mem_mb, 'created_at', created_at,"
    " 'started_at', started_at, 'finished_at', finished_at, 'error', error))"
    " FROM (SELECT * FROM results WHERE (?1 IS NULL OR status = ?1)"
    " AND (?2 IS NULL OR arch = ?2) ORDER BY id)";

static const char LS_SQL[] =
    "SELECT id, status, arch, task, data, steps_done, total_steps, train_loss, valid_loss,"
    " test_loss, tokens_per_s, created_at, name FROM results"
    " WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR arch = ?2) ORDER BY id";

enum { LS_ID, LS_STATUS, LS_ARCH, LS_TASK, LS_DATA, LS_STEPS, LS_TOTAL, LS_TRAIN, LS_VALID,
       LS_TEST, LS_RATE, LS_CREATED, LS_NAME };

static void ls_usage(void)
{
    puts("usage: mixbench ls [--db FILE] [--json] [--status S] [--arch A]\n"
         "  one line per run: id, status, arch, task, data, steps, train loss (smoothed) and\n"
         "  its sparkline, valid and test loss, training tokens/s, creation time (UTC)");
}

static int valid_status(const char *status)
{
    static const char *const known[] = {"queued", "running", "paused", "done", "failed",
                                        "diverged", "cancelled", "interrupted"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(status, known[i]) == 0)
            return 1;
    return 0;
}

static int ls_table(Store *s, const Rows *runs, int utf8)
{
    char err[ERR_LEN] = "";
    int any_name = 0;
    for (int i = 0; i < runs->nrows; i++)
        any_name |= runs->rows[i][LS_NAME] != NULL;
    static const char *const header[] = {"ID", "STATUS", "ARCH", "TASK", "DATA", "STEPS",
                                         "TRAIN", "CURVE", "VALID", "TEST", "TOK/S",
                                         "CREATED", "NAME"};
    Table t = {.ncols = any_name ? 13 : 12, .align = "rllllrrlrrrll"};
    if (table_add(&t, header))
        return cli_fail("ls: out of memory");
    for (int i = 0; i < runs->nrows; i++) {
        char **r = runs->rows[i];
        char data[64], steps[48], train[32], valid[32], test[32], rate[32], created[32];
        char spark[3 * SPARK_WIDTH + 1] = "";
        format_data(r[LS_DATA], data, sizeof data);
        if (r[LS_TOTAL] && strtoll(r[LS_TOTAL], NULL, 10) > 0)
            snprintf(steps, sizeof steps, "%s/%s", r[LS_STEPS], r[LS_TOTAL]);
        else
            snprintf(steps, sizeof steps, "%s", r[LS_STEPS] ? r[LS_STEPS] : "0");
        format_real(r[LS_TRAIN], 3, train, sizeof train);
        format_real(r[LS_VALID], 3, valid, sizeof valid);
        format_real(r[LS_TEST], 3, test, sizeof test);
        format_rate(r[LS_RATE], rate, sizeof rate);
        format_time(r[LS_CREATED], 0, created, sizeof created);

        double *x = NULL, *y = NULL;
        int n = 0;
        if (store_run_curve(s, strtoll(r[LS_ID], NULL, 10), &x, &y, &n, err)) {
            table_free(&t);
            return cli_fail("%s", err);
        }
        plot_sparkline(y, n, SPARK_WIDTH, !utf8, spark, sizeof spark);
        free(x);
        free(y);

        const char *cells[13] = {r[LS_ID], r[LS_STATUS], r[LS_ARCH], r[LS_TASK], data, steps,
                                 train, spark, valid, test, rate, created, r[LS_NAME]};
        if (table_add(&t, cells)) {
            table_free(&t);
            return cli_fail("ls: out of memory");
        }
    }
    table_print(&t, "");
    table_free(&t);
    return 0;
}

int cmd_ls(int argc, char **argv)
{
    Args a;
    if (parse_args("ls", argc, argv, 0, &a))
        return 1;
    if (a.help) {
        ls_usage();
        return 0;
    }
    if (a.status && !valid_status(a.status))
        return cli_fail("ls: unknown status %s (queued, running, paused, done, failed, diverged, "
                    "cancelled, interrupted)", a.status);
    int utf8 = utf8_locale();
    Store *s = open_existing(a.db);
    if (!s)
        return 1;
    char err[ERR_LEN] = "";
    const char *params[2] = {a.status, a.arch};
    int rc = 0;
    if (a.json) {
        if (store_query_params(s, LS_JSON_SQL, params, 2, print_value, NULL, err))
            rc = cli_fail("%s", err);
    } else {
        Rows runs;
        if (query_rows(s, LS_SQL, params, 2, &runs, err))
            rc = cli_fail("%s", err);
        else if (runs.nrows == 0)
            printf("no runs in %s%s\n", a.db, a.status || a.arch ? " match" : "");
        else
            rc = ls_table(s, &runs, utf8);
        rows_free(&runs);
    }
    store_close(s);
    return rc;
}

/* ---- show ---------------------------------------------------------------------- */

static const char SHOW_JSON_SQL[] =
    "SELECT json_object("
    " 'id', r.id, 'name', r.name, 'status', r.status, 'arch', r.arch, 'task', r.task,"
    " 'data', r.data, 'tokenizer', r.tokenizer, 'd', r.d, 'layers', r.layers,"
    " 'heads', r.heads, 'n_ctx', r.n_ctx, 'vocab', r.vocab, 'seed', r.seed,"
    " 'threads', r.threads, 'total_steps', r.total_steps, 'steps_done', r.steps_done,"
    " 'tokens_seen', r.tokens_seen, 'wall_seconds', r.wall_seconds,"
    " 'tokens_per_s', r.tokens_per_s, 'infer_samples_per_s', r.infer_samples_per_s,"
    " 'peak_mem_mb', r.peak_mem_mb, 'n_params', r.n_params,"
    " 'n_params_nonembedding', r.n_params_nonembedding, 'created_at', r.created_at,"
    " 'started_at', r.started_at, 'finished_at', r.finished_at, 'error', r.error,"
    " 'config', json(r.config_json),"
    /* json() around each subquery: a JSON value loses its JSON type when it
       crosses a subquery, and would be embedded as a quoted string. */
    " 'results', json((SELECT json_object('train_loss', train_loss,"
    "   'train_loss_raw', train_loss_raw, 'best_valid_loss', best_valid_loss,"
    "   'valid_loss', valid_loss, 'valid_accuracy', valid_accuracy, 'test_loss', test_loss,"
    "   'test_perplexity', test_perplexity, 'test_accuracy', test_accuracy,"
    "   'test_bits_per_byte', test_bits_per_byte, 'tokens_per_s', tokens_per_s,"
    "   'infer_samples_per_s', infer_samples_per_s,"
    "   'wall_seconds', wall_seconds) FROM results WHERE id = r.id)),"
    " 'evals', json((SELECT json_group_array(json_object('step', step, 'split', split,"
    "   'loss', loss, 'perplexity', perplexity, 'accuracy', accuracy,"
    "   'bits_per_byte', bits_per_byte, 'n_tokens', n_tokens, 'created_at', created_at))"
    "   FROM (SELECT * FROM evals WHERE run_id = r.id"
    "   ORDER BY step, CASE split WHEN 'train' THEN 0 WHEN 'valid' THEN 1 ELSE 2 END))),"
    " 'checkpoints', json((SELECT json_group_array(json_object('step', step, 'path', path,"
    "   'created_at', created_at))"
    "   FROM (SELECT * FROM checkpoints WHERE run_id = r.id ORDER BY step, path))),"
    " 'metrics', json((SELECT json_group_array(json_object('step', step, 'tokens', tokens,"
    "   'wall', wall, 'train_loss', train_loss, 'train_loss_smooth', train_loss_smooth,"
    "   'lr', lr, 'grad_norm', grad_norm, 'tokens_per_s', tokens_per_s))"
    "   FROM (SELECT * FROM metrics WHERE run_id = r.id ORDER BY step))))"
    " FROM runs r WHERE r.id = ?1";

static const char SHOW_RUN_SQL[] =
    "SELECT id, name, status, arch, task, data, tokenizer, created_at, started_at,"
    " finished_at, steps_done, total_steps, tokens_seen, wall_seconds, tokens_per_s,"
    " peak_mem_mb, n_params, n_params_nonembedding, error, infer_samples_per_s FROM runs WHERE id = ?1";

enum { RUN_ID, RUN_NAME, RUN_STATUS, RUN_ARCH, RUN_TASK, RUN_DATA, RUN_TOKENIZER, RUN_CREATED,
       RUN_STARTED, RUN_FINISHED, RUN_STEPS, RUN_TOTAL, RUN_TOKENS, RUN_WALL, RUN_RATE,
       RUN_MEM, RUN_PARAMS, RUN_PARAMS_NE, RUN_ERROR, RUN_INFER };

static void show_usage(void)
{
    puts("usage: mixbench show RUN [--db FILE] [--json] [--log]\n"
         "  RUN is a run id (or a run name: the latest run with it); prints the config,\n"
         "  parameter counts, evaluations, checkpoints and the train loss curve\n"
         "  (--log: log scale)");
}

/* The run's id from an id or a name; 0 with a message printed when absent. */
static long long resolve_run(Store *s, const char *run, const char *db)
{
    char err[ERR_LEN] = "";
    char *end = NULL;
    long long id = strtoll(run, &end, 10);
    if (end != run && *end == 0) {
        int exists = 0;
        if (store_run_exists(s, id, &exists, err)) {
            cli_fail("%s", err);
            return 0;
        }
        if (!exists) {
            cli_fail("show: no run %s in %s (see `mixbench ls`)", run, db);
            return 0;
        }
        return id;
    }
    Rows rows;
    const char *params[1] = {run};
    if (query_rows(s, "SELECT id FROM runs WHERE name = ?1 ORDER BY id DESC LIMIT 1", params,
                   1, &rows, err)) {
        cli_fail("%s", err);
        return 0;
    }
    id = rows.nrows && rows.rows[0][0] ? strtoll(rows.rows[0][0], NULL, 10) : 0;
    rows_free(&rows);
    if (!id)
        cli_fail("show: no run %s in %s (see `mixbench ls`)", run, db);
    return id;
}

static int show_header(Store *s, const char *id_text)
{
    char err[ERR_LEN] = "";
    Rows rows;
    const char *params[1] = {id_text};
    if (query_rows(s, SHOW_RUN_SQL, params, 1, &rows, err))
        return cli_fail("%s", err);
    if (rows.nrows == 0) {
        rows_free(&rows);
        return cli_fail("show: run %s disappeared while reading", id_text);
    }
    char **r = rows.rows[0];
    char data[256], when[3][32], tokens[32], params_total[32], params_ne[32], rate[32];
    printf("run %s%s%s  [%s]\n", r[RUN_ID], r[RUN_NAME] ? "  " : "",
           r[RUN_NAME] ? r[RUN_NAME] : "", r[RUN_STATUS]);
    snprintf(data, sizeof data, "%s", r[RUN_DATA] ? r[RUN_DATA] : "-");
    printf("  arch %s  task %s  data %s  tokenizer %s\n", r[RUN_ARCH], r[RUN_TASK], data,
           r[RUN_TOKENIZER] ? r[RUN_TOKENIZER] : "-");
    format_time(r[RUN_CREATED], 1, when[0], sizeof when[0]);
    format_time(r[RUN_STARTED], 1, when[1], sizeof when[1]);
    format_time(r[RUN_FINISHED], 1, when[2], sizeof when[2]);
    printf("  created %s  started %s  finished %s (UTC)\n", when[0], when[1], when[2]);
    format_count(r[RUN_TOKENS], tokens, sizeof tokens);
    format_rate(r[RUN_RATE], rate, sizeof rate);
    printf("  steps %s", r[RUN_STEPS]);
    if (r[RUN_TOTAL] && strtoll(r[RUN_TOTAL], NULL, 10) > 0)
        printf("/%s", r[RUN_TOTAL]);
    printf("  tokens %s  tokens/s %s", tokens, rate);
    if (r[RUN_WALL])
        printf("  wall %.1f s", strtod(r[RUN_WALL], NULL));
    if (r[RUN_MEM])
        printf("  peak mem %.1f MB", strtod(r[RUN_MEM], NULL));
    printf("\n");
    if (r[RUN_INFER])
        printf("  inference %.1f samples/s (batch 1, 1 thread)\n", strtod(r[RUN_INFER], NULL));
    format_count(r[RUN_PARAMS], params_total, sizeof params_total);
    format_count(r[RUN_PARAMS_NE], params_ne, sizeof params_ne);
    printf("  params %s (non-embedding %s)\n", params_total, params_ne);
    if (r[RUN_ERROR])
        printf("  error: %s\n", r[RUN_ERROR]);
    rows_free(&rows);
    return 0;
}

/* The config as "key value" cells in columns, filled top to bottom. */
static int show_config(Store *s, const char *id_text)
{
    char err[ERR_LEN] = "";
    Rows rows;
    const char *params[1] = {id_text};
    if (query_rows(s,
                   "SELECT j.key, CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
                   " WHEN 'null' THEN 'null' ELSE j.value END"
                   " FROM runs, json_each(runs.config_json) AS j WHERE runs.id = ?1",
                   params, 1, &rows, err))
        return cli_fail("%s", err);
    printf("\nconfig\n");
    if (rows.nrows == 0)
        printf("  (empty)\n");
    int key_w = 0, cell_w = 0;
    for (int i = 0; i < rows.nrows; i++)
        key_w = MB_MAX(key_w, text_width(rows.rows[i][0] ? rows.rows[i][0] : ""));
    for (int i = 0; i < rows.nrows; i++)
        cell_w = MB_MAX(cell_w, key_w + 1 +
                                    text_width(rows.rows[i][1] ? rows.rows[i][1] : "null"));
    int ncols = MB_MAX(1, 78 / (cell_w + 3));
    int nlines = (rows.nrows + ncols - 1) / ncols;
    for (int line = 0; line < nlines; line++) {
        for (int c = 0; c < ncols; c++) {
            int i = c * nlines + line;
            if (i >= rows.nrows)
                break;
            const char *key = rows.rows[i][0] ? rows.rows[i][0] : "";
            const char *value = rows.rows[i][1] ? rows.rows[i][1] : "null";
            int last = c == ncols - 1 || (c + 1) * nlines + line >= rows.nrows;
            int pad = last ? 0 : cell_w - key_w - 1 - text_width(value);
            printf("  %-*s %s%*s", key_w, key, value, pad, "");
        }
        printf("\n");
    }
    rows_free(&rows);
    return 0;
}

static int show_evals_and_checkpoints(Store *s, const char *id_text)
{
    char err[ERR_LEN] = "";
    Rows rows;
    const char *params[1] = {id_text};
    if (query_rows(s,
                   "SELECT step, split, loss, perplexity, accuracy, bits_per_byte, n_tokens"
                   " FROM evals WHERE run_id = ?1 ORDER BY step, CASE split WHEN 'train' THEN 0"
                   " WHEN 'valid' THEN 1 ELSE 2 END",
                   params, 1, &rows, err))
        return cli_fail("%s", err);
    printf("\nevals\n");
    if (rows.nrows == 0) {
        printf("  (none yet)\n");
    } else {
        static const char *const header[] = {"STEP", "SPLIT", "LOSS", "PPL", "ACC", "BPB",
                                             "TOKENS"};
        Table t = {.ncols = 7, .align = "rlrrrrr"};
        int bad = table_add(&t, header);
        for (int i = 0; i < rows.nrows && !bad; i++) {
            char **r = rows.rows[i];
            char loss[32], ppl[32], acc[32], bpb[32], tokens[32];
            format_real(r[2], 4, loss, sizeof loss);
            format_real(r[3], 2, ppl, sizeof ppl);
            format_real(r[4], 4, acc, sizeof acc);
            format_real(r[5], 4, bpb, sizeof bpb);
            format_count(r[6], tokens, sizeof tokens);
            const char *cells[7] = {r[0], r[1], loss, ppl, acc, bpb, tokens};
            bad = table_add(&t, cells);
        }
        if (bad) {
            table_free(&t);
            rows_free(&rows);
            return cli_fail("show: out of memory");
        }
        table_print(&t, "  ");
        table_free(&t);
    }
    rows_free(&rows);

    if (query_rows(s,
                   "SELECT step, path, created_at FROM checkpoints WHERE run_id = ?1"
                   " ORDER BY step, path",
                   params, 1, &rows, err))
        return cli_fail("%s", err);
    printf("\ncheckpoints\n");
    if (rows.nrows == 0)
        printf("  (none)\n");
    for (int i = 0; i < rows.nrows; i++) {
        char when[32];
        format_time(rows.rows[i][2], 1, when, sizeof when);
        printf("  step %-8s %s  %s\n", rows.rows[i][0], when, rows.rows[i][1]);
    }
    rows_free(&rows);
    return 0;
}

/* Raw loss as dots, smoothed loss as a line, valid losses as markers. */
static int show_plot(Store *s, long long run, int utf8, int log_y)
{
    char err[ERR_LEN] = "";
    double *x[3] = {NULL, NULL, NULL}, *y[3] = {NULL, NULL, NULL};
    int n[3] = {0, 0, 0};
    static const StoreSeries what[3] = {STORE_SERIES_TRAIN_LOSS, STORE_SERIES_TRAIN_LOSS_SMOOTH,
                                        STORE_SERIES_VALID_LOSS};
    int rc = 0;
    for (int k = 0; k < 3 && !rc; k++)
        if (store_run_series(s, run, what[k], &x[k], &y[k], &n[k], err))
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
    if (a.help) {
        show_usage();
        return 0;
    }
    if (!a.run)
        return cli_fail("show: which run? (mixbench show RUN; see `mixbench ls`)");
    int utf8 = utf8_locale();
    Store *s = open_existing(a.db);
    if (!s)
        return 1;
    int rc = 0;
    long long run = resolve_run(s, a.run, a.db);
    if (!run) {
        store_close(s);
        return 1;
    }
    char id_text[32], err[ERR_LEN] = "";
    snprintf(id_text, sizeof id_text, "%lld", run);
    if (a.json) {
        const char *params[1] = {id_text};
        if (store_query_params(s, SHOW_JSON_SQL, params, 1, print_value, NULL, err))
            rc = cli_fail("%s", err);
    } else {
        rc = show_header(s, id_text);
        if (!rc)
            rc = show_config(s, id_text);
        if (!rc)
            rc = show_evals_and_checkpoints(s, id_text);
        if (!rc)
            rc = show_plot(s, run, utf8, a.log_y);
    }
    store_close(s);
    return rc;
}
