/*
 * sparse.h — gradients of parameters whose rows a step touches only a few of
 * (sparse_rows params: PairConnect's hashed pair tables T [K, d], K up to
 * millions).  A dense per-thread gradient of such a table would cost K*d
 * floats per thread to hold, zero, sum and clip every step; a RowGrad holds
 * only the rows touched:
 *
 *   slot_of [K]        row -> its slot, -1 while untouched
 *   touched [cap]      the touched rows, in first-touch order
 *   values  [cap, d]   their gradient rows
 *
 * cap bounds the rows one accumulation can hold (min(K, B * rows_per_sample)
 * of the param's declaration), and everything is allocated up front: adding
 * a row never allocates.  Clearing costs O(rows touched), not O(K).
 *
 * Where it plugs in: sparse_rows params lie after every dense param in
 * Model.w (sparse_layout), so Work.grads covers only w[0, n_dense_floats)
 * and each thread has one RowGrad per sparse param (Work.row_grads, handed to
 * mixers as MixArgs.row_grads).  The trainer merges the threads' RowGrads in
 * thread order (bit-reproducible for a thread count), adds their squares to
 * the global norm, and the optimizer (optim.h) updates the rows.
 *
 * Not for: the optimizer arithmetic (optim.c) or the mixers' math.
 */
#ifndef MIXBENCH_SPARSE_H
#define MIXBENCH_SPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "engine/model.h"

typedef struct RowGrad {
    int param;           /* the model param it belongs to */
    int64_t rows;        /* K */
    int width;           /* floats per row (d) */
    int64_t cap;         /* most rows it can hold */
    int64_t count;       /* rows touched so far */
    int overflow;        /* 1: more than cap rows were touched (a bug upstream) */
    int32_t *slot_of;    /* [rows] */
    int32_t *touched;    /* [cap] */
    float *values;       /* [cap + 1, width]: the extra row absorbs an overflow */
} RowGrad;

int rowgrad_init(RowGrad *g, int param, int64_t rows, int width, int64_t cap, char *err);
void rowgrad_free(RowGrad *g);

/* The gradient row of `row` [width], zeroed on its first touch; the caller
   adds into it. */
static inline float *rowgrad_row(RowGrad *g, int64_t row)
{
    int32_t s = g->slot_of[row];
    if (s >= 0) return g->values + (size_t)s * g->width;
    if (g->count == g->cap) {
        g->overflow = 1;
        s = (int32_t)g->cap;
    } else {
        s = (int32_t)g->count++;
        g->slot_of[row] = s;
        g->touched[s] = (int32_t)row;
    }
    float *v = g->values + (size_t)s * g->width;
    memset(v, 0, sizeof(float) * (size_t)g->width);
    return v;
}

/* The gradient row of `row`, or NULL when it was not touched. */
static inline const float *rowgrad_find(const RowGrad *g, int64_t row)
{
    int32_t s = g->slot_of[row];
    return s >= 0 ? g->values + (size_t)s * g->width : NULL;
}

/* Forgets every touched row: O(rows touched). */
void rowgrad_clear(RowGrad *g);
/* dst += src, row by row in src's touched order. */
void rowgrad_merge(RowGrad *dst, const RowGrad *src);
/* dst += count rows given as row ids and their values [count, width] (the
   same merge, of rows another rank sent). */
void rowgrad_merge_rows(RowGrad *dst, const int32_t *rows, const float *values, int64_t count);
/* Sum of squares of the values, in double, in touched order. */
double rowgrad_sumsq(const RowGrad *g);
/* dense [rows, width] += the touched rows. */
void rowgrad_scatter(const RowGrad *g, float *dense);

/* Moves every sparse_rows param after the dense ones in the float array (each
   group keeps declaration order) and fills Model.n_dense_floats, n_sparse and
   each Param's sparse_index.  model_build calls it before allocating w. */
void sparse_layout(Model *m);
/* Rows a RowGrad of param p needs for B samples: min(K, B * rows_per_sample). */
int64_t sparse_row_cap(const Param *p, int B);

/* Work: one RowGrad per sparse param for B samples (work_alloc calls it when
   it allocates gradients), freed by work_free_row_grads. */
int work_alloc_row_grads(Work *w, const Model *m, int B, char *err);
void work_free_row_grads(Work *w);
/* Zeroes this thread's gradients: the dense buffer and every RowGrad. */
void work_zero_grads(Work *w, const Model *m);
/* The thread's whole gradient as one dense array out [n_floats] indexed like
   Model.w (tests and tools; a training step never densifies). */
void work_dense_grads(const Work *w, const Model *m, float *out);

#endif
