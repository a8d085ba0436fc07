/*
 * runs_read.c — the typed reads of runs_read.h: SQL over the runs table,
 * the results view (schema version 3), evals, checkpoints and metrics.
 * Configs and coordinates come apart in SQL (json_each), so no JSON is
 * parsed here.
 *
 * Not for: the numbers themselves (the results view computes the unigram
 * gap and the not-learning flag) or drawing.
 */
#include "db/runs_read.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"
#include "engine/config.h"

/* A run's seed group as text, for runs aliased A (see runs_read.h): in a
   sweep its coordinates without seed; else its config without seed and
   without the bookkeeping keys (engine/config.h config_key_bookkeeping),
   which change neither what a run learns nor what it reports. */
static void seed_group_expr(const char *a, char *out, size_t cap)
{
    char paths[1024] = "'$.seed'";
    size_t len = strlen(paths);
    for (int k = 0; k < config_key_count() && len < sizeof paths; k++)
        if (config_key_bookkeeping(k))
            len += (size_t)snprintf(paths + len, sizeof paths - len, ", '$.%s'", config_key_name(k));
    snprintf(out, cap,
             "CASE WHEN %s.sweep_id IS NOT NULL"
             " THEN 'sweep ' || %s.sweep_id || ' ' || json_remove(coalesce(%s.coords_json, '{}'), '$.seed')"
             " ELSE 'config ' || json_remove(coalesce(%s.config_json, '{}'), %s) END",
             a, a, a, a, paths);
}

/* FNV-1a of a seed group's key: equal keys, equal hashes. */
static uint64_t hash_column(sqlite3_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    uint64_t h = 1469598103934665603ull;
    for (; s && *s; s++) h = (h ^ *s) * 1099511628211ull;
    return h;
}

/* ---- runs ---------------------------------------------------------------- */

/* The summary query of every run of view (results, or results_all for the
   trash; a WHERE or ORDER BY may follow) into sql. */
static void summary_sql(const char *view, char *sql, size_t cap)
{
    char group[2048];
    seed_group_expr("r", group, sizeof group);
    snprintf(sql, cap,
             "SELECT r.id, r.name, r.arch, r.task, r.data, r.status, r.error, r.sweep_id, s.name,"
             "       (SELECT group_concat(j.key || '=' || j.value, ' ') FROM json_each(r.coords_json) j),"
             "       %s, r.seed, r.threads, r.steps_done, r.total_steps, r.tokens_seen,"
             "       r.n_params, r.n_params_nonembedding, r.tokens_per_s, r.wall_seconds, x.tokens_per_s,"
             "       x.train_loss, x.best_valid_loss, x.valid_loss, x.test_loss, x.test_perplexity,"
             "       x.test_accuracy, x.valid_loss_all, x.test_loss_all, x.unigram_nats, x.unigram_gap,"
             "       x.not_learning, coalesce(r.resumed_step, -1), r.role IS NOT NULL,"
             "       CAST(json_extract(r.config_json, '$.lr') AS REAL), x.tags, x.note, x.starred, r.config_json"
             "  FROM runs r JOIN %s x ON x.id = r.id LEFT JOIN sweeps s ON s.id = r.sweep_id",
             group, view);
}

static void read_summary(sqlite3_stmt *st, RunSummary *r)
{
    char status[16];
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    store_column_copy(r->name, sizeof r->name, st, 1);
    store_column_copy(r->arch, sizeof r->arch, st, 2);
    store_column_copy(r->task, sizeof r->task, st, 3);
    store_column_copy(r->data, sizeof r->data, st, 4);
    store_column_copy(status, sizeof status, st, 5);
    r->status = run_status_parse(status);
    store_column_copy(r->error, sizeof r->error, st, 6);
    r->sweep_id = sqlite3_column_int64(st, 7);
    store_column_copy(r->sweep, sizeof r->sweep, st, 8);
    store_column_copy(r->coords, sizeof r->coords, st, 9);
    r->seed_group = hash_column(st, 10);
    r->seed = sqlite3_column_int64(st, 11);
    r->threads = sqlite3_column_int64(st, 12);
    r->steps_done = sqlite3_column_int64(st, 13);
    r->total_steps = sqlite3_column_int64(st, 14);
    r->tokens_seen = sqlite3_column_int64(st, 15);
    r->n_params = sqlite3_column_int64(st, 16);
    r->n_params_nonembedding = sqlite3_column_int64(st, 17);
    r->run_tokens_per_s = store_column_real(st, 18);
    r->wall_seconds = store_column_real(st, 19);
    r->tokens_per_s = store_column_real(st, 20);
    r->train_loss = store_column_real(st, 21);
    r->best_valid_loss = store_column_real(st, 22);
    r->valid_loss = store_column_real(st, 23);
    r->test_loss = store_column_real(st, 24);
    r->test_perplexity = store_column_real(st, 25);
    r->test_accuracy = store_column_real(st, 26);
    r->valid_loss_all = store_column_real(st, 27);
    r->test_loss_all = store_column_real(st, 28);
    r->unigram_nats = store_column_real(st, 29);
    r->unigram_gap = store_column_real(st, 30);
    r->not_learning = sqlite3_column_int(st, 31) != 0;
    r->resumed_step = sqlite3_column_int64(st, 32);
    r->is_search = sqlite3_column_int(st, 33);
    r->lr = store_column_real(st, 34);
    store_column_copy(r->tags, sizeof r->tags, st, 35);
    store_column_copy(r->note, sizeof r->note, st, 36);
    r->starred = sqlite3_column_int(st, 37);
    store_column_copy(r->config_json, sizeof r->config_json, st, 38);
}

/* The runs of view (with a WHERE clause or ""), by id. */
static int read_runs(Store *s, const char *view, const char *where, RunSummary **out, int *n, char *err)
{
    const char *what = "read runs";
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    char sql[4096];
    summary_sql(view, sql, sizeof sql);
    size_t len = strlen(sql);
    snprintf(sql + len, sizeof sql - len, "%s ORDER BY r.id", where);
    if (store_prepare(s, sql, &st, what, err)) return -1;
    RunSummary *rows = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            int grown_cap = cap ? 2 * cap : 64;
            RunSummary *grown = realloc(rows, (size_t)grown_cap * sizeof *grown);
            if (!grown) {
                free(rows);
                sqlite3_finalize(st);
                return err_set(err, "store: out of memory reading runs");
            }
            rows = grown;
            cap = grown_cap;
        }
        read_summary(st, &rows[count++]);
    }
    if (store_finish(s, st, rc, what, err)) {
        free(rows);
        return -1;
    }
    *out = rows;
    *n = count;
    return 0;
}

int runs_read_all(Store *s, RunSummary **out, int *n, char *err)
{
    assert(s && out && n && err);
    return read_runs(s, "results", "", out, n, err);
}

int runs_read_trash(Store *s, RunSummary **out, int *n, char *err)
{
    assert(s && out && n && err);
    return read_runs(s, "results_all", " WHERE r.deleted_at IS NOT NULL", out, n, err);
}

int runs_read_one(Store *s, int64_t run_id, RunSummary *out, int *found, char *err)
{
    assert(s && err);
    const char *what = "read run";
    sqlite3_stmt *st;
    *found = 0;
    char sql[4096];
    summary_sql("results", sql, sizeof sql);
    strncat(sql, " WHERE r.id = ?1", sizeof sql - strlen(sql) - 1);
    if (store_prepare_ints(s, sql, &run_id, 1, &st, what, err)) return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        read_summary(st, out);
        *found = 1;
    }
    return store_finish(s, st, rc, what, err);
}

int runs_read_latest_id(Store *s, int64_t *run_id, char *err)
{
    assert(s && err);
    *run_id = 0;
    return store_query_int(s, "SELECT coalesce(max(id), 0) FROM runs WHERE deleted_at IS NULL", run_id, "latest run",
                           err);
}

/* ---- a run's tables ------------------------------------------------------ */

static void fill_config(void *item, sqlite3_stmt *st)
{
    RunConfigEntry *e = item;
    store_column_copy(e->key, sizeof e->key, st, 0);
    store_column_copy(e->value, sizeof e->value, st, 1);
    e->number = store_column_real(st, 2);
    e->scalar = sqlite3_column_int(st, 3);
}

void runs_config_of(const RunConfigEntry *entries, int n, Config *c)
{
    assert(c && (entries || n == 0));
    config_defaults(c);
    char err[ERR_LEN];
    for (int i = 0; i < n; i++)
        if (entries[i].scalar && config_is_key(entries[i].key)) (void)config_set(c, entries[i].key, entries[i].value, err);
}

int runs_read_config(Store *s, int64_t run_id, RunConfigEntry **out, int *n, char *err)
{
    assert(s && err);
    /* reals as config_get writes them (%.9g), so that a value equal to the
       default reads the same as the default */
    static const char SQL[] =
        "SELECT j.key,"
        "       CASE j.type WHEN 'real' THEN printf('%.9g', j.value) WHEN 'true' THEN 'true'"
        "                   WHEN 'false' THEN 'false' WHEN 'null' THEN 'null' ELSE j.value END,"
        "       CASE WHEN j.type IN ('integer', 'real') THEN j.value END,"
        "       j.type IN ('text', 'integer', 'real', 'true', 'false')"
        "  FROM runs r, json_each(CASE WHEN json_valid(r.config_json) AND json_type(r.config_json) = 'object'"
        "                         THEN r.config_json ELSE '{}' END) j"
        " WHERE r.id = ?1 ORDER BY j.id";
    sqlite3_stmt *st;
    if (store_prepare_ints(s, SQL, &run_id, 1, &st, "read config", err)) return -1;
    return store_read_all(s, st, "read config", sizeof **out, fill_config, (void **)out, n, err);
}

static void fill_eval(void *item, sqlite3_stmt *st)
{
    RunEval *e = item;
    e->step = sqlite3_column_int64(st, 0);
    store_column_copy(e->split, sizeof e->split, st, 1);
    e->loss = store_column_real(st, 2);
    e->perplexity = store_column_real(st, 3);
    e->accuracy = store_column_real(st, 4);
    e->bits_per_byte = store_column_real(st, 5);
    e->n_tokens = store_column_count(st, 6);
    e->loss_all = store_column_real(st, 7);
}

int runs_read_evals(Store *s, int64_t run_id, int newest_first, int limit, RunEval **out, int *n, char *err)
{
    assert(s && err);
    static const char OLDEST[] =
        "SELECT step, split, loss, perplexity, accuracy, bits_per_byte, n_tokens, loss_all FROM evals"
        " WHERE run_id = ?1 ORDER BY step, CASE split WHEN 'train' THEN 0 WHEN 'valid' THEN 1 ELSE 2 END"
        " LIMIT ?2";
    static const char NEWEST[] =
        "SELECT step, split, loss, perplexity, accuracy, bits_per_byte, n_tokens, loss_all FROM evals"
        " WHERE run_id = ?1 ORDER BY step DESC, split LIMIT ?2";
    int64_t args[2] = {run_id, limit > 0 ? limit : -1};
    sqlite3_stmt *st;
    if (store_prepare_ints(s, newest_first ? NEWEST : OLDEST, args, 2, &st, "read evaluations", err)) return -1;
    return store_read_all(s, st, "read evaluations", sizeof **out, fill_eval, (void **)out, n, err);
}

static void fill_checkpoint(void *item, sqlite3_stmt *st)
{
    RunCheckpoint *c = item;
    c->step = sqlite3_column_int64(st, 0);
    store_column_copy(c->path, sizeof c->path, st, 1);
    store_column_copy(c->created_at, sizeof c->created_at, st, 2);
}

int runs_read_checkpoints(Store *s, int64_t run_id, int newest_first, int limit, RunCheckpoint **out, int *n,
                          char *err)
{
    assert(s && err);
    static const char OLDEST[] =
        "SELECT step, path, created_at FROM checkpoints WHERE run_id = ?1 ORDER BY step, path LIMIT ?2";
    static const char NEWEST[] =
        "SELECT step, path, created_at FROM checkpoints WHERE run_id = ?1 ORDER BY step DESC, path LIMIT ?2";
    int64_t args[2] = {run_id, limit > 0 ? limit : -1};
    sqlite3_stmt *st;
    if (store_prepare_ints(s, newest_first ? NEWEST : OLDEST, args, 2, &st, "read checkpoints", err)) return -1;
    return store_read_all(s, st, "read checkpoints", sizeof **out, fill_checkpoint, (void **)out, n, err);
}

/* ---- groups of runs ------------------------------------------------------ */

int runs_read_seed_group(Store *s, int64_t run_id, int64_t *ids, int cap, int *n, char *err)
{
    assert(s && err);
    char g[2048], r[2048], SQL[4500];
    seed_group_expr("g", g, sizeof g);
    seed_group_expr("r", r, sizeof r);
    snprintf(SQL, sizeof SQL,
             "SELECT g.id FROM runs r JOIN runs g ON (g.sweep_id IS r.sweep_id) AND (%s) = (%s)"
             " WHERE r.id = ?1 AND g.deleted_at IS NULL ORDER BY g.id", g, r);
    const char *what = "read seed group";
    *n = 0;
    if (cap < 1) return err_set(err, "store: seed group of run %lld: no room for ids", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare_ints(s, SQL, &run_id, 1, &st, what, err)) return -1;
    int rc = SQLITE_DONE;
    while (*n < cap && (rc = sqlite3_step(st)) == SQLITE_ROW) ids[(*n)++] = sqlite3_column_int64(st, 0);
    return store_finish(s, st, rc, what, err);
}

int runs_read_last_finished(Store *s, int64_t *ids, int cap, int *n, int64_t *sweep_id, char sweep[64],
                            char *err)
{
    assert(s && err);
    static const char SQL[] =
        "SELECT r.id, r.sweep_id, s.name FROM runs r LEFT JOIN sweeps s ON s.id = r.sweep_id"
        " WHERE r.status = 'done' AND r.deleted_at IS NULL AND r.sweep_id IS"
        "       (SELECT max(sweep_id) FROM runs WHERE status = 'done' AND deleted_at IS NULL)"
        " ORDER BY r.id DESC LIMIT ?1";
    const char *what = "read finished runs";
    int64_t limit = cap;
    sqlite3_stmt *st;
    *n = 0;
    *sweep_id = 0;
    sweep[0] = 0;
    if (store_prepare_ints(s, SQL, &limit, 1, &st, what, err)) return -1;
    int rc = SQLITE_DONE;
    while (*n < cap && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        ids[(*n)++] = sqlite3_column_int64(st, 0);
        *sweep_id = sqlite3_column_int64(st, 1);
        store_column_copy(sweep, 64, st, 2);
    }
    return store_finish(s, st, rc, what, err);
}

/* ---- curves -------------------------------------------------------------- */

static int read_points(Store *s, int64_t run_id, const char *sql, const int64_t args[3], RunCurvePoint **out,
                       int *n, char *err);

int runs_read_curve(Store *s, int64_t run_id, RunCurveKind kind, int64_t after, int limit,
                    RunCurvePoint **out, int *n, char *err)
{
    assert(s && err);
    static const char RAW_SQL[] =
        "SELECT step, tokens, wall, train_loss FROM metrics"
        " WHERE run_id = ?1 AND step > ?2 ORDER BY step LIMIT ?3";
    static const char SMOOTH_SQL[] =
        "SELECT step, tokens, wall, train_loss_smooth FROM metrics"
        " WHERE run_id = ?1 AND step > ?2 ORDER BY step LIMIT ?3";
    static const char VALID_SQL[] =
        "SELECT e.step,"
        "       (SELECT m.tokens FROM metrics m WHERE m.run_id = e.run_id AND m.step <= e.step"
        "         ORDER BY m.step DESC LIMIT 1),"
        "       (SELECT m.wall FROM metrics m WHERE m.run_id = e.run_id AND m.step <= e.step"
        "         ORDER BY m.step DESC LIMIT 1),"
        "       e.loss"
        "  FROM evals e WHERE e.run_id = ?1 AND e.split = 'valid' AND e.step > ?2 ORDER BY e.step LIMIT ?3";
    const char *sql = kind == RUN_CURVE_TRAIN_RAW ? RAW_SQL : kind == RUN_CURVE_TRAIN_SMOOTH ? SMOOTH_SQL : VALID_SQL;
    int64_t args[3] = {run_id, after, limit > 0 ? limit : -1};
    return read_points(s, run_id, sql, args, out, n, err);
}

/* The sampled curves of runs_read_curve_sampled: ?3 points evenly spaced
   from the first step past ?2 to the last, each the first row at or past
   its step, found by a seek on the primary key (min and max in subqueries
   of their own: together in one they would scan the run). */
#define SAMPLED_CURVE_SQL(COL)                                                                        \
    "WITH RECURSIVE b(lo, hi) AS (SELECT (SELECT min(step) FROM metrics WHERE run_id = ?1 AND step > ?2)," \
    "                                    (SELECT max(step) FROM metrics WHERE run_id = ?1)),"           \
    " k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ?3)"                               \
    " SELECT m.step, m.tokens, m.wall, m." COL " FROM k, b JOIN metrics m ON m.run_id = ?1 AND m.step =" \
    "   (SELECT min(step) FROM metrics WHERE run_id = ?1 AND step >= b.lo + (b.hi - b.lo) * k.i / max(?3 - 1, 1))" \
    " GROUP BY m.step ORDER BY m.step"

int runs_read_curve_sampled(Store *s, int64_t run_id, RunCurveKind kind, int64_t after, int max_points,
                            RunCurvePoint **out, int *n, char *err)
{
    assert(s && err);
    if (kind == RUN_CURVE_VALID || max_points <= 0) return runs_read_curve(s, run_id, kind, after, 0, out, n, err);
    static const char RAW_SQL[] = SAMPLED_CURVE_SQL("train_loss");
    static const char SMOOTH_SQL[] = SAMPLED_CURVE_SQL("train_loss_smooth");
    int64_t args[3] = {run_id, after, max_points < 2 ? 2 : max_points};
    return read_points(s, run_id, kind == RUN_CURVE_TRAIN_RAW ? RAW_SQL : SMOOTH_SQL, args, out, n, err);
}

/* Runs sql on (run_id, after, limit) and collects its (step, tokens, wall,
   value) rows. */
static int read_points(Store *s, int64_t run_id, const char *sql, const int64_t args[3], RunCurvePoint **out,
                       int *n, char *err)
{
    const char *what = "read curve";
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (store_prepare_ints(s, sql, args, 3, &st, what, err)) return -1;
    RunCurvePoint *points = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            int grown_cap = cap ? 2 * cap : 256;
            RunCurvePoint *grown = realloc(points, (size_t)grown_cap * sizeof *grown);
            if (!grown) {
                free(points);
                sqlite3_finalize(st);
                return err_set(err, "run %lld: out of memory for its curve", (long long)run_id);
            }
            points = grown;
            cap = grown_cap;
        }
        RunCurvePoint *p = &points[count++];
        p->step = sqlite3_column_int64(st, 0);
        p->tokens = store_column_real(st, 1);
        p->wall = store_column_real(st, 2);
        p->value = store_column_real(st, 3);
    }
    if (store_finish(s, st, rc, what, err)) {
        free(points);
        return -1;
    }
    *out = points;
    *n = count;
    return 0;
}
