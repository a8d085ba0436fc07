/*
 * jobs.h — the persistent job queue and sweeps in the store (schema
 * version 2).  A job is a run row whose status starts 'queued'; workers
 * claim jobs by priority then age in one IMMEDIATE transaction, so two
 * worker processes never take the same job.  A job carries its sweep, its
 * grid coordinates, its latest checkpoint to resume from, and a control
 * request ('pause' | 'cancel') that the CLI or UI sets and the worker
 * obeys at its next check.
 *
 * Not for: running jobs (app/scheduler.c).
 */
#ifndef MIXBENCH_JOBS_H
#define MIXBENCH_JOBS_H

#include <stdint.h>

#include "db/store.h"

int store_sweep_create(Store *s, const char *name, const char *spec, const char *axes_json,
                       int64_t *sweep_id, char *err);

/* Queues a job: a runs row with status 'queued' (info as for
   store_run_create; n_params etc. may be 0 until the job starts). */
int store_job_enqueue(Store *s, const RunInfo *info, int64_t sweep_id, const char *coords_json,
                      int priority, int64_t *run_id, char *err);

typedef struct {
    int64_t run_id;
    char config_json[16384];
    char resume_ckpt[1024];    /* "" when the job starts fresh */
} ClaimedJob;

/* Claims the next queued job (highest priority, then oldest) for worker
   process `pid`: status 'running', owner_pid, started_at.  *found = 0 when
   the queue is empty. */
int store_job_claim(Store *s, int pid, ClaimedJob *job, int *found, char *err);

/* The pending control request of a job: "" | "pause" | "cancel". */
int store_job_control(Store *s, int64_t run_id, char *control, int cap, char *err);
/* Requests pause/cancel (CLI/UI).  A queued job is paused/cancelled at
   once; a running one when its worker next checks. */
int store_job_request(Store *s, int64_t run_id, const char *control, char *err);
/* paused / interrupted -> queued again (it resumes from its checkpoint). */
int store_job_resume(Store *s, int64_t run_id, char *err);
/* Records where a job can resume from (with the checkpoint row). */
int store_job_set_resume(Store *s, int64_t run_id, int64_t step, const char *ckpt_path, char *err);
int store_job_set_priority(Store *s, int64_t run_id, int priority, char *err);
/* Marks 'running' jobs whose owner process is gone as 'interrupted' and
   queues them again; *n receives how many. */
int store_jobs_recover(Store *s, int *n, char *err);
/* Heartbeat of a running job (so readers can see it is alive). */
int store_job_heartbeat(Store *s, int64_t run_id, char *err);

/* The paper's figures for a preset, stored once per preset. */
int store_paper_figure_add(Store *s, const char *preset, const char *coords_json, const char *metric,
                           double value, const char *note, char *err);

#endif
