/*
 * job_sink.h — where a running job's records go.  experiments/job.c makes
 * every write and read of the store through one of these, so the same job
 * runner serves three places:
 *
 *   job_sink_store   this process's store connection (`run`, `worker`, the
 *                    workbench; rank 0 of an MPI launch)
 *   job_sink_null    nothing is recorded, no request is ever pending (the
 *                    ranks > 0 of a data-parallel `mpirun ... run`: rank 0
 *                    records for all of them)
 *   mpi_sweep's sink MPI messages to rank 0, which applies them to its store
 *                    (experiments/mpi_sweep.c, the ranks > 0 of
 *                    `mpirun ... worker`)
 *
 * Checkpoint files: a job writes each checkpoint to a local path and then
 * tells the sink (set_resume, ckpt_add); ckpt_forget drops a replaced one,
 * from the records and from the disk.  A remote sink ships the file to the
 * machine of the store and names it there by its base name.
 *
 * Every function returns 0, or -1 with err.
 */
#ifndef MIXBENCH_JOB_SINK_H
#define MIXBENCH_JOB_SINK_H

#include <stdint.h>

#include "db/jobs.h"
#include "db/store.h"

typedef struct {
    int (*unigram_get)(void *ctx, const char *data, const char *tokenizer, int vocab, double *nats, char *err);
    int (*unigram_put)(void *ctx, const char *data, const char *tokenizer, int vocab, int64_t train_tokens,
                       double nats, char *err);
    int (*run_create)(void *ctx, const RunInfo *info, int64_t *run_id, char *err);
    int (*job_started)(void *ctx, int64_t run_id, const RunInfo *info, char *err);
    int (*metrics)(void *ctx, int64_t run_id, const MetricRow *rows, int n, char *err);
    int (*eval)(void *ctx, int64_t run_id, const EvalRow *row, char *err);
    /* a resumable checkpoint at path, written and synced: the run resumes
       from it from now on */
    int (*set_resume)(void *ctx, int64_t run_id, int64_t step, const char *path, char *err);
    /* the final (model-only) checkpoint at path */
    int (*ckpt_add)(void *ctx, int64_t run_id, int64_t step, const char *path, char *err);
    /* forgets the checkpoint at path, then deletes the file */
    int (*ckpt_forget)(void *ctx, int64_t run_id, const char *path, char *err);
    int (*control)(void *ctx, int64_t run_id, JobControl *control, char *err);
    int (*heartbeat)(void *ctx, int64_t run_id, char *err);
    int (*set_infer)(void *ctx, int64_t run_id, double samples_per_s, char *err);
    int (*finish)(void *ctx, int64_t run_id, const RunEnd *end, char *err);
    int (*set_status)(void *ctx, int64_t run_id, RunStatus status, char *err);
} JobSinkOps;

typedef struct {
    const JobSinkOps *ops;
    void *ctx;
} JobSink;

/* Records into store s (which must outlive the sink's use). */
JobSink job_sink_store(Store *s);
/* Records nothing; run_create gives run id 0. */
JobSink job_sink_null(void);

#endif
