/*
 * stack.c — forward and backward through a stack of blocks (SPEC section 1)
 * and the per-thread work space that holds their activations.
 *
 *   pre:  x1 = x + drop(Mix(LN1 x));   out = x1 + drop(FFN(LN2 x1))
 *   post: x1 = LN1(x + drop(Mix x));   out = LN2(x1 + drop(FFN x1))
 *   none: x1 = x + drop(Mix x);        out = x1 + drop(FFN x1)
 *   FFN(z) = W2 act(W1 z + b1) + b2;   the stack ends with LN_f unless none.
 *
 * Not for: embeddings or the head (model.c), task wiring (engine/tasks/).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/gemm.h"
#include "engine/model.h"
#include "engine/ops.h"
#include "engine/rng.h"
#include "engine/sparse.h"

/* ---- work space ---- */

typedef struct {
    char *base;          /* NULL while sizing */
    size_t used;
} Arena;

static void *take(Arena *a, size_t bytes)
{
    size_t off = a->used;
    a->used += (bytes + 63) & ~(size_t)63;
    return a->base ? a->base + off : NULL;
}

#define TAKE_F(a, n) ((float *)take(a, sizeof(float) * (size_t)(n)))

static void layout(Work *w, const Model *m, int B, int with_grads, Arena *a)
{
    const Config *c = &m->cfg;
    size_t N = (size_t)B * c->n_ctx, d = c->d, dff = (size_t)c->ffn_mult * c->d;
    int post = c->norm == NORM_POST, pre = c->norm == NORM_PRE;
    int gelu_like = c->act != ACT_NONE;
    size_t saved = m->mixer->saved_per_sample(c) * (size_t)B;
    for (int s = 0; s < m->n_stacks; s++) {
        StackActs *sa = &w->stacks[s];
        for (int l = 0; l < c->layers; l++) {
            BlockActs *ba = &sa->blocks[l];
            /* block l's input is block l-1's output: s2 itself (pre/none)
               or LN2(s2), which gets its own buffer (post) */
            ba->x = (l == 0 || post) ? TAKE_F(a, N * d) : sa->blocks[l - 1].s2;
            ba->a = pre ? TAKE_F(a, N * d) : ba->x;
            ba->ln1_mean = c->norm != NORM_NONE ? TAKE_F(a, N) : NULL;
            ba->ln1_rstd = c->norm != NORM_NONE ? TAKE_F(a, N) : NULL;
            ba->m = TAKE_F(a, N * d);
            ba->mix_saved = saved ? TAKE_F(a, saved) : NULL;
            ba->s1 = TAKE_F(a, N * d);
            ba->x1 = post ? TAKE_F(a, N * d) : ba->s1;
            ba->b = pre ? TAKE_F(a, N * d) : ba->x1;
            ba->ln2_mean = c->norm != NORM_NONE ? TAKE_F(a, N) : NULL;
            ba->ln2_rstd = c->norm != NORM_NONE ? TAKE_F(a, N) : NULL;
            ba->h = TAKE_F(a, N * dff);
            ba->ha = gelu_like ? TAKE_F(a, N * dff) : ba->h;
            ba->f = TAKE_F(a, N * d);
            ba->s2 = TAKE_F(a, N * d);
        }
        sa->xL = post ? TAKE_F(a, N * d) : sa->blocks[c->layers - 1].s2;
        if (c->norm != NORM_NONE) {
            sa->out = TAKE_F(a, N * d);
            sa->lnf_mean = TAKE_F(a, N);
            sa->lnf_rstd = TAKE_F(a, N);
        } else {
            sa->out = sa->xL;
        }
    }
    w->inputs = take(a, sizeof(int32_t) * N);
    w->targets = take(a, sizeof(int32_t) * N);
    w->inputs_rev = take(a, sizeof(int32_t) * N);
    w->target_rows = take(a, sizeof(int32_t) * N);
    w->targets_compact = take(a, sizeof(int32_t) * N);
    w->targets_all = take(a, sizeof(int32_t) * N);
    w->logits = TAKE_F(a, N * (size_t)c->vocab);
    w->head_in = TAKE_F(a, N * d);
    w->head_grad = TAKE_F(a, N * d);
    w->dout = TAKE_F(a, N * d);
    w->dout2 = TAKE_F(a, N * d);
    w->g = TAKE_F(a, N * d);
    w->t1 = TAKE_F(a, N * d);
    w->t2 = TAKE_F(a, N * d);
    w->dh = TAKE_F(a, N * dff);
    size_t scratch = m->mixer->scratch_floats(c, B);
    w->mix_scratch = scratch ? TAKE_F(a, scratch) : NULL;
    w->grads = with_grads ? TAKE_F(a, m->n_dense_floats) : NULL;   /* sparse_rows params: row_grads */
}

int work_alloc(Work *w, const Model *m, int B, int with_grads, char *err)
{
    memset(w, 0, sizeof *w);
    w->B = B;
    for (int s = 0; s < m->n_stacks; s++) {
        w->stacks[s].blocks = calloc((size_t)m->cfg.layers, sizeof(BlockActs));
        if (!w->stacks[s].blocks) {
            work_free(w);
            return err_set(err, "out of memory for activations");
        }
    }
    Arena sizing = {NULL, 0};
    layout(w, m, B, with_grads, &sizing);
    w->arena_bytes = sizing.used;
    w->arena = aligned_alloc(64, sizing.used);
    if (!w->arena) {
        work_free(w);
        return err_set(err, "out of memory: activations need %.1f MB", sizing.used / 1048576.0);
    }
    memset(w->arena, 0, sizing.used);
    Arena real = {w->arena, 0};
    layout(w, m, B, with_grads, &real);
    if ((with_grads && work_alloc_row_grads(w, m, B, err)) || gemm_create(&w->gemm, m->cfg.precision, err)) {
        work_free(w);
        return -1;
    }
    return 0;
}

size_t work_arena_bytes(const Model *m, int B, int with_grads)
{
    /* layout() links block l's input to block l-1's buffers: it needs the
       small per-block tables, not the arena */
    Work w;
    memset(&w, 0, sizeof w);
    for (int s = 0; s < m->n_stacks; s++) {
        w.stacks[s].blocks = calloc((size_t)m->cfg.layers, sizeof(BlockActs));
        if (!w.stacks[s].blocks) {
            work_free(&w);
            return 0;
        }
    }
    Arena sizing = {NULL, 0};
    layout(&w, m, B, with_grads, &sizing);
    work_free(&w);
    return sizing.used;
}

void work_free(Work *w)
{
    for (int s = 0; s < MODEL_MAX_STACKS; s++) free(w->stacks[s].blocks);
    work_free_row_grads(w);
    gemm_free(w->gemm);
    free(w->arena);
    memset(w, 0, sizeof *w);
}

/* ---- forward / backward ---- */

static uint64_t drop_key(const StackCall *c, int s, int l, int branch)
{
    return rng_hash(c->step_key, ((uint64_t)s * 4096 + (uint64_t)l) * 2 + (uint64_t)branch);
}

static void mix_args(const StackCall *c, int s, int l, const int32_t *tokens, MixArgs *a,
                     const float **w, float **dw)
{
    const Model *m = c->m;
    const BlockParams *bp = &m->stacks[s].blocks[l];
    memset(a, 0, sizeof *a);
    for (int k = 0; k < bp->n_mix; k++) {
        const Param *p = &m->params[bp->mix0 + k];
        w[k] = model_param(m, bp->mix0 + k);
        dw[k] = c->w->grads && !p->sparse_rows ? c->w->grads + p->offset : NULL;
        a->row_grads[k] = c->w->row_grads && p->sparse_rows ? &c->w->row_grads[p->sparse_index] : NULL;
    }
    a->cfg = &m->cfg;
    a->B = c->B;
    a->n = m->cfg.n_ctx;
    a->d = m->cfg.d;
    a->heads = m->cfg.heads;
    a->causal = m->stacks[s].causal;
    a->training = c->training;
    a->block = l;
    a->sample0 = c->sample0;
    a->tokens = tokens;
    a->w = w;
    a->dw = dw;
    a->saved = c->w->stacks[s].blocks[l].mix_saved;
    a->scratch = c->w->mix_scratch;
    a->gemm = c->w->gemm;
    a->state = bp->mix_state;
    a->rng_key = rng_hash(c->step_key, 0x6d6978ULL + (uint64_t)s * 4096 + (uint64_t)l);
}

/* branch = drop(branch) in place (training with dropout only) */
static void maybe_dropout(const StackCall *c, float *v, size_t N, int s, int l, int branch)
{
    float p = (float)c->m->cfg.dropout;
    if (!c->training || p <= 0.0f) return;
    size_t per_sample = (size_t)c->m->cfg.n_ctx * c->m->cfg.d;
    dropout_apply(v, v, N, p, drop_key(c, s, l, branch), (uint64_t)c->sample0 * per_sample);
}

/* The gradient into a branch's dropout: g itself without dropout, else
   a copy in t with the step's mask applied (g stays dL/d(residual sum)). */
static const float *branch_grad(const StackCall *c, const float *g, float *t, size_t N, int s, int l, int branch)
{
    if (!c->training || c->m->cfg.dropout <= 0.0) return g;
    memcpy(t, g, sizeof(float) * N);
    maybe_dropout(c, t, N, s, l, branch);
    return t;
}

static void zero_positions(float *x, int B, int n, int d, int from)
{
    for (int b = 0; b < B; b++)
        memset(x + ((size_t)b * n + from) * d, 0, sizeof(float) * (size_t)(n - from) * d);
}

void stack_forward(const StackCall *c, int s, const int32_t *tokens)
{
    const Model *m = c->m;
    const Config *cf = &m->cfg;
    StackActs *sa = &c->w->stacks[s];
    int B = c->B, n = cf->n_ctx, d = cf->d, dff = cf->ffn_mult * cf->d, N = B * n;
    const float *w[MIX_MAX_PARAMS];
    float *dw[MIX_MAX_PARAMS];
    MixArgs ma;
    assert(!c->rows || !c->training || cf->dropout <= 0);
    for (int l = 0; l < cf->layers; l++) {
        const BlockParams *bp = &m->stacks[s].blocks[l];
        BlockActs *A = &sa->blocks[l];
        /* the last block's tail may run on the loss's rows only (c->rows) */
        int tail = c->rows && l == cf->layers - 1, Nt = tail ? c->n_rows : N;
        size_t Nd = (size_t)N * d;
        if (l == c->zero_block) zero_positions(A->x, B, n, d, c->zero_from);
        mix_args(c, s, l, tokens, &ma, w, dw);
        if (cf->norm == NORM_PRE)
            layernorm_forward(A->a, A->ln1_mean, A->ln1_rstd, A->x, model_param(m, bp->ln1_w),
                              model_param(m, bp->ln1_b), N, d);
        m->mixer->forward(&ma, A->a, A->m);
        maybe_dropout(c, A->m, Nd, s, l, 0);
        if (tail) rows_pick_add(A->s1, A->x, A->m, c->rows, Nt, d);
        else vec_add(A->s1, A->x, A->m, Nd);
        if (cf->norm == NORM_POST)
            layernorm_forward(A->x1, A->ln1_mean, A->ln1_rstd, A->s1, model_param(m, bp->ln1_w),
                              model_param(m, bp->ln1_b), Nt, d);
        if (cf->norm == NORM_PRE)
            layernorm_forward(A->b, A->ln2_mean, A->ln2_rstd, A->x1, model_param(m, bp->ln2_w),
                              model_param(m, bp->ln2_b), Nt, d);
        linear_forward(c->w->gemm, A->h, A->b, model_param(m, bp->w1), NULL, Nt, d, dff);
        int act = A->ha != A->h ? cf->act : ACT_NONE;
        if (c->want_grad) bias_act_forward_slope(A->ha, A->h, model_param(m, bp->b1), Nt, dff, act);
        else bias_act_forward(A->ha, A->h, model_param(m, bp->b1), Nt, dff, act);
        if (c->training && cf->dropout > 0) {
            linear_forward(c->w->gemm, A->f, A->ha, model_param(m, bp->w2), model_param(m, bp->b2), N, dff, d);
            maybe_dropout(c, A->f, Nd, s, l, 1);
            vec_add(A->s2, A->x1, A->f, Nd);
        } else { /* s2 = x1 + FFN: the residual goes in before the product, no pass over f */
            linear_forward_residual(c->w->gemm, A->s2, A->ha, model_param(m, bp->w2), model_param(m, bp->b2), A->x1,
                                    Nt, dff, d);
        }
        if (cf->norm == NORM_POST) {
            float *next = l + 1 < cf->layers ? sa->blocks[l + 1].x : sa->xL;
            layernorm_forward(next, A->ln2_mean, A->ln2_rstd, A->s2, model_param(m, bp->ln2_w),
                              model_param(m, bp->ln2_b), Nt, d);
        }
    }
    if (cf->norm != NORM_NONE)
        layernorm_forward(sa->out, sa->lnf_mean, sa->lnf_rstd, sa->xL,
                          model_param(m, m->stacks[s].lnf_w), model_param(m, m->stacks[s].lnf_b),
                          c->rows ? c->n_rows : N, d);
}

/* Gradient of a LayerNorm with parameters (wi, bi). */
static void ln_backward(const StackCall *c, int wi, int bi, float *dx, const float *dy,
                        const float *x, const float *mean, const float *rstd, int N, int accumulate)
{
    const Model *m = c->m;
    float *g = c->w->grads;
    layernorm_backward(dx, g + m->params[wi].offset, g + m->params[bi].offset, dy, x, mean, rstd,
                       model_param(m, wi), N, m->cfg.d, accumulate);
}

void stack_backward(const StackCall *c, int s, const int32_t *tokens, float *dout, float *dx0)
{
    const Model *m = c->m;
    const Config *cf = &m->cfg;
    Work *wk = c->w;
    StackActs *sa = &wk->stacks[s];
    float *grads = wk->grads;
    int B = c->B, n = cf->n_ctx, d = cf->d, dff = cf->ffn_mult * cf->d, N = B * n;
    const float *w[MIX_MAX_PARAMS];
    float *dw[MIX_MAX_PARAMS];
    MixArgs ma;
    float *g = wk->g, *t1 = wk->t1, *t2 = wk->t2;
    int Nout = c->rows ? c->n_rows : N;

    /* g = dL/d(xL) */
    if (cf->norm != NORM_NONE)
        ln_backward(c, m->stacks[s].lnf_w, m->stacks[s].lnf_b, g, dout, sa->xL, sa->lnf_mean,
                    sa->lnf_rstd, Nout, 0);
    else
        memcpy(g, dout, sizeof(float) * (size_t)Nout * d);

    for (int l = cf->layers - 1; l >= 0; l--) {
        const BlockParams *bp = &m->stacks[s].blocks[l];
        BlockActs *A = &sa->blocks[l];
        int tail = c->rows && l == cf->layers - 1, Nt = tail ? c->n_rows : N;
        size_t Nd = (size_t)N * d, Ntd = (size_t)Nt * d;
        /* g holds dL/d(block output): Nt rows */
        if (cf->norm == NORM_POST) { /* output = LN2(s2): g <- dL/ds2 */
            ln_backward(c, bp->ln2_w, bp->ln2_b, t1, g, A->s2, A->ln2_mean, A->ln2_rstd, Nt, 0);
            memcpy(g, t1, sizeof(float) * Ntd);
        }
        /* s2 = x1 + drop(f): g is dL/ds2 = dL/dx1 (residual) + path through f */
        const float *dy = branch_grad(c, g, t1, Ntd, s, l, 1);
        linear_backward(wk->gemm, wk->dh, grads + m->params[bp->w2].offset, grads + m->params[bp->b2].offset,
                        dy, A->ha, model_param(m, bp->w2), Nt, dff, d, 0);
        /* A->h holds GELU's slope (stack_forward with want_grad) */
        act_backward_slope(wk->dh, A->h, grads + m->params[bp->b1].offset, Nt, dff,
                           A->ha != A->h ? cf->act : ACT_NONE);
        if (cf->norm == NORM_PRE) {
            linear_backward(wk->gemm, t2, grads + m->params[bp->w1].offset, NULL, wk->dh, A->b,
                            model_param(m, bp->w1), Nt, d, dff, 0);
            ln_backward(c, bp->ln2_w, bp->ln2_b, g, t2, A->x1, A->ln2_mean, A->ln2_rstd, Nt, 1);
        } else {
            linear_backward(wk->gemm, g, grads + m->params[bp->w1].offset, NULL, wk->dh, A->b,
                            model_param(m, bp->w1), Nt, d, dff, 1);
        }
        /* g = dL/dx1 */
        if (cf->norm == NORM_POST) { /* x1 = LN1(s1) */
            ln_backward(c, bp->ln1_w, bp->ln1_b, t1, g, A->s1, A->ln1_mean, A->ln1_rstd, Nt, 0);
            memcpy(g, t1, sizeof(float) * Ntd);
        }
        /* s1 = x + drop(m): g = dL/ds1, on every row from here (0 off the loss's rows) */
        if (tail) rows_spread(g, c->rows, Nt, N, d);
        dy = branch_grad(c, g, t1, Nd, s, l, 0);
        mix_args(c, s, l, tokens, &ma, w, dw);
        m->mixer->backward(&ma, A->a, dy, t2);
        if (cf->norm == NORM_PRE)
            ln_backward(c, bp->ln1_w, bp->ln1_b, g, t2, A->x, A->ln1_mean, A->ln1_rstd, N, 1);
        else
            vec_acc(g, t2, Nd);
        /* g = dL/dx */
        if (l == c->zero_block) zero_positions(g, B, n, d, c->zero_from);
        if (wk->block_done) wk->block_done(wk->block_done_arg, s, l);   /* block l's gradient is final */
    }
    memcpy(dx0, g, sizeof(float) * (size_t)N * d);
}
