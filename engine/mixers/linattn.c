/*
 * linattn.c — linear attention (docs/mixers.md, "linattn"): Katharopoulos
 * et al. 2020 with feature_map=elu1, Based (Arora et al. 2024) with
 * feature_map=taylor (second-order Taylor map on feature_dim = d' features
 * per head, after a short causal depthwise convolution of width 3).
 *
 *   x [B, n, d] -> (taylor: xc = shortconv(x)) -> q, k [n, h d'], v [n, d]
 *   per head: phi_q = phi(q), phi_k = phi(k)   [n, F]
 *             o_t = sum_{s<=t} (phi_q_t . phi_k_s) v_s / (sum_{s<=t} phi_q_t . phi_k_s + eps)
 *             (bidirectional: s over all n)
 *   y = concat(o) Wo^T                                              y [B, n, d]
 *
 * Chunked form (engine/mixers/linear_chunks.c): v gets a column of ones, so
 * numerator and denominator are one product; within a chunk of
 * LINEAR_CHUNK positions a masked [C, C] product, across chunks a state
 * S [F, dh+1] carried forward, every product through matmul (engine/gemm.h).
 * Generation keeps S per head (and the short convolution's last two
 * inputs): constant memory per token.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/common.h"
#include "engine/infer.h"
#include "engine/mixer.h"
#include "engine/mixers/linear_chunks.h"
#include "engine/ops.h"

#define LINATTN_EPS 1e-6f
#define CONV_TAPS 3

enum { WQKV, WO, CONV0 };

typedef struct {
    int h, dh, dq, F, E, P, taylor;
} Dims;

/* dq: the width of one head's q and k before the feature map; F after it;
   E = dh + 1 (v and its column of ones); P: the rows of [Wq; Wk; Wv]. */
static Dims dims_of(const Config *c)
{
    Dims m;
    m.h = c->heads;
    m.dh = c->d / c->heads;
    m.taylor = c->feature_map == FEATURE_TAYLOR;
    m.dq = m.taylor ? c->feature_dim : m.dh;
    m.F = m.taylor ? 1 + m.dq + m.dq * m.dq : m.dq;
    m.E = m.dh + 1;
    m.P = 2 * m.h * m.dq + c->d;
    return m;
}

static void decl_matrix(ParamDecl *p, const char *name, int rows, int cols)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->ndim = 2;
    p->shape[0] = rows;
    p->shape[1] = cols;
    p->init = INIT_LINEAR;
    p->decay = 1;
    p->dense = 1;
}

static int linattn_declare(const Config *c, ParamDecl *decl)
{
    Dims m = dims_of(c);
    /* one matrix [P, d]: the model pads each parameter to 16 floats, so
       separate wq, wk, wv would not be adjacent at every size */
    decl_matrix(&decl[WQKV], "wqkv", m.P, c->d);
    decl_matrix(&decl[WO], "wo", c->d, c->d);
    if (!m.taylor) return 2;
    /* the short convolution's taps per lag: lag 0 starts at 1 (the layer
       starts as the plain projection), lags 1 and 2 at 0 (SPEC section 5's
       conv kernels) */
    for (int j = 0; j < CONV_TAPS; j++) {
        ParamDecl *p = &decl[CONV0 + j];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "conv%d", j);
        p->ndim = 1;
        p->shape[0] = c->d;
        p->init = j == 0 ? INIT_ONE : INIT_ZERO;
    }
    return 2 + CONV_TAPS;
}

/* Saved per sample: xc [n, d] (taylor), proj [n, P], phi_q and phi_k
   [h, n, F], v1 [h, n, E], num/den [h, n, E], o [n, d]. */
static size_t linattn_saved(const Config *c)
{
    Dims m = dims_of(c);
    size_t n = c->n_ctx, d = c->d;
    return (m.taylor ? n * d : 0) + n * m.P + 2 * (size_t)m.h * n * m.F + 2 * (size_t)m.h * n * m.E + n * d;
}

typedef struct {
    float *xc, *proj, *phq, *phk, *v1, *num, *o;
} Saved;

static Saved saved_split(const MixArgs *a, const Dims *m)
{
    size_t n = a->n, d = a->d, B = a->B, hn = (size_t)m->h * n;
    Saved s;
    float *p = a->saved;
    s.xc = m->taylor ? p : NULL;
    p += m->taylor ? B * n * d : 0;
    s.proj = p;
    p += B * n * m->P;
    s.phq = p;
    p += B * hn * m->F;
    s.phk = p;
    p += B * hn * m->F;
    s.v1 = p;
    p += B * hn * m->E;
    s.num = p;
    p += B * hn * m->E;
    s.o = p;
    return s;
}

/* Backward: d_o [B, n, d], dproj [B, n, P], dxc [B, n, d] (taylor), then
   one head's dnum [n, E], dphq, dphk [n, F], dv1 [n, E] and the chunk
   work.  Generation (B = 1): xc [d], proj [P], phi_q, phi_k [F], a row
   [E], o [d]. */
static size_t linattn_scratch(const Config *c, int B)
{
    Dims m = dims_of(c);
    size_t n = c->n_ctx, d = c->d, N = (size_t)B * n;
    size_t head = 2 * n * m.E + 2 * n * m.F;
    size_t backward = N * d * (m.taylor ? 2 : 1) + N * m.P + head + chunks_scratch(m.F, m.E);
    size_t step = 2 * d + m.P + 2 * (size_t)m.F + m.E;
    return MB_MAX(backward, step);
}

static int linattn_check(const Config *c, char *err)
{
    Dims m = dims_of(c);
    /* the state of a head, F (dh + 1) floats, bounds generation's cache */
    if ((size_t)m.F * m.E > ((size_t)1 << 26))
        return err_set(err, "linattn: feature_dim=%d with d/heads=%d makes a state of %zu floats per head (max %d)",
                       c->feature_dim, m.dh, (size_t)m.F * m.E, 1 << 26);
    return 0;
}

/* ---- the feature maps ---- */

/* phi [n, F] from u [n, dq] of row stride ld. */
static void feature_forward(float *phi, const float *u, int ld, int n, const Dims *m)
{
    int dq = m->dq;
    if (!m->taylor) {
        for (int t = 0; t < n; t++)
            for (int i = 0; i < dq; i++) {
                float x = u[(size_t)t * ld + i];
                phi[(size_t)t * dq + i] = x > 0 ? x + 1.0f : expf(x);
            }
        return;
    }
    float r1 = 1.0f / sqrtf(sqrtf((float)dq)), r2 = 1.0f / (sqrtf(2.0f) * sqrtf((float)dq));
    for (int t = 0; t < n; t++) {
        const float *x = u + (size_t)t * ld;
        float *f = phi + (size_t)t * m->F;
        f[0] = 1.0f;
        for (int i = 0; i < dq; i++) f[1 + i] = x[i] * r1;
        for (int i = 0; i < dq; i++)
            for (int j = 0; j < dq; j++) f[1 + dq + i * dq + j] = x[i] * x[j] * r2;
    }
}

/* du [n, dq] (row stride ld) from dphi [n, F], u and phi. */
static void feature_backward(float *du, const float *dphi, const float *u, const float *phi, int ld, int n,
                             const Dims *m)
{
    int dq = m->dq;
    if (!m->taylor) {
        for (int t = 0; t < n; t++)
            for (int i = 0; i < dq; i++) {
                float x = u[(size_t)t * ld + i], g = dphi[(size_t)t * dq + i];
                du[(size_t)t * ld + i] = x > 0 ? g : g * phi[(size_t)t * dq + i];
            }
        return;
    }
    float r1 = 1.0f / sqrtf(sqrtf((float)dq)), r2 = 1.0f / (sqrtf(2.0f) * sqrtf((float)dq));
    for (int t = 0; t < n; t++) {
        const float *x = u + (size_t)t * ld, *g = dphi + (size_t)t * m->F + 1 + dq;
        float *dx = du + (size_t)t * ld;
        for (int i = 0; i < dq; i++) {
            float acc = 0.0f;
            for (int j = 0; j < dq; j++) acc += (g[i * dq + j] + g[j * dq + i]) * x[j];
            dx[i] = dphi[(size_t)t * m->F + 1 + i] * r1 + acc * r2;
        }
    }
}

/* ---- the short convolution (taylor) ---- */

/* xc[t, f] = sum_{j<3, j<=t} c_j[f] x[t-j, f] over one sample x [n, d];
   taps[j] = c_j [d]. */
static void shortconv_forward(float *xc, const float *x, const float *const *taps, int n, int d)
{
    for (int t = 0; t < n; t++) {
        float *row = xc + (size_t)t * d;
        for (int f = 0; f < d; f++) row[f] = taps[0][f] * x[(size_t)t * d + f];
        for (int j = 1; j < CONV_TAPS && j <= t; j++)
            for (int f = 0; f < d; f++) row[f] += taps[j][f] * x[(size_t)(t - j) * d + f];
    }
}

/* dx[s, f] = sum_j c_j[f] dxc[s+j, f];  dc_j[f] += sum_t dxc[t, f] x[t-j, f]. */
static void shortconv_backward(float *dx, float *const *dtaps, const float *dxc, const float *x,
                               const float *const *taps, int n, int d)
{
    for (int s = 0; s < n; s++) {
        float *row = dx + (size_t)s * d;
        for (int f = 0; f < d; f++) row[f] = taps[0][f] * dxc[(size_t)s * d + f];
        for (int j = 1; j < CONV_TAPS && s + j < n; j++)
            for (int f = 0; f < d; f++) row[f] += taps[j][f] * dxc[(size_t)(s + j) * d + f];
    }
    for (int j = 0; j < CONV_TAPS; j++)
        for (int t = j; t < n; t++)
            for (int f = 0; f < d; f++) dtaps[j][f] += dxc[(size_t)t * d + f] * x[(size_t)(t - j) * d + f];
}

/* ---- forward and backward ---- */

static void linattn_forward(const MixArgs *a, const float *x, float *y)
{
    Dims m = dims_of(a->cfg);
    assert(a->heads == m.h && a->d % m.h == 0);
    int n = a->n, d = a->d, N = a->B * n, P = m.P, hq = m.h * m.dq;
    Saved s = saved_split(a, &m);
    const float *in = x;
    if (m.taylor) {
        for (int b = 0; b < a->B; b++)
            shortconv_forward(s.xc + (size_t)b * n * d, x + (size_t)b * n * d, a->w + CONV0, n, d);
        in = s.xc;
    }
    linear_forward(a->gemm, s.proj, in, a->w[WQKV], NULL, N, d, P);
    ChunkWork cw = chunks_carve(a->scratch, m.F, m.E);
    for (int b = 0; b < a->B; b++)
        for (int k = 0; k < m.h; k++) {
            size_t bh = (size_t)b * m.h + k;
            const float *proj = s.proj + (size_t)b * n * P;
            float *phq = s.phq + bh * n * m.F, *phk = s.phk + bh * n * m.F;
            float *v1 = s.v1 + bh * n * m.E, *num = s.num + bh * n * m.E;
            feature_forward(phq, proj + k * m.dq, P, n, &m);
            feature_forward(phk, proj + hq + k * m.dq, P, n, &m);
            for (int t = 0; t < n; t++) {
                memcpy(v1 + (size_t)t * m.E, proj + (size_t)t * P + 2 * hq + k * m.dh, sizeof(float) * m.dh);
                v1[(size_t)t * m.E + m.dh] = 1.0f;
            }
            chunks_forward(a->gemm, &cw, a->causal, 1.0f, phq, phk, v1, num, n, m.F, m.E);
            float *o = s.o + (size_t)b * n * d + k * m.dh;
            for (int t = 0; t < n; t++) {
                const float *row = num + (size_t)t * m.E;
                float inv = 1.0f / (row[m.dh] + LINATTN_EPS);
                for (int f = 0; f < m.dh; f++) o[(size_t)t * d + f] = row[f] * inv;
            }
        }
    linear_forward(a->gemm, y, s.o, a->w[WO], NULL, N, d, d);
}

static void linattn_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    Dims m = dims_of(a->cfg);
    int n = a->n, d = a->d, N = a->B * n, P = m.P, hq = m.h * m.dq;
    Saved s = saved_split(a, &m);
    float *d_o = a->scratch;                        /* [B, n, d] */
    float *dproj = d_o + (size_t)N * d;             /* [B, n, P] */
    float *dxc = dproj + (size_t)N * P;             /* [B, n, d] (taylor) */
    float *dnum = dxc + (m.taylor ? (size_t)N * d : 0);
    float *dphq = dnum + (size_t)n * m.E, *dphk = dphq + (size_t)n * m.F, *dv1 = dphk + (size_t)n * m.F;
    ChunkWork cw = chunks_carve(dv1 + (size_t)n * m.E, m.F, m.E);
    linear_backward(a->gemm, d_o, a->dw[WO], NULL, dy, s.o, a->w[WO], N, d, d, 0);
    for (int b = 0; b < a->B; b++)
        for (int k = 0; k < m.h; k++) {
            size_t bh = (size_t)b * m.h + k;
            const float *proj = s.proj + (size_t)b * n * P;
            float *dp = dproj + (size_t)b * n * P;
            const float *phq = s.phq + bh * n * m.F, *phk = s.phk + bh * n * m.F;
            const float *v1 = s.v1 + bh * n * m.E, *num = s.num + bh * n * m.E;
            const float *o = s.o + (size_t)b * n * d + k * m.dh, *g = d_o + (size_t)b * n * d + k * m.dh;
            /* o = num / (den + eps): dnum = g / (den + eps), dden = -(g . o) / (den + eps) */
            for (int t = 0; t < n; t++) {
                const float *gt = g + (size_t)t * d, *ot = o + (size_t)t * d;
                float inv = 1.0f / (num[(size_t)t * m.E + m.dh] + LINATTN_EPS), dot = 0.0f;
                float *row = dnum + (size_t)t * m.E;
                for (int f = 0; f < m.dh; f++) {
                    row[f] = gt[f] * inv;
                    dot += gt[f] * ot[f];
                }
                row[m.dh] = -dot * inv;
            }
            chunks_backward(a->gemm, &cw, a->causal, 1.0f, phq, phk, v1, dnum, dphq, dphk, dv1, n, m.F, m.E);
            feature_backward(dp + k * m.dq, dphq, proj + k * m.dq, phq, P, n, &m);
            feature_backward(dp + hq + k * m.dq, dphk, proj + hq + k * m.dq, phk, P, n, &m);
            for (int t = 0; t < n; t++)
                memcpy(dp + (size_t)t * P + 2 * hq + k * m.dh, dv1 + (size_t)t * m.E, sizeof(float) * m.dh);
        }
    if (!m.taylor) {
        linear_backward(a->gemm, dx, a->dw[WQKV], NULL, dproj, x, a->w[WQKV], N, d, P, 0);
        return;
    }
    linear_backward(a->gemm, dxc, a->dw[WQKV], NULL, dproj, s.xc, a->w[WQKV], N, d, P, 0);
    for (int b = 0; b < a->B; b++) {
        size_t off = (size_t)b * n * d;
        shortconv_backward(dx + off, a->dw + CONV0, dxc + off, x + off, a->w + CONV0, n, d);
    }
}

/* ---- generation: a recurrent state per head ---- */

/* Cache: S [h, F, E] (sum over s < t of phi_k_s (x) [v_s, 1]), then
   (taylor) the inputs x_{t-1}, x_{t-2} [2, d]. */
static size_t linattn_cache(const Config *c)
{
    Dims m = dims_of(c);
    return (size_t)m.h * m.F * m.E + (m.taylor ? 2 * (size_t)c->d : 0);
}

static void linattn_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    Dims m = dims_of(a->cfg);
    int d = a->d, P = m.P, hq = m.h * m.dq;
    float *hist = cache + (size_t)m.h * m.F * m.E;
    if (t == 0) memset(cache, 0, sizeof(float) * linattn_cache(a->cfg));
    float *xc = a->scratch, *proj = xc + d, *phq = proj + P, *phk = phq + m.F, *row = phk + m.F, *o = row + m.E;
    const float *in = x_t;
    if (m.taylor) {
        const float *const *taps = a->w + CONV0;
        for (int f = 0; f < d; f++) xc[f] = taps[0][f] * x_t[f] + taps[1][f] * hist[f] + taps[2][f] * hist[d + f];
        memcpy(hist + d, hist, sizeof(float) * d);
        memcpy(hist, x_t, sizeof(float) * d);
        in = xc;
    }
    linear_row(proj, in, a->w[WQKV], NULL, d, P);
    for (int k = 0; k < m.h; k++) {
        float *S = cache + (size_t)k * m.F * m.E;
        feature_forward(phq, proj + k * m.dq, P, 1, &m);
        feature_forward(phk, proj + hq + k * m.dq, P, 1, &m);
        memcpy(row, proj + 2 * hq + k * m.dh, sizeof(float) * m.dh);
        row[m.dh] = 1.0f;
        chunks_step(S, phq, phk, row, row, m.F, m.E, 1.0f);
        float inv = 1.0f / (row[m.dh] + LINATTN_EPS);
        for (int f = 0; f < m.dh; f++) o[k * m.dh + f] = row[f] * inv;
    }
    linear_row(y_t, o, a->w[WO], NULL, d, d);
}

/* FLOPs per token of the chunk products (chunks_flops) over the heads;
   the feature maps and the short convolution are not counted. */
static double linattn_flops(const Config *c, int causal)
{
    Dims m = dims_of(c);
    return m.h * chunks_flops(c->n_ctx, m.F, m.E, causal);
}

/* tests/engine/test_mixer_contract.c checks these besides the defaults: the
   other feature map, and n = 70, two chunks of LINEAR_CHUNK (the second
   ragged), so that the carried state meets the checks */
static const char *const LINATTN_CHECK_VARIANTS[] = {"feature_map=elu1", "feature_map=elu1 n_ctx=70",
                                                    "feature_dim=3 n_ctx=70", NULL};

const MixerOps mixer_linattn = {
    .name = "linattn",
    .summary = "linear attention: elu+1 (Katharopoulos) or Based's Taylor map, chunked",
    .has_causal = 1,
    .has_bidir = 1,
    .default_pos = POS_LEARNED,
    .check_config = linattn_check,
    .declare = linattn_declare,
    .saved_per_sample = linattn_saved,
    .scratch_floats = linattn_scratch,
    .forward = linattn_forward,
    .backward = linattn_backward,
    .cache_floats = linattn_cache,
    .forward_step = linattn_step,
    .extra_flops_per_token = linattn_flops,
    .check_variants = LINATTN_CHECK_VARIANTS,
};
