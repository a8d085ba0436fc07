/*
 * store_read.c — the store's reads declared in db/store.h: whether a run
 * exists, rows of any query for `ls`, `show` and scripts, and a run's
 * series (sampled for plots and sparklines).
 *
 * Not for: opening the store (store.c) or writing (store_write.c).
 */
#include "db/store.h"

#include <assert.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"

int store_run_exists(Store *s, int64_t run_id, int *exists, char *err)
{
    assert(s && err);
    char sql[80];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = %lld", (long long)run_id);
    int64_t count;
    if (store_query_int(s, sql, &count, "look up run", err))
        return -1;
    *exists = count > 0;
    return 0;
}

/* Steps one prepared statement, handing each row to fn.  *stopped is set when
   fn asked to stop. */
static int deliver_rows(Store *s, sqlite3_stmt *st, StoreRowFn fn, void *ctx, int *stopped,
                        char *err)
{
    int ncols = sqlite3_column_count(st);
    char **values = NULL, **names = NULL;
    if (ncols > 0) {
        values = calloc((size_t)ncols, sizeof *values);
        names = calloc((size_t)ncols, sizeof *names);
        if (!values || !names) {
            free(values);
            free(names);
            return err_set(err, "store: query: out of memory");
        }
    }
    int status = 0;
    for (;;) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            status = store_fail(s, err, "query");
            break;
        }
        for (int i = 0; i < ncols; i++) {
            values[i] = (char *)sqlite3_column_text(st, i);
            names[i] = (char *)sqlite3_column_name(st, i);
            if ((!values[i] && sqlite3_column_type(st, i) != SQLITE_NULL) || !names[i]) {
                status = err_set(err, "store: query: out of memory");
                break;
            }
        }
        if (status)
            break;
        if (fn && fn(ctx, ncols, values, names)) {
            *stopped = 1;
            break;
        }
    }
    free(values);
    free(names);
    return status;
}

int store_query_params(Store *s, const char *sql, const char *const *params, int n_params,
                       StoreRowFn fn, void *ctx, char *err)
{
    assert(s && err);
    if (!sql)
        return err_set(err, "store: query: no SQL given");
    const char *tail = sql;
    while (*tail) {
        sqlite3_stmt *st = NULL;
        const char *next = NULL;
        if (sqlite3_prepare_v2(store_sqlite(s), tail, -1, &st, &next) != SQLITE_OK)
            return store_fail(s, err, "query");
        tail = next;
        if (!st) /* only whitespace or a comment was left */
            continue;
        int wanted = sqlite3_bind_parameter_count(st);
        for (int i = 0; i < wanted && i < n_params; i++) {
            if (store_bind_text(st, i + 1, params[i]) != SQLITE_OK) {
                store_fail(s, err, "query");
                (void)sqlite3_finalize(st);
                return -1;
            }
        }
        int stopped = 0;
        if (deliver_rows(s, st, fn, ctx, &stopped, err)) {
            (void)sqlite3_finalize(st); /* repeats the error just reported */
            return -1;
        }
        if (sqlite3_finalize(st) != SQLITE_OK)
            return store_fail(s, err, "query");
        if (stopped)
            break;
    }
    return 0;
}

int store_query(Store *s, const char *sql, StoreRowFn fn, void *ctx, char *err)
{
    assert(s && err);
    return store_query_params(s, sql, NULL, 0, fn, ctx, err);
}

/* The SQL of each StoreSeries: ?1 is the run, rows are (step, value). */
static const char *const SERIES_SQL[] = {
    [STORE_SERIES_TRAIN_LOSS] = "SELECT step, train_loss FROM metrics WHERE run_id = ?1"
                                " AND train_loss IS NOT NULL ORDER BY step",
    [STORE_SERIES_TRAIN_LOSS_SMOOTH] = "SELECT step, train_loss_smooth FROM metrics"
                                       " WHERE run_id = ?1 AND train_loss_smooth IS NOT NULL"
                                       " ORDER BY step",
    [STORE_SERIES_LR] = "SELECT step, lr FROM metrics WHERE run_id = ?1"
                        " AND lr IS NOT NULL ORDER BY step",
    [STORE_SERIES_GRAD_NORM] = "SELECT step, grad_norm FROM metrics WHERE run_id = ?1"
                               " AND grad_norm IS NOT NULL ORDER BY step",
    [STORE_SERIES_TOKENS_PER_S] = "SELECT step, tokens_per_s FROM metrics WHERE run_id = ?1"
                                  " AND tokens_per_s IS NOT NULL ORDER BY step",
    [STORE_SERIES_VALID_LOSS] = "SELECT step, loss FROM evals WHERE run_id = ?1"
                                " AND split = 'valid' AND loss IS NOT NULL ORDER BY step",
    [STORE_SERIES_VALID_ACCURACY] = "SELECT step, accuracy FROM evals WHERE run_id = ?1"
                                    " AND split = 'valid' AND accuracy IS NOT NULL ORDER BY step",
    [STORE_SERIES_TEST_LOSS] = "SELECT step, loss FROM evals WHERE run_id = ?1"
                               " AND split = 'test' AND loss IS NOT NULL ORDER BY step",
};

/* The metrics column of each StoreSeries read from metrics (NULL: evals). */
static const char *const SERIES_COLUMN[] = {
    [STORE_SERIES_TRAIN_LOSS] = "train_loss",
    [STORE_SERIES_TRAIN_LOSS_SMOOTH] = "train_loss_smooth",
    [STORE_SERIES_LR] = "lr",
    [STORE_SERIES_GRAD_NORM] = "grad_norm",
    [STORE_SERIES_TOKENS_PER_S] = "tokens_per_s",
    [STORE_SERIES_VALID_LOSS] = NULL,
    [STORE_SERIES_VALID_ACCURACY] = NULL,
    [STORE_SERIES_TEST_LOSS] = NULL,
};

/* At most ?2 points of a metrics column, evenly spaced over the run's
   steps: the first row at or past each of ?2 steps from the first to the
   last, each found by a seek on the primary key (run_id, step), so a run of
   a million steps costs ?2 seeks, not a million rows.  A run with fewer
   steps than that gives every row.  %s is the column.  (min and max in two
   subqueries: together in one they would scan the run's rows.) */
#define SAMPLED_SERIES_SQL                                                                       \
    "WITH RECURSIVE b(lo, hi) AS (SELECT (SELECT min(step) FROM metrics WHERE run_id = ?1),"    \
    "                                    (SELECT max(step) FROM metrics WHERE run_id = ?1)),"    \
    " k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ?2)"                          \
    " SELECT m.step, m.%s FROM k, b JOIN metrics m ON m.run_id = ?1 AND m.step ="                 \
    "   (SELECT min(step) FROM metrics WHERE run_id = ?1 AND %s IS NOT NULL"                      \
    "     AND step >= b.lo + (b.hi - b.lo) * k.i / max(?2 - 1, 1))"                                \
    " GROUP BY m.step ORDER BY m.step"

int store_run_series_sampled(Store *s, int64_t run_id, StoreSeries what, int max_points,
                             double **steps, double **values, int *n, char *err)
{
    assert(s && err);
    *steps = *values = NULL;
    *n = 0;
    if ((int)what < 0 || (size_t)what >= sizeof SERIES_SQL / sizeof SERIES_SQL[0])
        return err_set(err, "store: unknown series %d", (int)what);
    sqlite3_stmt *st;
    if (max_points > 0 && SERIES_COLUMN[what]) {
        char sql[1024];
        const char *col = SERIES_COLUMN[what];
        snprintf(sql, sizeof sql, SAMPLED_SERIES_SQL, col, col);
        if (store_prepare(s, sql, &st, "read series", err))
            return -1;
        if (sqlite3_bind_int(st, 2, max_points < 2 ? 2 : max_points) != SQLITE_OK) {
            store_fail(s, err, "read series");
            (void)sqlite3_finalize(st);
            return -1;
        }
    } else if (store_prepare(s, SERIES_SQL[what], &st, "read series", err)) {
        return -1;
    }
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK) {
        store_fail(s, err, "read series");
        (void)sqlite3_finalize(st);
        return -1;
    }
    double *xs = NULL, *ys = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            int grown = cap ? 2 * cap : 256;
            double *nx = realloc(xs, (size_t)grown * sizeof *nx);
            if (nx)
                xs = nx;
            double *ny = nx ? realloc(ys, (size_t)grown * sizeof *ny) : NULL;
            if (ny)
                ys = ny;
            if (!nx || !ny) {
                err_set(err, "store: read series: out of memory");
                goto failed;
            }
            cap = grown;
        }
        xs[count] = sqlite3_column_double(st, 0);
        ys[count] = sqlite3_column_double(st, 1);
        count++;
    }
    if (rc != SQLITE_DONE) {
        store_fail(s, err, "read series");
        goto failed;
    }
    if (sqlite3_finalize(st) != SQLITE_OK) {
        store_fail(s, err, "read series");
        free(xs);
        free(ys);
        return -1;
    }
    *steps = xs;
    *values = ys;
    *n = count;
    return 0;

failed:
    (void)sqlite3_finalize(st); /* repeats the error just reported */
    free(xs);
    free(ys);
    return -1;
}

int store_run_series(Store *s, int64_t run_id, StoreSeries what, double **steps,
                     double **values, int *n, char *err)
{
    assert(s && err);
    return store_run_series_sampled(s, run_id, what, 0, steps, values, n, err);
}

int store_run_curve(Store *s, int64_t run_id, double **steps, double **loss, int *n, char *err)
{
    assert(s && err);
    return store_run_series_sampled(s, run_id, STORE_SERIES_TRAIN_LOSS_SMOOTH, STORE_CURVE_POINTS,
                                    steps, loss, n, err);
}
