/*
 * sweeps_read.c — the typed reads of sweeps_read.h: one SELECT each on the
 * sweeps table, the runs table and the results view; a job's coordinates
 * and a sweep's axes come apart in SQL (json_each), one row per (job,
 * axis), and a job without coordinates still yields one row (LEFT JOIN).
 */
#include "db/sweeps_read.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"

/* Fails st with "store: WHAT: ..." and finalizes it. */
static int fail(Store *s, sqlite3_stmt *st, const char *what, char *err)
{
    store_fail(s, err, what);
    sqlite3_finalize(st);
    return -1;
}

int sweeps_read_latest(Store *s, const char *const *names, int n_names, int limit, SweepRow **out, int *n,
                       char *err)
{
    const char *what = "read sweeps";
    *out = NULL;
    *n = 0;
    if (n_names < 0 || n_names > SWEEP_MAX_NAMES)
        return err_set(err, "store: read sweeps: %d names (at most %d)", n_names, SWEEP_MAX_NAMES);
    /* WHERE name IN (?2, ?3, ...) with a parameter a name */
    char where[32 + 5 * SWEEP_MAX_NAMES] = "";
    size_t len = 0;
    for (int i = 0; i < n_names; i++)
        len += (size_t)snprintf(where + len, sizeof where - len, "%s?%d", i ? ", " : " WHERE name IN (", i + 2);
    if (n_names) snprintf(where + len, sizeof where - len, ")");
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT id, name, spec, axes_json, created_at FROM"
             " (SELECT * FROM sweeps%s ORDER BY id DESC LIMIT ?1) ORDER BY id",
             where);
    sqlite3_stmt *st;
    if (store_prepare(s, sql, &st, what, err)) return -1;
    int bound = sqlite3_bind_int(st, 1, limit) == SQLITE_OK;
    for (int i = 0; i < n_names && bound; i++) bound = store_bind_text(st, i + 2, names[i]) == SQLITE_OK;
    if (!bound) return fail(s, st, what, err);
    SweepRow *rows = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (store_grow((void **)&rows, &cap, count + 1, sizeof *rows, err)) {
            sqlite3_finalize(st);
            free(rows);
            return -1;
        }
        SweepRow *r = &rows[count++];
        r->id = sqlite3_column_int64(st, 0);
        store_column_copy(r->name, sizeof r->name, st, 1);
        store_column_copy(r->spec, sizeof r->spec, st, 2);
        store_column_copy(r->axes_json, sizeof r->axes_json, st, 3);
        store_column_copy(r->created_at, sizeof r->created_at, st, 4);
    }
    if (rc != SQLITE_DONE) {
        free(rows);
        return fail(s, st, what, err);
    }
    sqlite3_finalize(st);
    *out = rows;
    *n = count;
    return 0;
}

int sweeps_read_axes(Store *s, int64_t sweep_id, SweepAxes *out, char *err)
{
    const char *what = "read sweep axes";
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT j.value FROM sweeps w, json_each(w.axes_json) j"
                      " WHERE w.id = ?1 AND j.type = 'text' ORDER BY j.id",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, sweep_id) != SQLITE_OK) return fail(s, st, what, err);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (out->n < SWEEP_MAX_AXES) store_column_copy(out->key[out->n++], sizeof out->key[0], st, 0);
    if (rc != SQLITE_DONE) return fail(s, st, what, err);
    sqlite3_finalize(st);
    return 0;
}

/* Appends the coordinate in columns kcol (key), kcol + 1 (value) when the
   key is not NULL: a number written "%g" and flagged, text as it is. */
static void add_coord(SweepJobRow *job, sqlite3_stmt *st, int kcol)
{
    if (sqlite3_column_type(st, kcol) == SQLITE_NULL || job->n_coords >= RESULT_MAX_COORDS) return;
    CoordPair *c = &job->coords[job->n_coords];
    store_column_copy(c->key, sizeof c->key, st, kcol);
    int type = sqlite3_column_type(st, kcol + 1);
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        snprintf(c->value, sizeof c->value, "%g", sqlite3_column_double(st, kcol + 1));
        job->numeric_coords |= 1u << job->n_coords;
    } else {
        store_column_copy(c->value, sizeof c->value, st, kcol + 1);
    }
    job->n_coords++;
}

int sweeps_read_jobs(Store *s, int64_t sweep_id, SweepJobRow **out, int *n, char *err)
{
    _Static_assert(RESULT_MAX_COORDS <= 32, "numeric_coords has a bit a coordinate");
    const char *what = "read sweep jobs";
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT r.id, x.status, r.arch, r.task, x.steps_done, x.total_steps, x.tokens_seen,"
                      "       r.d, r.layers, r.n_ctx,"
                      "       x.train_loss, x.best_valid_loss, x.valid_loss, x.valid_loss_all,"
                      "       x.test_loss, x.test_loss_all, x.test_perplexity, x.test_accuracy,"
                      "       x.tokens_per_s, x.infer_samples_per_s,"
                      "       j.key, j.value"
                      "  FROM runs r JOIN results x ON x.id = r.id"
                      "  LEFT JOIN json_each(r.coords_json) j ON j.type IN ('text', 'integer', 'real')"
                      " WHERE r.sweep_id = ?1 AND r.role IS NULL"
                      " ORDER BY r.id, j.id",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, sweep_id) != SQLITE_OK) return fail(s, st, what, err);
    SweepJobRow *jobs = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (count == 0 || jobs[count - 1].run_id != id) {
            if (store_grow((void **)&jobs, &cap, count + 1, sizeof *jobs, err)) {
                sqlite3_finalize(st);
                free(jobs);
                return -1;
            }
            SweepJobRow *j = &jobs[count++];
            j->run_id = id;
            j->status = run_status_parse((const char *)sqlite3_column_text(st, 1));
            assert(j->status != RUN_STATUS_COUNT);   /* runs.status has a CHECK */
            store_column_copy(j->arch, sizeof j->arch, st, 2);
            store_column_copy(j->task, sizeof j->task, st, 3);
            j->steps_done = sqlite3_column_int64(st, 4);
            j->total_steps = sqlite3_column_int64(st, 5);
            j->tokens_seen = sqlite3_column_int64(st, 6);
            j->d = sqlite3_column_int64(st, 7);
            j->layers = sqlite3_column_int64(st, 8);
            j->n_ctx = sqlite3_column_int64(st, 9);
            double *reals[] = {&j->train_loss, &j->best_valid_loss, &j->valid_loss, &j->valid_loss_all,
                               &j->test_loss, &j->test_loss_all, &j->test_perplexity, &j->test_accuracy,
                               &j->tokens_per_s, &j->infer_samples_per_s};
            for (int k = 0; k < (int)(sizeof reals / sizeof reals[0]); k++) *reals[k] = store_column_real(st, 10 + k);
        }
        add_coord(&jobs[count - 1], st, 20);
    }
    if (rc != SQLITE_DONE) {
        free(jobs);
        return fail(s, st, what, err);
    }
    sqlite3_finalize(st);
    *out = jobs;
    *n = count;
    return 0;
}
