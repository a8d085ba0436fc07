/*
 * queue_read.c — the typed reads of queue_read.h.  A job's coordinates
 * become "key=value" words in SQL (json_each), so nothing here parses JSON.
 */
#include "db/queue_read.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"

/* Prepares sql and binds ?1: the integer number, or the name of status
   when status is not RUN_STATUS_COUNT. */
static int prepare_with(Store *s, const char *sql, int64_t number, RunStatus status, sqlite3_stmt **st,
                        const char *what, char *err)
{
    if (store_prepare(s, sql, st, what, err)) return -1;
    int rc = status < RUN_STATUS_COUNT ? store_bind_text(*st, 1, run_status_name(status))
                                       : sqlite3_bind_int64(*st, 1, number);
    if (rc == SQLITE_OK) return 0;
    store_fail(s, err, what);
    sqlite3_finalize(*st);
    return -1;
}

/* ---- the queue -------------------------------------------------------- */

/* "k=v k=v" of a job's coordinates, without the keys the WHERE leaves out. */
#define COORD_WORDS(where)                                                                       \
    "coalesce((SELECT group_concat(j.key || '=' || j.value, ' ') FROM json_each(q.coords) j" where \
    "), '')"

int queue_read_jobs(Store *s, QueueJob *rows, int cap, int *n, char *err)
{
    assert(s && err);
    const char *what = "read the queue";
    *n = 0;
    sqlite3_stmt *st;
    if (prepare_with(s,
                      "SELECT coalesce(q.position, 0), q.id, q.status, coalesce(q.control, ''), q.priority,"
                      "       coalesce(q.sweep, ''),"
                      "       " COORD_WORDS("") ","
                      "       " COORD_WORDS(" WHERE j.key NOT IN ('arch', 'task')") ","
                      "       coalesce(q.name, ''), q.arch, q.task, coalesce(q.error, ''),"
                      "       coalesce(q.steps_done, 0), coalesce(q.total_steps, 0), coalesce(q.resume_step, 0)"
                      "  FROM queue q LIMIT ?1",
                      cap, RUN_STATUS_COUNT, &st, what, err))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        assert(*n < cap);   /* LIMIT ?1 */
        QueueJob *r = &rows[(*n)++];
        memset(r, 0, sizeof *r);
        r->position = sqlite3_column_int(st, 0);
        r->id = sqlite3_column_int64(st, 1);
        r->status = store_column_status(st, 2);
        r->control = job_control_parse((const char *)sqlite3_column_text(st, 3));
        r->priority = sqlite3_column_int(st, 4);
        store_column_copy(r->sweep, sizeof r->sweep, st, 5);
        store_column_copy(r->coords, sizeof r->coords, st, 6);
        store_column_copy(r->point, sizeof r->point, st, 7);
        store_column_copy(r->name, sizeof r->name, st, 8);
        store_column_copy(r->arch, sizeof r->arch, st, 9);
        store_column_copy(r->task, sizeof r->task, st, 10);
        store_column_copy(r->error, sizeof r->error, st, 11);
        r->steps_done = sqlite3_column_int64(st, 12);
        r->total_steps = sqlite3_column_int64(st, 13);
        r->resume_step = sqlite3_column_int64(st, 14);
    }
    return store_finish(s, st, rc, what, err);
}

/* ---- runs by status --------------------------------------------------- */

int queue_read_count(Store *s, RunStatus status, int64_t *n, char *err)
{
    const char *what = "count runs";
    assert(status < RUN_STATUS_COUNT);
    *n = 0;
    sqlite3_stmt *st;
    if (prepare_with(s, "SELECT count(*) FROM runs WHERE status = ?1 AND deleted_at IS NULL", 0, status, &st, what,
                     err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *n = sqlite3_column_int64(st, 0);
    return store_finish(s, st, rc, what, err);
}

int queue_read_ids(Store *s, RunStatus status, int64_t **ids, int *n, char *err)
{
    const char *what = "list runs";
    assert(status < RUN_STATUS_COUNT);
    *ids = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (prepare_with(s, "SELECT id FROM runs WHERE status = ?1 AND deleted_at IS NULL ORDER BY id", 0, status, &st,
                     what, err))
        return -1;
    int rc, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            int64_t *more = realloc(*ids, (size_t)cap * sizeof *more);
            if (!more) {
                sqlite3_finalize(st);
                free(*ids);
                *ids = NULL;
                *n = 0;
                return err_set(err, "store: %s: out of memory", what);
            }
            *ids = more;
        }
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    if (store_finish(s, st, rc, what, err)) {
        free(*ids);
        *ids = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

/* ---- speeds ----------------------------------------------------------- */

int queue_read_run_speeds(Store *s, RunSpeed **out, int *n, char *err)
{
    assert(s && out && n && err);
    const char *what = "read speeds";
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT id, config_json, tokens_per_s FROM runs"
                      " WHERE status = 'done' AND tokens_per_s > 0 AND deleted_at IS NULL ORDER BY id",
                      &st, what, err))
        return -1;
    int rc, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *json = sqlite3_column_text(st, 1);
        char *copy = strdup(json ? (const char *)json : "{}");
        if (!copy || store_grow((void **)out, &cap, *n + 1, sizeof **out, err)) {
            free(copy);
            rc = SQLITE_NOMEM;
            break;
        }
        (*out)[(*n)++] = (RunSpeed){sqlite3_column_int64(st, 0), copy, sqlite3_column_double(st, 2)};
    }
    if (store_finish(s, st, rc, what, err)) {
        queue_speeds_free(*out, *n);
        *out = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

void queue_speeds_free(RunSpeed *speeds, int n)
{
    for (int i = 0; i < n; i++) free(speeds[i].config_json);
    free(speeds);
}

/* ---- runs with a checkpoint ------------------------------------------- */

/* The newest checkpoint of run r: the highest step, then the latest written. */
#define NEWEST_CKPT(column) \
    "(SELECT " column " FROM checkpoints c WHERE c.run_id = r.id ORDER BY step DESC, created_at DESC LIMIT 1)"

#define CKPT_RUN_COLUMNS                                                                               \
    "r.id, r.status, r.arch, r.task, coalesce(r.name, ''), coalesce(r.d, 0), coalesce(r.layers, 0),"   \
    " coalesce(r.n_ctx, 0), coalesce(" NEWEST_CKPT("step") ", 0), coalesce(" NEWEST_CKPT("path") ", '')" \
    " FROM runs r"

static void read_ckpt_run(sqlite3_stmt *st, CkptRun *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    r->status = store_column_status(st, 1);
    store_column_copy(r->arch, sizeof r->arch, st, 2);
    store_column_copy(r->task, sizeof r->task, st, 3);
    store_column_copy(r->name, sizeof r->name, st, 4);
    r->d = sqlite3_column_int(st, 5);
    r->layers = sqlite3_column_int(st, 6);
    r->n_ctx = sqlite3_column_int(st, 7);
    r->ckpt_step = sqlite3_column_int64(st, 8);
    store_column_copy(r->ckpt, sizeof r->ckpt, st, 9);
}

int queue_read_clm_runs(Store *s, CkptRun *out, int cap, int *n, char *err)
{
    assert(s && err);
    const char *what = "read runs with a checkpoint";
    *n = 0;
    sqlite3_stmt *st;
    if (prepare_with(s,
                      "SELECT " CKPT_RUN_COLUMNS
                      " WHERE r.task = 'clm' AND r.status IN ('done', 'interrupted', 'paused', 'cancelled', 'pruned')"
                      "   AND r.deleted_at IS NULL"
                      "   AND EXISTS (SELECT 1 FROM checkpoints c WHERE c.run_id = r.id)"
                      " ORDER BY r.id DESC LIMIT ?1",
                      cap, RUN_STATUS_COUNT, &st, what, err))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        assert(*n < cap);   /* LIMIT ?1 */
        read_ckpt_run(st, &out[(*n)++]);
    }
    return store_finish(s, st, rc, what, err);
}

int queue_read_ckpt_run(Store *s, int64_t run_id, CkptRun *out, int *found, char *err)
{
    assert(s && err);
    const char *what = "read a run's checkpoint";
    *found = 0;
    sqlite3_stmt *st;
    if (prepare_with(s, "SELECT " CKPT_RUN_COLUMNS " WHERE r.id = ?1 AND r.deleted_at IS NULL", run_id,
                     RUN_STATUS_COUNT, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        read_ckpt_run(st, out);
        *found = 1;
    }
    return store_finish(s, st, rc, what, err);
}
