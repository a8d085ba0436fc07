/*
 * scheduler.h — the store's job queue at work: worker threads in this
 * process take queued jobs from the store (highest priority, then oldest)
 * and run them (experiments/job.c), splitting the machine's cores between the jobs
 * that run at once.  Used headless by `mixbench worker` and, in the same
 * process, by the interactive workbench, which reads each worker's progress
 * without ever waiting on training.
 *
 * Threads: a job that names `threads` keeps it; otherwise, when it first
 * starts, it gets cores / (jobs that can run at once), at least 1: all
 * cores to a job alone, shared fairly when several run.  The count is then
 * written into the job's config, so a resumed job runs on the same number
 * of threads and reaches the same numbers.
 *
 * Memory: a job starts only once what it needs (engine/memory.h, counted
 * when its data is loaded and before its model is allocated) fits in what
 * the process may use beside the jobs already running; it waits for them
 * to end, and one that could not fit even alone fails with the one line.
 */
#ifndef MIXBENCH_SCHEDULER_H
#define MIXBENCH_SCHEDULER_H

#include "experiments/job.h"

typedef struct {
    const char *db_path;
    int max_jobs;        /* jobs running at once (>= 1) */
    int cores;           /* threads to share (>= 1) */
    int until_empty;     /* workers end when the queue is empty (worker);
                            else they wait for new jobs (workbench) */
    int quiet;           /* no per-step lines (several jobs would interleave):
                            the observer hears only of ends that are not done */
    const JobObserver *observer;   /* who is told (app/job_print.h prints);
                            NULL: nobody (the workbench owns the terminal;
                            every outcome is in the store) */
} SchedulerOptions;

typedef struct Scheduler Scheduler;

/* Interrupted jobs (a quit, or a process that died: store_jobs_recover)
   go back to the queue.  The MPI sweep's rank 0 calls it too. */
int scheduler_recover(Store *st, char *err);

/* Recovers jobs of dead processes (and those stopped by a quit) into the
   queue, then starts the workers. */
int scheduler_start(Scheduler **out, const SchedulerOptions *o, char *err);
/* Copies the progress of the jobs running now; returns how many. */
int scheduler_progress(Scheduler *s, JobProgress *out, int max);
/* Running jobs checkpoint and go back to the queue; workers end.  One
   atomic store: safe from any thread and from a signal handler. */
void scheduler_request_stop(Scheduler *s);
/* Waits for every worker to end; returns the number of jobs finished. */
int scheduler_wait(Scheduler *s);
void scheduler_free(Scheduler *s);

#endif
