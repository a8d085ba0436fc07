/*
 * queue_read.h — typed reads for the queue and its runner: the jobs of the
 * `queue` view as the Queue screen lists them, how many runs have a status
 * and which (the scheduler's fair share and recovery), the measured
 * training speed of each architecture (the New sweep form's estimate), and
 * the causal runs with a checkpoint that the Generate screen can sample
 * from.  Numbers come back as numbers, a status as a RunStatus; callers
 * write no SQL.
 *
 * Not for: changing the queue (db/jobs.h) or a sweep's results
 * (db/results.h).
 */
#ifndef MIXBENCH_QUEUE_READ_H
#define MIXBENCH_QUEUE_READ_H

#include <stdint.h>

#include "db/jobs.h"
#include "db/status.h"
#include "db/store.h"

/* One row of the `queue` view: running jobs first, then the queued ones in
   claim order, then the paused ones. */
typedef struct {
    int64_t id;
    int position;              /* place in line of a queued job (1 = claimed next), 0 for others */
    RunStatus status;          /* running, queued or paused */
    JobControl control;        /* a pending pause / cancel of a running job */
    int priority;
    char sweep[48];            /* the sweep's name, "" outside a sweep */
    char coords[256];          /* "layers=2 seed=1": the job's point, "" outside a sweep */
    char point[256];           /* coords without arch and task (they have columns) */
    char name[64], arch[32], task[16];
    char error[200];           /* why an interrupted job was queued again, or "" */
    int64_t steps_done, total_steps;
    int64_t resume_step;       /* step of the checkpoint it resumes from, 0 for none */
} QueueJob;

/* The first cap rows of the queue into rows; *n gets how many (cap + 1
   rows asked for tell the caller whether there are more). */
int queue_read_jobs(Store *s, QueueJob *rows, int cap, int *n, char *err);

/* How many runs have status. */
int queue_read_count(Store *s, RunStatus status, int64_t *n, char *err);

/* The ids of the runs with status, by id.  *ids is malloc'd (free() it;
   NULL when *n is 0). */
int queue_read_ids(Store *s, RunStatus status, int64_t **ids, int *n, char *err);

/* A finished run's training speed and the config it was measured on. */
typedef struct {
    int64_t id;
    char *config_json;           /* malloc'd (queue_speeds_free) */
    double tokens_per_s;
} RunSpeed;

/* Every finished run that measured a training speed, by id; *out malloc'd
   (queue_speeds_free), NULL when *n is 0. */
int queue_read_run_speeds(Store *s, RunSpeed **out, int *n, char *err);
void queue_speeds_free(RunSpeed *speeds, int n);

/* A run with the newest of its checkpoints (the highest step, then the
   latest written). */
typedef struct {
    int64_t id;
    RunStatus status;
    char arch[32], task[16], name[64];
    int d, layers, n_ctx;
    int64_t ckpt_step;         /* 0 when it has no checkpoint */
    char ckpt[1024];           /* its path, "" when none */
} CkptRun;

/* The clm runs that stopped (done, interrupted, paused, cancelled, pruned) with a
   checkpoint, newest first, at most cap; *n gets how many. */
int queue_read_clm_runs(Store *s, CkptRun *out, int cap, int *n, char *err);
/* Run run_id whatever its task and status; *found 0 when there is none. */
int queue_read_ckpt_run(Store *s, int64_t run_id, CkptRun *out, int *found, char *err);

#endif
