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
    float power[LINEAR_CHUNK];   /* gamma^k, k < L */
    for (int k = 0; k < L && gamma != 1.0f; k++) power[k] = powf(gamma, (float)k);
    for (int i = 0; i < L; i++) {
        float *row = A + (size_t)i * LINEAR_CHUNK;
        if (gamma != 1.0f)
            for (int j = 0; j <= i; j++) row[j] *= power[i - j];
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

/* S [F, E]: row f times its decay (alpha[f], or gamma when alpha is NULL)
   plus b[f] v, then out [E] = a^T S. */
static void step_rows(float *S, const float *a, const float *b, const float *alpha, float gamma, const float *v,
                      float *out, int F, int E)
{
    for (int f = 0; f < F; f++) {
        float *row = S + (size_t)f * E, decay = alpha ? alpha[f] : gamma;
        for (int e = 0; e < E; e++) row[e] = decay * row[e] + b[f] * v[e];
    }
    /* v is read above only, so out may be v */
    for (int e = 0; e < E; e++) out[e] = 0.0f;
    for (int f = 0; f < F; f++)
        for (int e = 0; e < E; e++) out[e] += a[f] * S[(size_t)f * E + e];
}

void chunks_step(float *S, const float *a, const float *b, const float *v, float *out, int F, int E, float gamma)
{
    step_rows(S, a, b, NULL, gamma, v, out, F, E);
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

/* ---- the gated form ----
 *
 * Per chunk, G_i = sum_{u=c0..c0+i} lg_u (so exp(P_t - P_s) = exp(G_i - G_j)
 * inside the chunk, exp(G_i) from the chunk's start, exp(G_L-1 - G_j) to
 * its end).  Nothing is written as exp(G_i) exp(-G_j): exp(-G_j) overflows
 * once the decays past j sum below -88.  Instead, rows i of sub-chunk I
 * (first row i0) meet columns j < i0 through r = i0 - 1:
 *
 *   A[i, j] = (a_i e^(G_i - G_r)) . (b_j e^(G_r - G_j)),  both factors <= 1,
 *
 * one product per sub-chunk; the pairs j <= i inside I take exp(G_i - G_j)
 * itself (kept in pairs for the backward pass).  Then, as above,
 *
 *   forward:  out_c = A v_c + (a_c e^G) S,
 *             S <- diag(e^(G_L-1)) S + (b_c e^(G_L-1 - G))^T v_c
 *   backward, chunks in order: da_c = e^G (dout_c S^T), S as forward;
 *   in reverse, with M = dout_c v_c^T and R carried backward:
 *             dv_c = A^T dout_c + (b_c e^(G_L-1 - G)) R,
 *             db_c = e^(G_L-1 - G) (v_c R^T) + the scores' part,
 *             da_c += the scores' part,
 *             R <- diag(e^(G_L-1)) R + (a_c e^G)^T dout_c,
 *   where the scores' part of da_i is sum_j M[i, j] b_j e^(G_i - G_j), of
 *   db_j sum_i M[i, j] a_i e^(G_i - G_j), by the same sub-chunk split.
 *   The gates' gradient follows from a, b and theirs: lg_u moves every
 *   P_t with t >= u, and dL/dP_t = a_t da_t - b_t db_t (P_t enters each
 *   pair as +P_t on a_t's side and -P_t on b_t's), so
 *   dlg_u = sum_{t>=u} (a_t da_t - b_t db_t).
 */

size_t chunks_gated_scratch(int F, int E)
{
    size_t C = LINEAR_CHUNK;
    return chunks_scratch(F, E) + C * C + 4 * C * F + C * GATED_SUB * F;
}

GatedWork chunks_gated_carve(float *scratch, int F, int E)
{
    size_t C = LINEAR_CHUNK;
    GatedWork w;
    w.c = chunks_carve(scratch, F, E);
    w.M = scratch + chunks_scratch(F, E);
    w.G = w.M + C * C;
    w.ea = w.G + C * F;
    w.eb = w.ea + C * F;
    w.prod = w.eb + C * F;
    w.pairs = w.prod + C * F;
    return w;
}

/* G [L, F]: running sums of the rows of lg. */
static void running_sums(float *G, const float *lg, int L, int F)
{
    memcpy(G, lg, sizeof(float) * F);
    for (int i = 1; i < L; i++)
        for (int f = 0; f < F; f++) G[(size_t)i * F + f] = G[(size_t)(i - 1) * F + f] + lg[(size_t)i * F + f];
}

/* e [rows, F] = exp(sign (G_i - ref)) (ref [F]; NULL: 0); the caller picks
   ref and sign so that every exponent is <= 0. */
static void decays(float *e, const float *G, const float *ref, int rows, int F, float sign)
{
    for (int i = 0; i < rows; i++)
        for (int f = 0; f < F; f++) e[(size_t)i * F + f] = sign * (G[(size_t)i * F + f] - (ref ? ref[f] : 0.0f));
    vec_exp(e, e, (size_t)rows * F);
}

/* y [count] = x .* e (y may be x) */
static void times(float *y, const float *x, const float *e, size_t count)
{
    for (size_t i = 0; i < count; i++) y[i] = x[i] * e[i];
}

/* y [count] += x .* e */
static void add_times(float *y, const float *x, const float *e, size_t count)
{
    for (size_t i = 0; i < count; i++) y[i] += x[i] * e[i];
}

/* The pair (i, j) of a sub-chunk's exps in w->pairs, j <= i. */
static float *pair_at(const GatedWork *w, int i, int j, int F)
{
    return w->pairs + ((size_t)i * GATED_SUB + (size_t)(j % GATED_SUB)) * F;
}

/* w->c.A [L, L] (row stride C) = the chunk's decayed scores, zero above
   the diagonal, from a, b [L, F] and w->G; fills w->pairs. */
static void gated_scores(struct Gemm *g, const GatedWork *w, const float *a, const float *b, int L, int F)
{
    const int C = LINEAR_CHUNK;
    const float *G = w->G;
    for (int i0 = 0; i0 < L; i0 += GATED_SUB) {
        int i1 = MB_MIN(i0 + GATED_SUB, L), rows = i1 - i0;
        if (i0 > 0) {
            const float *Gr = G + (size_t)(i0 - 1) * F;
            decays(w->ea, G + (size_t)i0 * F, Gr, rows, F, 1.0f);
            times(w->c.as, a + (size_t)i0 * F, w->ea, (size_t)rows * F);
            decays(w->eb, G, Gr, i0, F, -1.0f);
            times(w->c.bs, b, w->eb, (size_t)i0 * F);
            matmul(g, 0, 1, rows, i0, F, 1.0f, w->c.as, F, w->c.bs, F, 0.0f, w->c.A + (size_t)i0 * C, C);
        }
        for (int i = i0; i < i1; i++) {
            float *row = w->c.A + (size_t)i * C;
            const float *ai = a + (size_t)i * F;
            for (int j = i0; j <= i; j++) {
                float *e = pair_at(w, i, j, F), score = 0.0f;
                for (int f = 0; f < F; f++) e[f] = G[(size_t)i * F + f] - G[(size_t)j * F + f];
                vec_exp(e, e, F);
                for (int f = 0; f < F; f++) score += ai[f] * b[(size_t)j * F + f] * e[f];
                row[j] = score;
            }
            for (int j = i + 1; j < L; j++) row[j] = 0.0f;
        }
    }
}

/* S [F, E] <- diag(e^(G_L-1)) S + (x_c e^(G_L-1 - G))^T y_c (fresh: no
   first term): the forward state from x = b, y = v. */
static void carry_state(struct Gemm *g, const GatedWork *w, float *S, const float *x, const float *y, int L, int F,
                        int E, int fresh)
{
    const float *last = w->G + (size_t)(L - 1) * F;
    decays(w->eb, w->G, last, L, F, -1.0f);
    times(w->c.bs, x, w->eb, (size_t)L * F);
    if (!fresh)
        for (int f = 0; f < F; f++) {
            float s = expf(last[f]);
            for (int e = 0; e < E; e++) S[(size_t)f * E + e] *= s;
        }
    matmul(g, 1, 0, F, E, L, 1.0f, w->c.bs, F, y, E, fresh ? 0.0f : 1.0f, S, E);
}

void chunks_gated_forward(struct Gemm *g, const GatedWork *w, const float *a, const float *b, const float *lg,
                          const float *v, float *out, int n, int F, int E)
{
    const int C = LINEAR_CHUNK;
    for (int c0 = 0; c0 < n; c0 += C) {
        int L = MB_MIN(C, n - c0);
        const float *ac = a + (size_t)c0 * F, *bc = b + (size_t)c0 * F, *vc = v + (size_t)c0 * E;
        float *oc = out + (size_t)c0 * E;
        running_sums(w->G, lg + (size_t)c0 * F, L, F);
        gated_scores(g, w, ac, bc, L, F);
        matmul(g, 0, 0, L, E, L, 1.0f, w->c.A, C, vc, E, 0.0f, oc, E);
        if (c0 > 0) {
            decays(w->ea, w->G, NULL, L, F, 1.0f);
            times(w->c.as, ac, w->ea, (size_t)L * F);
            matmul(g, 0, 0, L, E, F, 1.0f, w->c.as, F, w->c.S, E, 1.0f, oc, E);
        }
        if (c0 + L < n) carry_state(g, w, w->c.S, bc, vc, L, F, E, c0 == 0);
    }
}

/* The scores' part of da and db [L, F] (added), from w->M (dout v^T),
   w->pairs and a, b [L, F]: the sub-chunk split of gated_scores. */
static void scores_backward(struct Gemm *g, const GatedWork *w, const float *a, const float *b, float *da, float *db,
                            int L, int F)
{
    const int C = LINEAR_CHUNK;
    const float *G = w->G;
    for (int i0 = GATED_SUB; i0 < L; i0 += GATED_SUB) {
        int rows = MB_MIN(i0 + GATED_SUB, L) - i0;
        const float *Gr = G + (size_t)(i0 - 1) * F, *Mi = w->M + (size_t)i0 * C;
        decays(w->ea, G + (size_t)i0 * F, Gr, rows, F, 1.0f);
        times(w->c.as, a + (size_t)i0 * F, w->ea, (size_t)rows * F);
        decays(w->eb, G, Gr, i0, F, -1.0f);
        times(w->c.bs, b, w->eb, (size_t)i0 * F);
        /* da_I += e^(G_I - G_r) (M[I, <i0] b e^(G_r - G)) */
        matmul(g, 0, 0, rows, F, i0, 1.0f, Mi, C, w->c.bs, F, 0.0f, w->prod, F);
        add_times(da + (size_t)i0 * F, w->prod, w->ea, (size_t)rows * F);
        /* db_<i0 += e^(G_r - G) (M[I, <i0]^T a_I e^(G_I - G_r)) */
        matmul(g, 1, 0, i0, F, rows, 1.0f, Mi, C, w->c.as, F, 0.0f, w->prod, F);
        add_times(db, w->prod, w->eb, (size_t)i0 * F);
    }
    for (int i = 0; i < L; i++)
        for (int j = i / GATED_SUB * GATED_SUB; j <= i; j++) {
            const float *e = pair_at(w, i, j, F);
            float m = w->M[(size_t)i * C + j];
            for (int f = 0; f < F; f++) {
                da[(size_t)i * F + f] += m * b[(size_t)j * F + f] * e[f];
                db[(size_t)j * F + f] += m * a[(size_t)i * F + f] * e[f];
            }
        }
}

void chunks_gated_backward(struct Gemm *g, const GatedWork *w, const float *a, const float *b, const float *lg,
                           const float *v, const float *dout, float *da, float *db, float *dlg, float *dv, int n,
                           int F, int E)
{
    const int C = LINEAR_CHUNK;
    float *S = w->c.S;
    /* the state's part of da, chunks in order, S carried as forward */
    for (int c0 = 0; c0 < n; c0 += C) {
        int L = MB_MIN(C, n - c0);
        float *dac = da + (size_t)c0 * F;
        running_sums(w->G, lg + (size_t)c0 * F, L, F);
        if (c0 > 0) {
            matmul(g, 0, 1, L, F, E, 1.0f, dout + (size_t)c0 * E, E, S, E, 0.0f, dac, F);
            decays(w->ea, w->G, NULL, L, F, 1.0f);
            times(dac, dac, w->ea, (size_t)L * F);
        } else {
            memset(dac, 0, sizeof(float) * (size_t)L * F);
        }
        if (c0 + L < n) carry_state(g, w, S, b + (size_t)c0 * F, v + (size_t)c0 * E, L, F, E, c0 == 0);
    }
    /* the rest, chunks in reverse, R (in S) carried backward */
    int last = (n - 1) / C * C;
    for (int c0 = last; c0 >= 0; c0 -= C) {
        int L = MB_MIN(C, n - c0);
        const float *ac = a + (size_t)c0 * F, *bc = b + (size_t)c0 * F, *vc = v + (size_t)c0 * E;
        const float *gc = dout + (size_t)c0 * E;
        float *dac = da + (size_t)c0 * F, *dbc = db + (size_t)c0 * F, *dvc = dv + (size_t)c0 * E;
        running_sums(w->G, lg + (size_t)c0 * F, L, F);
        gated_scores(g, w, ac, bc, L, F);
        matmul(g, 0, 1, L, L, E, 1.0f, gc, E, vc, E, 0.0f, w->M, C);
        matmul(g, 1, 0, L, E, L, 1.0f, w->c.A, C, gc, E, 0.0f, dvc, E);
        if (c0 < last) {
            const float *Gl = w->G + (size_t)(L - 1) * F;
            decays(w->eb, w->G, Gl, L, F, -1.0f);
            times(w->c.bs, bc, w->eb, (size_t)L * F);
            matmul(g, 0, 0, L, E, F, 1.0f, w->c.bs, F, S, E, 1.0f, dvc, E);
            matmul(g, 0, 1, L, F, E, 1.0f, vc, E, S, E, 0.0f, dbc, F);
            times(dbc, dbc, w->eb, (size_t)L * F);
        } else {
            memset(dbc, 0, sizeof(float) * (size_t)L * F);
        }
        scores_backward(g, w, ac, bc, dac, dbc, L, F);
        if (c0 > 0) {
            const float *Gl = w->G + (size_t)(L - 1) * F;
            if (c0 < last)
                for (int f = 0; f < F; f++) {
                    float s = expf(Gl[f]);
                    for (int e = 0; e < E; e++) S[(size_t)f * E + e] *= s;
                }
            decays(w->ea, w->G, NULL, L, F, 1.0f);
            times(w->c.as, ac, w->ea, (size_t)L * F);
            matmul(g, 1, 0, F, E, L, 1.0f, w->c.as, F, gc, E, c0 < last ? 1.0f : 0.0f, S, E);
        }
    }
    /* dlg_u = sum_{t>=u} (a_t da_t - b_t db_t), from the last row up */
    for (int t = n - 1; t >= 0; t--)
        for (int f = 0; f < F; f++) {
            size_t i = (size_t)t * F + f;
            dlg[i] = a[i] * da[i] - b[i] * db[i] + (t + 1 < n ? dlg[i + F] : 0.0f);
        }
}

void chunks_gated_step(float *S, const float *a, const float *b, const float *alpha, const float *v, float *out,
                       int F, int E)
{
    step_rows(S, a, b, alpha, 1.0f, v, out, F, E);
}

/* Multiply-adds per token with C = min(n, LINEAR_CHUNK): forward C F / 2
   for the scores (the lower triangle, by sub-chunk), C E for their product
   with v (the full square), 2 F E for the state; backward 3 C F / 2 (the
   scores again and their two gradients), 2 C E (M and dv) and 5 F E.
   FLOPs = 2 x multiply-adds. */
double chunks_gated_flops(int n, int F, int E)
{
    double C = MB_MIN(n, LINEAR_CHUNK), fe = (double)F * E;
    return 2.0 * (2.0 * C * F + 3.0 * C * E + 7.0 * fe);
}
