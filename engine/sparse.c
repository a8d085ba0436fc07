/*
 * sparse.c — row accumulators for sparse_rows params and where they sit in
 * the model and the per-thread work space (sparse.h).
 */
#include "engine/sparse.h"

#include <stdlib.h>

#include "engine/common.h"
#include "engine/ops.h"

int rowgrad_init(RowGrad *g, int param, int64_t rows, int width, int64_t cap, char *err)
{
    memset(g, 0, sizeof *g);
    g->param = param;
    g->rows = rows;
    g->width = width;
    g->cap = cap;
    g->slot_of = malloc(sizeof(int32_t) * (size_t)rows);
    g->touched = malloc(sizeof(int32_t) * (size_t)(cap ? cap : 1));
    g->values = aligned_alloc(64, ((sizeof(float) * (size_t)(cap + 1) * (size_t)width + 63) & ~(size_t)63));
    if (!g->slot_of || !g->touched || !g->values) {
        rowgrad_free(g);
        return err_set(err, "out of memory: a sparse gradient of %lld rows x %d", (long long)cap, width);
    }
    memset(g->slot_of, 0xff, sizeof(int32_t) * (size_t)rows);   /* every slot -1 */
    return 0;
}

void rowgrad_free(RowGrad *g)
{
    free(g->slot_of);
    free(g->touched);
    free(g->values);
    memset(g, 0, sizeof *g);
}

void rowgrad_clear(RowGrad *g)
{
    for (int64_t s = 0; s < g->count; s++) g->slot_of[g->touched[s]] = -1;
    g->count = 0;
    g->overflow = 0;
}

void rowgrad_merge_rows(RowGrad *dst, const int32_t *rows, const float *values, int64_t count)
{
    for (int64_t s = 0; s < count; s++)
        vec_acc(rowgrad_row(dst, rows[s]), values + (size_t)s * dst->width, (size_t)dst->width);
}

void rowgrad_merge(RowGrad *dst, const RowGrad *src)
{
    rowgrad_merge_rows(dst, src->touched, src->values, src->count);
    dst->overflow |= src->overflow;
}

double rowgrad_sumsq(const RowGrad *g)
{
    return vec_sumsq(g->values, (size_t)g->count * (size_t)g->width);
}

void rowgrad_scatter(const RowGrad *g, float *dense)
{
    for (int64_t s = 0; s < g->count; s++)
        vec_acc(dense + (size_t)g->touched[s] * g->width, g->values + (size_t)s * g->width, (size_t)g->width);
}

/* ---- the model's layout ---- */

void sparse_layout(Model *m)
{
    size_t floats = 0;
    int n_sparse = 0;
    for (int sparse = 0; sparse <= 1; sparse++) {
        for (int i = 0; i < m->n_params; i++) {
            Param *p = &m->params[i];
            if ((p->sparse_rows != 0) != sparse) continue;
            p->offset = floats;
            /* 64-byte aligned tensors, but a block's mixer declarations lie
               next to each other (Param.packed; engine/mixer.h) */
            floats += p->packed ? p->numel : (p->numel + 15) & ~(size_t)15;
            p->sparse_index = sparse ? n_sparse++ : -1;
        }
        floats = (floats + 15) & ~(size_t)15;   /* each group ends on a 64-byte boundary */
        if (!sparse) m->n_dense_floats = floats;
    }
    m->n_floats = floats;
    m->n_sparse = n_sparse;
}

int64_t sparse_row_cap(const Param *p, int B)
{
    int64_t K = p->shape[0];
    if (p->rows_per_sample <= 0 || p->rows_per_sample > K) return K;
    int64_t cap = (int64_t)B * p->rows_per_sample;
    return cap < K ? cap : K;
}

/* ---- per-thread work space ---- */

int work_alloc_row_grads(Work *w, const Model *m, int B, char *err)
{
    w->row_grads = NULL;
    w->n_row_grads = 0;
    if (m->n_sparse == 0) return 0;
    w->row_grads = calloc((size_t)m->n_sparse, sizeof(RowGrad));
    if (!w->row_grads) return err_set(err, "out of memory for sparse gradients");
    w->n_row_grads = m->n_sparse;
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        if (!p->sparse_rows) continue;
        if (rowgrad_init(&w->row_grads[p->sparse_index], i, p->shape[0], (int)(p->numel / (size_t)p->shape[0]),
                         sparse_row_cap(p, B), err)) {
            work_free_row_grads(w);
            return -1;
        }
    }
    return 0;
}

void work_free_row_grads(Work *w)
{
    for (int s = 0; s < w->n_row_grads; s++) rowgrad_free(&w->row_grads[s]);
    free(w->row_grads);
    w->row_grads = NULL;
    w->n_row_grads = 0;
}

void work_zero_grads(Work *w, const Model *m)
{
    memset(w->grads, 0, sizeof(float) * m->n_dense_floats);
    for (int s = 0; s < w->n_row_grads; s++) rowgrad_clear(&w->row_grads[s]);
}

void work_dense_grads(const Work *w, const Model *m, float *out)
{
    memcpy(out, w->grads, sizeof(float) * m->n_dense_floats);
    memset(out + m->n_dense_floats, 0, sizeof(float) * (m->n_floats - m->n_dense_floats));
    for (int s = 0; s < w->n_row_grads; s++) {
        const RowGrad *g = &w->row_grads[s];
        rowgrad_scatter(g, out + m->params[g->param].offset);
    }
}
