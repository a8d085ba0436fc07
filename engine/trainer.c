/*
 * trainer.c — the training step and evaluation loop of trainer.h.
 *
 * A step: draw B windows (seeded offsets, or windows s*B.. in order), let the
 * task turn them into inputs and targets, run forward + backward on each
 * thread's contiguous share of the batch into that thread's own gradient
 * buffer, sum the buffers in thread order, clip by the global norm, AdamW.
 * sparse_rows params (pair tables) have per-thread row accumulators instead
 * of dense buffers (engine/sparse.h): each is merged, whole, by one pool
 * thread, visiting the threads' accumulators in thread order, so the step
 * costs O(rows touched) for them, not O(rows), and stays bit-reproducible.
 * Everything is allocated in trainer_create; a step allocates nothing.
 *
 * Over MPI ranks (trainer_create_dist): every rank draws the same B windows
 * (same seed, same generator) and takes its contiguous share of them, the
 * share it would have as one of that many threads; its threads split that
 * share.  The dense gradient is summed over ranks by Open MPI in buckets
 * (engine/grad_buckets.h), each block's started while backward computes
 * the blocks below it (MIXBENCH_ALLREDUCE=overlap, the default), or after
 * backward (mpi), or by our own fixed-order ring (ring: dist_sum_floats);
 * the sparse rows are gathered from every rank and merged in rank order,
 * and the batch's loss sums are added in rank order, so every rank holds
 * the same gradient and applies the same AdamW update: N ranks x 1 thread
 * computes what 1 process x N threads does (bit for bit at 2 ranks; at 3 or
 * more, Open MPI's order of the sum may differ from the threads', to
 * float32 rounding).  Rank 0's wall time of each step is broadcast, so a
 * seconds budget ends on the same step everywhere.
 *
 * Resumable checkpoints (trainer_save / trainer_resume) hold the weights,
 * the AdamW moments and a "train_state" metadata entry: a JSON object of
 * strings with everything else a step reads or advances.
 */
#include "engine/trainer.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/dist.h"
#include "engine/gemm.h"
#include "engine/grad_buckets.h"
#include "engine/io/json.h"
#include "engine/io/safetensors.h"
#include "engine/ops.h"
#include "engine/optim.h"
#include "engine/pool.h"
#include "engine/rng.h"
#include "engine/sparse.h"
#include "engine/task.h"

struct Trainer {
    Model *m;
    const Dataset *ds;
    const Config *c;
    Pool *pool;
    int n_threads;
    int training;
    Work *works;                 /* one per thread */
    TaskCall *calls;             /* one per thread */
    int32_t *windows;            /* [B, window_len] */
    uint8_t *scored;             /* [B, window_len] when the split has a mask */
    int32_t *inputs, *targets;   /* [B, n] */
    int64_t *window_index;       /* [B] */
    double *partials;            /* per-thread sums */
    RowGrad *merged;             /* [n_sparse] the batch's sparse-row gradients */
    AdamW opt;
    Rng rng;
    int64_t step, tokens, total_steps;
    double loss_ema, ema_weight, train_seconds;
    /* data parallelism over MPI ranks (NULL: this process alone) */
    Dist *dist;
    DistSum sum_mode;            /* how the dense gradient is summed */
    GradBuckets *buckets;        /* overlap, mpi */
    float *ring_scratch;         /* ring: dist_sum_scratch floats */
    unsigned char *sparse_out;   /* this rank's merged sparse rows, packed */
    unsigned char *sparse_in;    /* every rank's, packed, rank order */
    size_t sparse_cap;           /* bytes of one rank's packed rows at most */
    size_t *sparse_len;          /* [ranks] */
    double comm_seconds;         /* this step's time in gradient exchange */
    /* arguments of the current parallel phase */
    int phase_B;
    float clip_coef;
    double lr;
};

int64_t task_window_count(const Model *m, const TokenStream *s)
{
    int n = m->cfg.n_ctx;
    int extra = m->task->window_len(&m->cfg) - n;   /* 1 for next-token tasks */
    if (s->len < (size_t)(n + extra)) return 0;
    return (int64_t)((s->len - (size_t)extra) / (size_t)n);
}

int trainer_create(Trainer **out, Model *m, const Dataset *ds, int threads, int training, char *err)
{
    return trainer_create_dist(out, m, ds, threads, training, NULL, err);
}

/* The exchange buffers of a data-parallel trainer. */
static int alloc_dist(Trainer *t, char *err)
{
    const Model *m = t->m;
    int N = dist_size(t->dist);
    t->sum_mode = dist_sum_mode(t->dist);
    if (t->sum_mode == DIST_SUM_RING) {
        t->ring_scratch = malloc(sizeof(float) * dist_sum_scratch(t->dist, m->n_dense_floats));
        if (!t->ring_scratch) return err_set(err, "out of memory for the gradient exchange");
    } else if (grad_buckets_create(&t->buckets, m, t->works, t->n_threads, t->dist,
                                   t->sum_mode == DIST_SUM_OVERLAP, err)) {
        return -1;
    }
    t->sparse_len = calloc((size_t)N, sizeof(size_t));
    for (int s = 0; s < m->n_sparse; s++) {
        const RowGrad *g = &t->merged[s];
        t->sparse_cap += sizeof(int64_t) + (size_t)g->cap * (sizeof(int32_t) + sizeof(float) * (size_t)g->width);
    }
    if (m->n_sparse) {
        t->sparse_out = malloc(t->sparse_cap);
        t->sparse_in = malloc(t->sparse_cap * (size_t)N);
    }
    if (!t->sparse_len || (m->n_sparse && (!t->sparse_out || !t->sparse_in)))
        return err_set(err, "out of memory for the gradient exchange");
    return 0;
}

int trainer_create_dist(Trainer **out, Model *m, const Dataset *ds, int threads, int training, Dist *dist,
                        char *err)
{
    *out = NULL;
    if (threads <= 0) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    const Config *c = &m->cfg;
    int B = c->batch;
    int ranks = dist_size(dist);
    if (ranks > B)
        return err_set(err, "%d ranks but batch=%d: each rank needs at least one window of the batch "
                            "(use at most %d ranks, or a larger batch)", ranks, B, B);
    long rb0, rb1;
    pool_share(B, dist_rank(dist), ranks, &rb0, &rb1);
    int B_rank = (int)(rb1 - rb0);
    if (threads > B_rank) threads = B_rank;
    Trainer *t = calloc(1, sizeof *t);
    if (!t) return err_set(err, "out of memory");
    t->m = m;
    t->ds = ds;
    t->c = &m->cfg;
    t->dist = ranks > 1 ? dist : NULL;
    t->training = training;
    t->n_threads = threads;
    int wl = m->task->window_len(c);
    int64_t n_train = task_window_count(m, &ds->split[SPLIT_TRAIN]);
    if (training && n_train < 1) {
        free(t);
        return err_set(err, "the train split has %zu tokens, fewer than one window of %d",
                       ds->split[SPLIT_TRAIN].len, wl);
    }
    t->pool = pool_create(threads, err);
    t->works = calloc((size_t)threads, sizeof(Work));
    t->calls = calloc((size_t)threads, sizeof(TaskCall));
    t->windows = malloc(sizeof(int32_t) * (size_t)B * wl);
    t->scored = malloc((size_t)B * wl);
    t->inputs = malloc(sizeof(int32_t) * (size_t)B * c->n_ctx);
    t->targets = malloc(sizeof(int32_t) * (size_t)B * c->n_ctx);
    t->window_index = malloc(sizeof(int64_t) * (size_t)B);
    t->partials = calloc((size_t)threads, sizeof(double));
    if (!t->pool || !t->works || !t->calls || !t->windows || !t->scored || !t->inputs || !t->targets ||
        !t->window_index || !t->partials) {
        trainer_free(t);
        return err_set(err, "out of memory for the trainer");
    }
    int per_thread = (B_rank + threads - 1) / threads;
    for (int i = 0; i < threads; i++)
        if (work_alloc(&t->works[i], m, per_thread, training, err)) {
            trainer_free(t);
            return -1;
        }
    if (training && adamw_init(&t->opt, m, err)) {
        trainer_free(t);
        return -1;
    }
    if (training && m->n_sparse) {
        t->merged = calloc((size_t)m->n_sparse, sizeof(RowGrad));
        if (!t->merged) {
            trainer_free(t);
            return err_set(err, "out of memory for the trainer");
        }
        for (int s = 0; s < m->n_sparse; s++) {
            const RowGrad *g = &t->works[0].row_grads[s];
            if (rowgrad_init(&t->merged[s], g->param, g->rows, g->width, sparse_row_cap(&m->params[g->param], B),
                             err)) {
                trainer_free(t);
                return -1;
            }
        }
    }
    if (training && t->dist && alloc_dist(t, err)) {
        trainer_free(t);
        return -1;
    }
    rng_seed(&t->rng, (uint64_t)c->seed ^ 0x747261696e000000ULL);
    t->total_steps = config_total_steps(c);
    *out = t;
    return 0;
}

void trainer_free(Trainer *t)
{
    if (!t) return;
    grad_buckets_free(t->buckets);   /* before the works whose hooks it set */
    pool_destroy(t->pool);
    if (t->works)
        for (int i = 0; i < t->n_threads; i++) work_free(&t->works[i]);
    free(t->works);
    free(t->calls);
    free(t->windows);
    free(t->scored);
    free(t->inputs);
    free(t->targets);
    free(t->window_index);
    free(t->partials);
    if (t->merged)
        for (int s = 0; s < t->m->n_sparse; s++) rowgrad_free(&t->merged[s]);
    free(t->merged);
    free(t->ring_scratch);
    free(t->sparse_out);
    free(t->sparse_in);
    free(t->sparse_len);
    adamw_free(&t->opt);
    free(t);
}

int64_t trainer_total_steps(const Trainer *t) { return t->total_steps; }
int trainer_threads(const Trainer *t) { return t->n_threads; }
int64_t trainer_step_count(const Trainer *t) { return t->step; }

int trainer_done(const Trainer *t)
{
    if (t->c->seconds > 0 && t->c->tokens <= 0) return t->train_seconds >= t->c->seconds;
    return t->step >= t->total_steps;
}

/* ---- parallel phases ---- */

static void run_slice(void *arg, int i, int n)
{
    Trainer *t = arg;
    long r0, r1, b0, b1;
    pool_share(t->phase_B, dist_rank(t->dist), dist_size(t->dist), &r0, &r1);
    pool_share(r1 - r0, i, n, &b0, &b1);
    b0 += r0;
    b1 += r0;
    TaskCall *call = &t->calls[i];
    Work *w = &t->works[i];
    int N = t->c->n_ctx;
    call->B = (int)(b1 - b0);
    call->sample0 = (int)b0;
    call->loss_sum = call->loss_all_sum = 0.0;
    call->n_targets = call->correct = call->n_all = 0;
    if (call->want_grad) work_zero_grads(w, t->m);
    if (call->B == 0) return;
    memcpy(w->inputs, t->inputs + b0 * N, sizeof(int32_t) * (size_t)call->B * N);
    memcpy(w->targets, t->targets + b0 * N, sizeof(int32_t) * (size_t)call->B * N);
    t->m->task->run(call);
}

/* The threads' sparse rows merged into t->merged, each param by one
   thread, the threads' rows in thread order; alone, also their squares and
   the sparse update's start. */
static void merge_sparse(Trainer *t, int i, int n)
{
    long lo, hi;
    pool_share(t->m->n_sparse, i, n, &lo, &hi);
    for (long s = lo; s < hi; s++) {
        RowGrad *g = &t->merged[s];
        rowgrad_clear(g);
        for (int k = 0; k < t->n_threads; k++) rowgrad_merge(g, &t->works[k].row_grads[s]);
        if (!t->dist) {
            t->partials[i] += rowgrad_sumsq(g);
            adamw_sparse_begin(&t->opt, (int)s, g);
        }
    }
}

/* The threads' gradients summed into works[0] (dense) and t->merged
   (sparse rows, each merged by one thread, the threads' rows in thread
   order).  Alone, the same pass adds up the squares for the norm (chunk by
   chunk, while the sums are in cache: vec_sumsq's order) and starts the
   sparse update; over ranks, norm_grads does that after the
   exchange. */
static void reduce_grads(void *arg, int i, int n)
{
    Trainer *t = arg;
    long lo, hi;
    pool_share((long)t->m->n_dense_floats, i, n, &lo, &hi);
    float *sum = t->works[0].grads;
    double lane[8] = {0};   /* vec_sumsq's partial sums, carried from chunk to chunk */
    enum { CHUNK = 4096 };  /* floats summed and squared while in L1; a multiple of 8 */
    for (long c = lo; c < hi; c += CHUNK) {
        long e = c + CHUNK < hi ? c + CHUNK : hi;
        for (int k = 1; k < t->n_threads; k++) vec_acc(sum + c, t->works[k].grads + c, (size_t)(e - c));
        if (!t->dist) sumsq_blocks(lane, sum + c, (size_t)(e - c) & ~(size_t)7);
    }
    long full = lo + ((hi - lo) & ~7L);
    if (!t->dist) t->partials[i] = sumsq_finish(lane, sum + full, (size_t)(hi - full));
    merge_sparse(t, i, n);
}

/* Overlapping the exchange: the blocks were summed over threads as backward
   finished them (engine/grad_buckets.h); the rest of the dense gradient
   here, in the same thread order, and the sparse rows. */
static void reduce_rest(void *arg, int i, int n)
{
    Trainer *t = arg;
    int n_rest;
    const GradRange *rest = grad_buckets_rest(t->buckets, &n_rest);
    float *sum = t->works[0].grads;
    for (int r = 0; r < n_rest; r++) {
        long lo, hi;
        pool_share((long)(rest[r].hi - rest[r].lo), i, n, &lo, &hi);
        for (int k = 1; k < t->n_threads; k++)
            vec_acc(sum + rest[r].lo + lo, t->works[k].grads + rest[r].lo + lo, (size_t)(hi - lo));
    }
    merge_sparse(t, i, n);
}

/* Over ranks, after the exchange: the squares for the norm, and the
   sparse update's start. */
static void norm_grads(void *arg, int i, int n)
{
    Trainer *t = arg;
    long lo, hi;
    pool_share((long)t->m->n_dense_floats, i, n, &lo, &hi);
    t->partials[i] = grad_sumsq(t->works[0].grads, (size_t)lo, (size_t)hi);
    pool_share(t->m->n_sparse, i, n, &lo, &hi);
    for (long s = lo; s < hi; s++) {
        t->partials[i] += rowgrad_sumsq(&t->merged[s]);
        adamw_sparse_begin(&t->opt, (int)s, &t->merged[s]);
    }
}

/* Every rank's sparse rows, merged in rank order into t->merged: each
   rank packs its merged rows (per param: count, row ids, values), all
   ranks gather every rank's pack, and each rebuilds the same sum. */
static int exchange_sparse(Trainer *t, char *err)
{
    const Model *m = t->m;
    unsigned char *p = t->sparse_out;
    for (int s = 0; s < m->n_sparse; s++) {
        const RowGrad *g = &t->merged[s];
        int64_t count = g->count;
        memcpy(p, &count, sizeof count);
        p += sizeof count;
        memcpy(p, g->touched, sizeof(int32_t) * (size_t)count);
        p += sizeof(int32_t) * (size_t)count;
        memcpy(p, g->values, sizeof(float) * (size_t)count * (size_t)g->width);
        p += sizeof(float) * (size_t)count * (size_t)g->width;
    }
    if (dist_allgatherv(t->dist, t->sparse_out, (size_t)(p - t->sparse_out), t->sparse_in, t->sparse_len, err))
        return -1;
    for (int s = 0; s < m->n_sparse; s++) rowgrad_clear(&t->merged[s]);
    const unsigned char *q = t->sparse_in;
    for (int k = 0; k < dist_size(t->dist); k++) {
        const unsigned char *end = q + t->sparse_len[k];
        for (int s = 0; s < m->n_sparse; s++) {
            RowGrad *g = &t->merged[s];
            int64_t count;
            memcpy(&count, q, sizeof count);
            q += sizeof count;
            const int32_t *rows = (const int32_t *)q;
            q += sizeof(int32_t) * (size_t)count;
            const float *values = (const float *)q;
            q += sizeof(float) * (size_t)count * (size_t)g->width;
            rowgrad_merge_rows(g, rows, values, count);
        }
        assert(q == end);
        (void)end;
    }
    return 0;
}

/* Over ranks, after backward: the gradient summed over every rank (the
   same bits on each).  comm_seconds: the time the exchange added to the
   step (overlapping: the MPI calls on thread 0, during backward and here). */
static int exchange_grads(Trainer *t, char *err)
{
    double dense = 0.0;   /* overlap: the buckets' MPI time, during backward and here */
    if (t->sum_mode == DIST_SUM_OVERLAP) {
        if (grad_buckets_start_blocks(t->buckets, err)) return -1;
        pool_run(t->pool, reduce_rest, t);
        if (grad_buckets_finish(t->buckets, err)) return -1;
        dense = grad_buckets_seconds(t->buckets);
    } else {
        pool_run(t->pool, reduce_grads, t);
    }
    double start = now_seconds();
    if (t->sum_mode == DIST_SUM_MPI && grad_buckets_allreduce(t->buckets, err)) return -1;
    if (t->sum_mode == DIST_SUM_RING &&
        dist_sum_floats(t->dist, t->works[0].grads, t->m->n_dense_floats, t->ring_scratch, err))
        return -1;
    if (t->m->n_sparse && exchange_sparse(t, err)) return -1;
    t->comm_seconds = dense + now_seconds() - start;
    return 0;
}

static void update_params(void *arg, int i, int n)
{
    Trainer *t = arg;
    long lo, hi;
    pool_share((long)t->m->n_dense_floats, i, n, &lo, &hi);
    adamw_update(t->m, &t->opt, t->works[0].grads, t->clip_coef, t->lr, t->c->weight_decay,
                 t->opt.t, (size_t)lo, (size_t)hi);
    for (int s = 0; s < t->m->n_sparse; s++) {
        pool_share((long)adamw_sparse_rows(&t->opt, s, &t->merged[s]), i, n, &lo, &hi);
        adamw_sparse_update(t->m, &t->opt, s, &t->merged[s], t->clip_coef, t->lr, t->opt.t, lo, hi);
    }
}

/* 1 when a sparse gradient had more rows than its capacity (a bug: the
   capacity bounds every row a batch can touch). */
static int sparse_overflowed(const Trainer *t)
{
    for (int s = 0; s < t->m->n_sparse; s++)
        if (t->merged[s].overflow) return 1;
    return 0;
}

/* Copies window b (its tokens and, when the split has one, its mask). */
static void copy_window(Trainer *t, const TokenStream *s, int b, size_t offset, int wl)
{
    assert(b >= 0 && b < t->c->batch && offset + (size_t)wl <= s->len);
    memcpy(t->windows + (size_t)b * wl, s->ids + offset, sizeof(int32_t) * wl);
    if (s->scored) memcpy(t->scored + (size_t)b * wl, s->scored + offset, (size_t)wl);
}

static void draw_windows(Trainer *t)
{
    const Config *c = t->c;
    const TokenStream *s = &t->ds->split[SPLIT_TRAIN];
    int B = c->batch, n = c->n_ctx, wl = t->m->task->window_len(c);
    int64_t n_windows = task_window_count(t->m, s);
    for (int b = 0; b < B; b++) {
        size_t offset;
        if (c->order == ORDER_SEQUENTIAL) {
            int64_t w = (t->step * B + b) % n_windows;
            offset = (size_t)w * n;
            t->window_index[b] = w;
        } else if (s->example_len > 0) {
            /* a corpus of examples: windows start where examples start */
            size_t n_examples = (s->len - (size_t)wl) / (size_t)s->example_len + 1;
            offset = (size_t)rng_below(&t->rng, n_examples) * (size_t)s->example_len;
            t->window_index[b] = -1;
        } else {
            offset = (size_t)rng_below(&t->rng, s->len - (size_t)wl + 1);
            t->window_index[b] = -1;
        }
        copy_window(t, s, b, offset, wl);
    }
}

/* What a batch gave, summed over the threads. */
typedef struct {
    double loss_sum, loss_all_sum;
    int64_t n_targets, correct, n_all;
} BatchSums;

/* Runs the prepared batch (t->inputs/targets, B rows) on every thread;
   score_all: an evaluation that also scores every position (loss_all). */
static int run_batch(Trainer *t, int B, int want_grad, int training, int score_all, BatchSums *sums, char *err)
{
    int64_t count = 0;
    for (size_t i = 0; i < (size_t)B * t->c->n_ctx; i++) count += t->targets[i] >= 0;
    for (int i = 0; i < t->n_threads; i++) {
        TaskCall *call = &t->calls[i];
        call->m = t->m;
        call->w = &t->works[i];
        call->training = training;
        call->want_grad = want_grad;
        call->score_all = score_all;
        call->step_key = rng_hash((uint64_t)t->c->seed, (uint64_t)t->step + 1);
        call->loss_scale = count ? 1.0f / (float)count : 0.0f;
    }
    t->phase_B = B;
    pool_run(t->pool, run_slice, t);
    memset(sums, 0, sizeof *sums);
    for (int i = 0; i < t->n_threads; i++) {
        sums->loss_sum += t->calls[i].loss_sum;
        sums->loss_all_sum += t->calls[i].loss_all_sum;
        sums->n_targets += t->calls[i].n_targets;
        sums->correct += t->calls[i].correct;
        sums->n_all += t->calls[i].n_all;
    }
    if (!t->dist) return 0;
    /* over ranks, in rank order (counts are exact in a double) */
    double v[5] = {sums->loss_sum, sums->loss_all_sum, (double)sums->n_targets, (double)sums->correct,
                   (double)sums->n_all};
    if (dist_sum_doubles(t->dist, v, 5, err)) return -1;
    *sums = (BatchSums){v[0], v[1], (int64_t)v[2], (int64_t)v[3], (int64_t)v[4]};
    return 0;
}

/* The threads' product time and FLOPs since the last call, summed
   (engine/gemm.h); read between pool runs, so no thread is writing them. */
static void take_product_counts(Trainer *t, double *seconds, double *flops)
{
    *seconds = *flops = 0.0;
    for (int i = 0; i < t->n_threads; i++) {
        double s, f;
        gemm_take_counts(t->works[i].gemm, &s, &f);
        *seconds += s;
        *flops += f;
    }
}

int trainer_step(Trainer *t, TrainProgress *p, char *err)
{
    if (!t->training) return err_set(err, "trainer was created for evaluation only");
    double start = now_seconds();
    double product_seconds, product_flops;
    take_product_counts(t, &product_seconds, &product_flops);   /* drops an evaluation's */
    const Config *c = t->c;
    int B = c->batch;
    draw_windows(t);
    const uint8_t *scored = t->ds->split[SPLIT_TRAIN].scored ? t->scored : NULL;
    t->m->task->prepare(c, B, t->windows, scored, t->inputs, t->targets, 1, &t->rng, t->window_index);
    BatchSums sums;
    if (t->sum_mode == DIST_SUM_OVERLAP && t->buckets) grad_buckets_begin(t->buckets);
    if (run_batch(t, B, 1, 1, 0, &sums, err)) return -1;
    double loss = sums.n_targets ? sums.loss_sum / (double)sums.n_targets : 0.0;
    if (!t->dist) {
        pool_run(t->pool, reduce_grads, t);
    } else {
        if (exchange_grads(t, err)) return -1;
        pool_run(t->pool, norm_grads, t);
    }
    double sumsq = 0.0;
    for (int i = 0; i < t->n_threads; i++) sumsq += t->partials[i];
    double norm = sqrt(sumsq);
    if (!isfinite(loss) || !isfinite(norm)) {
        err_set(err, "loss is %s at step %lld", isfinite(loss) ? "finite but the gradient is NaN" : "NaN",
                (long long)t->step + 1);
        return TRAINER_DIVERGED;
    }
    if (sparse_overflowed(t))
        return err_set(err, "internal error: a sparse gradient touched more rows than its capacity at step %lld",
                       (long long)t->step + 1);
    double coef = c->clip > 0 ? c->clip / (norm + 1e-6) : 1.0;
    t->clip_coef = coef < 1.0 ? (float)coef : 1.0f;
    double progress = -1.0;
    if (c->seconds > 0 && c->tokens <= 0) progress = t->train_seconds / c->seconds;
    t->lr = schedule_lr(c, t->step, t->total_steps, progress);
    t->opt.t = t->step + 1;
    pool_run(t->pool, update_params, t);
    t->step++;
    t->tokens += (int64_t)B * c->n_ctx;
    take_product_counts(t, &product_seconds, &product_flops);
    double elapsed = now_seconds() - start;
    if (t->dist && dist_bcast(t->dist, &elapsed, sizeof elapsed, err)) return -1;   /* rank 0's clock */
    t->train_seconds += elapsed;
    t->ema_weight = 0.95 * t->ema_weight + 0.05;
    t->loss_ema = 0.95 * t->loss_ema + 0.05 * loss;
    if (p) {
        p->step = t->step;
        p->tokens = t->tokens;
        p->loss = loss;
        p->loss_smooth = t->loss_ema / t->ema_weight;
        p->lr = t->lr;
        p->grad_norm = norm;
        p->tokens_per_s = elapsed > 0 ? (double)B * c->n_ctx / elapsed : 0.0;
        p->train_seconds = t->train_seconds;
        p->comm_seconds = t->dist ? t->comm_seconds : 0.0;
        p->product_seconds = product_seconds;
        p->product_flops = product_flops;
    }
    return 0;
}

int64_t trainer_eval_windows(const Config *c, int64_t n_windows)
{
    if (c->eval_tokens <= 0) return n_windows;
    int64_t cap = c->eval_tokens / c->n_ctx;
    if (cap < 1) cap = 1;
    return cap < n_windows ? cap : n_windows;
}

int trainer_evaluate(Trainer *t, int split, EvalResult *r, char *err)
{
    const Config *c = t->c;
    const TokenStream *s = &t->ds->split[split];
    int64_t n_windows = trainer_eval_windows(c, task_window_count(t->m, s));
    memset(r, 0, sizeof *r);
    if (n_windows < 1)
        return err_set(err, "the %s split has %zu tokens, fewer than one window",
                       split == SPLIT_TEST ? "test" : split == SPLIT_VALID ? "valid" : "train", s->len);
    int B = c->batch, n = c->n_ctx, wl = t->m->task->window_len(c);
    int score_all = t->m->task->has_loss_all;
    double loss_sum = 0.0, loss_all_sum = 0.0;
    int64_t n_all = 0;
    for (int64_t w0 = 0; w0 < n_windows; w0 += B) {
        int nb = (int)(n_windows - w0 < B ? n_windows - w0 : B);
        for (int b = 0; b < nb; b++) {
            t->window_index[b] = w0 + b;
            copy_window(t, s, b, (size_t)(w0 + b) * n, wl);
        }
        t->m->task->prepare(c, nb, t->windows, s->scored ? t->scored : NULL, t->inputs, t->targets, 0, NULL,
                            t->window_index);
        BatchSums sums;
        if (run_batch(t, nb, 0, 0, score_all, &sums, err)) return -1;
        loss_sum += sums.loss_sum;
        loss_all_sum += sums.loss_all_sum;
        n_all += sums.n_all;
        r->n_targets += sums.n_targets;
        r->accuracy += (double)sums.correct;
    }
    r->n_windows = n_windows;
    r->loss = r->n_targets ? loss_sum / (double)r->n_targets : 0.0;
    r->accuracy = r->n_targets ? r->accuracy / (double)r->n_targets : 0.0;
    r->loss_all = score_all && n_all ? loss_all_sum / (double)n_all : NAN;
    if (!isfinite(r->loss) || (score_all && !isfinite(r->loss_all))) return err_set(err, "evaluation loss is NaN");
    return 0;
}

/* ---- resumable checkpoints ---- */

#define TRAIN_STATE_VERSION 1

/* The arrays of a resume file after the weights, as trainer_save writes them. */
static const char *const MOMENT_PREFIX[2] = {"optim.m.", "optim.v."};

/* Everything of a step's state besides weights and moments. */
typedef struct {
    int64_t step, tokens, adam_t;
    Rng rng;
    double loss_ema, ema_weight, train_seconds;
    uint64_t train_len;      /* tokens of the train split it was trained on */
    uint64_t checksum;       /* of the weights and moments (state_checksum) */
} TrainState;

/* A 64-bit checksum of float arrays: a multiply-xorshift chain over 8-byte
   words, each step a bijection of the running value, so a change to any one
   word always changes the result.  It finds a resume file damaged after it
   was written (the safetensors layer checks structure, not values). */
static uint64_t checksum_floats(uint64_t h, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t word;
        memcpy(&word, x + i, sizeof word);
        h = (h ^ word) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    if (i < n) {
        uint32_t word;
        memcpy(&word, x + i, sizeof word);
        h = (h ^ word) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    return h;
}

/* Checksum of every param of the weights, then of m, then of v; tensor(a, i)
   gives array a's data of param i. */
static uint64_t state_checksum(const Model *m, const float *(*tensor)(const void *, const Model *, int, int),
                               const void *src)
{
    uint64_t h = 0x6d6978626e636b70ULL;
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < m->n_params; i++) h = checksum_floats(h, tensor(src, m, a, i), m->params[i].numel);
    return h;
}

static const float *trainer_tensor(const void *src, const Model *m, int a, int i)
{
    const Trainer *t = src;
    const float *base = a == 0 ? m->w : a == 1 ? t->opt.m : t->opt.v;
    return base + m->params[i].offset;
}

static const float *file_tensor(const void *src, const Model *m, int a, int i)
{
    return checkpoint_tensor(src, m, i, a == 0 ? "" : MOMENT_PREFIX[a - 1]);
}

static void put(StrBuf *sb, const char *key, const char *value, int *first)
{
    sb_append(sb, *first ? "{" : ",");
    *first = 0;
    sb_json_string(sb, key);
    sb_append(sb, ":");
    sb_json_string(sb, value);
}

static void state_to_json(const TrainState *s, StrBuf *sb)
{
    char v[128];
    int first = 1;
    snprintf(v, sizeof v, "%d", TRAIN_STATE_VERSION);
    put(sb, "version", v, &first);
    snprintf(v, sizeof v, "%" PRId64, s->step);
    put(sb, "step", v, &first);
    snprintf(v, sizeof v, "%" PRId64, s->tokens);
    put(sb, "tokens", v, &first);
    snprintf(v, sizeof v, "%" PRId64, s->adam_t);
    put(sb, "adam_t", v, &first);
    snprintf(v, sizeof v, "%016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64, s->rng.s[0], s->rng.s[1],
             s->rng.s[2], s->rng.s[3]);
    put(sb, "rng", v, &first);
    snprintf(v, sizeof v, "%.17g", s->loss_ema);
    put(sb, "loss_ema", v, &first);
    snprintf(v, sizeof v, "%.17g", s->ema_weight);
    put(sb, "ema_weight", v, &first);
    snprintf(v, sizeof v, "%.17g", s->train_seconds);
    put(sb, "train_seconds", v, &first);
    snprintf(v, sizeof v, "%" PRIu64, s->train_len);
    put(sb, "train_len", v, &first);
    snprintf(v, sizeof v, "%016" PRIx64, s->checksum);
    put(sb, "checksum", v, &first);
    sb_append(sb, "}");
}

int trainer_save(const Trainer *t, const char *path, const Tokenizer *tok, const CkptExtra *extra,
                 int n_extra, char *err)
{
    if (!t->training) return err_set(err, "%s: an evaluation-only trainer has no training state to save", path);
    TrainState s = {t->step, t->tokens, t->opt.t, t->rng, t->loss_ema, t->ema_weight, t->train_seconds,
                    (uint64_t)t->ds->split[SPLIT_TRAIN].len, state_checksum(t->m, trainer_tensor, t)};
    StrBuf json;
    sb_init(&json);
    state_to_json(&s, &json);
    CkptExtra *meta = malloc(sizeof(CkptExtra) * (size_t)(n_extra + 1));
    int rc = -1;
    if (!sb_ok(&json) || !meta) {
        err_set(err, "out of memory writing %s", path);
    } else {
        for (int i = 0; i < n_extra; i++) meta[i] = extra[i];
        meta[n_extra] = (CkptExtra){"train_state", json.data};
        CkptArray moments[2] = {{MOMENT_PREFIX[0], t->opt.m}, {MOMENT_PREFIX[1], t->opt.v}};
        rc = checkpoint_write(path, t->m, tok, meta, n_extra + 1, moments, 2, err);
    }
    free(meta);
    sb_free(&json);
    return rc;
}

/* The string under key, parsed whole by one of the formats below. */
static int state_field(const char *path, const JsonValue *obj, const char *key, char kind, void *out, char *err)
{
    const JsonValue *v = json_get(obj, key);
    if (!v || v->type != JSON_STRING)
        return err_set(err, "%s: train_state has no \"%s\" string: the file is damaged", path, key);
    const char *text = v->string;
    char *end = NULL;
    errno = 0;
    switch (kind) {
    case 'i': *(int64_t *)out = strtoll(text, &end, 10); break;
    case 'u': *(uint64_t *)out = strtoull(text, &end, 10); break;
    case 'x': *(uint64_t *)out = strtoull(text, &end, 16); break;
    case 'd': *(double *)out = strtod(text, &end); break;
    case 'r': {
        Rng *r = out;
        end = (char *)text;
        for (int k = 0; k < 4 && end; k++) {
            char *next;
            r->s[k] = strtoull(end, &next, 16);
            end = next > end ? next : NULL;
        }
        if (end && !(r->s[0] | r->s[1] | r->s[2] | r->s[3])) end = NULL;   /* xoshiro's one invalid state */
        break;
    }
    }
    int ok = end && end != text && *end == 0 && errno == 0 && (kind != 'i' || *(int64_t *)out >= 0) &&
             (kind != 'd' || isfinite(*(double *)out));
    if (!ok)
        return err_set(err, "%s: train_state \"%s\" is '%s', not a valid value: the file is damaged", path, key,
                       text);
    return 0;
}

static int parse_train_state(const char *path, const char *text, TrainState *s, char *err)
{
    char e[ERR_LEN];
    JsonValue *obj = json_parse(text, strlen(text), e);
    if (!obj) return err_set(err, "%s: train_state is not JSON (%s): the file is damaged", path, e);
    int rc = -1;
    int64_t version = 0;
    if (obj->type != JSON_OBJECT) {
        err_set(err, "%s: train_state is not a JSON object: the file is damaged", path);
        goto done;
    }
    if (state_field(path, obj, "version", 'i', &version, err)) goto done;
    if (version != TRAIN_STATE_VERSION) {
        err_set(err, "%s: train_state version %lld, but this mixbench reads version %d", path, (long long)version,
                TRAIN_STATE_VERSION);
        goto done;
    }
    if (state_field(path, obj, "step", 'i', &s->step, err) ||
        state_field(path, obj, "tokens", 'i', &s->tokens, err) ||
        state_field(path, obj, "adam_t", 'i', &s->adam_t, err) || state_field(path, obj, "rng", 'r', &s->rng, err) ||
        state_field(path, obj, "loss_ema", 'd', &s->loss_ema, err) ||
        state_field(path, obj, "ema_weight", 'd', &s->ema_weight, err) ||
        state_field(path, obj, "train_seconds", 'd', &s->train_seconds, err) ||
        state_field(path, obj, "train_len", 'u', &s->train_len, err) ||
        state_field(path, obj, "checksum", 'x', &s->checksum, err))
        goto done;
    rc = 0;
done:
    json_free(obj);
    return rc;
}

/* Reads and checks everything (format, train_state, the model config, the
   train split's length, every tensor's presence and shape, the checksum)
   before changing anything, so on failure the trainer and its model are
   exactly as before the call and remain usable. */
int trainer_resume(Trainer *t, const char *path, char *err)
{
    if (!t->training) return err_set(err, "%s: an evaluation-only trainer cannot resume training", path);
    StFile f;
    if (checkpoint_open(path, &f, err)) return -1;
    int rc = -1;
    TrainState s;
    const char *state_text = st_meta(&f, "train_state");
    if (!state_text) {
        err_set(err, "%s: a model checkpoint without training state (no \"train_state\" metadata): it can "
                     "initialise a run (--init) but not resume one", path);
        goto done;
    }
    if (parse_train_state(path, state_text, &s, err) || checkpoint_check_config(path, &f, t->m, err)) goto done;
    if (s.train_len != (uint64_t)t->ds->split[SPLIT_TRAIN].len) {
        err_set(err, "%s: the run was trained on a train split of %" PRIu64 " tokens but this data has %zu", path,
                s.train_len, t->ds->split[SPLIT_TRAIN].len);
        goto done;
    }
    if (checkpoint_check_tensors(path, &f, t->m, "", err) ||
        checkpoint_check_tensors(path, &f, t->m, MOMENT_PREFIX[0], err) ||
        checkpoint_check_tensors(path, &f, t->m, MOMENT_PREFIX[1], err))
        goto done;
    if (state_checksum(t->m, file_tensor, &f) != s.checksum) {
        err_set(err, "%s: the weights or optimizer moments do not match their checksum: the file is damaged", path);
        goto done;
    }
    /* every check passed: from here nothing can fail */
    checkpoint_copy_tensors(&f, t->m, "", t->m->w);
    checkpoint_copy_tensors(&f, t->m, MOMENT_PREFIX[0], t->opt.m);
    checkpoint_copy_tensors(&f, t->m, MOMENT_PREFIX[1], t->opt.v);
    adamw_restore_live(&t->opt, t->m);
    t->opt.t = s.adam_t;
    t->step = s.step;
    t->tokens = s.tokens;
    t->rng = s.rng;
    t->loss_ema = s.loss_ema;
    t->ema_weight = s.ema_weight;
    t->train_seconds = s.train_seconds;
    rc = 0;
done:
    st_free(&f);
    return rc;
}

int trainer_sync(Trainer *t, char *err)
{
    if (!t->dist) return 0;
    const Model *m = t->m;
    TrainState s = {t->step, t->tokens, t->opt.t, t->rng, t->loss_ema, t->ema_weight, t->train_seconds, 0, 0};
    if (dist_bcast(t->dist, &s, sizeof s, err) || dist_bcast(t->dist, m->w, sizeof(float) * m->n_floats, err))
        return -1;
    if (t->training && (dist_bcast(t->dist, t->opt.m, sizeof(float) * m->n_floats, err) ||
                        dist_bcast(t->dist, t->opt.v, sizeof(float) * m->n_floats, err)))
        return -1;
    t->step = s.step;
    t->tokens = s.tokens;
    t->opt.t = s.adam_t;
    t->rng = s.rng;
    t->loss_ema = s.loss_ema;
    t->ema_weight = s.ema_weight;
    t->train_seconds = s.train_seconds;
    if (t->training) adamw_restore_live(&t->opt, m);
    return 0;
}
