/*
 * store_write.c — the store's writes declared in db/store.h: runs created
 * and ended, status changes, metrics (one transaction a batch, refused
 * before the disk is too full to record a run's end), evaluations and
 * checkpoint rows.
 *
 * Not for: opening the store (store.c), its reads (store_read.c) or the
 * job queue (jobs.c).
 */
#include "db/store.h"

#include <assert.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "db/jobs.h"
#include "db/store_internal.h"
#include "engine/common.h"

int store_run_insert(Store *s, const RunInfo *info, const char *status, int64_t *run_id,
                     char *err)
{
    assert(s && err);
    if (!info || !info->arch || !info->task)
        return err_set(err, "store: a run needs an arch and a task");
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO runs (name, status, started_at, arch, task, data, tokenizer,"
                      " d, layers, heads, n_ctx, vocab, seed, threads, total_steps,"
                      " n_params, n_params_nonembedding, config_json)"
                      " VALUES (?1, ?17, CASE WHEN ?17 = 'running' THEN " STORE_NOW_SQL " END,"
                      " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
                      &st, "create run", err))
        return -1;
    if (store_bind_text(st, 1, info->name) != SQLITE_OK ||
        store_bind_text(st, 2, info->arch) != SQLITE_OK ||
        store_bind_text(st, 3, info->task) != SQLITE_OK ||
        store_bind_text(st, 4, info->data) != SQLITE_OK ||
        store_bind_text(st, 5, info->tokenizer) != SQLITE_OK ||
        sqlite3_bind_int(st, 6, info->d) != SQLITE_OK ||
        sqlite3_bind_int(st, 7, info->layers) != SQLITE_OK ||
        sqlite3_bind_int(st, 8, info->heads) != SQLITE_OK ||
        sqlite3_bind_int(st, 9, info->n_ctx) != SQLITE_OK ||
        sqlite3_bind_int(st, 10, info->vocab) != SQLITE_OK ||
        sqlite3_bind_int64(st, 11, info->seed) != SQLITE_OK ||
        sqlite3_bind_int(st, 12, info->threads) != SQLITE_OK ||
        sqlite3_bind_int64(st, 13, info->total_steps) != SQLITE_OK ||
        sqlite3_bind_int64(st, 14, info->n_params) != SQLITE_OK ||
        sqlite3_bind_int64(st, 15, info->n_params_nonembedding) != SQLITE_OK ||
        store_bind_text(st, 16, info->config_json ? info->config_json : "{}") != SQLITE_OK ||
        store_bind_text(st, 17, status) != SQLITE_OK) {
        store_fail(s, err, "create run");
        (void)sqlite3_finalize(st);
        return -1;
    }
    if (store_step_done(s, st, "create run", err))
        return -1;
    if (run_id)
        *run_id = sqlite3_last_insert_rowid(store_sqlite(s));
    return 0;
}

int store_run_create(Store *s, const RunInfo *info, int64_t *run_id, char *err)
{
    assert(s && err);
    /* owned by this process from its first row, so that a kill leaves a run
       that reads as interrupted (db/recover.h store_jobs_recover_headless) */
    const char *what = "create a run";
    int own = sqlite3_get_autocommit(store_sqlite(s));   /* else it joins the caller's transaction */
    if (own && store_begin(s, what, err))
        return -1;
    int rc = store_run_insert(s, info, "running", run_id, err);
    if (rc == 0)
        rc = store_run_own(s, *run_id, (int)getpid(), err);
    return own ? store_end(s, rc, what, err) : rc;
}

/* What a metrics batch leaves free on the store's file system: enough for
   the few pages that record the run's end (its status and error, the last
   evaluations) and a checkpoint's row, so a disk that fills while metrics
   are written still lets the run fail with its reason stored. */
#define STORE_RESERVE_BYTES (256 * 1024)
#define METRIC_ROW_BYTES 200   /* a row in the WAL and the table, generously */

/* Refuses a batch of n rows that would leave less than the reserve free. */
static int check_room(Store *s, int n, const char *what, char *err)
{
    if (strcmp(store_file(s), ":memory:") == 0)
        return 0;
    char dir[4096];
    store_folder_of(store_file(s), dir, sizeof dir);
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0)
        return 0;   /* not knowable: SQLite reports a full disk itself */
    double free_bytes = (double)fs.f_bavail * (double)fs.f_frsize;
    double need = (double)n * METRIC_ROW_BYTES + STORE_RESERVE_BYTES;
    if (free_bytes < need)
        return err_set(err, "store: %s: No space left on device (%.0f kB free in %s, the store "
                            "keeps %d kB to record the run's end)", what, free_bytes / 1024, dir,
                       STORE_RESERVE_BYTES / 1024);
    return 0;
}

int store_metrics_append(Store *s, int64_t run_id, const MetricRow *rows, int n, char *err)
{
    assert(s && run_id > 0 && err);
    if (n < 0 || (n > 0 && !rows))
        return err_set(err, "store: append metrics: bad row count %d", n);
    if (n == 0)
        return 0;
    char what[80];
    snprintf(what, sizeof what, "append metrics for run %lld", (long long)run_id);

    if (!*store_metric_statement(s) &&
        store_prepare(s,
                      "INSERT OR REPLACE INTO metrics (run_id, step, tokens, wall, train_loss,"
                      " train_loss_smooth, lr, grad_norm, tokens_per_s)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                      store_metric_statement(s), what, err))
        return -1;
    if (check_room(s, n, what, err) || store_exec(s, "BEGIN IMMEDIATE", what, err))
        return -1;

    sqlite3_stmt *st = *store_metric_statement(s);
    const MetricRow *last = &rows[0];
    for (int i = 0; i < n; i++) {
        const MetricRow *r = &rows[i];
        if (r->step > last->step)
            last = r;
        if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
            sqlite3_bind_int64(st, 2, r->step) != SQLITE_OK ||
            sqlite3_bind_int64(st, 3, r->tokens) != SQLITE_OK ||
            store_bind_real(st, 4, r->wall) != SQLITE_OK ||
            store_bind_real(st, 5, r->train_loss) != SQLITE_OK ||
            store_bind_real(st, 6, r->train_loss_smooth) != SQLITE_OK ||
            store_bind_real(st, 7, r->lr) != SQLITE_OK ||
            store_bind_real(st, 8, r->grad_norm) != SQLITE_OK ||
            store_bind_real(st, 9, r->tokens_per_s) != SQLITE_OK) {
            store_fail(s, err, what);
            goto failed;
        }
        if (sqlite3_step(st) != SQLITE_DONE) {
            store_fail(s, err, what);
            goto failed;
        }
        if (sqlite3_reset(st) != SQLITE_OK) {
            store_fail(s, err, what);
            goto failed;
        }
    }

    /* Live progress for readers; max() keeps it monotonic when a resumed run
       rewrites earlier steps. */
    sqlite3_stmt *up;
    if (store_prepare(s,
                      "UPDATE runs SET steps_done = max(steps_done, ?2),"
                      " tokens_seen = max(tokens_seen, ?3),"
                      " wall_seconds = max(coalesce(wall_seconds, 0), coalesce(?4, 0))"
                      " WHERE id = ?1",
                      &up, what, err))
        goto failed;
    if (sqlite3_bind_int64(up, 1, run_id) != SQLITE_OK ||
        sqlite3_bind_int64(up, 2, last->step) != SQLITE_OK ||
        sqlite3_bind_int64(up, 3, last->tokens) != SQLITE_OK ||
        store_bind_real(up, 4, last->wall) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(up);
        goto failed;
    }
    if (store_step_done(s, up, what, err))
        goto failed;
    if (store_exec(s, "COMMIT", what, err))
        goto failed;
    return 0;

failed:
    /* The statement reports the failure again on reset; it is reported. */
    (void)sqlite3_reset(st);
    store_rollback_after_error(s);
    return -1;
}

int store_eval_add(Store *s, int64_t run_id, const EvalRow *row, char *err)
{
    assert(s && run_id > 0 && err);
    if (!row || !row->split ||
        (strcmp(row->split, "train") && strcmp(row->split, "valid") && strcmp(row->split, "test")))
        return err_set(err, "store: an evaluation split is train, valid or test, not %s",
                       row && row->split ? row->split : "(none)");
    char what[80];
    snprintf(what, sizeof what, "add %s evaluation for run %lld", row->split, (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO evals (run_id, step, split, loss, perplexity, accuracy,"
                      " bits_per_byte, n_tokens, loss_all) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
                      " ON CONFLICT (run_id, step, split) DO UPDATE SET loss = excluded.loss,"
                      " perplexity = excluded.perplexity, accuracy = excluded.accuracy,"
                      " bits_per_byte = excluded.bits_per_byte, n_tokens = excluded.n_tokens,"
                      " loss_all = excluded.loss_all,"
                      " created_at = excluded.created_at",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, row->step) != SQLITE_OK ||
        store_bind_text(st, 3, row->split) != SQLITE_OK ||
        store_bind_real(st, 4, row->loss) != SQLITE_OK ||
        store_bind_real(st, 5, exp(row->loss)) != SQLITE_OK ||
        store_bind_real(st, 6, row->accuracy) != SQLITE_OK ||
        store_bind_real(st, 7, row->bits_per_byte) != SQLITE_OK ||
        sqlite3_bind_int64(st, 8, row->n_tokens) != SQLITE_OK ||
        store_bind_real(st, 9, row->loss_all) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

int store_checkpoint_add(Store *s, int64_t run_id, int64_t step, const char *path, char *err)
{
    assert(s && run_id > 0 && err);
    if (!path || !*path)
        return err_set(err, "store: a checkpoint needs a path");
    char what[80];
    snprintf(what, sizeof what, "add checkpoint for run %lld", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO checkpoints (run_id, step, path) VALUES (?1, ?2, ?3)"
                      " ON CONFLICT (run_id, path) DO UPDATE SET step = excluded.step,"
                      " created_at = excluded.created_at",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, step) != SQLITE_OK ||
        store_bind_text(st, 3, path) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

/* Runs an UPDATE of one run and checks that the run was there. */
int store_update_run(Store *s, sqlite3_stmt *st, int64_t run_id, const char *what, char *err)
{
    assert(s && run_id > 0 && err);
    if (store_step_done(s, st, what, err))
        return -1;
    if (sqlite3_changes(store_sqlite(s)) != 1)
        return err_set(err, "store: run %lld: no such run", (long long)run_id);
    return 0;
}

int store_run_finish(Store *s, int64_t run_id, const RunEnd *end, char *err)
{
    assert(run_id > 0 && err);
    RunStatus k = run_status_parse(end ? end->status : NULL);
    if (!run_status_final(k) && k != RUN_INTERRUPTED)
        return err_set(err, "store: a run ends as done, failed, diverged, cancelled, pruned or "
                            "interrupted, not %s", end && end->status ? end->status : "(none)");
    char what[80];
    snprintf(what, sizeof what, "finish run %lld", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      /* a pruned run keeps the pruner's why unless it has its own */
                      "UPDATE runs SET status = ?2, steps_done = ?4, tokens_seen = ?5,"
                      " error = CASE WHEN ?2 = 'pruned' THEN coalesce(?3, error) ELSE ?3 END,"
                      " wall_seconds = coalesce(?6, wall_seconds),"
                      " tokens_per_s = coalesce(?7, tokens_per_s),"
                      " peak_mem_mb = coalesce(?8, peak_mem_mb),"
                      " peak_run_mb = coalesce(?9, peak_run_mb),"
                      " train_cpu_seconds = coalesce(?10, train_cpu_seconds),"
                      " control = NULL, owner_pid = NULL,"  /* no worker, nothing to obey */
                      " finished_at = " STORE_NOW_SQL " WHERE id = ?1",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        store_bind_text(st, 2, end->status) != SQLITE_OK ||
        store_bind_text(st, 3, end->error) != SQLITE_OK ||
        sqlite3_bind_int64(st, 4, end->steps_done) != SQLITE_OK ||
        sqlite3_bind_int64(st, 5, end->tokens_seen) != SQLITE_OK ||
        store_bind_real(st, 6, end->wall_seconds) != SQLITE_OK ||
        store_bind_real(st, 7, end->tokens_per_s) != SQLITE_OK ||
        store_bind_real(st, 8, end->peak_mem_mb) != SQLITE_OK ||
        store_bind_real(st, 9, end->peak_run_mb) != SQLITE_OK ||
        store_bind_real(st, 10, end->train_cpu_seconds) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}

int store_run_set_status(Store *s, int64_t run_id, const char *status, char *err)
{
    assert(run_id > 0 && err);
    if (run_status_parse(status) == RUN_STATUS_COUNT)
        return err_set(err, "store: unknown run status %s", status ? status : "(none)");
    char what[80];
    snprintf(what, sizeof what, "set status of run %lld", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "UPDATE runs SET status = ?2,"
                      " started_at = CASE WHEN ?2 = 'running'"
                      "                   THEN coalesce(started_at, " STORE_NOW_SQL ")"
                      "                   ELSE started_at END,"
                      " finished_at = CASE WHEN ?2 IN ('done', 'failed', 'diverged',"
                      "                                'cancelled', 'interrupted', 'pruned')"
                      "                    THEN " STORE_NOW_SQL " ELSE NULL END,"
                      /* a job leaving 'running' has no worker and no request left */
                      " control = CASE WHEN ?2 = 'running' THEN control END,"
                      " owner_pid = CASE WHEN ?2 = 'running' THEN owner_pid END"
                      " WHERE id = ?1",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        store_bind_text(st, 2, status) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}

