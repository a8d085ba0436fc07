/*
 * attention.c — multi-head softmax self-attention, the baseline every other
 * mixer is compared with (SPEC section 2, "MSA").
 *
 *   q, k, v = x Wq^T + bq, x Wk^T + bk, x Wv^T + bv      x [B, n, d]
 *   per head: P = softmax(q k^T / sqrt(dh) + M), o = P v  (M = -inf above the
 *   diagonal when causal); y = concat(o) Wo^T + bo        y [B, n, d]
 *
 * wq, wk, wv and bq, bk, bv are declared next to each other, so they are one
 * [3d, d] matrix and one [3d] bias in memory: one sgemm makes q, k and v.
 * The softmax runs in tiles (engine/attn_tiles.h): no n x n matrix is kept
 * or made, so memory grows linearly in n.
 * Saved per sample: qkv [n, 3d], o [n, d], lse [h, n].
 * The body takes a key window (attention.h): swa (engine/mixers/swa.c) is
 * this mixer with one, attention passes 0.
 */
#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "engine/attn_tiles.h"
#include "engine/infer.h"
#include "engine/mixer.h"
#include "engine/mixers/attention.h"
#include "engine/ops.h"

enum { WQ, WK, WV, WO, BQ, BK, BV, BO };

int attention_declare(const Config *c, ParamDecl *decl)
{
    static const char *const names[] = {"wq", "wk", "wv", "wo", "bq", "bk", "bv", "bo"};
    for (int i = 0; i < 8; i++) {
        ParamDecl *p = &decl[i];
        memset(p, 0, sizeof *p);
        strcpy(p->name, names[i]);
        if (i < 4) {
            p->ndim = 2;
            p->shape[0] = p->shape[1] = c->d;
            p->init = INIT_LINEAR;
            p->decay = 1;
            p->dense = 1;
        } else {
            p->ndim = 1;
            p->shape[0] = c->d;
            p->init = INIT_ZERO;
        }
    }
    return 8;
}

size_t attention_saved(const Config *c)
{
    size_t n = c->n_ctx, d = c->d;
    return n * 3 * d + n * d + (size_t)c->heads * n;
}

/* Backward's dout [B, n, d] and dqkv [B, n, 3d] and the tiles' scratch;
   forward_step's qkv [3d], o [d] and probabilities [n] fit in it too. */
size_t attention_scratch(const Config *c, int B)
{
    size_t n = c->n_ctx, d = c->d;
    size_t train = (size_t)B * n * 4 * d + attn_tiles_scratch_floats(), step = 4 * d + n;
    return train > step ? train : step;
}

/* The saved slice of a B-sample batch: qkv [B, n, 3d], o [B, n, d],
   lse [B, h, n] (each query's logsumexp, attn_tiles.h). */
typedef struct {
    float *qkv, *o, *lse;
} Saved;

static Saved saved_split(const MixArgs *a)
{
    size_t n = a->n, d = a->d, B = a->B;
    Saved s;
    s.qkv = a->saved;
    s.o = s.qkv + B * n * 3 * d;
    s.lse = s.o + B * n * d;
    return s;
}

void attention_forward_window(const MixArgs *a, int window, const float *x, float *y)
{
    assert(a->heads > 0 && a->d % a->heads == 0 && a->n > 0);   /* config_validate refuses the rest */
    int n = a->n, d = a->d, h = a->heads, dh = d / h, N = a->B * n;
    float scale = 1.0f / sqrtf((float)dh);
    AttnMask mask = {.causal = a->causal, .window = window};
    Saved s = saved_split(a);
    linear_forward(a->gemm, s.qkv, x, a->w[WQ], a->w[BQ], N, d, 3 * d);
    for (int b = 0; b < a->B; b++) {
        const float *qkv = s.qkv + (size_t)b * n * 3 * d;
        for (int k = 0; k < h; k++) {
            const float *q = qkv + k * dh, *kk = qkv + d + k * dh, *v = qkv + 2 * d + k * dh;
            attn_tiles_forward(a->gemm, &mask, n, dh, scale, q, kk, v, 3 * d, s.o + (size_t)b * n * d + k * dh, d,
                               s.lse + ((size_t)b * h + k) * n, a->scratch);
        }
    }
    linear_forward(a->gemm, y, s.o, a->w[WO], a->w[BO], N, d, d);
}

void attention_backward_window(const MixArgs *a, int window, const float *x, const float *dy, float *dx)
{
    int n = a->n, d = a->d, h = a->heads, dh = d / h, N = a->B * n;
    float scale = 1.0f / sqrtf((float)dh);
    AttnMask mask = {.causal = a->causal, .window = window};
    Saved s = saved_split(a);
    float *d_o = a->scratch;                        /* [B, n, d] */
    float *dqkv = d_o + (size_t)N * d;              /* [B, n, 3d] */
    float *tiles = dqkv + (size_t)N * 3 * d;        /* attn_tiles_scratch_floats() */
    linear_backward(a->gemm, d_o, a->dw[WO], a->dw[BO], dy, s.o, a->w[WO], N, d, d, 0);
    for (int b = 0; b < a->B; b++) {
        const float *qkv = s.qkv + (size_t)b * n * 3 * d;
        float *dqkv_b = dqkv + (size_t)b * n * 3 * d;
        for (int k = 0; k < h; k++) {
            const float *q = qkv + k * dh, *kk = qkv + d + k * dh, *v = qkv + 2 * d + k * dh;
            size_t head = (size_t)b * n * d + k * dh;
            attn_tiles_backward(a->gemm, &mask, n, dh, scale, q, kk, v, 3 * d, s.o + head, d_o + head, d,
                                s.lse + ((size_t)b * h + k) * n, dqkv_b + k * dh, dqkv_b + d + k * dh,
                                dqkv_b + 2 * d + k * dh, 3 * d, tiles);
        }
    }
    linear_backward(a->gemm, dx, a->dw[WQ], a->dw[BQ], dqkv, x, a->w[WQ], N, d, 3 * d, 0);
}

static void attention_forward(const MixArgs *a, const float *x, float *y) { attention_forward_window(a, 0, x, y); }

static void attention_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    attention_backward_window(a, 0, x, dy, dx);
}

/* Incremental decoding cache: per head, its keys [slots, dh] and then (at
   h slots dh) its values [slots, dh], position t in row t mod slots. */
size_t attention_cache_slots_floats(const Config *c, int slots)
{
    return (size_t)slots * 2 * c->d;
}

static size_t attention_cache_floats(const Config *c) { return attention_cache_slots_floats(c, c->n_ctx); }

/* x_t [d] -> y_t [d] at position t (causal): k_t, v_t join the cache, then
   per head o = softmax(q_t K^T / sqrt(dh)) V over the last len =
   min(t + 1, slots) positions, read oldest first: rows s0.. of the ring,
   then (once it has wrapped) rows 0.. (attention's ring never wraps: its
   slots are n_ctx and t < n_ctx).  O(len d) per token, GEMVs only. */
void attention_step_slots(const MixArgs *a, int slots, int t, const float *x_t, float *y_t, float *cache)
{
    assert(slots > 0 && t >= 0);
    int d = a->d, h = a->heads, dh = d / h, len = t + 1 < slots ? t + 1 : slots;
    int s0 = (t + 1 - len) % slots, len1 = slots - s0 < len ? slots - s0 : len, len2 = len - len1;
    size_t head = (size_t)slots * dh;
    float scale = 1.0f / sqrtf((float)dh);
    float *qkv = a->scratch;      /* [3d] */
    float *o = qkv + 3 * d;       /* [d] */
    float *probs = o + d;         /* [len] */
    linear_row(qkv, x_t, a->w[WQ], a->w[BQ], d, 3 * d);
    for (int k = 0; k < h; k++) {
        float *keys = cache + k * head, *values = cache + (h + k) * head;
        const float *q = qkv + k * dh;
        memcpy(keys + (size_t)(t % slots) * dh, qkv + d + k * dh, sizeof(float) * dh);
        memcpy(values + (size_t)(t % slots) * dh, qkv + 2 * d + k * dh, sizeof(float) * dh);
        cblas_sgemv(CblasRowMajor, CblasNoTrans, len1, dh, scale, keys + (size_t)s0 * dh, dh, q, 1, 0.0f, probs, 1);
        if (len2) cblas_sgemv(CblasRowMajor, CblasNoTrans, len2, dh, scale, keys, dh, q, 1, 0.0f, probs + len1, 1);
        softmax_rows(probs, 1, len, 0);
        cblas_sgemv(CblasRowMajor, CblasTrans, len1, dh, 1.0f, values + (size_t)s0 * dh, dh, probs, 1, 0.0f,
                    o + k * dh, 1);
        if (len2) cblas_sgemv(CblasRowMajor, CblasTrans, len2, dh, 1.0f, values, dh, probs + len1, 1, 1.0f, o + k * dh, 1);
    }
    linear_row(y_t, o, a->w[WO], a->w[BO], d, d);
}

static void attention_forward_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    attention_step_slots(a, a->n, t, x_t, y_t, cache);
}

/* q k^T and P v: 2 keys d multiply-adds = 4 keys d FLOPs per token
   forward, x3 with backward: 12 keys d. */
double attention_flops_keys(const Config *c, int keys)
{
    return 12.0 * keys * c->d;
}

/* keys = n: the rule the project fixed for attention, the full n x n
   scores counted in causal mode too, although the tiles
   (engine/attn_tiles.c) skip the key tiles wholly above the diagonal and
   so compute a little over half of them there. */
static double attention_flops(const Config *c, int causal)
{
    (void)causal;
    return attention_flops_keys(c, c->n_ctx);
}

const MixerOps mixer_attention = {
    .name = "attention",
    .summary = "multi-head softmax self-attention (baseline)",
    .has_causal = 1,
    .has_bidir = 1,
    .default_pos = POS_LEARNED,
    .declare = attention_declare,
    .saved_per_sample = attention_saved,
    .scratch_floats = attention_scratch,
    .forward = attention_forward,
    .backward = attention_backward,
    .cache_floats = attention_cache_floats,
    .forward_step = attention_forward_step,
    .extra_flops_per_token = attention_flops,
};
