/*
 * mpi_roles.h — the two roles of an MPI sweep (mpi_sweep.h), each in its
 * file: the training ranks (mpi_rank.c) and rank 0's coordinator
 * (mpi_coord.c); experiments/mpi_sweep.c starts one or the other.
 */
#ifndef MIXBENCH_MPI_ROLES_H
#define MIXBENCH_MPI_ROLES_H

#include <stdint.h>

#include "engine/dist.h"
#include "experiments/mpi_options.h"

/* Threads for a job that names none: --threads, else this machine's cores
   shared by the training ranks on it (rank 0, which trains nothing, not
   counted).  Collective: the ranks tell each other their host (hosts[r]:
   a hash of rank r's host name, hosts[size]). */
int mpi_rank_threads(Dist *d, const MpiSweepOptions *o, uint64_t *hosts, char *err);
/* A training rank: asks rank 0 for jobs and runs them until told to end
   (or stopped); *jobs_ended counts the jobs it ended. */
int mpi_train_jobs(Dist *d, const MpiSweepOptions *o, int threads, int *jobs_ended, char *err);
/* Rank 0: hands the store's queued jobs to the training ranks and applies
   their ops to the store, until the queue is empty and no job runs (or the
   stop flag); *jobs_ended counts the jobs that ended on any rank. */
int mpi_serve_queue(Dist *d, const MpiSweepOptions *o, const uint64_t *hosts, int *jobs_ended, char *err);

#endif
