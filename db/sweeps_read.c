/*
 * sweeps_read.c — the typed reads of sweeps_read.h: one SELECT each on the
 * sweeps table; a sweep's axes come apart in SQL (json_each).
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

/* " IN (?k, ?k+1, ...)": a parameter for each of n values, from ?first;
   the text after where[len] */
static size_t in_list(char *where, size_t cap, size_t len, int first, int n)
{
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(where + len, cap - len, "%s?%d", i ? ", " : " IN (", first + i);
    return len + (size_t)snprintf(where + len, cap - len, ")");
}

int sweeps_read_latest(Store *s, const char *const *names, int n_names, int limit, SweepRow **out, int *n,
                       char *err)
{
    return sweeps_read_latest_tasks(s, names, n_names, NULL, 0, limit, out, n, err);
}

int sweeps_read_latest_tasks(Store *s, const char *const *names, int n_names, const char *const *tasks,
                             int n_tasks, int limit, SweepRow **out, int *n, char *err)
{
    assert(s && err);
    const char *what = "read sweeps";
    *out = NULL;
    *n = 0;
    if (n_names < 0 || n_names > SWEEP_MAX_NAMES || n_tasks < 0 || n_tasks > SWEEP_MAX_NAMES)
        return err_set(err, "store: read sweeps: %d names, %d tasks (at most %d)", n_names, n_tasks,
                       SWEEP_MAX_NAMES);
    /* WHERE (coalesce(preset, name) IN (?2, ...) OR EXISTS (a job of one of
       the tasks)), a parameter a name, then a task */
    char where[160 + 10 * SWEEP_MAX_NAMES] = "";
    size_t len = 0;
    if (n_names || n_tasks) len += (size_t)snprintf(where, sizeof where, " AND (");
    if (n_names) {
        len += (size_t)snprintf(where + len, sizeof where - len, "coalesce(preset, name)");
        len = in_list(where, sizeof where, len, 2, n_names);
    }
    if (n_tasks) {
        len += (size_t)snprintf(where + len, sizeof where - len,
                                "%sEXISTS (SELECT 1 FROM runs r WHERE r.sweep_id = sweeps.id AND r.deleted_at IS NULL AND r.task",
                                n_names ? " OR " : "");
        len = in_list(where, sizeof where, len, 2 + n_names, n_tasks);
        len += (size_t)snprintf(where + len, sizeof where - len, ")");
    }
    if (n_names || n_tasks) snprintf(where + len, sizeof where - len, ")");
    char sql[768];
    snprintf(sql, sizeof sql,
             "SELECT id, name, spec, axes_json, created_at, coalesce(preset, name), note FROM"
             " (SELECT * FROM sweeps WHERE deleted_at IS NULL%s ORDER BY id DESC LIMIT ?1) ORDER BY id",
             where);
    sqlite3_stmt *st;
    if (store_prepare(s, sql, &st, what, err)) return -1;
    int bound = sqlite3_bind_int(st, 1, limit) == SQLITE_OK;
    for (int i = 0; i < n_names && bound; i++) bound = store_bind_text(st, i + 2, names[i]) == SQLITE_OK;
    for (int i = 0; i < n_tasks && bound; i++) bound = store_bind_text(st, i + 2 + n_names, tasks[i]) == SQLITE_OK;
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
        store_column_copy(r->preset, sizeof r->preset, st, 5);
        store_column_copy(r->note, sizeof r->note, st, 6);
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

int sweeps_read_latest_ae(Store *s, int limit, SweepRow **out, int *n, char *err)
{
    static const char *const PRESETS[] = {"autoencoder", "bidirectional", "completion"};
    static const char *const TASKS[] = {"autoencode", "bidir", "complete"};
    return sweeps_read_latest_tasks(s, PRESETS, 3, TASKS, 3, limit, out, n, err);
}

int sweeps_read_axes(Store *s, int64_t sweep_id, SweepAxes *out, char *err)
{
    assert(s && err);
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

int sweeps_read_studies(Store *s, char ***texts, int *n, char *err)
{
    assert(s && texts && n && err);
    const char *what = "read sweeps' studies";
    *texts = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT study FROM sweeps WHERE study IS NOT NULL GROUP BY study ORDER BY min(id)", &st, what,
                      err))
        return -1;
    int rc, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            char **m = realloc(*texts, (size_t)cap * sizeof *m);
            if (!m) break;
            *texts = m;
        }
        if (*n == cap || !((*texts)[*n] = strdup(t ? t : ""))) break;
        (*n)++;
    }
    if (rc != SQLITE_DONE) {
        sweeps_studies_free(*texts, *n);
        *texts = NULL;
        *n = 0;
        return rc == SQLITE_ROW ? (sqlite3_finalize(st), err_set(err, "store: %s: out of memory", what))
                                : fail(s, st, what, err);
    }
    sqlite3_finalize(st);
    return 0;
}

void sweeps_studies_free(char **texts, int n)
{
    for (int i = 0; i < n; i++) free(texts[i]);
    free(texts);
}

int sweeps_read_study_differs(Store *s, const char *name, const char *text, int64_t *sweep_id, char *err)
{
    assert(s && name && text && sweep_id && err);
    const char *what = "read a study's sweeps";
    *sweep_id = 0;
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT min(id) FROM sweeps WHERE coalesce(preset, name) IN (?1, ?1 || '@paper')"
                         " AND study IS NOT NULL AND study <> ?2", &st, what, err))
        return -1;
    if (store_bind_text(st, 1, name) != SQLITE_OK || store_bind_text(st, 2, text) != SQLITE_OK)
        return fail(s, st, what, err);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *sweep_id = sqlite3_column_int64(st, 0);   /* NULL: 0 */
    else if (rc != SQLITE_DONE) return fail(s, st, what, err);
    sqlite3_finalize(st);
    return 0;
}
