/*
 * grad_buckets.c — grad_buckets.h: the block ranges of the dense gradient,
 * the per-block hook of the overlapped exchange, and the blocking one.
 */
#include "engine/grad_buckets.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"

typedef struct {
    GradBuckets *b;
    int thread;
    int past_head;   /* this step's first block is done: the head's gradient came before */
} Hook;

struct GradBuckets {
    Dist *dist;
    Work *works;
    int n_threads;
    int layers;
    int n_blocks;            /* stacks x layers: block s * layers + l */
    GradRange *blocks;       /* [n_blocks + 1]: the blocks, then the head */
    int n_early;             /* buckets ready during backward: blocks, and the
                                head (lm_head, not tied) when it has one */
    GradRange *rest;         /* [n_rest] */
    int n_rest;
    DistSums *sums;          /* overlap only */
    Hook *hooks;             /* [n_threads] */
    atomic_int *threads_done;   /* [n_early] threads past the bucket's backward */
    atomic_int *summed;         /* [n_early] 1: thread 0's buffer holds the threads' sum */
    int *order;              /* [n_early] the buckets in the order thread 0 finished them */
    int n_finished, n_started;
    double mpi_seconds;      /* this step's, thread 0 */
    int failed;
    char err[ERR_LEN];       /* the hook's failure, reported by finish */
};

/* The end of p's slot: model.c pads every tensor to 16 floats, and the
   padding goes with it (not a bucket of its own between two blocks). */
static size_t slot_end(const Model *m, const Param *p)
{
    size_t end = p->offset + ((p->numel + 15) & ~(size_t)15);
    return end < m->n_dense_floats ? end : m->n_dense_floats;
}

/* [lo, hi) of block l of stack s: its dense parameters' span. */
static GradRange block_range(const Model *m, int s, int l)
{
    const BlockParams *bp = &m->stacks[s].blocks[l];
    int idx[MIX_MAX_PARAMS + 8], n = 0;
    int fixed[] = {bp->ln1_w, bp->ln1_b, bp->ln2_w, bp->ln2_b, bp->w1, bp->b1, bp->w2, bp->b2};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        if (fixed[k] >= 0) idx[n++] = fixed[k];
    for (int k = 0; k < bp->n_mix; k++) idx[n++] = bp->mix0 + k;
    GradRange r = {(size_t)-1, 0};
    for (int k = 0; k < n; k++) {
        const Param *p = &m->params[idx[k]];
        if (p->sparse_rows) continue;
        if (p->offset < r.lo) r.lo = p->offset;
        if (slot_end(m, p) > r.hi) r.hi = slot_end(m, p);
    }
    if (r.hi == 0) r.lo = 0;
    return r;
}

static int by_lo(const void *a, const void *b)
{
    const GradRange *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The head's range: lm_head.w and .b, added last by model.c, whose
   gradient every task computes before any block's (the loss comes first);
   tied to tok_emb, the weight's gradient is final only after the
   embeddings' backward and stays in the rest. */
static GradRange head_range(const Model *m)
{
    const Param *w = &m->params[m->head_w], *bias = &m->params[m->head_b];
    if (bias->sparse_rows || (!m->cfg.tie && w->sparse_rows)) return (GradRange){0, 0};
    return (GradRange){m->cfg.tie ? bias->offset : w->offset, slot_end(m, bias)};
}

/* The blocks' and the head's ranges, checked to hold no other one's or
   the rest's parameters, and the gaps between them as the rest. */
static int plan(GradBuckets *b, const Model *m, char *err)
{
    for (int s = 0; s < m->n_stacks; s++)
        for (int l = 0; l < b->layers; l++) b->blocks[s * b->layers + l] = block_range(m, s, l);
    GradRange head = head_range(m);
    b->n_early = b->n_blocks + (head.hi > head.lo);
    b->blocks[b->n_blocks] = head;
    GradRange *sorted = malloc(sizeof *sorted * (size_t)b->n_early);
    if (!sorted) return err_set(err, "out of memory");
    memcpy(sorted, b->blocks, sizeof *sorted * (size_t)b->n_early);
    qsort(sorted, (size_t)b->n_early, sizeof *sorted, by_lo);
    size_t at = 0;
    for (int k = 0; k < b->n_early; k++) {
        if (sorted[k].lo < at) {
            free(sorted);
            return err_set(err, "internal error: two buckets of the gradient overlap");
        }
        if (sorted[k].lo > at) b->rest[b->n_rest++] = (GradRange){at, sorted[k].lo};
        at = sorted[k].hi > at ? sorted[k].hi : at;
    }
    if (at < m->n_dense_floats) b->rest[b->n_rest++] = (GradRange){at, m->n_dense_floats};
    free(sorted);
    /* every dense parameter lies whole in exactly one range, blocks or rest */
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        if (p->sparse_rows) continue;
        int whole = 0, cut = 0;
        for (int k = 0; k < b->n_early + b->n_rest; k++) {
            const GradRange *r = k < b->n_early ? &b->blocks[k] : &b->rest[k - b->n_early];
            int in = p->offset >= r->lo && p->offset + p->numel <= r->hi;
            whole += in;
            cut += !in && p->offset < r->hi && p->offset + p->numel > r->lo;
        }
        if (whole != 1 || cut) return err_set(err, "internal error: parameter %s straddles gradient buckets", p->name);
    }
    return 0;
}

static void on_block_done(void *arg, int stack, int block);

int grad_buckets_create(GradBuckets **out, const Model *m, Work *works, int n_threads, Dist *d, int overlap,
                        char *err)
{
    assert(out && m && works && n_threads > 0 && dist_size(d) > 1);
    *out = NULL;
    GradBuckets *b = calloc(1, sizeof *b);
    if (!b) return err_set(err, "out of memory");
    b->dist = d;
    b->works = works;
    b->n_threads = n_threads;
    b->layers = m->cfg.layers;
    b->n_blocks = m->n_stacks * m->cfg.layers;
    size_t n_early = (size_t)b->n_blocks + 1;   /* at most: the head too */
    b->blocks = calloc(n_early, sizeof *b->blocks);
    b->rest = calloc(n_early + 1, sizeof *b->rest);
    b->hooks = calloc((size_t)n_threads, sizeof *b->hooks);
    b->threads_done = calloc(n_early, sizeof *b->threads_done);
    b->summed = calloc(n_early, sizeof *b->summed);
    b->order = calloc(n_early, sizeof *b->order);
    if (!b->blocks || !b->rest || !b->hooks || !b->threads_done || !b->summed || !b->order) {
        grad_buckets_free(b);
        return err_set(err, "out of memory for the gradient buckets");
    }
    if (plan(b, m, err) || (overlap && dist_sums_create(&b->sums, d, b->n_early + b->n_rest, err))) {
        grad_buckets_free(b);
        return -1;
    }
    if (overlap)
        for (int i = 0; i < n_threads; i++) {
            b->hooks[i] = (Hook){b, i, 0};
            works[i].block_done = on_block_done;
            works[i].block_done_arg = &b->hooks[i];
        }
    *out = b;
    return 0;
}

void grad_buckets_free(GradBuckets *b)
{
    if (!b) return;
    if (b->sums)
        for (int i = 0; i < b->n_threads; i++) b->works[i].block_done = NULL;
    dist_sums_free(b->sums);
    free(b->blocks);
    free(b->rest);
    free(b->hooks);
    free(b->threads_done);
    free(b->summed);
    free(b->order);
    free(b);
}

const GradRange *grad_buckets_rest(const GradBuckets *b, int *count)
{
    assert(b && count);
    *count = b->n_rest;
    return b->rest;
}

double grad_buckets_seconds(const GradBuckets *b)
{
    assert(b);
    return b->mpi_seconds;
}

void grad_buckets_begin(GradBuckets *b)
{
    assert(b && b->sums);
    for (int k = 0; k < b->n_early; k++) {
        atomic_store(&b->threads_done[k], 0);
        atomic_store(&b->summed[k], 0);
    }
    for (int i = 0; i < b->n_threads; i++) b->hooks[i].past_head = 0;
    b->n_finished = b->n_started = 0;
    b->mpi_seconds = 0.0;
    b->failed = 0;
}

/* Thread 0's buffer over r += every other thread's, in thread order. */
static void sum_threads(GradBuckets *b, GradRange r)
{
    float *sum = b->works[0].grads;
    for (int k = 1; k < b->n_threads; k++) vec_acc(sum + r.lo, b->works[k].grads + r.lo, r.hi - r.lo);
}

/* Thread 0: starts, in its own finishing order, the blocks whose sum over
   threads is ready, then lets the sums in flight progress. */
static int start_ready(GradBuckets *b, char *err)
{
    double start = now_seconds();
    int rc = 0;
    while (!rc && b->n_started < b->n_finished && atomic_load(&b->summed[b->order[b->n_started]])) {
        GradRange r = b->blocks[b->order[b->n_started++]];
        rc = dist_sums_start(b->sums, b->works[0].grads + r.lo, r.hi - r.lo, err);
    }
    if (!rc) rc = dist_sums_progress(b->sums, err);
    b->mpi_seconds += now_seconds() - start;
    return rc;
}

/* Bucket k is final on thread h: the last thread there sums the threads'
   buffers over it; thread 0 notes its order. */
static void bucket_done(Hook *h, int k)
{
    GradBuckets *b = h->b;
    if (atomic_fetch_add(&b->threads_done[k], 1) == b->n_threads - 1) {
        sum_threads(b, b->blocks[k]);
        atomic_store(&b->summed[k], 1);
    }
    if (h->thread == 0) b->order[b->n_finished++] = k;
}

static void on_block_done(void *arg, int stack, int block)
{
    Hook *h = arg;
    GradBuckets *b = h->b;
    int k = stack * b->layers + block;
    assert(k >= 0 && k < b->n_blocks);
    if (!h->past_head && b->n_early > b->n_blocks) bucket_done(h, b->n_blocks);
    h->past_head = 1;
    bucket_done(h, k);
    if (h->thread != 0 || b->failed) return;
    if (start_ready(b, b->err)) b->failed = 1;
}

int grad_buckets_start_blocks(GradBuckets *b, char *err)
{
    assert(b && b->sums);
    if (b->failed) return err_set(err, "%s", b->err);
    if (b->n_finished != b->n_early)
        return err_set(err, "internal error: backward finished %d of %d gradient buckets", b->n_finished, b->n_early);
    return start_ready(b, err);   /* every thread is past backward: every bucket is summed */
}

int grad_buckets_finish(GradBuckets *b, char *err)
{
    assert(b && b->sums && b->n_started == b->n_early);
    double start = now_seconds();
    int rc = 0;
    for (int k = 0; k < b->n_rest && !rc; k++)
        rc = dist_sums_start(b->sums, b->works[0].grads + b->rest[k].lo, b->rest[k].hi - b->rest[k].lo, err);
    if (!rc) rc = dist_sums_wait(b->sums, err);
    b->mpi_seconds += now_seconds() - start;
    return rc;
}

int grad_buckets_allreduce(GradBuckets *b, char *err)
{
    assert(b);
    double start = now_seconds();
    float *grads = b->works[0].grads;
    int rc = 0;
    for (int k = 0; k < b->n_early && !rc; k++)
        rc = dist_allreduce_floats(b->dist, grads + b->blocks[k].lo, b->blocks[k].hi - b->blocks[k].lo, err);
    for (int k = 0; k < b->n_rest && !rc; k++)
        rc = dist_allreduce_floats(b->dist, grads + b->rest[k].lo, b->rest[k].hi - b->rest[k].lo, err);
    b->mpi_seconds = now_seconds() - start;
    return rc;
}
