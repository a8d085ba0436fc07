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
 */
#include "engine/trainer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/common.h"
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
    *out = NULL;
    if (threads <= 0) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    const Config *c = &m->cfg;
    int B = c->batch;
    if (threads > B) threads = B;
    Trainer *t = calloc(1, sizeof *t);
    if (!t) return err_set(err, "out of memory");
    t->m = m;
    t->ds = ds;
    t->c = &m->cfg;
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
    int per_thread = (B + threads - 1) / threads;
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
    rng_seed(&t->rng, (uint64_t)c->seed ^ 0x747261696e000000ULL);
    int64_t tokens_per_step = (int64_t)B * c->n_ctx;
    if (c->tokens > 0) t->total_steps = (c->tokens + tokens_per_step - 1) / tokens_per_step;
    else if (c->seconds > 0) t->total_steps = 0;
    else t->total_steps = c->steps;
    *out = t;
    return 0;
}

void trainer_free(Trainer *t)
{
    if (!t) return;
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
    adamw_free(&t->opt);
    free(t);
}

int64_t trainer_total_steps(const Trainer *t) { return t->total_steps; }
int trainer_threads(const Trainer *t) { return t->n_threads; }

int trainer_done(const Trainer *t)
{
    if (t->c->seconds > 0 && t->c->tokens <= 0) return t->train_seconds >= t->c->seconds;
    return t->step >= t->total_steps;
}

/* ---- parallel phases ---- */

static void run_slice(void *arg, int i, int n)
{
    Trainer *t = arg;
    long b0, b1;
    pool_share(t->phase_B, i, n, &b0, &b1);
    TaskCall *call = &t->calls[i];
    Work *w = &t->works[i];
    int N = t->c->n_ctx;
    call->B = (int)(b1 - b0);
    call->sample0 = (int)b0;
    call->loss_sum = 0.0;
    call->n_targets = call->correct = 0;
    if (call->want_grad) work_zero_grads(w, t->m);
    if (call->B == 0) return;
    memcpy(w->inputs, t->inputs + b0 * N, sizeof(int32_t) * (size_t)call->B * N);
    memcpy(w->targets, t->targets + b0 * N, sizeof(int32_t) * (size_t)call->B * N);
    t->m->task->run(call);
}

static void reduce_grads(void *arg, int i, int n)
{
    Trainer *t = arg;
    long lo, hi;
    pool_share((long)t->m->n_dense_floats, i, n, &lo, &hi);
    float *sum = t->works[0].grads;
    for (int k = 1; k < t->n_threads; k++)
        for (long j = lo; j < hi; j++) sum[j] += t->works[k].grads[j];
    t->partials[i] = grad_sumsq(sum, (size_t)lo, (size_t)hi);
    /* sparse-row params: each merged by one thread, the threads' rows in thread order */
    pool_share(t->m->n_sparse, i, n, &lo, &hi);
    for (long s = lo; s < hi; s++) {
        RowGrad *g = &t->merged[s];
        rowgrad_clear(g);
        for (int k = 0; k < t->n_threads; k++) rowgrad_merge(g, &t->works[k].row_grads[s]);
        t->partials[i] += rowgrad_sumsq(g);
        adamw_sparse_begin(&t->opt, (int)s, g);
    }
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

/* Runs the prepared batch (t->inputs/targets, B rows) on every thread. */
static void run_batch(Trainer *t, int B, int want_grad, int training, double *loss_sum,
                      int64_t *n_targets, int64_t *correct)
{
    int64_t count = 0;
    for (size_t i = 0; i < (size_t)B * t->c->n_ctx; i++) count += t->targets[i] >= 0;
    for (int i = 0; i < t->n_threads; i++) {
        TaskCall *call = &t->calls[i];
        call->m = t->m;
        call->w = &t->works[i];
        call->training = training;
        call->want_grad = want_grad;
        call->step_key = rng_hash((uint64_t)t->c->seed, (uint64_t)t->step + 1);
        call->loss_scale = count ? 1.0f / (float)count : 0.0f;
    }
    t->phase_B = B;
    pool_run(t->pool, run_slice, t);
    *loss_sum = 0.0;
    *n_targets = *correct = 0;
    for (int i = 0; i < t->n_threads; i++) {
        *loss_sum += t->calls[i].loss_sum;
        *n_targets += t->calls[i].n_targets;
        *correct += t->calls[i].correct;
    }
}

int trainer_step(Trainer *t, TrainProgress *p, char *err)
{
    if (!t->training) return err_set(err, "trainer was created for evaluation only");
    double start = now_seconds();
    const Config *c = t->c;
    int B = c->batch;
    draw_windows(t);
    const uint8_t *scored = t->ds->split[SPLIT_TRAIN].scored ? t->scored : NULL;
    t->m->task->prepare(c, B, t->windows, scored, t->inputs, t->targets, 1, &t->rng, t->window_index);
    double loss_sum;
    int64_t n_targets, correct;
    run_batch(t, B, 1, 1, &loss_sum, &n_targets, &correct);
    double loss = n_targets ? loss_sum / (double)n_targets : 0.0;
    pool_run(t->pool, reduce_grads, t);
    double sumsq = 0.0;
    for (int i = 0; i < t->n_threads; i++) sumsq += t->partials[i];
    double norm = sqrt(sumsq);
    if (!isfinite(loss) || !isfinite(norm))
        return err_set(err, "loss is %s at step %lld", isfinite(loss) ? "finite but the gradient is NaN" : "NaN",
                       (long long)t->step + 1);
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
    double elapsed = now_seconds() - start;
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
    }
    return 0;
}

int trainer_evaluate(Trainer *t, int split, EvalResult *r, char *err)
{
    const Config *c = t->c;
    const TokenStream *s = &t->ds->split[split];
    int64_t n_windows = task_window_count(t->m, s);
    memset(r, 0, sizeof *r);
    if (n_windows < 1)
        return err_set(err, "the %s split has %zu tokens, fewer than one window",
                       split == SPLIT_TEST ? "test" : split == SPLIT_VALID ? "valid" : "train", s->len);
    int B = c->batch, n = c->n_ctx, wl = t->m->task->window_len(c);
    double loss_sum = 0.0;
    for (int64_t w0 = 0; w0 < n_windows; w0 += B) {
        int nb = (int)(n_windows - w0 < B ? n_windows - w0 : B);
        for (int b = 0; b < nb; b++) {
            t->window_index[b] = w0 + b;
            copy_window(t, s, b, (size_t)(w0 + b) * n, wl);
        }
        t->m->task->prepare(c, nb, t->windows, s->scored ? t->scored : NULL, t->inputs, t->targets, 0, NULL,
                            t->window_index);
        double ls;
        int64_t nt, corr;
        run_batch(t, nb, 0, 0, &ls, &nt, &corr);
        loss_sum += ls;
        r->n_targets += nt;
        r->accuracy += (double)corr;
    }
    r->n_windows = n_windows;
    r->loss = r->n_targets ? loss_sum / (double)r->n_targets : 0.0;
    r->accuracy = r->n_targets ? r->accuracy / (double)r->n_targets : 0.0;
    if (!isfinite(r->loss)) return err_set(err, "evaluation loss is NaN");
    return 0;
}
