/*
 * linear_chunks.c — the chunked (decayed) linear attention of
 * linear_chunks.h.  Notation for one chunk starting at c0, of L positions,
 * local index i = t - c0:
 *
 *   forward:  out_c = (A .* D) v_c + diag(gamma^(i+1)) a_c S,  A = a_c b_c^T,
 *             D[i, j] = gamma^(i-j) for j <= i, else 0;
 *             S <- gamma^L S + (diag(gamma^(L-1-j)) b_c)^T v_c
 *   backward: da_c = (M .* D) b_c + diag(gamma^(i+1)) dout_c S^T, M = dout_c v_c^T
 *             (S as in the forward pass, carried forward again);
 *             db_c = (M .* D)^T a_c + diag(gamma^(L-j)) v_c R^T,
 *             dv_c = (A .* D)^T dout_c + diag(gamma^(L-j)) b_c R,
 *             R <- gamma^L R + (diag(gamma^i) a_c)^T dout_c   (chunks in reverse)
 *
 * With gamma = 1 the diagonal scalings are skipped (exact ones), so linattn
 * pays nothing for them.  Bidirectional (gamma = 1): S = b^T v, out = a S,
 * da = dout S^T, R = a^T dout, db = v R^T, dv = b R.
 */
#include "engine/mixers/linear_chunks.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"

size_t chunks_scratch(int F, int E)
{
    size_t C = LINEAR_CHUNK;
    return C * C + (size_t)F * E + 2 * C * F + C * E;
}

ChunkWork chunks_carve(float *scratch, int F, int E)
{
    size_t C = LINEAR_CHUNK;
    ChunkWork w;
    w.A = scratch;
    w.S = w.A + C * C;
    w.as = w.S + (size_t)F * E;
    w.bs = w.as + C * F;
    w.vs = w.bs + C * F;
    return w;
}

/* dst [L, W] = diag(gamma^(p0 + sign i)) src [L, W] (src row stride W). */
static const float *scaled_rows(float *dst, const float *src, int L, int W, float gamma, int p0, int sign)
{
    if (gamma == 1.0f) return src;
    for (int i = 0; i < L; i++) {
        float s = powf(gamma, (float)(p0 + sign * i));
        for (int f = 0; f < W; f++) dst[(size_t)i * W + f] = s * src[(size_t)i * W + f];
    }
    return dst;
}

/* A [L, L] (row stride C) <- A .* D: zero above the diagonal, gamma^(i-j)
   on and below it. */
static void mask_decay(float *A, int L, float gamma)
{
    for (int i = 0; i < L; i++) {
        float *row = A + (size_t)i * LINEAR_CHUNK;
        if (gamma != 1.0f)
            for (int j = 0; j <= i; j++) row[j] *= powf(gamma, (float)(i - j));
        for (int j = i + 1; j < L; j++) row[j] = 0.0f;
    }
}

void chunks_forward(struct Gemm *g, const ChunkWork *w, int causal, float gamma, const float *a, const float *b,
                    const float *v, float *out, int n, int F, int E)
{
    assert(causal || gamma == 1.0f);
    if (!causal) {
        matmul(g, 1, 0, F, E, n, 1.0f, b, F, v, E, 0.0f, w->S, E);
        matmul(g, 0, 0, n, E, F, 1.0f, a, F, w->S, E, 0.0f, out, E);
        return;
    }
    const int C = LINEAR_CHUNK;
    for (int c0 = 0; c0 < n; c0 += C) {
        int L = MB_MIN(C, n - c0);
        const float *ac = a + (size_t)c0 * F, *bc = b + (size_t)c0 * F, *vc = v + (size_t)c0 * E;
        float *oc = out + (size_t)c0 * E;
        matmul(g, 0, 1, L, L, F, 1.0f, ac, F, bc, F, 0.0f, w->A, C);
        mask_decay(w->A, L, gamma);
        matmul(g, 0, 0, L, E, L, 1.0f, w->A, C, vc, E, 0.0f, oc, E);
        if (c0 > 0) {
            const float *as = scaled_rows(w->as, ac, L, F, gamma, 1, 1);
            matmul(g, 0, 0, L, E, F, 1.0f, as, F, w->S, E, 1.0f, oc, E);
        }
        if (c0 + L < n) {
            const float *bs = scaled_rows(w->bs, bc, L, F, gamma, L - 1, -1);
            matmul(g, 1, 0, F, E, L, 1.0f, bs, F, vc, E, c0 > 0 ? powf(gamma, (float)L) : 0.0f, w->S, E);
        }
    }
}

void chunks_backward(struct Gemm *g, const ChunkWork *w, int causal, float gamma, const float *a, const float *b,
                     const float *v, const float *dout, float *da, float *db, float *dv, int n, int F, int E)
{
    assert(causal || gamma == 1.0f);
    if (!causal) {
        matmul(g, 1, 0, F, E, n, 1.0f, b, F, v, E, 0.0f, w->S, E);
        matmul(g, 0, 1, n, F, E, 1.0f, dout, E, w->S, E, 0.0f, da, F);
        matmul(g, 1, 0, F, E, n, 1.0f, a, F, dout, E, 0.0f, w->S, E);   /* R */
        matmul(g, 0, 1, n, F, E, 1.0f, v, E, w->S, E, 0.0f, db, F);
        matmul(g, 0, 0, n, E, F, 1.0f, b, F, w->S, E, 0.0f, dv, E);
        return;
    }
    const int C = LINEAR_CHUNK;
    /* da, chunks in order, S carried as in the forward pass */
    for (int c0 = 0; c0 < n; c0 += C) {
        int L = MB_MIN(C, n - c0);
        const float *bc = b + (size_t)c0 * F, *vc = v + (size_t)c0 * E, *gc = dout + (size_t)c0 * E;
        float *dac = da + (size_t)c0 * F;
        matmul(g, 0, 1, L, L, E, 1.0f, gc, E, vc, E, 0.0f, w->A, C);
        mask_decay(w->A, L, gamma);
        matmul(g, 0, 0, L, F, L, 1.0f, w->A, C, bc, F, 0.0f, dac, F);
        if (c0 > 0) {
            const float *gs = scaled_rows(w->vs, gc, L, E, gamma, 1, 1);
            matmul(g, 0, 1, L, F, E, 1.0f, gs, E, w->S, E, 1.0f, dac, F);
        }
        if (c0 + L < n) {
            const float *bs = scaled_rows(w->bs, bc, L, F, gamma, L - 1, -1);
            matmul(g, 1, 0, F, E, L, 1.0f, bs, F, vc, E, c0 > 0 ? powf(gamma, (float)L) : 0.0f, w->S, E);
        }
    }
    /* db and dv, chunks in reverse, R (in w->S) carried backward */
    int last = (n - 1) / C * C;
    for (int c0 = last; c0 >= 0; c0 -= C) {
        int L = MB_MIN(C, n - c0);
        const float *ac = a + (size_t)c0 * F, *bc = b + (size_t)c0 * F, *vc = v + (size_t)c0 * E;
        const float *gc = dout + (size_t)c0 * E;
        float *dbc = db + (size_t)c0 * F, *dvc = dv + (size_t)c0 * E;
        matmul(g, 0, 1, L, L, E, 1.0f, gc, E, vc, E, 0.0f, w->A, C);
        mask_decay(w->A, L, gamma);
        matmul(g, 1, 0, L, F, L, 1.0f, w->A, C, ac, F, 0.0f, dbc, F);
        matmul(g, 0, 1, L, L, F, 1.0f, ac, F, bc, F, 0.0f, w->A, C);
        mask_decay(w->A, L, gamma);
        matmul(g, 1, 0, L, E, L, 1.0f, w->A, C, gc, E, 0.0f, dvc, E);
        if (c0 < last) {
            const float *vs = scaled_rows(w->vs, vc, L, E, gamma, L, -1);
            matmul(g, 0, 1, L, F, E, 1.0f, vs, E, w->S, E, 1.0f, dbc, F);
            const float *bs = scaled_rows(w->bs, bc, L, F, gamma, L, -1);
            matmul(g, 0, 0, L, E, F, 1.0f, bs, F, w->S, E, 1.0f, dvc, E);
        }
        if (c0 > 0) {
            const float *as = scaled_rows(w->as, ac, L, F, gamma, 0, 1);
            matmul(g, 1, 0, F, E, L, 1.0f, as, F, gc, E, c0 < last ? powf(gamma, (float)L) : 0.0f, w->S, E);
        }
    }
}

void chunks_step(float *S, const float *a, const float *b, const float *v, float *out, int F, int E, float gamma)
{
    for (int f = 0; f < F; f++) {
        float *row = S + (size_t)f * E;
        for (int e = 0; e < E; e++) row[e] = gamma * row[e] + b[f] * v[e];
    }
    /* v is read above only, so out may be v */
    for (int e = 0; e < E; e++) out[e] = 0.0f;
    for (int f = 0; f < F; f++)
        for (int e = 0; e < E; e++) out[e] += a[f] * S[(size_t)f * E + e];
}

/* Causal, multiply-adds per token with C = min(n, LINEAR_CHUNK): forward
   C (F + E) for the chunk's scores and their product with v, 2 F E for the
   state's use and update; backward 3 C (F + E) and 5 F E.  Bidirectional:
   2 F E forward, 4 F E backward.  FLOPs = 2 x multiply-adds. */
double chunks_flops(int n, int F, int E, int causal)
{
    double C = MB_MIN(n, LINEAR_CHUNK), fe = (double)F * E;
    if (!causal) return 2.0 * 6.0 * fe;
    return 2.0 * (4.0 * C * (F + E) + 7.0 * fe);
}
