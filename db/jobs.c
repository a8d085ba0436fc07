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
 * Not for: running jobs or deciding when to check for requests
 * (experiments/scheduler.c), or expanding sweeps (experiments/).
 */
#include "db/jobs.h"

#include "db/ckpt_owner.h"
#include "db/store_internal.h"
#include "engine/common.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------- */

static int no_such_run(int64_t run_id, char *err)
{
    return err_set(err, "store: run %lld: no such run", (long long)run_id);
}

const char *job_control_name(JobControl c)
{
    return c == JOB_CONTROL_PAUSE ? "pause" : c == JOB_CONTROL_CANCEL ? "cancel" : "";
}

JobControl job_control_parse(const char *text)
{
    if (text && strcmp(text, "pause") == 0)
        return JOB_CONTROL_PAUSE;
    if (text && strcmp(text, "cancel") == 0)
        return JOB_CONTROL_CANCEL;
    return JOB_CONTROL_NONE;
}

/* Reads the status and control request of run_id; meant to run inside the
   caller's IMMEDIATE transaction. */
static int read_job(Store *s, int64_t run_id, RunStatus *status, JobControl *control,
                    const char *what, char *err)
{
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT status, control FROM runs WHERE id = ?1", &st, what, err))
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
static int update_job(Store *s, const char *sql, int64_t run_id, const char *text,
                      int64_t number, const char *what, char *err)
{
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

/* ---- sweeps and queueing ---------------------------------------------- */

int store_sweep_create(Store *s, const char *name, const char *spec, const char *axes_json,
                       int64_t *sweep_id, char *err)
{
    if (!name || !*name || !spec)
        return err_set(err, "store: a sweep needs a name and a spec");
    sqlite3_stmt *st;
    if (store_prepare(s, "INSERT INTO sweeps (name, spec, axes_json) VALUES (?1, ?2, ?3)", &st,
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

int store_sweep_set_round(Store *s, int64_t sweep_id, int round, const char *concluded, char *err)
{
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
    if (sqlite3_step(st) != SQLITE_DONE) {
        /* The foreign key is the one failure a caller can cause by itself. */
        if (sqlite3_extended_errcode(store_sqlite(s)) == SQLITE_CONSTRAINT_FOREIGNKEY)
            err_set(err, "store: queue job: no sweep %lld", (long long)sweep_id);
        else
            store_fail(s, err, what);
        (void)sqlite3_finalize(st); /* repeats the error just reported */
        return -1;
    }
    if (sqlite3_finalize(st) != SQLITE_OK)
        return store_fail(s, err, what);
    return 0;
}

int store_job_enqueue(Store *s, const RunInfo *info, int64_t sweep_id, const char *coords_json,
                      int priority, int64_t *run_id, char *err)
{
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

/* ---- owner identity --------------------------------------------------- */

/* Who a process is, beyond its pid: the host, the boot and pid namespace
   (a pid names one process only within them), and the process's start
   time.  Empty text / -1 where the system does not say (no /proc). */
typedef struct {
    char host[256];
    char boot[160];     /* "<boot_id> pid:[<namespace inode>]" */
    int64_t start;      /* clock ticks after boot, /proc/PID/stat field 22 */
} JobOwner;

#define LEASE_TEXT_(n) #n
#define LEASE_TEXT(n) LEASE_TEXT_(n)
/* The end of a lease that starts now, as SQL. */
#define LEASE_UNTIL_SQL                                                                           \
    "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+" LEASE_TEXT(JOB_LEASE_SECONDS) " seconds')"

/* The start time of process pid in clock ticks after boot, -1 when it
   cannot be read (no such process, no /proc).  The process name in
   parentheses may hold spaces and ')', so fields are counted after the
   last ')': state is field 3, starttime field 22. */
static int64_t process_start(int64_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    p++;
    int field = 2;   /* the last ')' ends field 2, the name */
    while (*p) {
        while (*p == ' ')
            p++;
        if (++field == 22)
            break;
        while (*p && *p != ' ')
            p++;
    }
    if (field != 22 || !*p)
        return -1;
    char *end;
    errno = 0;
    long long start = strtoll(p, &end, 10);
    return end == p || errno || start < 0 ? -1 : (int64_t)start;
}

/* The boot and pid namespace of this process, "" when unknown. */
static void this_boot(char *boot, size_t cap)
{
    boot[0] = 0;
    char id[64] = "", ns[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(id, sizeof id, f))
            id[0] = 0;
        fclose(f);
        id[strcspn(id, "\n")] = 0;
    }
    ssize_t len = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    ns[len > 0 ? len : 0] = 0;
    if (id[0])
        snprintf(boot, cap, "%s %s", id, ns);
}

/* The identity of process pid of this host (a worker claims with its own
   pid, or an MPI sweep with its rank 0's, the process that claims). */
static void job_owner(int64_t pid, JobOwner *o)
{
    if (gethostname(o->host, sizeof o->host) != 0)
        o->host[0] = 0;
    o->host[sizeof o->host - 1] = 0;
    this_boot(o->boot, sizeof o->boot);
    o->start = process_start(pid);
}

/* ---- claiming --------------------------------------------------------- */

/* Copies text (length n) into dst[cap] or fails naming the column. */
static int copy_column(char *dst, size_t cap, const unsigned char *text, int n, int64_t run_id,
                       const char *column, char *err)
{
    if (n < 0 || (size_t)n >= cap)
        return err_set(err, "store: run %lld: its %s is %d bytes, more than the %zu a claimed job "
                            "holds", (long long)run_id, column, n, cap - 1);
    if (n > 0)
        memcpy(dst, text, (size_t)n);
    dst[n] = '\0';
    return 0;
}

/* Inside the claim transaction: the next queued job's id and fields (or
   run_id's, whatever its status, into *status), or *found 0. */
static int select_next_job(Store *s, int64_t run_id, ClaimedJob *job, RunStatus *status, int *found,
                           char *err)
{
    const char *what = "claim a job";
    sqlite3_stmt *st;
    if (store_prepare(s,
                      run_id ? "SELECT id, config_json, coalesce(resume_ckpt, ''), status FROM runs WHERE id = ?1"
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
        if (copy_column(job->config_json, sizeof job->config_json, config, config_len,
                        job->run_id, "config_json", err) ||
            copy_column(job->resume_ckpt, sizeof job->resume_ckpt, ckpt, ckpt_len, job->run_id,
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
    return update_job(s,
                      "UPDATE runs SET status = 'interrupted', owner_pid = NULL, lease_until = NULL,"
                      " control = NULL, error = 'not resumed: ' || ?2 WHERE id = ?1",
                      run_id, why, 0, what, err);
}

/* A queued job whose resume checkpoint is gone trains from the start (its
   metric rows are written again with the same numbers); the error column
   says why (inside the claim transaction). */
static int restart_job(Store *s, int64_t run_id, const char *why, const char *what, char *err)
{
    return update_job(s,
                      "UPDATE runs SET resume_ckpt = NULL, resume_step = NULL, steps_done = 0,"
                      " error = 'restarted from the start: ' || ?2 WHERE id = ?1",
                      run_id, why, 0, what, err);
}

int store_run_own(Store *s, int64_t run_id, int pid, char *err)
{
    if (pid <= 0)
        return err_set(err, "store: own a run: bad process id %d", pid);
    return claim_job(s, run_id, pid, "record a run's owner", err);
}

int store_job_claim(Store *s, int pid, ClaimedJob *job, int *found, char *err)
{
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

static int owner_left(Store *s, int64_t run_id, RunStatus *was, char *err);

int store_job_claim_run(Store *s, int64_t run_id, int pid, ClaimedJob *job, char *err)
{
    if (pid <= 0)
        return err_set(err, "store: claim a job: bad process id %d", pid);
    const char *what = "claim a job";
    if (store_begin(s, what, err))
        return -1;
    int any = 0;
    RunStatus was = RUN_QUEUED;
    int status = select_next_job(s, run_id, job, &was, &any, err);
    if (status == 0 && any && was == RUN_RUNNING)
        status = owner_left(s, run_id, &was, err);
    if (status == 0 && !any)
        status = err_set(err, "no run %lld in the store", (long long)run_id);
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
    RunStatus status;
    /* One SELECT: a read transaction of its own is enough. */
    return read_job(s, run_id, &status, control, "read job control", err);
}

/* The body of store_job_request, inside its transaction. */
static int apply_request(Store *s, int64_t run_id, JobControl control, const char *what,
                         char *err)
{
    RunStatus status;
    JobControl pending;
    if (read_job(s, run_id, &status, &pending, what, err))
        return -1;
    if (run_status_final(status))
        return err_set(err, "run %lld is %s; nothing to %s", (long long)run_id,
                       run_status_name(status), job_control_name(control));

    if (status == RUN_RUNNING) {
        /* The worker acts at its next check; a pending cancel is not
           weakened into a pause. */
        return update_job(s,
                          "UPDATE runs SET control = CASE WHEN control = 'cancel' THEN 'cancel'"
                          " ELSE ?2 END WHERE id = ?1",
                          run_id, job_control_name(control), 0, what, err);
    }
    if (control == JOB_CONTROL_CANCEL) /* queued, paused or interrupted: no worker to wait for */
        return update_job(s,
                          "UPDATE runs SET status = 'cancelled', control = NULL,"
                          " owner_pid = NULL, finished_at = " STORE_NOW_SQL " WHERE id = ?1",
                          run_id, NULL, 0, what, err);
    if (status == RUN_QUEUED)
        return update_job(s, "UPDATE runs SET status = 'paused', control = NULL WHERE id = ?1",
                          run_id, NULL, 0, what, err);
    if (status == RUN_PAUSED)
        return 0; /* already what was asked */
    return err_set(err, "run %lld is %s; nothing to pause (resume queues it again)",
                   (long long)run_id, run_status_name(status));
}

int store_job_request(Store *s, int64_t run_id, const char *control, char *err)
{
    JobControl want = job_control_parse(control);
    if (want == JOB_CONTROL_NONE)
        return err_set(err, "store: a job request is pause or cancel, not %s",
                       control ? control : "(none)");
    char what[64];
    snprintf(what, sizeof what, "%s run %lld", control, (long long)run_id);
    if (store_begin(s, what, err))
        return -1;
    return store_end(s, apply_request(s, run_id, want, what, err), what, err);
}

/* The body of store_job_resume, inside its transaction. */
static int apply_resume(Store *s, int64_t run_id, const char *what, char *err)
{
    RunStatus status;
    JobControl pending;
    if (read_job(s, run_id, &status, &pending, what, err))
        return -1;
    if (status == RUN_PAUSED || status == RUN_INTERRUPTED)
        return update_job(s,
                          "UPDATE runs SET status = 'queued', control = NULL, owner_pid = NULL,"
                          " finished_at = NULL, queued_at = " STORE_NOW_SQL " WHERE id = ?1",
                          run_id, NULL, 0, what, err);
    if (status == RUN_QUEUED)
        return 0; /* already waiting for a worker */
    if (status == RUN_RUNNING && pending == JOB_CONTROL_PAUSE)
        /* The worker has not paused yet: withdraw the request. */
        return update_job(s, "UPDATE runs SET control = NULL WHERE id = ?1", run_id, NULL, 0,
                          what, err);
    if (status == RUN_RUNNING)
        return err_set(err, "run %lld is running; nothing to resume", (long long)run_id);
    return err_set(err, "run %lld is %s; only a paused or interrupted job can be resumed",
                   (long long)run_id, run_status_name(status));
}

int store_job_resume(Store *s, int64_t run_id, char *err)
{
    char what[64];
    snprintf(what, sizeof what, "resume run %lld", (long long)run_id);
    if (store_begin(s, what, err))
        return -1;
    return store_end(s, apply_resume(s, run_id, what, err), what, err);
}

/* ---- worker bookkeeping ----------------------------------------------- */

int store_job_set_resume(Store *s, int64_t run_id, int64_t step, const char *ckpt_path, char *err)
{
    if (!ckpt_path || !*ckpt_path)
        return err_set(err, "store: a job resumes from a checkpoint path, none given");
    char what[64];
    snprintf(what, sizeof what, "record resume point of run %lld", (long long)run_id);
    /* inside a caller's transaction (store_checkpoint_record) it joins it */
    int own = sqlite3_get_autocommit(store_sqlite(s));
    if (own && store_begin(s, what, err))
        return -1;
    sqlite3_stmt *st;
    int status = store_prepare(s,
                               "UPDATE runs SET resume_ckpt = ?2, resume_step = ?3 WHERE id = ?1",
                               &st, what, err);
    if (status == 0) {
        if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
            store_bind_text(st, 2, ckpt_path) != SQLITE_OK ||
            sqlite3_bind_int64(st, 3, step) != SQLITE_OK) {
            status = store_fail(s, err, what);
            (void)sqlite3_finalize(st);
        } else {
            status = store_update_run(s, st, run_id, what, err);
        }
    }
    if (status == 0)
        status = store_checkpoint_add(s, run_id, step, ckpt_path, err);
    return own ? store_end(s, status, what, err) : status;
}

int store_job_started(Store *s, int64_t run_id, const RunInfo *info, char *err)
{
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
    char what[64];
    snprintf(what, sizeof what, "set priority of run %lld", (long long)run_id);
    if (store_begin(s, what, err))
        return -1;
    RunStatus status;
    JobControl pending;
    int rc = read_job(s, run_id, &status, &pending, what, err);
    if (rc == 0 && run_status_final(status))
        rc = err_set(err, "run %lld is %s; its priority no longer matters", (long long)run_id,
                     run_status_name(status));
    if (rc == 0)
        rc = update_job(s, "UPDATE runs SET priority = ?3 WHERE id = ?1", run_id, NULL, priority,
                        what, err);
    return store_end(s, rc, what, err);
}

int store_job_heartbeat(Store *s, int64_t run_id, char *err)
{
    char what[64];
    snprintf(what, sizeof what, "heartbeat of run %lld", (long long)run_id);
    return update_job(s,
                      "UPDATE runs SET heartbeat_at = " STORE_NOW_SQL ", lease_until = "
                      LEASE_UNTIL_SQL " WHERE id = ?1",
                      run_id, NULL, 0, what, err);
}

/* ---- recovery --------------------------------------------------------- */

/* Whether process pid exists.  EPERM means it does (another user's); only
   ESRCH says it is gone.  A pid that cannot name one process (0 or below
   would signal a process group) counts as gone. */
/* A zombie (state Z in /proc/PID/stat: dead, not yet reaped, as the ranks
   of a killed mpirun are for a moment) runs nothing: it counts as dead. */
static int process_zombie(int64_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *paren = strrchr(buf, ')');   /* the name may hold spaces and ')' */
    return paren && paren[1] == ' ' && paren[2] == 'Z';
}

static int process_alive(int64_t pid)
{
    if (pid <= 0 || pid > INT_MAX)
        return 0;
    return (kill((pid_t)pid, 0) == 0 || errno != ESRCH) && !process_zombie(pid);
}

typedef struct {
    int64_t run_id, pid;        /* pid 0: not recorded (a run of `mixbench run` before owners) */
    char host[256], boot[160];  /* "" when not recorded (claimed before schema 4) */
    int64_t start;              /* -1 when not recorded */
    int lease_over;             /* lease_until is recorded and past */
    char lease_until[40];
    int headless;               /* a run of `mixbench run`, never queued (queued_at NULL) */
} OwnedJob;

/* Copies a text column into dst[cap], "" for NULL (longer text is cut:
   it then matches no identity of this host). */
static void column_text(sqlite3_stmt *st, int col, char *dst, size_t cap)
{
    const unsigned char *text = sqlite3_column_text(st, col);
    snprintf(dst, cap, "%s", text ? (const char *)text : "");
}

/* The running jobs whose owner can be judged (a process, or a lease), all of
   them (run_id 0) or run_id's alone, malloc'd into *jobs. */
static int list_owned_jobs(Store *s, int64_t run_id, OwnedJob **jobs, int *n, const char *what, char *err)
{
    *jobs = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT id, coalesce(owner_pid, 0), owner_host, owner_boot, coalesce(owner_start, -1),"
                      " lease_until IS NOT NULL AND lease_until < " STORE_NOW_SQL ", lease_until,"
                      " queued_at IS NULL"
                      " FROM runs WHERE status = 'running' AND (owner_pid IS NOT NULL OR lease_until IS NOT NULL)"
                      " AND (?1 = 0 OR id = ?1) ORDER BY id",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK) {
        (void)sqlite3_finalize(st);
        return store_fail(s, err, what);
    }
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            int grown = cap ? 2 * cap : 16;
            OwnedJob *more = realloc(*jobs, (size_t)grown * sizeof *more);
            if (!more) {
                err_set(err, "store: %s: out of memory", what);
                goto failed;
            }
            *jobs = more;
            cap = grown;
        }
        OwnedJob *j = &(*jobs)[*n];
        j->run_id = sqlite3_column_int64(st, 0);
        j->pid = sqlite3_column_int64(st, 1);
        column_text(st, 2, j->host, sizeof j->host);
        column_text(st, 3, j->boot, sizeof j->boot);
        j->start = sqlite3_column_int64(st, 4);
        j->lease_over = sqlite3_column_int(st, 5);
        column_text(st, 6, j->lease_until, sizeof j->lease_until);
        j->headless = sqlite3_column_int(st, 7);
        (*n)++;
    }
    if (rc != SQLITE_DONE) {
        store_fail(s, err, what);
        goto failed;
    }
    if (sqlite3_finalize(st) != SQLITE_OK) {
        store_fail(s, err, what);
        free(*jobs);
        *jobs = NULL;
        return -1;
    }
    return 0;

failed:
    (void)sqlite3_finalize(st); /* the error was reported above */
    free(*jobs);
    *jobs = NULL;
    *n = 0;
    return -1;
}

/* Why job j's owner is gone, into why[cap], or "" when it may still be
   running.  On this host and boot (or a job claimed before the owner
   columns existed): its pid is gone, a zombie, or a different process
   (another start time: the pid was reused).  Elsewhere, where pids mean
   nothing here, or where no pid was recorded: its lease ran out (no
   heartbeat for JOB_LEASE_SECONDS). */
static void owner_gone(const OwnedJob *j, const JobOwner *me, char *why, size_t cap)
{
    why[0] = 0;
    const char *who = j->headless ? "process" : "worker process";
    int here = !j->host[0] || (strcmp(j->host, me->host) == 0 &&
                               (!j->boot[0] || strcmp(j->boot, me->boot) == 0));
    if (here && j->pid > 0) {
        int64_t start = j->start >= 0 ? process_start(j->pid) : -1;
        if (!process_alive(j->pid))
            snprintf(why, cap, "%s %lld was gone", who, (long long)j->pid);
        else if (start >= 0 && start != j->start)
            snprintf(why, cap, "%s %lld was gone (its pid names another process now)", who,
                     (long long)j->pid);
    } else if (j->lease_over) {
        snprintf(why, cap, "%s %lld on %s let its lease run out (%s)", who, (long long)j->pid,
                 j->host[0] ? j->host : "an unknown host", j->lease_until);
    }
}

/* A job whose worker died: a pending request is honoured (cancel ->
   'cancelled', pause -> 'paused'); otherwise it goes back to the queue, to
   resume from its last checkpoint.  The error column says what happened
   (?2: why the owner is gone). */
static const char RECOVER_SQL[] =
    "UPDATE runs SET"
    " status = CASE control WHEN 'cancel' THEN 'cancelled' WHEN 'pause' THEN 'paused'"
    "          ELSE 'queued' END,"
    " finished_at = CASE WHEN control = 'cancel' THEN " STORE_NOW_SQL " END,"
    " queued_at = CASE WHEN control IS NULL THEN " STORE_NOW_SQL " ELSE queued_at END,"
    " error = printf('interrupted: %s at %s; %s', ?2, " STORE_NOW_SQL ","
    "   CASE control WHEN 'cancel' THEN 'cancelled as requested'"
    "                WHEN 'pause' THEN 'paused as requested'"
    "                ELSE 'queued again to resume from '"
    "                     || CASE WHEN resume_ckpt IS NULL THEN 'the start'"
    "                             ELSE 'step ' || resume_step END END),"
    " control = NULL, owner_pid = NULL, lease_until = NULL"
    " WHERE id = ?1";

/* A run of `mixbench run` whose process died (killed, the machine went
   down): it was never queued, so no worker takes it; it becomes
   'interrupted', to be resumed by hand (`mixbench run --resume N`, or
   `mixbench resume N` to queue it), or cancelled as requested. */
static const char RECOVER_HEADLESS_SQL[] =
    "UPDATE runs SET"
    " status = CASE control WHEN 'cancel' THEN 'cancelled' ELSE 'interrupted' END,"
    " finished_at = " STORE_NOW_SQL ","
    " error = printf('interrupted: %s at %s; %s', ?2, " STORE_NOW_SQL ","
    "   CASE WHEN control = 'cancel' THEN 'cancelled as requested'"
    "        WHEN resume_ckpt IS NULL THEN 'no checkpoint was written: it cannot be resumed'"
    "        ELSE '`mixbench run --resume ' || id || '` continues it from step ' || resume_step END),"
    " control = NULL, owner_pid = NULL, lease_until = NULL"
    " WHERE id = ?1";

/* Inside the caller's transaction: every running job of jobs[n] whose
   owner is gone is recovered (headless runs only, when only_headless). */
static int recover_listed(Store *s, const OwnedJob *jobs, int n, int only_headless, int *recovered,
                          const char *what, char *err)
{
    JobOwner me;
    job_owner(getpid(), &me);
    for (int i = 0; i < n; i++) {
        char why[512];
        if (only_headless && !jobs[i].headless)
            continue;
        owner_gone(&jobs[i], &me, why, sizeof why);
        if (!why[0])
            continue;
        if (update_job(s, jobs[i].headless ? RECOVER_HEADLESS_SQL : RECOVER_SQL, jobs[i].run_id, why, 0,
                       what, err))
            return -1;
        (*recovered)++;
    }
    return 0;
}

/* store_job_claim_run of a 'running' run (in its transaction): a run whose
   owner is gone is recovered first, and then resumable (*was becomes its
   new status); one that may still be running is refused naming its owner. */
static int owner_left(Store *s, int64_t run_id, RunStatus *was, char *err)
{
    const char *what = "claim a job";
    OwnedJob *jobs;
    int n, recovered = 0;
    if (list_owned_jobs(s, run_id, &jobs, &n, what, err))
        return -1;
    int rc = recover_listed(s, jobs, n, 0, &recovered, what, err);
    if (rc == 0 && recovered) {
        JobControl pending;
        rc = read_job(s, run_id, was, &pending, what, err);
        if (rc == 0 && *was == RUN_QUEUED)
            *was = RUN_INTERRUPTED;   /* a worker's job, queued again: resumed here instead */
    } else if (rc == 0) {
        if (n == 1)
            rc = err_set(err, "run %lld is running on %s as pid %lld (alive%s%s); stop it first, or wait: only a "
                              "queued, paused or interrupted run can be resumed", (long long)run_id,
                         jobs[0].host[0] ? jobs[0].host : "an unknown host", (long long)jobs[0].pid,
                         jobs[0].lease_until[0] ? ", lease until " : "", jobs[0].lease_until);
        else
            rc = err_set(err, "run %lld is running (its owner is not recorded); only a queued, paused or "
                              "interrupted run can be resumed", (long long)run_id);
    }
    free(jobs);
    return rc;
}

int store_jobs_recover_headless(Store *s, int *n, char *err)
{
    *n = 0;
    const char *what = "recover runs of dead processes";
    OwnedJob *jobs;
    int n_jobs;
    /* read first, without the write lock: most opens find nothing to do */
    if (list_owned_jobs(s, 0, &jobs, &n_jobs, what, err))
        return -1;
    JobOwner me;
    job_owner(getpid(), &me);
    int any = 0;
    for (int i = 0; i < n_jobs && !any; i++) {
        char why[512];
        owner_gone(&jobs[i], &me, why, sizeof why);
        any = jobs[i].headless && why[0];
    }
    free(jobs);
    if (!any)
        return 0;
    if (store_begin(s, what, err))
        return -1;
    int status = list_owned_jobs(s, 0, &jobs, &n_jobs, what, err);
    if (status == 0)
        status = recover_listed(s, jobs, n_jobs, 1, n, what, err);
    free(jobs);
    return store_end(s, status, what, err);
}

int store_jobs_recover(Store *s, int *n, char *err)
{
    *n = 0;
    const char *what = "recover jobs of dead workers";
    if (store_begin(s, what, err))
        return -1;
    /* Listed first, changed after: rows are not updated under an open
       SELECT on the same index. */
    OwnedJob *jobs;
    int n_jobs, recovered = 0;
    int status = list_owned_jobs(s, 0, &jobs, &n_jobs, what, err);
    if (status == 0)
        status = recover_listed(s, jobs, n_jobs, 0, &recovered, what, err);
    free(jobs);
    if (store_end(s, status, what, err))
        return -1;
    *n = recovered;
    return 0;
}

/* ---- paper figures ---------------------------------------------------- */

int store_paper_figure_add(Store *s, const char *preset, const char *coords_json,
                           const char *metric, double value, const char *note, const char *setting,
                           const char *setting_text, char *err)
{
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
    const char *what = "read a run to extend";
    sqlite3_stmt *st;
    if (store_prepare_ints(s, "SELECT status, config_json FROM runs WHERE id = ?1", &run_id, 1, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    int found = rc == SQLITE_ROW;
    if (found) {
        out->status = store_column_status(st, 0);
        int n = sqlite3_column_bytes(st, 1);
        const unsigned char *json = sqlite3_column_text(st, 1);
        if (copy_column(out->config_json, sizeof out->config_json, json, n, run_id, "config_json", err)) {
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
    int rc = read_job(s, run_id, &status, &pending, what, err);
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
