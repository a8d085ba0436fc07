/*
 * mpi_options.h — what a sweep over the ranks of one MPI launch is told
 * (MpiSweepOptions): its own small header, so that both the sweep
 * (experiments/mpi_sweep.h) and the ranks' roles it runs
 * (experiments/mpi_roles.h) read it, the roles below the sweep.
 *
 * Not for: running the sweep (experiments/mpi_sweep.h).
 */
#ifndef MIXBENCH_MPI_OPTIONS_H
#define MIXBENCH_MPI_OPTIONS_H

#include <stdatomic.h>
#include <stdint.h>

#include "db/status.h"
#include "experiments/job.h"

typedef struct {
    const char *db_path;   /* the store: opened on rank 0 only */
    int threads;           /* threads per training rank for jobs that do not
                              name theirs; 0: the machine's cores divided by
                              the training ranks on it */
    const JobObserver *observer;   /* told of the training ranks' jobs (their
                                      per-step lines); NULL: quiet */
    atomic_int *stop;      /* set (by a signal): running jobs checkpoint and
                              are queued again, then every rank ends */
    /* rank 0: a job ended on a rank (err: why, for failures; else "") */
    void (*job_ended)(void *ctx, int64_t run_id, RunStatus status, int rank, const char *err);
    /* rank 0: a store error that did not end the sweep (a claim that failed) */
    void (*note)(void *ctx, const char *msg);
    void *ctx;
} MpiSweepOptions;

#endif
