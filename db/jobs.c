/*
 * jobs.c — the persistent job queue and sweeps declared in db/jobs.h, on
 * the job columns of runs (schema version 2, db/migrations.c).
 *
 * A job's life: store_job_enqueue -> 'queued'; store_job_claim -> 'running'
 * (owned by a process: owner_pid, owner_host, owner_boot, owner_start, and a
 * lease renewed by store_job_heartbeat); then store_run_finish (db/store.c)
 * ends it, or its worker obeys a control request and sets 'paused' /
 * 'cancelled', or the worker dies (or its lease runs out) and
 * store_jobs_recover queues it again.  store_job_resume
 * takes a paused or interrupted job back to 'queued'.
 *
 * Every change that reads a job's state before writing it runs in one
 * BEGIN IMMEDIATE transaction: the write lock is taken before the read, so
 * two processes (two workers claiming, a worker and `mixbench pause`) never
 * act on the same stale state.
 *
 * Here: a job's row read and updated, claiming, pause/cancel/resume
 * requests and a worker's bookkeeping.  Owners and recovery are in
 * db/owners.c; sweeps, queueing, paper figures and extension in
 * db/sweeps_write.c.
 *
 * Not for: running jobs or deciding when to check for requests
 * (experiments/scheduler.c), or expanding sweeps (experiments/).
 */
#include "db/jobs.h"

#include "db/ckpt_owner.h"
#include "db/jobs_internal.h"
#include "db/organise.h"
#include "db/store_internal.h"
#include "engine/common.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------- */

static int no_such_run(int64_t run_id, char *err)
{
    return err_set(err, "store: run %lld: no such run", (long long)run_id);
}

const char *job_control_name(JobControl c)
{
    return c == JOB_CONTROL_PAUSE ? "pause" : c == JOB_CONTROL_CANCEL ? "cancel" : c == JOB_CONTROL_PRUNE ? "prune" : "";
}

const char *job_shown_status(RunStatus status, JobControl control)
{
    if (status == RUN_RUNNING && control == JOB_CONTROL_PAUSE) return "pausing";
    if (status == RUN_RUNNING && control == JOB_CONTROL_CANCEL) return "stopping";
    if (status == RUN_RUNNING && control == JOB_CONTROL_PRUNE) return "pruning";
    return run_status_name(status);
}

JobControl job_control_parse(const char *text)
{
    if (text && strcmp(text, "pause") == 0)
        return JOB_CONTROL_PAUSE;
    if (text && strcmp(text, "cancel") == 0)
        return JOB_CONTROL_CANCEL;
    if (text && strcmp(text, "prune") == 0)
        return JOB_CONTROL_PRUNE;
    return JOB_CONTROL_NONE;
}

/* Reads the status and control request of run_id; meant to run inside the
   caller's IMMEDIATE transaction.  A run in the trash (db/organise.h) is
   refused: nothing queues, resumes, controls or extends it there. */
int job_read(Store *s, int64_t run_id, RunStatus *status, JobControl *control,
                    const char *what, char *err)
{
    assert(s && run_id > 0 && err);
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT status, control, deleted_at IS NOT NULL FROM runs WHERE id = ?1", &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            no_such_run(run_id, err);
        else
            store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    *status = run_status_parse((const char *)sqlite3_column_text(st, 0));
    *control = job_control_parse((const char *)sqlite3_column_text(st, 1));
    if (sqlite3_column_int(st, 2)) {
        store_err_trashed(run_id, err);
        (void)sqlite3_finalize(st);
        return -1;
    }
    if (*status == RUN_STATUS_COUNT) {   /* out of memory: runs.status has a CHECK */
        err_set(err, "store: %s: run %lld: cannot read its status", what, (long long)run_id);
        (void)sqlite3_finalize(st);
        return -1;
    }
    if (sqlite3_finalize(st) != SQLITE_OK)
        return store_fail(s, err, what);
    return 0;
}

/* Runs one UPDATE of run run_id: ?1 is run_id, ?2 text and ?3 number where
   the statement has them.  An unknown run is an error. */
int job_update(Store *s, const char *sql, int64_t run_id, const char *text,
                      int64_t number, const char *what, char *err)
{
    assert(s && run_id > 0 && err);
    sqlite3_stmt *st;
    if (store_prepare(s, sql, &st, what, err))
        return -1;
    int n_params = sqlite3_bind_parameter_count(st);
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        (n_params >= 2 && store_bind_text(st, 2, text) != SQLITE_OK) ||
        (n_params >= 3 && sqlite3_bind_int64(st, 3, number) != SQLITE_OK)) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}

/* Copies text (length n) into dst[cap] or fails naming the column. */
int job_copy_column(char *dst, size_t cap, const unsigned char *text, int n, int64_t run_id,
                       const char *column, char *err)
{
    assert(run_id > 0 && err);
    if (n < 0 || (size_t)n >= cap)
        return err_set(err, "store: run %lld: its %s is %d bytes, more than the %zu a claimed job "
                            "holds", (long long)run_id, column, n, cap - 1);
    if (n > 0)
        memcpy(dst, text, (size_t)n);
    dst[n] = '\0';
    return 0;
}


/* ---- claiming --------------------------------------------------------- */

/* Inside the claim transaction: the next queued job's id and fields (or
   run_id's, whatever its status, into *status), or *found 0. */
static int select_next_job(Store *s, int64_t run_id, ClaimedJob *job, RunStatus *status, int *found,
                           char *err)
{
    const char *what = "claim a job";
    sqlite3_stmt *st;
    if (store_prepare(s,
                      run_id ? "SELECT id, config_json, coalesce(resume_ckpt, ''), status FROM runs WHERE id = ?1"
                               "   AND deleted_at IS NULL"
                             : "SELECT id, config_json, coalesce(resume_ckpt, ''), status FROM runs"
                               " WHERE status = 'queued' ORDER BY priority DESC, id LIMIT 1",
                      &st, what, err))
        return -1;
    if (run_id && sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK) {
        (void)sqlite3_finalize(st);
        return store_fail(s, err, what);
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        *found = 0;
    } else if (rc == SQLITE_ROW) {
        *found = 1;
        job->run_id = sqlite3_column_int64(st, 0);
        const unsigned char *config = sqlite3_column_text(st, 1);
        int config_len = sqlite3_column_bytes(st, 1);
        const unsigned char *ckpt = sqlite3_column_text(st, 2);
        int ckpt_len = sqlite3_column_bytes(st, 2);
        *status = store_column_status(st, 3);
        if (!config || !ckpt) {
            err_set(err, "store: %s: out of memory", what);
            goto failed;
        }
        if (job_copy_column(job->config_json, sizeof job->config_json, config, config_len,
                        job->run_id, "config_json", err) ||
            job_copy_column(job->resume_ckpt, sizeof job->resume_ckpt, ckpt, ckpt_len, job->run_id,
                        "resume_ckpt", err))
            goto failed;
    } else {
        store_fail(s, err, what);
        goto failed;
    }
    if (sqlite3_finalize(st) != SQLITE_OK)
        return store_fail(s, err, what);
    return 0;

failed:
    (void)sqlite3_finalize(st); /* any error was reported above */
    return -1;
}

/* A claimed job: running, owned by process ?2 (pid), of host ?3, boot ?4,
   start time ?5 (NULL where unknown), its lease starting now. */
static const char CLAIM_SQL[] =
    "UPDATE runs SET status = 'running', owner_pid = ?2, owner_host = ?3, owner_boot = ?4,"
    " owner_start = ?5, lease_until = " LEASE_UNTIL_SQL ","
    " started_at = coalesce(started_at, " STORE_NOW_SQL "), heartbeat_at = " STORE_NOW_SQL ","
    " finished_at = NULL, control = NULL WHERE id = ?1";

/* Marks run_id claimed by process pid of this host (inside the claim
   transaction). */
static int claim_job(Store *s, int64_t run_id, int pid, const char *what, char *err)
{
    JobOwner o;
    job_owner(pid, &o);
    sqlite3_stmt *st;
    if (store_prepare(s, CLAIM_SQL, &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, pid) != SQLITE_OK ||
        store_bind_text(st, 3, o.host[0] ? o.host : NULL) != SQLITE_OK ||
        store_bind_text(st, 4, o.boot[0] ? o.boot : NULL) != SQLITE_OK ||
        (o.start >= 0 ? sqlite3_bind_int64(st, 5, o.start) : sqlite3_bind_null(st, 5)) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}

/* A queued job whose checkpoint is not its own (another store's or run's
   file, replaced or damaged) is not started: it goes to 'interrupted' with
   the reason, so nothing of it changes and no worker takes it again until
   someone resumes it (inside the claim transaction). */
static int refuse_checkpoint(Store *s, int64_t run_id, const char *why, const char *what, char *err)
{
    return job_update(s,
                      "UPDATE runs SET status = 'interrupted', owner_pid = NULL, lease_until = NULL,"
                      " control = NULL, error = 'not resumed: ' || ?2 WHERE id = ?1",
                      run_id, why, 0, what, err);
}

/* A queued job whose resume checkpoint is gone trains from the start (its
   metric rows are written again with the same numbers); the error column
   says why (inside the claim transaction). */
static int restart_job(Store *s, int64_t run_id, const char *why, const char *what, char *err)
{
    return job_update(s,
                      "UPDATE runs SET resume_ckpt = NULL, resume_step = NULL, steps_done = 0,"
                      " error = 'restarted from the start: ' || ?2 WHERE id = ?1",
                      run_id, why, 0, what, err);
}

int store_run_own(Store *s, int64_t run_id, int pid, char *err)
{
    assert(s && run_id > 0 && err);
    if (pid <= 0)
        return err_set(err, "store: own a run: bad process id %d", pid);
    return claim_job(s, run_id, pid, "record a run's owner", err);
}

int store_job_claim(Store *s, int pid, ClaimedJob *job, int *found, char *err)
{
    assert(s && err);
    *found = 0;
    if (pid <= 0)
        return err_set(err, "store: claim a job: bad worker process id %d", pid);
    const char *what = "claim a job";
    if (store_begin(s, what, err))
        return -1;
    int any = 0;
    RunStatus was;
    int status = select_next_job(s, 0, job, &was, &any, err);
    char why[ERR_LEN];
    int bad;
    while (status == 0 && any && job->resume_ckpt[0] &&
           (bad = store_checkpoint_verify(s, job->run_id, job->resume_ckpt, why)) != 0) {
        if (bad == STORE_CKPT_MISSING) {
            /* the file is gone (the store came without its checkpoints):
               the job trains again from the start, to the same numbers */
            status = restart_job(s, job->run_id, why, what, err);
            job->resume_ckpt[0] = 0;
            break;
        }
        status = refuse_checkpoint(s, job->run_id, why, what, err);
        if (status == 0)
            status = select_next_job(s, 0, job, &was, &any, err);
    }
    if (status == 0 && any)
        status = claim_job(s, job->run_id, pid, what, err);
    if (store_end(s, status, what, err))
        return -1;
    *found = any;
    return 0;
}

int store_job_claim_run(Store *s, int64_t run_id, int pid, ClaimedJob *job, char *err)
{
    assert(s && run_id > 0 && err);
    if (pid <= 0)
        return err_set(err, "store: claim a job: bad process id %d", pid);
    const char *what = "claim a job";
    if (store_begin(s, what, err))
        return -1;
    int any = 0;
    RunStatus was = RUN_QUEUED;
    int status = select_next_job(s, run_id, job, &was, &any, err);
    if (status == 0 && any && was == RUN_RUNNING)
        status = job_owner_left(s, run_id, &was, err);
    int trashed = 0;
    if (status == 0 && !any && store_run_trashed(s, run_id, &trashed, err) == 0)
        status = trashed ? store_err_trashed(run_id, err) : err_set(err, "no run %lld in the store", (long long)run_id);
    else if (status == 0 && !any)
        status = -1;
    else if (status == 0 && was != RUN_QUEUED && was != RUN_PAUSED && was != RUN_INTERRUPTED)
        status = err_set(err, "run %lld is %s; only a queued, paused or interrupted run can be resumed",
                         (long long)run_id, run_status_name(was));
    else if (status == 0 && !job->resume_ckpt[0] && was != RUN_QUEUED)
        status = err_set(err, "run %lld has no checkpoint to resume from", (long long)run_id);
    else if (status == 0 && job->resume_ckpt[0])
        status = store_checkpoint_verify(s, run_id, job->resume_ckpt, err);
    if (status == 0)
        status = claim_job(s, job->run_id, pid, what, err);
    return store_end(s, status, what, err);
}

/* ---- requests --------------------------------------------------------- */

int store_job_control(Store *s, int64_t run_id, JobControl *control, char *err)
{
    assert(s && run_id > 0 && err);
    RunStatus status;
    /* One SELECT: a read transaction of its own is enough. */
    return job_read(s, run_id, &status, control, "read job control", err);
}

/* The body of store_job_request, inside its transaction. */
/* sweeps.concluded of a sweep stopped so (a printf format for SQLite) */
#define STOPPED_BY_CANCEL "'stopped: run %d was cancelled by hand (mixbench sweep --continue %d goes on)'"

/* A job cancelled by hand stops the rounds of its sweep when that sweep
   has them (--until-conclusive): otherwise the next round would queue its
   like again.  `mixbench sweep --continue` goes on from there.  (An lr=tune
   search alone queues nothing again: a cancelled trial ranks last.) */
static int stop_rounds(Store *s, int64_t run_id, const char *what, char *err)
{
    sqlite3_stmt *st;
    int64_t id[1] = {run_id};
    if (store_prepare_ints(s,
                           "UPDATE sweeps SET concluded = printf(" STOPPED_BY_CANCEL ", ?1, id)"
                           " WHERE id = (SELECT sweep_id FROM runs WHERE id = ?1) AND concluded IS NULL"
                           "   AND json_extract(plan_json, '$.until_conclusive')",
                           id, 1, &st, what, err))
        return -1;
    return store_step_done(s, st, what, err);
}

static int apply_request(Store *s, int64_t run_id, JobControl control, const char *what,
                         char *err)
{
    RunStatus status;
    JobControl pending;
    if (job_read(s, run_id, &status, &pending, what, err))
        return -1;
    if (run_status_final(status))
        return err_set(err, "run %lld is %s; nothing to %s", (long long)run_id,
                       run_status_name(status), job_control_name(control));

    if (status == RUN_RUNNING) {
        /* The worker acts at its next check; a pending cancel is not
           weakened into a pause. */
        return job_update(s,
                          "UPDATE runs SET control = CASE WHEN control = 'cancel' THEN 'cancel'"
                          " ELSE ?2 END WHERE id = ?1",
                          run_id, job_control_name(control), 0, what, err);
    }
    if (control == JOB_CONTROL_CANCEL) /* queued, paused or interrupted: no worker to wait for */
        return job_update(s,
                          "UPDATE runs SET status = 'cancelled', control = NULL,"
                          " owner_pid = NULL, finished_at = " STORE_NOW_SQL " WHERE id = ?1",
                          run_id, NULL, 0, what, err);
    if (status == RUN_QUEUED)
        return job_update(s, "UPDATE runs SET status = 'paused', control = NULL WHERE id = ?1",
                          run_id, NULL, 0, what, err);
    if (status == RUN_PAUSED)
        return 0; /* already what was asked */
    return err_set(err, "run %lld is %s; nothing to pause (resume queues it again)",
                   (long long)run_id, run_status_name(status));
}

int store_job_stopped_sweep(Store *s, int64_t run_id, int64_t *sweep_id, char *err)
{
    assert(s && run_id > 0 && sweep_id && err);
    const char *what = "read a cancelled job's sweep";
    *sweep_id = 0;
    sqlite3_stmt *st;
    int64_t id[1] = {run_id};
    if (store_prepare_ints(s,
                           "SELECT w.id FROM runs r JOIN sweeps w ON w.id = r.sweep_id WHERE r.id = ?1"
                           "   AND w.concluded = printf(" STOPPED_BY_CANCEL ", ?1, w.id)",
                           id, 1, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *sweep_id = sqlite3_column_int64(st, 0);
    return store_finish(s, st, rc, what, err);
}

int store_job_request(Store *s, int64_t run_id, const char *control, char *err)
{
    assert(s && run_id > 0 && err);
    JobControl want = job_control_parse(control);
    if (want == JOB_CONTROL_NONE || want == JOB_CONTROL_PRUNE)
        return err_set(err, "store: a job request is pause or cancel, not %s",
                       control ? control : "(none)");
    char what[64];
    snprintf(what, sizeof what, "%s run %lld", control, (long long)run_id);
    if (store_begin(s, what, err))
        return -1;
    int rc = apply_request(s, run_id, want, what, err);
    if (rc == 0 && want == JOB_CONTROL_CANCEL) rc = stop_rounds(s, run_id, what, err);
    return store_end(s, rc, what, err);
}

/* The body of store_job_resume, inside its transaction. */
static int apply_resume(Store *s, int64_t run_id, const char *what, char *err)
{
    RunStatus status;
    JobControl pending;
    if (job_read(s, run_id, &status, &pending, what, err))
        return -1;
    if (status == RUN_PAUSED || status == RUN_INTERRUPTED)
        return job_update(s,
                          "UPDATE runs SET status = 'queued', control = NULL, owner_pid = NULL,"
                          " finished_at = NULL, queued_at = " STORE_NOW_SQL " WHERE id = ?1",
                          run_id, NULL, 0, what, err);
    if (status == RUN_QUEUED)
        return 0; /* already waiting for a worker */
    if (status == RUN_RUNNING && pending == JOB_CONTROL_PAUSE)
        /* The worker has not paused yet: withdraw the request. */
        return job_update(s, "UPDATE runs SET control = NULL WHERE id = ?1", run_id, NULL, 0,
                          what, err);
    if (status == RUN_RUNNING)
        return err_set(err, "run %lld is running; nothing to resume", (long long)run_id);
    return err_set(err, "run %lld is %s; only a paused or interrupted job can be resumed",
                   (long long)run_id, run_status_name(status));
}

int store_job_resume(Store *s, int64_t run_id, char *err)
{
    assert(s && run_id > 0 && err);
    char what[64];
    snprintf(what, sizeof what, "resume run %lld", (long long)run_id);
    if (store_begin(s, what, err))
        return -1;
    return store_end(s, apply_resume(s, run_id, what, err), what, err);
}

/* ---- worker bookkeeping ----------------------------------------------- */

int store_job_started(Store *s, int64_t run_id, const RunInfo *info, char *err)
{
    assert(s && run_id > 0 && err);
    char what[64];
    snprintf(what, sizeof what, "record the start of run %lld", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "UPDATE runs SET n_params = ?2, n_params_nonembedding = ?3, total_steps = ?4,"
                      " threads = ?5, vocab = ?6, tokenizer = ?7, config_json = ?8,"
                      /* a restart: progress reads from where it resumed, not
                         from the step it reached before (replayed now) */
                      " resumed_step = CASE WHEN ?9 > 0 THEN ?9 ELSE resumed_step END,"
                      " steps_done = CASE WHEN ?9 > 0 THEN ?9 ELSE steps_done END WHERE id = ?1",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, info->n_params) != SQLITE_OK ||
        sqlite3_bind_int64(st, 3, info->n_params_nonembedding) != SQLITE_OK ||
        sqlite3_bind_int64(st, 4, info->total_steps) != SQLITE_OK ||
        sqlite3_bind_int(st, 5, info->threads) != SQLITE_OK ||
        sqlite3_bind_int(st, 6, info->vocab) != SQLITE_OK ||
        store_bind_text(st, 7, info->tokenizer) != SQLITE_OK ||
        store_bind_text(st, 8, info->config_json) != SQLITE_OK ||
        sqlite3_bind_int64(st, 9, info->resumed_step) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}

int store_checkpoint_forget(Store *s, int64_t run_id, const char *path, char *err)
{
    assert(s && run_id > 0 && err);
    const char *what = "forget a checkpoint";
    sqlite3_stmt *st;
    if (store_prepare(s, "DELETE FROM checkpoints WHERE run_id = ?1 AND path = ?2", &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK || store_bind_text(st, 2, path) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

int store_job_set_priority(Store *s, int64_t run_id, int priority, char *err)
{
    assert(s && run_id > 0 && err);
    char what[64];
    snprintf(what, sizeof what, "set priority of run %lld", (long long)run_id);
    if (store_begin(s, what, err))
        return -1;
    RunStatus status;
    JobControl pending;
    int rc = job_read(s, run_id, &status, &pending, what, err);
    if (rc == 0 && run_status_final(status))
        rc = err_set(err, "run %lld is %s; its priority no longer matters", (long long)run_id,
                     run_status_name(status));
    if (rc == 0)
        rc = job_update(s, "UPDATE runs SET priority = ?3 WHERE id = ?1", run_id, NULL, priority,
                        what, err);
    return store_end(s, rc, what, err);
}

int store_job_heartbeat(Store *s, int64_t run_id, char *err)
{
    assert(s && run_id > 0 && err);
    char what[64];
    snprintf(what, sizeof what, "heartbeat of run %lld", (long long)run_id);
    return job_update(s,
                      "UPDATE runs SET heartbeat_at = " STORE_NOW_SQL ", lease_until = "
                      LEASE_UNTIL_SQL " WHERE id = ?1",
                      run_id, NULL, 0, what, err);
}
