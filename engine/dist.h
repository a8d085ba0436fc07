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
 * Gradient sums: Open MPI's own collective by default, in place on
 * buckets (dist_allreduce_floats, blocking; DistSums, MPI_Iallreduce, so a
 * bucket is summed while backward computes the next), tuned by Open MPI per
 * message size and network.  dist_sum_floats is our own ring
 * (reduce-scatter, then all-gather over MPI_Sendrecv), kept for
 * MIXBENCH_ALLREDUCE=ring: each chunk is summed by one rank in ring order,
 * so its bits do not depend on which algorithm Open MPI picks (at 3 or more
 * ranks the library's are equal only to float32 rounding; at 2 every
 * algorithm adds a + b).  Small sums (dist_sum_doubles) gather every rank's
 * values and add them in rank order.
 *
 * Threads: MPI is initialised MPI_THREAD_FUNNELED; only the thread that
 * called dist_init calls the functions below (the overlapped gradient sum
 * calls them from pool thread 0, which is that thread: engine/pool.h).
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

/* How this launch sums gradients (MIXBENCH_ALLREDUCE, the same on every
   rank: dist_init refuses otherwise).  DIST_SUM_OVERLAP for NULL. */
typedef enum { DIST_SUM_OVERLAP, DIST_SUM_MPI, DIST_SUM_RING } DistSum;
DistSum dist_sum_mode(const Dist *d);
const char *dist_sum_name(DistSum mode);   /* "overlap", "mpi", "ring" */

/* x[0, n) = the sum over ranks: MPI_Allreduce in place (MPI_SUM). */
int dist_allreduce_floats(Dist *d, float *x, size_t n, char *err);

/* Sums in flight (MPI_Iallreduce in place), at most cap at once; started
   in the same order on every rank, on a copy of the world communicator, so
   the collectives above may run while they are in flight.  Open MPI moves them on only inside MPI
   calls: dist_sums_progress (MPI_Testall) lets it, dist_sums_wait ends them
   all.  A buffer may not be touched between its start and the wait. */
typedef struct DistSums DistSums;
int dist_sums_create(DistSums **out, Dist *d, int cap, char *err);
void dist_sums_free(DistSums *s);
int dist_sums_start(DistSums *s, float *x, size_t n, char *err);
int dist_sums_progress(DistSums *s, char *err);
int dist_sums_wait(DistSums *s, char *err);

/* Our ring: x[0, n) = the sum over ranks, the same bits on every rank and
   under any Open MPI tuning; scratch holds dist_sum_scratch(d, n) floats. */
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
