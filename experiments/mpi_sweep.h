/*
 * mpi_sweep.h — `mpirun -np N mixbench worker`: a sweep over the ranks of
 * one MPI launch (engine/dist.h).  Rank 0 is the coordinator, the only
 * process that opens the store: it recovers the jobs of dead processes,
 * claims queued jobs and hands each to a training rank, and applies to the
 * store every record the jobs make (their JobSink ops arrive as messages).
 * Ranks 1..N-1 train, one job at a time each, so N ranks train N-1 jobs at
 * once; rank 0 trains nothing and sleeps while it waits.
 *
 * Checkpoint files are shipped: a training rank writes each checkpoint in
 * a private scratch folder and sends its bytes to rank 0, which writes
 * them into the store's folder NAME.ckpt/ (temp file, fsync, rename)
 * before the store names them; a resumed job gets its checkpoint's bytes
 * with the job.  So no folder needs to be shared between the machines.
 *
 * If a rank dies, Open MPI ends the launch; the store is left with the jobs
 * of rank 0's dead process 'running', and the next launch (or a local
 * `mixbench worker`) resumes them from their last checkpoint, whose metric
 * rows all reached the store before the checkpoint was recorded.
 *
 * Not for: parsing the command line or printing (app/cmd_queue.c), one
 * data-parallel run over ranks (experiments/job.c with a Dist).
 */
#ifndef MIXBENCH_MPI_SWEEP_H
#define MIXBENCH_MPI_SWEEP_H

#include <stdint.h>

#include "engine/dist.h"
#include "experiments/mpi_options.h"

/* Start-up checks, collective (every rank calls it, before anything is
   written): every rank runs the same binary with the same command line
   (args_hash: a hash of it), no rank refused its arguments (arg_error: why
   this rank did, or NULL), rank 0 can write the store and its checkpoint
   folder.  -1 on every rank when one fails, and on rank 0 err says why in
   one line ("rank R ..." when another rank failed). */
int mpi_sweep_check(Dist *d, const MpiSweepOptions *o, uint64_t args_hash, const char *arg_error, char *err);

/* Runs the sweep until the queue is empty and no job runs (or the stop
   flag), on every rank; call after mpi_sweep_check passed.  *jobs_ended:
   on rank 0 the jobs that ended on any rank, elsewhere this rank's.
   -1 with err when this rank could not go on (a lost message, a store
   that cannot be opened again). */
int mpi_sweep_run(Dist *d, const MpiSweepOptions *o, int *jobs_ended, char *err);

#endif
