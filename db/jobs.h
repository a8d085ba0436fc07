/*
 * jobs.h — the persistent job queue and sweeps in the store (schema
 * version 2).  A job is a run row whose status starts 'queued'; workers
 * claim jobs by priority then age in one IMMEDIATE transaction, so two
 * worker processes never take the same job.  A job carries its sweep, its
 * grid coordinates, its latest checkpoint to resume from, and a control
 * request ('pause' | 'cancel') that the CLI or UI sets and the worker
 * obeys at its next check.  The worker's own writes are here too: what a
 * job learns when it starts, its resume point, the checkpoints it replaces.
 *
 * Not for: running jobs (experiments/scheduler.c) or reading the queue
 * (db/queue_read.h).
 */
#ifndef MIXBENCH_JOBS_H
#define MIXBENCH_JOBS_H

#include <stdint.h>

#include "db/status.h"
#include "db/recover.h"
#include "db/store.h"

/* A request the CLI or UI leaves for a running job's worker. */
typedef enum {
    JOB_CONTROL_NONE,     /* keep going */
    JOB_CONTROL_PAUSE,    /* checkpoint, then stop as 'paused' */
    JOB_CONTROL_CANCEL,   /* stop as 'cancelled' */
    JOB_CONTROL_PRUNE,    /* stop as 'pruned' after the last evaluation: its sweep's
                             pruner decided (store_run_prune, db/adaptive.h) */
} JobControl;

/* "", "pause", "cancel", "prune": the store's text for c (runs.control, NULL
   for none). */
const char *job_control_name(JobControl c);
/* The request named by text; JOB_CONTROL_NONE for NULL, "" or anything else. */
JobControl job_control_parse(const char *text);
/* A job's status as the queue shows it: a running job with a request
   pending is "pausing", "stopping" or "pruning". */
const char *job_shown_status(RunStatus status, JobControl control);

/* A sweeps row: name (the preset, or "grid"; also its preset, which stays
   when db/organise.h renames it), spec, axes_json (a JSON array of the axis
   keys; NULL means []). */
int store_sweep_create(Store *s, const char *name, const char *spec, const char *axes_json,
                       int64_t *sweep_id, char *err);

/* What the sweep does beyond its grid (sweeps.plan_json, a JSON object;
   experiments/adaptive.h), its round, and why its rounds stopped (NULL:
   going on). */
int store_sweep_set_plan(Store *s, int64_t sweep_id, const char *plan_json, char *err);
int store_sweep_set_round(Store *s, int64_t sweep_id, int round, const char *concluded, char *err);
/* The text of the study file the sweep was queued from (sweeps.study,
   schema 10; docs/studies.md). */
int store_sweep_set_study(Store *s, int64_t sweep_id, const char *text, char *err);

/* Queues a job: a runs row with status 'queued' (info as for
   store_run_create; n_params etc. may be 0 until the job starts).  sweep_id
   0 means no sweep; coords_json is a JSON object (NULL means {}), stored
   minified.  An unknown sweep fails with "store: queue job: no sweep N". */
int store_job_enqueue(Store *s, const RunInfo *info, int64_t sweep_id, const char *coords_json,
                      int priority, int64_t *run_id, char *err);

typedef struct {
    int64_t run_id;
    char config_json[16384];
    char resume_ckpt[1024];    /* "" when the job starts fresh */
} ClaimedJob;

/* How long a claim or a heartbeat keeps a running job its owner's when
   nobody on another host can check that process: 5 minutes, well above the
   0.2 s between heartbeats, since a job beats only between training steps
   and an evaluation of a big split or a checkpoint of a big model may take
   minutes without one.  Hosts sharing a store need clocks within this. */
#define JOB_LEASE_SECONDS 300

/* Claims the next queued job (highest priority, then oldest) for worker
   process `pid` of this host: status 'running', its owner (owner_pid, and
   computed here: owner_host, owner_boot, owner_start, the start time of
   process pid), lease_until JOB_LEASE_SECONDS from now, started_at (only
   the first time), heartbeat_at, control cleared.  *found = 0 when the queue is empty.
   One IMMEDIATE transaction, so concurrent workers never claim one job.  A
   job whose resume checkpoint fails store_checkpoint_verify (another store's
   or run's file, replaced, damaged) is not claimed: it becomes
   'interrupted' with the reason in its error column, and the next is.  One
   whose checkpoint is gone (STORE_CKPT_MISSING: a store moved without its
   checkpoints) is claimed to train again from the start. */
int store_job_claim(Store *s, int pid, ClaimedJob *job, int *found, char *err);

/* Claims run_id itself (queued, paused or interrupted, with a checkpoint
   unless queued) for process pid, as store_job_claim does: `mixbench run
   --resume RUN`.  A running run whose owner is gone counts as interrupted;
   one whose owner may be alive is refused naming its host and pid.  The
   checkpoint must pass store_checkpoint_verify (db/ckpt_owner.h); a refusal
   changes nothing.  Any other status is refused: "run 7 is done; only a
   queued, paused or interrupted run can be resumed". */
int store_job_claim_run(Store *s, int64_t run_id, int pid, ClaimedJob *job, char *err);

/* The pending control request of a job (a worker polls this between steps). */
int store_job_control(Store *s, int64_t run_id, JobControl *control, char *err);
/* Requests "pause" or "cancel" (CLI/UI; "prune" is the pruner's alone).  A queued job is paused or
   cancelled at once (a paused or interrupted one can be cancelled at once
   too; pausing a paused job does nothing); a running one gets the request
   in its control column and stops when its worker next checks (a pending
   cancel is not replaced by a pause).  A finished job is an error: "run 7
   is done; nothing to pause".  Cancelling a job of a --until-conclusive
   sweep also stops the sweep's rounds (sweeps.concluded "stopped: run 7 was
   cancelled by hand ..."), or its next round would queue the job's like
   again; `mixbench sweep --continue` goes on. */
int store_job_request(Store *s, int64_t run_id, const char *control, char *err);
/* The sweep whose rounds the cancel of run_id stopped (store_job_request);
   *sweep_id 0 when none. */
int store_job_stopped_sweep(Store *s, int64_t run_id, int64_t *sweep_id, char *err);
/* paused / interrupted -> queued again (it resumes from its checkpoint),
   control cleared.  A queued job stays queued; a running job with a
   pending pause has the request withdrawn; anything else is an error. */
int store_job_resume(Store *s, int64_t run_id, char *err);
/* A claimed job has started: what only its start knows (n_params,
   n_params_nonembedding, total_steps, threads, vocab, tokenizer and
   config_json of info; the other fields are ignored) joins its run row.
   A job that resumed (info->resumed_step > 0) records that step as
   resumed_step and as its steps_done, which then grows again as it
   replays. */
int store_job_started(Store *s, int64_t run_id, const RunInfo *info, char *err);
/* Removes the checkpoints row of path (a periodic checkpoint replaced by a
   newer one); the caller deletes the file after. */
int store_checkpoint_forget(Store *s, int64_t run_id, const char *path, char *err);
/* What a stopped or finished run needs to continue to a larger budget
   (`mixbench extend`, experiments/extend.h): its status, steps done and
   planned, why it ended (runs.error, "" when none) and stored config. */
typedef struct {
    RunStatus status;
    int64_t steps_done, total_steps;
    char error[512];
    char config_json[16384];
} RunForExtend;
int store_run_for_extend(Store *s, int64_t run_id, RunForExtend *out, char *err);

/* The resumable checkpoints a run has at or before step `upto`, latest
   first (paths into paths[cap][1024], their steps into steps); *n how many. */
int store_run_checkpoints_upto(Store *s, int64_t run_id, int64_t upto, char (*paths)[1024], int64_t *steps,
                               int cap, int *n, char *err);

/* The run continues to a larger budget: one transaction that stores its new
   config_json and total_steps, queues it again to resume from `ckpt` (NULL:
   from the start) at step `from`, and removes what it recorded after that
   step (metrics, evaluations, the checkpoints rows, whose paths are put in
   *dropped, malloc'd, n_dropped; the caller deletes those files), since the
   continued run writes those steps anew.  Only a run that is not running or
   queued (done, paused, interrupted, cancelled) may be extended. */
int store_run_extend(Store *s, int64_t run_id, const char *config_json, int64_t total_steps, const char *ckpt,
                     int64_t from, char ***dropped, int *n_dropped, char *err);

/* Higher is claimed first.  A finished job is an error. */
int store_job_set_priority(Store *s, int64_t run_id, int priority, char *err);
/* A run of `mixbench run` records its process as its owner, as a claimed
   job does (store_run_create calls it). */
int store_run_own(Store *s, int64_t run_id, int pid, char *err);
/* Heartbeat of a running job (so readers can see it is alive): renews its
   lease for JOB_LEASE_SECONDS. */
int store_job_heartbeat(Store *s, int64_t run_id, char *err);

/* The paper's figures for a preset, one row per (preset, coords, metric,
   setting): writing the same point again replaces it.  A non-finite value
   is NULL.  setting ("S1".."S7", may be NULL: "") and setting_text (the
   paper's setting in words, may be NULL) say what the paper ran. */
int store_paper_figure_add(Store *s, const char *preset, const char *coords_json, const char *metric,
                           double value, const char *note, const char *setting,
                           const char *setting_text, char *err);

#endif
