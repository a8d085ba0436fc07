/*
 * scheduler.c — worker threads over the store's job queue (scheduler.h).
 * Each worker has its own SQLite connection; claims are atomic in the store
 * (db/jobs.c), so any number of worker threads and processes share a queue.
 * The stop flag is a C11 atomic (set from the UI thread or a signal
 * handler); the counts of running and finished jobs are under the lock.
 */
#include "experiments/scheduler.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/jobs.h"
#include "db/queue_read.h"
#include "engine/common.h"
#include "engine/memory.h"
#include "experiments/adaptive.h"

struct Scheduler {
    SchedulerOptions o;
    char db_path[1024];
    pthread_t *threads;
    JobMonitor *monitors;
    int n_workers;
    atomic_int stop;      /* set: running jobs checkpoint, workers end */
    pthread_mutex_t lock; /* job_mutex_*: misuse fails an assert */
    int running;          /* under lock: jobs running now (and claims under way) */
    int finished;         /* under lock: jobs ended (any status) */
    int holding;          /* under lock: jobs admitted (holding or taking memory) */
    double pending;       /* under lock: bytes admitted but not yet allocated */
};

typedef struct {
    Scheduler *s;
    int index;
} WorkerArg;

/* A worker's memory admission of its current job (JobSpec.memory_ctx). */
typedef struct {
    Scheduler *s;
    int admitted;
} WorkerMemory;

/* Adds delta to the running count and returns it (finished counts a job
   that ended), under the lock. */
static int count_running(Scheduler *s, int delta, int finished)
{
    job_mutex_lock(&s->lock);
    s->running += delta;
    s->finished += finished;
    int running = s->running;
    assert(running >= 0 && running <= s->o.max_jobs);
    job_mutex_unlock(&s->lock);
    return running;
}

/* Threads for a job starting now that did not name its own. */
static int fair_share(Scheduler *s, Store *st)
{
    int64_t queued = 0;
    char err[ERR_LEN];
    if (queue_read_count(st, RUN_QUEUED, &queued, err)) queued = 0;
    int64_t concurrent = count_running(s, 0, 0) + queued; /* the job just claimed counts in running */
    if (concurrent > s->o.max_jobs) concurrent = s->o.max_jobs;
    if (concurrent < 1) concurrent = 1;
    int share = s->o.cores / (int)concurrent;
    return share < 1 ? 1 : share;
}

static void sleep_seconds(double sec)
{
    struct timespec ts = {(time_t)sec, (long)((sec - (time_t)sec) * 1e9)};
    nanosleep(&ts, NULL);
}

/* JobSpec.memory_admit: a job that needs need->total bytes starts once they fit
   in what the process may use now (which already counts the memory of the
   jobs running) less what jobs admitted before it are still allocating.
   A job that cannot fit even with nothing else running fails with the one
   line; otherwise it waits for the others to end. */
static int memory_admit(void *ctx, const MemoryNeed *need, double held, char *err)
{
    WorkerMemory *wm = ctx;
    Scheduler *s = wm->s;
    for (;;) {
        const char *source;
        job_mutex_lock(&s->lock);
        double available = memory_available(&source) + held - s->pending;
        int alone = s->holding == 0;   /* jobs waiting like this one hold nothing */
        if (need->total <= available) {
            s->pending += need->total;
            s->holding++;
            wm->admitted = 1;
            job_mutex_unlock(&s->lock);
            return 0;
        }
        job_mutex_unlock(&s->lock);
        if (alone) return memory_check(need, available, source, err);
        if (atomic_load(&s->stop)) {
            err_set(err, "stopped while waiting for memory");
            return JOB_MEMORY_STOPPED;
        }
        sleep_seconds(0.5);
    }
}

static void memory_done(void *ctx, double need)
{
    Scheduler *s = ((WorkerMemory *)ctx)->s;
    job_mutex_lock(&s->lock);
    s->pending -= need;
    job_mutex_unlock(&s->lock);
}

/* The job of wm has ended: its memory is free again. */
static void memory_release(WorkerMemory *wm)
{
    if (!wm->admitted) return;
    job_mutex_lock(&wm->s->lock);
    wm->s->holding--;
    job_mutex_unlock(&wm->s->lock);
    wm->admitted = 0;
}

/* "WHO: ERR" to the observer's warn (nothing without one). */
static void warn(Scheduler *s, const char *who, const char *err)
{
    const JobObserver *o = s->o.observer;
    if (!o || !o->warn) return;
    char line[ERR_LEN + 64];
    snprintf(line, sizeof line, "%s: %s", who, err);
    o->warn(o->ctx, line);
}

/* JobSpec.evaluated: the run's sweep decides on its new evaluation
   (--prune median, experiments/prune.h); ctx is the worker's store. */
static int sweep_decides(void *ctx, int64_t run_id, char *err)
{
    return adaptive_advance_run(ctx, run_id, NULL, err);
}

static void *worker_main(void *p)
{
    WorkerArg *wa = p;
    Scheduler *s = wa->s;
    JobMonitor *mon = &s->monitors[wa->index];
    free(wa);
    char err[ERR_LEN];
    Store *st = NULL;
    if (store_open(s->db_path, &st, err)) {
        warn(s, "worker", err);
        return NULL;
    }
    ClaimedJob *job = malloc(sizeof *job);
    int idle = 0;   /* empty claims in a row */
    while (job && !atomic_load(&s->stop)) {
        int found = 0;
        count_running(s, +1, 0); /* counted before the claim, so fair_share sees it */
        if (store_job_claim(st, (int)getpid(), job, &found, err)) {
            warn(s, "worker", err);
            found = 0;
        }
        if (!found) {
            int others = count_running(s, -1, 0);
            /* an adaptive sweep may have more to run (experiments/adaptive.h) */
            int acted = 0;
            if (adaptive_advance_all(st, &acted, err)) warn(s, "worker", err);
            if (acted) continue;
            if (s->o.until_empty && others == 0) break;
            /* Every 30 s of an empty queue: jobs of workers that died since
               (on another host: whose lease ran out) are queued again. */
            int recovered = 0;
            if (++idle % 60 == 0 && store_jobs_recover(st, &recovered, err)) warn(s, "worker", err);
            if (!recovered) sleep_seconds(0.5);
            continue;
        }
        idle = 0;
        JobSpec js;
        memset(&js, 0, sizeof js);
        config_defaults(&js.config);
        JsonValue *cfg = json_parse(job->config_json, strlen(job->config_json), err);
        int bad = !cfg || config_from_json(&js.config, cfg, 1, err);
        json_free(cfg);
        RunStatus status = RUN_FAILED;
        if (bad) {
            RunEnd end = {run_status_name(RUN_FAILED), err, 0, 0, 0, 0, 0, NAN, NAN};
            store_run_finish(st, job->run_id, &end, err);
        } else {
            if (js.config.threads <= 0) js.config.threads = fair_share(s, st);
            js.store = st;
            js.db_path = s->db_path;
            js.run_id = job->run_id;
            js.resume_ckpt = job->resume_ckpt[0] ? job->resume_ckpt : NULL;
            js.observer = s->o.quiet ? NULL : s->o.observer;
            js.check_control = 1;
            js.evaluated = sweep_decides;
            js.evaluated_ctx = st;
            js.stop = &s->stop;
            js.monitor = mon;
            js.memory_admit = memory_admit;
            js.memory_done = memory_done;
            WorkerMemory wm = {s, 0};
            js.memory_ctx = &wm;
            int rc = job_run(&js, &status, err);
            memory_release(&wm);
            if (!rc && status == RUN_INTERRUPTED) rc = store_job_resume(st, job->run_id, err);
            if (rc) {
                char what[32];
                snprintf(what, sizeof what, "run %lld", (long long)job->run_id);
                warn(s, what, err);
            }
        }
        const JobObserver *o = s->o.observer;
        if (o && o->ended && (!s->o.quiet || status != RUN_DONE)) o->ended(o->ctx, job->run_id, status);
        /* what the job's end lets an adaptive sweep decide */
        int acted = 0;
        if (adaptive_advance_all(st, &acted, err)) warn(s, "worker", err);
        count_running(s, -1, 1);
    }
    free(job);
    store_close(st);
    return NULL;
}

int scheduler_recover(Store *st, char *err)
{
    assert(st && err);
    int n = 0, n_ids = 0;
    int64_t *ids = NULL;
    int rc = store_jobs_recover(st, &n, err);
    if (!rc) rc = queue_read_ids(st, RUN_INTERRUPTED, &ids, &n_ids, err);
    for (int i = 0; !rc && i < n_ids; i++) rc = store_job_resume(st, ids[i], err);
    free(ids);
    return rc;
}

int scheduler_start(Scheduler **out, const SchedulerOptions *o, char *err)
{
    assert(err);
    *out = NULL;
    Store *st;
    if (store_open(o->db_path, &st, err)) return -1;
    int recovered = scheduler_recover(st, err);
    store_close(st);
    if (recovered) return -1;
    Scheduler *s = calloc(1, sizeof *s);
    if (!s) return err_set(err, "out of memory");
    s->o = *o;
    if (s->o.max_jobs < 1) s->o.max_jobs = 1;
    if (s->o.cores < 1) s->o.cores = 1;
    snprintf(s->db_path, sizeof s->db_path, "%s", o->db_path);
    s->o.db_path = s->db_path;
    job_mutex_init(&s->lock);
    atomic_init(&s->stop, 0);
    s->threads = calloc((size_t)s->o.max_jobs, sizeof(pthread_t));
    s->monitors = calloc((size_t)s->o.max_jobs, sizeof(JobMonitor));
    for (int i = 0; s->monitors && i < s->o.max_jobs; i++) job_monitor_init(&s->monitors[i]);
    if (!s->threads || !s->monitors) {
        scheduler_free(s);
        return err_set(err, "out of memory");
    }
    for (int i = 0; i < s->o.max_jobs; i++) {
        WorkerArg *wa = malloc(sizeof *wa);
        if (!wa) break;
        wa->s = s;
        wa->index = i;
        if (pthread_create(&s->threads[i], NULL, worker_main, wa)) {
            free(wa);
            break;
        }
        s->n_workers++;
    }
    if (s->n_workers == 0) {
        scheduler_free(s);
        return err_set(err, "cannot start worker threads");
    }
    *out = s;
    return 0;
}

int scheduler_progress(Scheduler *s, JobProgress *out, int max)
{
    assert(s);
    int n = 0;
    for (int i = 0; i < s->n_workers && n < max; i++)
        if (job_monitor_read(&s->monitors[i], &out[n])) n++;
    return n;
}

void scheduler_request_stop(Scheduler *s) { atomic_store(&s->stop, 1); }

int scheduler_wait(Scheduler *s)
{
    assert(s);
    for (int i = 0; i < s->n_workers; i++) pthread_join(s->threads[i], NULL);
    s->n_workers = 0;
    return s->finished;   /* no worker is left to change it */
}

void scheduler_free(Scheduler *s)
{
    if (!s) return;
    if (s->n_workers) {
        scheduler_request_stop(s);
        scheduler_wait(s);
    }
    free(s->threads);
    if (s->monitors)
        for (int i = 0; i < s->o.max_jobs; i++) job_monitor_destroy(&s->monitors[i]);
    free(s->monitors);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
