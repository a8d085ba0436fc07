/*
 * mixer.c — the masked mixer (Masked Mixers papers): per block, h matrices
 * W_k [n, n] and biases b_k [n] mix positions within feature slice k:
 *
 *   y[b, t, f] = sum_s W_k[t, s] x[b, s, f] + b_k[t]      f in slice k
 *
 * Causal mode uses only s <= t: the forward pass is a lower-triangular
 * product (strmm), and the gradient of the masked entries is kept at zero.
 * The "linear mixer" is this mixer with act=none, norm=none.
 */
#include <cblas.h>
#include <stdio.h>
#include <string.h>

#include "engine/common.h"
#include "engine/mixer.h"
#include "engine/ops.h"

#define MAX_HEADS 32

static int mixer_check(const Config *c, char *err)
{
    if (c->heads > MAX_HEADS)
        return err_set(err, "mixer: heads=%d exceeds the maximum of %d", c->heads, MAX_HEADS);
    return 0;
}

static int mixer_declare(const Config *c, ParamDecl *decl)
{
    int h = c->heads;
    for (int k = 0; k < h; k++) {
        ParamDecl *w = &decl[k], *b = &decl[h + k];
        memset(w, 0, sizeof *w);
        memset(b, 0, sizeof *b);
        snprintf(w->name, sizeof w->name, "w%d", k);
        w->ndim = 2;
        w->shape[0] = w->shape[1] = c->n_ctx;
        w->init = INIT_UNIFORM_INV_SQRT_N;
        w->decay = 1;
        snprintf(b->name, sizeof b->name, "b%d", k);
        b->ndim = 1;
        b->shape[0] = c->n_ctx;
        b->init = INIT_ZERO;
    }
    return 2 * h;
}

static size_t mixer_saved(const Config *c)
{
    (void)c;
    return 0;
}

static size_t mixer_scratch(const Config *c, int B)
{
    (void)c;
    (void)B;
    return 0;
}

static void mixer_forward(const MixArgs *a, const float *x, float *y)
{
    int n = a->n, d = a->d, h = a->heads, dk = d / h;
    for (int b = 0; b < a->B; b++) {
        for (int k = 0; k < h; k++) {
            const float *W = a->w[k], *bias = a->w[h + k];
            const float *xk = x + (size_t)b * n * d + k * dk;
            float *yk = y + (size_t)b * n * d + k * dk;
            if (a->causal) {
                trmm_lower(a->gemm, 0, n, dk, W, yk, xk, d);
            } else {
                matmul(a->gemm, 0, 0, n, dk, n, 1.0f, W, n, xk, d, 0.0f, yk, d);
            }
            for (int t = 0; t < n; t++) {
                float *row = yk + (size_t)t * d;
                for (int f = 0; f < dk; f++) row[f] += bias[t];
            }
        }
    }
}

static void mixer_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    int n = a->n, d = a->d, h = a->heads, dk = d / h;
    for (int k = 0; k < h; k++) {
        const float *W = a->w[k];
        float *dW = a->dw[k], *dbias = a->dw[h + k];
        for (int b = 0; b < a->B; b++) {
            const float *xk = x + (size_t)b * n * d + k * dk;
            const float *dyk = dy + (size_t)b * n * d + k * dk;
            float *dxk = dx + (size_t)b * n * d + k * dk;
            if (a->causal) {
                trmm_lower(a->gemm, 1, n, dk, W, dxk, dyk, d);
            } else {
                matmul(a->gemm, 1, 0, n, dk, n, 1.0f, W, n, dyk, d, 0.0f, dxk, d);
            }
            matmul(a->gemm, 0, 1, n, n, dk, 1.0f, dyk, d, xk, d, 1.0f, dW, n);
            for (int t = 0; t < n; t++) {
                const float *row = dyk + (size_t)t * d;
                float s = 0.0f;
                for (int f = 0; f < dk; f++) s += row[f];
                dbias[t] += s;
            }
        }
        if (a->causal) /* masked entries get no gradient */
            for (int t = 0; t < n; t++) memset(dW + (size_t)t * n + t + 1, 0, sizeof(float) * (n - t - 1));
    }
}

/* Incremental decoding cache: the inputs x_s of positions s < n, per head
   [h][n][dk], so a step reads each head's history in order. */
static size_t mixer_cache_floats(const Config *c)
{
    return (size_t)c->n_ctx * c->d;
}

/* x_t [d] -> y_t [d] at position t (causal): x_t joins the cache, then per
   head y_t = sum_{s<=t} W_k[t, s] x_s + b_k[t]; O(t d) per token, a GEMV
   per head. */
static void mixer_forward_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    int n = a->n, d = a->d, h = a->heads, dk = d / h;
    for (int k = 0; k < h; k++) {
        const float *W = a->w[k], *bias = a->w[h + k];
        float *xk = cache + (size_t)k * n * dk;
        memcpy(xk + (size_t)t * dk, x_t + k * dk, sizeof(float) * dk);
        cblas_sgemv(CblasRowMajor, CblasTrans, t + 1, dk, 1.0f, xk, dk, W + (size_t)t * n, 1, 0.0f, y_t + k * dk, 1);
        for (int f = 0; f < dk; f++) y_t[k * dk + f] += bias[t];
    }
}

/* Mixing positions: n multiply-adds per feature per token, 2 n d FLOPs
   forward; causal mode computes only the lower triangle (strmm), n/2
   partners on average: n d.  x3 with backward: 6 n d or 3 n d. */
static double mixer_flops(const Config *c, int causal)
{
    return (causal ? 3.0 : 6.0) * c->n_ctx * c->d;
}

/* PyTorch's nn.Embedding N(0, 1), as in the masked mixer's own code: a
   0.02 embedding is drowned by the mixing of the other positions (SPEC
   section 5). */
static double mixer_emb_std(const Config *c)
{
    (void)c;
    return 1.0;
}

const MixerOps mixer_mixer = {
    .name = "mixer",
    .summary = "masked mixer: learned position-mixing matrices per head",
    .has_causal = 1,
    .has_bidir = 1,
    .default_pos = POS_NONE,
    .default_emb_std = mixer_emb_std,
    .check_config = mixer_check,
    .declare = mixer_declare,
    .saved_per_sample = mixer_saved,
    .scratch_floats = mixer_scratch,
    .forward = mixer_forward,
    .backward = mixer_backward,
    .cache_floats = mixer_cache_floats,
    .forward_step = mixer_forward_step,
    .extra_flops_per_token = mixer_flops,
};
