/*
 * owners.c — who owns a running job, and what happens when the owner is
 * gone (db/jobs.h): a process's identity (host, boot and pid namespace,
 * start time), the test whether it still runs (its pid alive and the same
 * process, or its lease not over where pids mean nothing), and the
 * recovery of its job: a worker's job queued again, a headless run
 * (`mixbench run`) made 'interrupted'.
 *
 * Not for: claiming (db/jobs.c), which records an owner through
 * job_owner.
 */
#include "db/jobs_internal.h"
#include "db/recover.h"

#include "engine/common.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- owner identity --------------------------------------------------- */

/* The fields of /proc/PID/stat after the process name, into buf[cap]
   (the name in parentheses may hold spaces and ')', so they start after
   the last ')'); NULL when it cannot be read (no such process, no /proc). */
static const char *stat_fields(int64_t pid, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    return p ? p + 1 : NULL;
}

/* The start time of process pid in clock ticks after boot, -1 when it
   cannot be read: state is field 3, starttime field 22. */
static int64_t process_start(int64_t pid)
{
    char buf[1024];
    const char *p = stat_fields(pid, buf, sizeof buf);
    if (!p)
        return -1;
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
void job_owner(int64_t pid, JobOwner *o)
{
    if (gethostname(o->host, sizeof o->host) != 0)
        o->host[0] = 0;
    o->host[sizeof o->host - 1] = 0;
    this_boot(o->boot, sizeof o->boot);
    o->start = process_start(pid);
}

/* ---- recovery --------------------------------------------------------- */

/* A zombie (state Z in /proc/PID/stat: dead, not yet reaped, as the ranks
   of a killed mpirun are for a moment) runs nothing: it counts as dead. */
static int process_zombie(int64_t pid)
{
    char buf[512];
    const char *p = stat_fields(pid, buf, sizeof buf);
    return p && p[0] == ' ' && p[1] == 'Z';
}

/* Whether process pid exists.  EPERM means it does (another user's); only
   ESRCH says it is gone.  A pid that cannot name one process (0 or below
   would signal a process group) counts as gone. */
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
   'cancelled', pause -> 'paused', prune -> 'pruned', keeping the pruner's
   why); otherwise it goes back to the queue, to
   resume from its last checkpoint.  The error column says what happened
   (?2: why the owner is gone). */
static const char RECOVER_SQL[] =
    "UPDATE runs SET"
    " status = CASE control WHEN 'cancel' THEN 'cancelled' WHEN 'pause' THEN 'paused'"
    "          WHEN 'prune' THEN 'pruned' ELSE 'queued' END,"
    " finished_at = CASE WHEN control IN ('cancel', 'prune') THEN " STORE_NOW_SQL " END,"
    " queued_at = CASE WHEN control IS NULL THEN " STORE_NOW_SQL " ELSE queued_at END,"
    " error = CASE WHEN control = 'prune' THEN error ELSE"  /* the pruner's why */
    " printf('interrupted: %s at %s; %s', ?2, " STORE_NOW_SQL ","
    "   CASE control WHEN 'cancel' THEN 'cancelled as requested'"
    "                WHEN 'pause' THEN 'paused as requested'"
    "                ELSE 'queued again to resume from '"
    "                     || CASE WHEN resume_ckpt IS NULL THEN 'the start'"
    "                             ELSE 'step ' || resume_step END END) END,"
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
        if (job_update(s, jobs[i].headless ? RECOVER_HEADLESS_SQL : RECOVER_SQL, jobs[i].run_id, why, 0,
                       what, err))
            return -1;
        (*recovered)++;
    }
    return 0;
}

int job_owner_left(Store *s, int64_t run_id, RunStatus *was, char *err)
{
    assert(s && run_id > 0 && err);
    const char *what = "claim a job";
    OwnedJob *jobs;
    int n, recovered = 0;
    if (list_owned_jobs(s, run_id, &jobs, &n, what, err))
        return -1;
    int rc = recover_listed(s, jobs, n, 0, &recovered, what, err);
    if (rc == 0 && recovered) {
        JobControl pending;
        rc = job_read(s, run_id, was, &pending, what, err);
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
    assert(s && err);
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
    assert(s && err);
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
