/*
 * grad_buckets.h — the dense gradient cut into buckets for the sum over MPI
 * ranks, each block's bucket summed while backward goes on with the blocks
 * below it (PyTorch DDP's gradient buckets, Horovod's fusion buffer).
 *
 * A bucket per block (model.c adds a block's parameters together, so they
 * are one range of the gradient), one for the head (lm_head, final before
 * any block's: the loss comes first), and the ranges between them
 * (embeddings, final norms) as "the rest", final only after backward.
 * Overlapping (MIXBENCH_ALLREDUCE=overlap), every thread's Work calls the
 * hook after each block's backward: the last thread to finish a bucket
 * sums the threads' buffers over its range into thread 0's, in thread
 * order (the trainer's own order, so the bits do not change), and thread 0
 * (the only thread that calls MPI) starts its MPI_Iallreduce at its next
 * block boundary, in the order it finished the buckets itself (the same on
 * every rank), and lets Open MPI progress the sums in flight.  Blocking
 * (mpi): every bucket in turn after backward.
 *
 * Not for: the threads' sum of the rest, the sparse rows, the norm, the
 * update (trainer.c); what a bucket is summed with (engine/dist.h).
 */
#ifndef MIXBENCH_GRAD_BUCKETS_H
#define MIXBENCH_GRAD_BUCKETS_H

#include <stddef.h>

#include "engine/dist.h"
#include "engine/model.h"

typedef struct {
    size_t lo, hi;   /* floats of the dense gradient */
} GradRange;

typedef struct GradBuckets GradBuckets;

/* Buckets of m over d (more than one rank); overlap arms works[0, n)'s
   hook.  Everything a step uses is allocated here. */
int grad_buckets_create(GradBuckets **out, const Model *m, Work *works, int n_threads, Dist *d, int overlap,
                        char *err);
void grad_buckets_free(GradBuckets *b);

/* The ranges outside every block and the head, for the trainer's threads' sum. */
const GradRange *grad_buckets_rest(const GradBuckets *b, int *count);

/* Overlap, before a step's backward: no block done, nothing in flight. */
void grad_buckets_begin(GradBuckets *b);
/* Overlap, after backward (on thread 0): starts the blocks not started yet. */
int grad_buckets_start_blocks(GradBuckets *b, char *err);
/* Overlap, once the threads' sum of the rest is in thread 0's buffer:
   starts the rest and waits for every sum. */
int grad_buckets_finish(GradBuckets *b, char *err);
/* Blocking: thread 0's buffer (the threads' sum) summed over ranks, bucket
   by bucket (MPI_Allreduce). */
int grad_buckets_allreduce(GradBuckets *b, char *err);

/* The step's seconds on thread 0 inside MPI for the buckets: the time
   the exchange added to the step (overlap: what was not hidden). */
double grad_buckets_seconds(const GradBuckets *b);

#endif
