/*
 * sweeps_write.c — the writes of db/jobs.h that make work rather than do
 * it: a sweep's row, plan and round; a queued job; the paper's figures of
 * a preset; and extending a finished run (`mixbench extend`: its config
 * and step count raised, the rows past the extension point dropped).
 *
 * Not for: claiming and running jobs (db/jobs.c), reading sweeps
 * (db/sweeps_read.c, db/results.c).
 */
#include "db/jobs_internal.h"

#include "engine/common.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sweeps and queueing ---------------------------------------------- */

int store_sweep_create(Store *s, const char *name, const char *spec, const char *axes_json,
                       int64_t *sweep_id, char *err)
{
    assert(s && err);
    if (!name || !*name || !spec)
        return err_set(err, "store: a sweep needs a name and a spec");
    sqlite3_stmt *st;
    if (store_prepare(s, "INSERT INTO sweeps (name, preset, spec, axes_json) VALUES (?1, ?1, ?2, ?3)", &st,
                      "create sweep", err))
        return -1;
    if (store_bind_text(st, 1, name) != SQLITE_OK || store_bind_text(st, 2, spec) != SQLITE_OK ||
        store_bind_text(st, 3, axes_json ? axes_json : "[]") != SQLITE_OK) {
        store_fail(s, err, "create sweep");
        (void)sqlite3_finalize(st);
        return -1;
    }
    if (store_step_done(s, st, "create sweep", err))
        return -1;
    if (sweep_id)
        *sweep_id = sqlite3_last_insert_rowid(store_sqlite(s));
    return 0;
}

int store_sweep_set_plan(Store *s, int64_t sweep_id, const char *plan_json, char *err)
{
    assert(s && sweep_id > 0 && err);
    const char *what = "record a sweep's plan";
    sqlite3_stmt *st;
    if (store_prepare(s, "UPDATE sweeps SET plan_json = json(?2) WHERE id = ?1", &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, sweep_id) != SQLITE_OK || store_bind_text(st, 2, plan_json) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

int store_sweep_set_study(Store *s, int64_t sweep_id, const char *text, char *err)
{
    assert(s && sweep_id > 0 && text && err);
    const char *what = "record a sweep's study";
    sqlite3_stmt *st;
    if (store_prepare(s, "UPDATE sweeps SET study = ?2 WHERE id = ?1", &st, what, err)) return -1;
    if (sqlite3_bind_int64(st, 1, sweep_id) != SQLITE_OK || store_bind_text(st, 2, text) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

int store_sweep_set_round(Store *s, int64_t sweep_id, int round, const char *concluded, char *err)
{
    assert(s && sweep_id > 0 && err);
    const char *what = "record a sweep's round";
    sqlite3_stmt *st;
    if (store_prepare(s, "UPDATE sweeps SET round = ?2, concluded = ?3 WHERE id = ?1", &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, sweep_id) != SQLITE_OK || sqlite3_bind_int(st, 2, round) != SQLITE_OK ||
        store_bind_text(st, 3, concluded) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

/* The job columns of a freshly inserted queued run. */
static int set_job_columns(Store *s, int64_t run_id, int64_t sweep_id, const char *coords_json,
                           int priority, char *err)
{
    const char *what = "queue job";
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "UPDATE runs SET sweep_id = ?2, coords_json = json(coalesce(?3, '{}')),"
                      " priority = ?4, queued_at = " STORE_NOW_SQL " WHERE id = ?1",
                      &st, what, err))
        return -1;
    int bound = sqlite3_bind_int64(st, 1, run_id) == SQLITE_OK &&
                (sweep_id > 0 ? sqlite3_bind_int64(st, 2, sweep_id)
                              : sqlite3_bind_null(st, 2)) == SQLITE_OK &&
                store_bind_text(st, 3, coords_json) == SQLITE_OK &&
                sqlite3_bind_int(st, 4, priority) == SQLITE_OK;
    if (!bound) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    if (store_step_done(s, st, what, err)) {
        /* The foreign key is the one failure a caller can cause by itself. */
        if (sqlite3_extended_errcode(store_sqlite(s)) == SQLITE_CONSTRAINT_FOREIGNKEY)
            err_set(err, "store: queue job: no sweep %lld", (long long)sweep_id);
        return -1;
    }
    return 0;
}

int store_job_enqueue(Store *s, const RunInfo *info, int64_t sweep_id, const char *coords_json,
                      int priority, int64_t *run_id, char *err)
{
    assert(s && err);
    /* inside a caller's transaction (a whole sweep) the job joins it */
    int own = sqlite3_get_autocommit(store_sqlite(s));
    if (own && store_begin(s, "queue job", err))
        return -1;
    int64_t id = 0;
    int status = store_run_insert(s, info, run_status_name(RUN_QUEUED), &id, err);
    if (status == 0)
        status = set_job_columns(s, id, sweep_id, coords_json, priority, err);
    if (own ? store_end(s, status, "queue job", err) : status)
        return -1;
    if (run_id)
        *run_id = id;
    return 0;
}

/* ---- paper figures ---------------------------------------------------- */

int store_paper_figure_add(Store *s, const char *preset, const char *coords_json,
                           const char *metric, double value, const char *note, const char *setting,
                           const char *setting_text, char *err)
{
    assert(s && err);
    if (!preset || !*preset || !metric || !*metric)
        return err_set(err, "store: a paper figure needs a preset and a metric");
    char what[128];
    snprintf(what, sizeof what, "add paper figure %.40s of %.40s", metric, preset);
    sqlite3_stmt *st;
    /* json() writes the coordinates in one spelling, so the same point
       written twice replaces its row instead of adding one. */
    if (store_prepare(s,
                      "INSERT OR REPLACE INTO paper_figures (preset, coords_json, metric, value,"
                      " note, setting, setting_text)"
                      " VALUES (?1, json(coalesce(?2, '{}')), ?3, ?4, ?5, coalesce(?6, ''), ?7)",
                      &st, what, err))
        return -1;
    if (store_bind_text(st, 1, preset) != SQLITE_OK ||
        store_bind_text(st, 2, coords_json) != SQLITE_OK ||
        store_bind_text(st, 3, metric) != SQLITE_OK || store_bind_real(st, 4, value) != SQLITE_OK ||
        store_bind_text(st, 5, note) != SQLITE_OK || store_bind_text(st, 6, setting) != SQLITE_OK ||
        store_bind_text(st, 7, setting_text) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

/* ---- extension (`mixbench extend`) ------------------------------------ */

int store_run_for_extend(Store *s, int64_t run_id, RunForExtend *out, char *err)
{
    assert(s && run_id > 0 && err);
    const char *what = "read a run to extend";
    sqlite3_stmt *st;
    if (store_prepare_ints(s,
                           "SELECT status, config_json, steps_done, total_steps, coalesce(error, '') FROM runs "
                           "WHERE id = ?1",
                           &run_id, 1, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    int found = rc == SQLITE_ROW;
    if (found) {
        out->status = store_column_status(st, 0);
        out->steps_done = sqlite3_column_int64(st, 2);
        out->total_steps = sqlite3_column_int64(st, 3);
        store_column_copy(out->error, sizeof out->error, st, 4);
        int n = sqlite3_column_bytes(st, 1);
        const unsigned char *json = sqlite3_column_text(st, 1);
        if (job_copy_column(out->config_json, sizeof out->config_json, json, n, run_id, "config_json", err)) {
            (void)sqlite3_finalize(st);
            return -1;
        }
    }
    if (store_finish(s, st, rc, what, err))
        return -1;
    return found ? 0 : err_set(err, "no run %lld in the store", (long long)run_id);
}

int store_run_checkpoints_upto(Store *s, int64_t run_id, int64_t upto, char (*paths)[1024], int64_t *steps,
                               int cap, int *n, char *err)
{
    const char *what = "read a run's checkpoints";
    int64_t ints[2] = {run_id, upto};
    sqlite3_stmt *st;
    *n = 0;
    if (store_prepare_ints(s, "SELECT path, step FROM checkpoints WHERE run_id = ?1 AND step <= ?2"
                              " ORDER BY step DESC, created_at DESC",
                           ints, 2, &st, what, err))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < cap) {
        store_column_copy(paths[*n], sizeof paths[*n], st, 0);
        steps[*n] = sqlite3_column_int64(st, 1);
        (*n)++;
    }
    return store_finish(s, st, rc, what, err);
}

/* The paths of run_id's checkpoints after step `from` (inside the
   extension's transaction). */
static int checkpoints_after(Store *s, int64_t run_id, int64_t from, char ***paths, int *n, char *err)
{
    const char *what = "extend a run";
    int64_t ints[2] = {run_id, from};
    sqlite3_stmt *st;
    *paths = NULL;
    *n = 0;
    if (store_prepare_ints(s, "SELECT path FROM checkpoints WHERE run_id = ?1 AND step > ?2", ints, 2, &st, what,
                           err))
        return -1;
    int rc, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char *copy = strdup((const char *)sqlite3_column_text(st, 0));
        if (!copy || store_grow((void **)paths, &cap, *n + 1, sizeof **paths, err)) {
            free(copy);
            rc = SQLITE_NOMEM;
            break;
        }
        (*paths)[(*n)++] = copy;
    }
    return store_finish(s, st, rc, what, err);
}

int store_run_extend(Store *s, int64_t run_id, const char *config_json, int64_t total_steps, const char *ckpt,
                     int64_t from, char ***dropped, int *n_dropped, char *err)
{
    assert(run_id > 0 && err);
    char what[64];
    snprintf(what, sizeof what, "extend run %lld", (long long)run_id);
    *dropped = NULL;
    *n_dropped = 0;
    /* inside a caller's transaction (experiments/adaptive.c) it joins it */
    int own = sqlite3_get_autocommit(store_sqlite(s));
    if (own && store_begin(s, what, err))
        return -1;
    RunStatus status;
    JobControl pending;
    int rc = job_read(s, run_id, &status, &pending, what, err);
    if (rc == 0 && (status == RUN_RUNNING || status == RUN_QUEUED))
        rc = err_set(err, "run %lld is %s; extend a run that is done or stopped (pause it first)", (long long)run_id,
                     run_status_name(status));
    if (rc == 0)
        rc = checkpoints_after(s, run_id, from, dropped, n_dropped, err);
    static const char *const SQL[] = {
        "UPDATE runs SET config_json = ?2, total_steps = ?3, status = 'queued', control = NULL, owner_pid = NULL,"
        " lease_until = NULL, finished_at = NULL, error = NULL, queued_at = " STORE_NOW_SQL ","
        " resume_ckpt = ?4, resume_step = CASE WHEN ?4 IS NULL THEN NULL ELSE ?5 END, steps_done = ?5,"
        " tokens_seen = coalesce((SELECT tokens FROM metrics WHERE run_id = ?1 AND step = ?5), 0),"
        " tokens_per_s = NULL, wall_seconds = NULL, infer_samples_per_s = NULL WHERE id = ?1",
        "DELETE FROM metrics WHERE run_id = ?1 AND step > ?5",
        "DELETE FROM evals WHERE run_id = ?1 AND step > ?5",
        "DELETE FROM checkpoints WHERE run_id = ?1 AND step > ?5",
    };
    for (size_t k = 0; rc == 0 && k < sizeof SQL / sizeof SQL[0]; k++) {
        sqlite3_stmt *st;
        rc = store_prepare(s, SQL[k], &st, what, err);
        if (rc)
            break;
        /* every statement numbers its parameters ?1..?5 (unused ones bind harmlessly) */
        int bound = sqlite3_bind_int64(st, 1, run_id) == SQLITE_OK &&
                    store_bind_text(st, 2, config_json) == SQLITE_OK &&
                    sqlite3_bind_int64(st, 3, total_steps) == SQLITE_OK && store_bind_text(st, 4, ckpt) == SQLITE_OK &&
                    sqlite3_bind_int64(st, 5, from) == SQLITE_OK;
        if (!bound) {
            rc = store_fail(s, err, what);
            (void)sqlite3_finalize(st);
        } else {
            rc = store_step_done(s, st, what, err);
        }
    }
    if (own ? store_end(s, rc, what, err) : rc) {
        for (int i = 0; i < *n_dropped; i++)
            free((*dropped)[i]);
        free(*dropped);
        *dropped = NULL;
        *n_dropped = 0;
        return -1;
    }
    return 0;
}
