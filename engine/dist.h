/*
 * dist.h — the processes of one MPI launch (Open MPI's mpirun, or Slurm's
 * srun --mpi=pmix): which rank this is, how many there are, and the few
 * operations the trainer (data-parallel steps), the sweep worker (jobs
 * handed out by rank 0) and bench need.
 *
 * libmpi is loaded with dlopen only when the environment says a launcher
 * started this process (dist_launched), so a plain ./mixbench neither loads
 * nor needs Open MPI, and starts exactly as fast as without it.  A NULL
 * Dist means one process: rank 0 of 1, and every collective below is a
 * no-op on it.
 *
 * Reductions are ours, not MPI_Allreduce's: dist_sum_floats is a ring
 * (reduce-scatter, then all-gather; 2(N-1)/N of the bytes each way per rank),
 * each chunk summed by one rank in ring order and then copied to the
 * others, so every rank holds the same bits and a given N gives the same
 * numbers on every launch.  Small sums (dist_sum_doubles) gather every
 * rank's values and add them in rank order.
 *
 * Threads: MPI is initialised MPI_THREAD_FUNNELED; only the thread that
 * called dist_init calls the functions below.
 *
 * Not for: deciding what to send (the trainer, experiments/mpi_sweep.c).
 */
#ifndef MIXBENCH_DIST_H
#define MIXBENCH_DIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct Dist Dist;

/* 1 when an MPI launcher started this process (OMPI_COMM_WORLD_SIZE,
   PMIX_RANK or PMI_RANK in the environment). */
int dist_launched(void);
/* Loads libmpi and initialises MPI when dist_launched(); else *out = NULL
   and nothing happens.  -1 with err when libmpi cannot be loaded. */
int dist_init(Dist **out, char *err);
/* MPI_Finalize and free (nothing for NULL). */
void dist_finalize(Dist *d);
/* Ends every rank of the launch at once with this exit code. */
void dist_abort(Dist *d, int code);

int dist_rank(const Dist *d);   /* 0 for NULL */
int dist_size(const Dist *d);   /* 1 for NULL */

/* ---- collectives: every rank calls them, in the same order ---- */

/* x[0, n) = the sum over ranks, the same bits on every rank; scratch holds
   dist_sum_scratch(d, n) floats. */
size_t dist_sum_scratch(const Dist *d, size_t n);
int dist_sum_floats(Dist *d, float *x, size_t n, float *scratch, char *err);
/* x[0, n) = the sum over ranks in rank order (n small: at most 64). */
int dist_sum_doubles(Dist *d, double *x, int n, char *err);
/* Rank 0's bytes to every rank. */
int dist_bcast(Dist *d, void *buf, size_t bytes, char *err);
/* Every rank's `bytes` bytes, rank order, into all [size * bytes]. */
int dist_allgather(Dist *d, const void *mine, size_t bytes, void *all, char *err);
/* Every rank's variable-length bytes, rank order, into all; bytes_of[r]
   receives rank r's length.  all must hold the sum of them. */
int dist_allgatherv(Dist *d, const void *mine, size_t bytes, void *all, size_t *bytes_of, char *err);
/* Agreement after a step that may fail on some ranks: failed says whether
   this rank did, err (in) why.  Returns -1 on every rank when any failed,
   and on rank 0 err becomes "rank R: <its reason>" for the lowest failing
   rank (its own reason when it failed itself). */
int dist_agree(Dist *d, int failed, char *err);
/* -1 on every rank unless every rank passed the same value; rank 0's err
   then says "rank R <differs>" (differs: e.g. "runs a different mixbench
   binary than rank 0"). */
int dist_same(Dist *d, uint64_t value, const char *differs, char *err);

/* ---- point to point (the sweep protocol) ---- */

int dist_send(Dist *d, int to, int tag, const void *buf, size_t bytes, char *err);
/* Waits for a message (from: a rank, or -1 for any; tag: or -1 for any)
   without spinning a core: it polls, sleeping between polls, so an idle
   rank costs nothing.  timeout_s < 0 waits for ever; returns 1 with its
   source, tag and length, or 0 when the timeout passed first. */
int dist_wait(Dist *d, int from, int tag, double timeout_s, int *src, int *tag_out, size_t *bytes);
/* Receives the message dist_wait found (buf holds at least its length). */
int dist_recv(Dist *d, int from, int tag, void *buf, size_t bytes, char *err);

/* A 64-bit hash of this process's executable file (/proc/self/exe), for
   dist_same: ranks started from different binaries are refused. */
uint64_t dist_binary_hash(void);
/* FNV-1a of bytes, continuing from h (0 starts). */
uint64_t dist_hash_bytes(uint64_t h, const void *p, size_t n);

#endif
