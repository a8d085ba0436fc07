/*
 * cli_read.c — the reads of cli_read.h: one SELECT each on the runs table
 * and the documented views (results, queue, curves), decoded by column
 * type; the JSON of `ls --json` and `show --json` is built by SQLite's JSON
 * functions.
 */
#include "db/cli_read.h"

#include "db/ckpt_owner.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"
#include "engine/io/json.h"

/* Binds ?1 to a status name (NULL for RUN_STATUS_COUNT), ?2 to arch and ?3
   to a JSON array of run ids (NULL: any run). */
static int bind_filter(sqlite3_stmt *st, RunStatus status, const char *arch, const char *ids_json)
{
    int rc = store_bind_text(st, 1, status == RUN_STATUS_COUNT ? NULL : run_status_name(status));
    if (rc == SQLITE_OK) rc = store_bind_text(st, 2, arch);
    return rc == SQLITE_OK ? store_bind_text(st, 3, ids_json) : rc;
}

/* The rows of sql about run id (?1), each decoded by fill into *out. */
static int read_run_rows(Store *s, const char *sql, int64_t id, const char *what, size_t size,
                         void (*fill)(void *item, sqlite3_stmt *st), void **out, int *n, char *err)
{
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (store_prepare_ints(s, sql, &id, 1, &st, what, err)) return -1;
    return store_read_all(s, st, what, size, fill, out, n, err);
}

/* The one text value of the first row (malloc'd; NULL when no row). */
static int read_text(Store *s, sqlite3_stmt *st, const char *what, char **text, char *err)
{
    *text = NULL;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *text = strdup((const char *)sqlite3_column_text(st, 0));
        if (!*text) {
            sqlite3_finalize(st);
            return err_set(err, "store: %s: out of memory", what);
        }
    } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

/* ---- ls ------------------------------------------------------------------ */

#define RUNS_FILTER                                                                              \
    " WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR arch = ?2)"                          \
    " AND (?3 IS NULL OR id IN (SELECT value FROM json_each(?3))) ORDER BY id"

static void fill_run_row(void *item, sqlite3_stmt *st)
{
    CliRunRow *r = item;
    r->id = sqlite3_column_int64(st, 0);
    store_column_copy(r->name, sizeof r->name, st, 1);
    r->status = store_column_status(st, 2);
    store_column_copy(r->arch, sizeof r->arch, st, 3);
    store_column_copy(r->task, sizeof r->task, st, 4);
    store_column_copy(r->data, sizeof r->data, st, 5);
    r->steps_done = sqlite3_column_int64(st, 6);
    r->total_steps = sqlite3_column_int64(st, 7);
    r->train_loss = store_column_real(st, 8);
    r->valid_loss = store_column_real(st, 9);
    r->test_loss = store_column_real(st, 10);
    r->tokens_per_s = store_column_real(st, 11);
    store_column_copy(r->created_at, sizeof r->created_at, st, 12);
    store_column_copy(r->tags, sizeof r->tags, st, 13);
    r->starred = sqlite3_column_int(st, 14);
    r->best_valid_loss = store_column_real(st, 15);
    r->best_valid_step = store_column_real(st, 16);
    r->answer_accuracy = store_column_real(st, 17);
}

/* A run's answer accuracy, as a column of a query over results (RES its
   alias): its test accuracy when its data scores only the answers
   (scores_answers, db/store.c), else NULL. */
#define ANSWER_ACCURACY(RES) "CASE WHEN scores_answers(" RES ".data) THEN " RES ".test_accuracy END"

/* The step of a run's lowest valid evaluation (the first of equal ones),
   as a column of a query over results (RES its alias); no schema column. */
#define BEST_VALID_STEP(RES)                                                                   \
    "(SELECT e.step FROM evals e WHERE e.run_id = " RES ".id AND e.split = 'valid'"           \
    " ORDER BY e.loss, e.step LIMIT 1)"

int cli_runs(Store *s, RunStatus status, const char *arch, CliRunRow **out, int *n, char *err)
{
    assert(s && err);
    const char *what = "list runs";
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT id, name, status, arch, task, data, steps_done, total_steps, train_loss,"
                      " valid_loss, test_loss, tokens_per_s, created_at, tags, starred, best_valid_loss,"
                      " " BEST_VALID_STEP("results") ", " ANSWER_ACCURACY("results") " FROM results" RUNS_FILTER,
                      &st, what, err))
        return -1;
    if (bind_filter(st, status, arch, NULL) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    return store_read_all(s, st, what, sizeof **out, fill_run_row, (void **)out, n, err);
}

int cli_runs_json(Store *s, RunStatus status, const char *arch, char **json, char *err)
{
    return cli_runs_json_of(s, status, arch, NULL, json, err);
}

int cli_runs_json_of(Store *s, RunStatus status, const char *arch, const char *ids_json, char **json, char *err)
{
    assert(s && err);
    static const char SQL[] =
        "SELECT json_group_array(json_object("
        " 'id', id, 'name', name, 'arch', arch, 'task', task, 'data', data,"
        " 'tokenizer', tokenizer, 'status', status, 'd', d, 'layers', layers, 'heads', heads,"
        " 'n_ctx', n_ctx, 'vocab', vocab, 'seed', seed, 'threads', threads,"
        " 'n_params', n_params, 'n_params_nonembedding', n_params_nonembedding,"
        " 'total_steps', total_steps, 'steps_done', steps_done, 'tokens_seen', tokens_seen,"
        " 'train_loss', train_loss, 'train_loss_raw', train_loss_raw,"
        " 'best_valid_loss', best_valid_loss, 'best_valid_step', " BEST_VALID_STEP("x") ","
        " 'valid_loss', valid_loss,"
        " 'valid_accuracy', valid_accuracy, 'test_loss', test_loss,"
        " 'test_perplexity', test_perplexity, 'test_accuracy', test_accuracy,"
        " 'answer_accuracy', " ANSWER_ACCURACY("x") ","
        " 'test_bits_per_byte', test_bits_per_byte, 'tokens_per_s', tokens_per_s,"
        " 'wall_seconds', wall_seconds, 'peak_mem_mb', peak_mem_mb, 'created_at', created_at,"
        " 'started_at', started_at, 'finished_at', finished_at, 'error', error,"
        " 'tags', tags, 'note', note, 'starred', starred))"
        " FROM (SELECT * FROM results" RUNS_FILTER ") x";
    const char *what = "list runs";
    sqlite3_stmt *st;
    if (store_prepare(s, SQL, &st, what, err)) return -1;
    if (bind_filter(st, status, arch, ids_json) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    return read_text(s, st, what, json, err);
}

/* ---- show ---------------------------------------------------------------- */

static void fill_run_detail(void *item, sqlite3_stmt *st)
{
    CliRunDetail *d = item;
    d->id = sqlite3_column_int64(st, 0);
    store_column_copy(d->name, sizeof d->name, st, 1);
    d->status = store_column_status(st, 2);
    store_column_copy(d->arch, sizeof d->arch, st, 3);
    store_column_copy(d->task, sizeof d->task, st, 4);
    store_column_copy(d->data, sizeof d->data, st, 5);
    store_column_copy(d->tokenizer, sizeof d->tokenizer, st, 6);
    store_column_copy(d->created_at, sizeof d->created_at, st, 7);
    store_column_copy(d->started_at, sizeof d->started_at, st, 8);
    store_column_copy(d->finished_at, sizeof d->finished_at, st, 9);
    d->steps_done = sqlite3_column_int64(st, 10);
    d->total_steps = sqlite3_column_int64(st, 11);
    d->tokens_seen = sqlite3_column_int64(st, 12);
    d->wall_seconds = store_column_real(st, 13);
    d->tokens_per_s = store_column_real(st, 14);
    d->peak_mem_mb = store_column_real(st, 15);
    d->n_params = store_column_count(st, 16);
    d->n_params_nonembedding = store_column_count(st, 17);
    store_column_copy(d->error, sizeof d->error, st, 18);
    d->infer_samples_per_s = store_column_real(st, 19);
}

int cli_run_detail(Store *s, int64_t id, CliRunDetail *out, int *found, char *err)
{
    assert(s && err);
    CliRunDetail *rows = NULL;
    int n = 0;
    *found = 0;
    if (read_run_rows(s,
                      "SELECT id, name, status, arch, task, data, tokenizer, created_at, started_at,"
                      " finished_at, steps_done, total_steps, tokens_seen, wall_seconds, tokens_per_s,"
                      " peak_mem_mb, n_params, n_params_nonembedding, error, infer_samples_per_s"
                      " FROM runs WHERE id = ?1",
                      id, "read run", sizeof *rows, fill_run_detail, (void **)&rows, &n, err))
        return -1;
    if (n) *out = rows[0];
    *found = n > 0;
    free(rows);
    return 0;
}

int cli_run_by_name(Store *s, const char *name, int64_t *id, char *err)
{
    assert(s && err);
    const char *what = "look up run";
    sqlite3_stmt *st;
    *id = 0;
    if (store_prepare(s, "SELECT id FROM runs WHERE name = ?1 AND deleted_at IS NULL ORDER BY id DESC LIMIT 1", &st,
                      what, err))
        return -1;
    if (store_bind_text(st, 1, name) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
    } else if (rc != SQLITE_DONE) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

int cli_run_json(Store *s, int64_t id, char **json, char *err)
{
    assert(s && err);
    static const char SQL[] =
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
    const char *what = "read run";
    sqlite3_stmt *st;
    if (store_prepare_ints(s, SQL, &id, 1, &st, what, err)) return -1;
    return read_text(s, st, what, json, err);
}

/* ---- rows of a view ------------------------------------------------------- */

struct DbRows {
    Store *store;
    sqlite3_stmt *st;
    int ncols;
    DbValue *row;
};

static int rows_open(Store *s, const char *sql, const char *const *params, int n_params, DbRows **out, char *err)
{
    const char *what = "read rows";
    *out = NULL;
    DbRows *r = calloc(1, sizeof *r);
    if (!r) return err_set(err, "store: %s: out of memory", what);
    if (store_prepare(s, sql, &r->st, what, err)) {
        free(r);
        return -1;
    }
    for (int i = 0; i < n_params; i++)
        if (store_bind_text(r->st, i + 1, params[i]) != SQLITE_OK) {
            store_fail(s, err, what);
            db_rows_close(r);
            return -1;
        }
    r->store = s;
    r->ncols = sqlite3_column_count(r->st);
    r->row = calloc((size_t)(r->ncols > 0 ? r->ncols : 1), sizeof *r->row);
    if (!r->row) {
        db_rows_close(r);
        return err_set(err, "store: %s: out of memory", what);
    }
    *out = r;
    return 0;
}

int cli_queue_open(Store *s, DbRows **out, char *err)
{
    assert(s && err);
    return rows_open(s, "SELECT * FROM queue", NULL, 0, out, err);
}

/* A config key is spliced into the SQL as a JSON path and a column name. */
static int plain_key(const char *k)
{
    if (!*k) return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_')) return 0;
    return 1;
}

/* store_query's callback counting rows into *(int64_t *)ctx. */
static int count_row(void *ctx, int ncols, char **values, char **names)
{
    (void)ncols, (void)values, (void)names;
    (*(int64_t *)ctx)++;
    return 0;
}

int cli_export_open(Store *s, int curves, const char *sweep, const char *const *cfg_keys, int n_cfg,
                    DbRows **out, char *err)
{
    return cli_export_open_of(s, curves, sweep, NULL, cfg_keys, n_cfg, 0, out, err);
}

/* store_query's callback appending a results column to the select list
   of `export --loss best` (ctx: a StrBuf): valid_loss becomes the best
   evaluation and its step, the view's own best_valid_loss goes. */
static int best_column(void *ctx, int ncols, char **values, char **names)
{
    (void)ncols, (void)names;
    StrBuf *sb = ctx;
    if (!strcmp(values[0], "best_valid_loss")) return 0;
    if (!strcmp(values[0], "valid_loss"))
        sb_append(sb, ", res.best_valid_loss AS best_valid_loss, " BEST_VALID_STEP("res") " AS best_valid_step");
    else
        sb_printf(sb, ", res.\"%s\"", values[0]);
    return 0;
}

int cli_export_open_of(Store *s, int curves, const char *sweep, const char *ids_json, const char *const *cfg_keys,
                       int n_cfg, int loss_best, DbRows **out, char *err)
{
    assert(s && out && err);
    *out = NULL;
    for (int i = 0; i < n_cfg; i++)
        if (!plain_key(cfg_keys[i]) || strlen(cfg_keys[i]) > 64)
            return err_set(err, "store: export: '%s' is not a config key", cfg_keys[i]);
    StrBuf select;   /* the results' columns */
    sb_init(&select);
    if (loss_best && !curves && store_query(s, "SELECT name FROM pragma_table_info('results') ORDER BY cid",
                                            best_column, &select, err)) {
        sb_free(&select);
        return -1;
    }
    if (!sb_ok(&select)) {
        sb_free(&select);
        return err_set(err, "store: export: out of memory");
    }
    size_t cap = 768 + (size_t)n_cfg * 200 + select.len, len = 0;
    /* a sweep that is not there is said so, not answered with no rows */
    if (sweep) {
        const char *params[1] = {sweep};
        int64_t found = 0;
        if (store_query_params(s, "SELECT 1 FROM sweeps WHERE (id = ?1 OR name = ?1) AND deleted_at IS NULL LIMIT 1",
                               params, 1, count_row,
                               &found, err))
            return sb_free(&select), -1;
        if (!found) {
            sb_free(&select);
            return err_set(err, "no sweep %s in %s (`mixbench queue` lists the sweeps' jobs)", sweep,
                           store_file_name(s));
        }
    }
    char *sql = malloc(cap);
    if (!sql) {
        sb_free(&select);
        return err_set(err, "store: export: out of memory");
    }
    if (curves) {
        len += (size_t)snprintf(sql + len, cap - len, "SELECT c.* FROM curves c JOIN runs r ON r.id = c.run_id");
    } else {
        /* one row per run, with every config key flattened into a column */
        if (select.len) len += (size_t)snprintf(sql + len, cap - len, "SELECT %s", select.data + 2);
        else len += (size_t)snprintf(sql + len, cap - len, "SELECT res.*");
        len += (size_t)snprintf(sql + len, cap - len, ", %s AS answer_accuracy", ANSWER_ACCURACY("res"));
        for (int i = 0; i < n_cfg; i++)
            len += (size_t)snprintf(sql + len, cap - len, ", json_extract(r.config_json, '$.%s') AS \"cfg_%s\"",
                                    cfg_keys[i], cfg_keys[i]);
        len += (size_t)snprintf(sql + len, cap - len,
                                ", r.coords_json AS coords FROM results res JOIN runs r ON r.id = res.id");
    }
    /* ?1 the sweep, ?2 the run ids (JSON), either NULL */
    len += (size_t)snprintf(sql + len, cap - len,
                            " WHERE (?1 IS NULL OR r.sweep_id = (SELECT id FROM sweeps"
                            " WHERE (id = ?1 OR name = ?1) AND deleted_at IS NULL ORDER BY id DESC LIMIT 1))"
                            " AND (?2 IS NULL OR r.id IN (SELECT value FROM json_each(?2)))");
    snprintf(sql + len, cap - len, "%s", curves ? " ORDER BY c.run_id, c.step" : " ORDER BY res.id");
    const char *params[2] = {sweep, ids_json};
    int rc = rows_open(s, sql, params, 2, out, err);
    free(sql);
    sb_free(&select);
    return rc;
}

int db_rows_count(const DbRows *r) { return r->ncols; }

const char *db_rows_name(const DbRows *r, int col)
{
    const char *name = sqlite3_column_name(r->st, col);
    return name ? name : "";
}

int db_rows_next(DbRows *r, const DbValue **row, char *err)
{
    assert(err);
    *row = NULL;
    int rc = sqlite3_step(r->st);
    if (rc == SQLITE_DONE) return 0;
    if (rc != SQLITE_ROW) return store_fail(r->store, err, "read rows");
    for (int c = 0; c < r->ncols; c++) {
        DbValue *v = &r->row[c];
        /* the type first: asking for the text converts the value */
        int type = sqlite3_column_type(r->st, c);
        v->type = type == SQLITE_INTEGER ? DB_INT : type == SQLITE_FLOAT ? DB_REAL
                : type == SQLITE_NULL ? DB_NULL : DB_TEXT;
        v->i = type == SQLITE_INTEGER ? sqlite3_column_int64(r->st, c) : 0;
        v->d = type == SQLITE_FLOAT ? sqlite3_column_double(r->st, c) : NAN;
        v->text = type == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(r->st, c);
        if (type != SQLITE_NULL && !v->text) return err_set(err, "store: read rows: out of memory");
    }
    *row = r->row;
    return 0;
}

void db_rows_close(DbRows *r)
{
    if (!r) return;
    sqlite3_finalize(r->st);
    free(r->row);
    free(r);
}
