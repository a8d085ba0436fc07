/*
 * attn_tiles.c — one head's softmax attention in tiles with an online
 * softmax (attn_tiles.h says how); scratch: one or two score tiles and three
 * rows of per-query numbers, whatever n.
 */
#include "engine/attn_tiles.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "engine/ops.h"

enum { TQ = ATTN_TILE_Q, TK = ATTN_TILE_K };

size_t attn_tiles_scratch_floats(void)
{
    return 2 * (size_t)TQ * TK + 3 * (size_t)TQ;
}

/* The first key query i sees, and one past its last. */
static int key_lo(const AttnMask *mk, int i)
{
    return mk->window > 0 && i - mk->window + 1 > 0 ? i - mk->window + 1 : 0;
}

static int key_hi(const AttnMask *mk, int n, int i)
{
    if (mk->causal) return i + 1;
    return mk->window > 0 && i + mk->window < n ? i + mk->window : n;
}

/* Keys [j0 + *a, j0 + *b) of a tile of C keys from j0 are the ones query i
   sees (*a == *b: none). */
static void row_span(const AttnMask *mk, int n, int i, int j0, int C, int *a, int *b)
{
    int lo = key_lo(mk, i) - j0, hi = key_hi(mk, n, i) - j0;
    *a = lo < 0 ? 0 : lo > C ? C : lo;
    *b = hi > C ? C : hi < *a ? *a : hi;
}

/* The row's entries outside [a, b) set to 0 (those keys are masked). */
static void zero_outside(float *row, int a, int b, int C)
{
    memset(row, 0, sizeof(float) * (size_t)a);
    memset(row + b, 0, sizeof(float) * (size_t)(C - b));
}

/* S [R, C] (stride TK) = scale q_i k_j^T for queries i0.. and keys j0.. */
static void score_tile(struct Gemm *g, int R, int C, int dh, float scale, const float *q, const float *k, int ld,
                       int i0, int j0, float *S)
{
    matmul(g, 0, 1, R, C, dh, scale, q + (size_t)i0 * ld, ld, k + (size_t)j0 * ld, ld, 0.0f, S, TK);
}

/* Per query tile: o = 0, m = -inf, l = 0; for each key tile it sees:
   S = scale q k^T, m' = max(m, max_j S), P = exp(S - m'),
   l = l e^(m - m') + sum_j P, o = o e^(m - m') + P v; then o /= l and
   lse = m + log l. */
void attn_tiles_forward(struct Gemm *g, const AttnMask *mask, int n, int dh, float scale, const float *q,
                        const float *k, const float *v, int ld, float *o, int ldo, float *lse, float *scratch)
{
    assert(n > 0 && dh > 0 && ld >= dh && ldo >= dh && (mask->window >= 0));
    float *S = scratch;              /* [TQ, TK] */
    float *m_run = S + TQ * TK;      /* [TQ] */
    float *l_run = m_run + TQ;       /* [TQ] */
    for (int i0 = 0; i0 < n; i0 += TQ) {
        int R = n - i0 < TQ ? n - i0 : TQ;
        for (int r = 0; r < R; r++) {
            m_run[r] = -INFINITY;
            l_run[r] = 0.0f;
            memset(o + (size_t)(i0 + r) * ldo, 0, sizeof(float) * dh);
        }
        int jlo = key_lo(mask, i0), jhi = key_hi(mask, n, i0 + R - 1);
        for (int j0 = jlo; j0 < jhi; j0 += TK) {
            int C = jhi - j0 < TK ? jhi - j0 : TK;
            score_tile(g, R, C, dh, scale, q, k, ld, i0, j0, S);
            for (int r = 0; r < R; r++) {
                float *s = S + (size_t)r * TK, *orow = o + (size_t)(i0 + r) * ldo;
                int a, b;
                row_span(mask, n, i0 + r, j0, C, &a, &b);
                zero_outside(s, a, b, C);
                if (a == b) continue;
                float mx = s[a];
                for (int c = a + 1; c < b; c++) mx = s[c] > mx ? s[c] : mx;
                float m_new = mx > m_run[r] ? mx : m_run[r];
                float sum = exp_shift_sum(s + a, b - a, m_new);
                if (m_new != m_run[r] && m_run[r] != -INFINITY) {
                    float alpha = expf(m_run[r] - m_new);
                    l_run[r] *= alpha;
                    for (int c = 0; c < dh; c++) orow[c] *= alpha;
                }
                l_run[r] += sum;
                m_run[r] = m_new;
            }
            matmul(g, 0, 0, R, dh, C, 1.0f, S, TK, v + (size_t)j0 * ld, ld, 1.0f, o + (size_t)i0 * ldo, ldo);
        }
        for (int r = 0; r < R; r++) {
            float *orow = o + (size_t)(i0 + r) * ldo;
            assert(l_run[r] > 0.0f);   /* every query sees at least itself */
            float inv = 1.0f / l_run[r];
            for (int c = 0; c < dh; c++) orow[c] *= inv;
            lse[i0 + r] = m_run[r] + logf(l_run[r]);
        }
    }
}

/* Per query tile, delta = rowsum(dout * o); per key tile it sees:
   P = exp(S - lse), dv += P^T dout, dP = dout v^T, dS = P (dP - delta),
   dq += scale dS k, dk += scale dS^T q. */
void attn_tiles_backward(struct Gemm *g, const AttnMask *mask, int n, int dh, float scale, const float *q,
                         const float *k, const float *v, int ld, const float *o, const float *dout, int ldo,
                         const float *lse, float *dq, float *dk, float *dv, int ldd, float *scratch)
{
    assert(n > 0 && dh > 0 && ld >= dh && ldo >= dh && ldd >= dh);
    float *P = scratch;              /* [TQ, TK] */
    float *dS = P + TQ * TK;         /* [TQ, TK]: dP, then dS in place */
    float *delta = dS + TQ * TK;     /* [TQ] */
    for (int t = 0; t < n; t++) {
        memset(dq + (size_t)t * ldd, 0, sizeof(float) * dh);
        memset(dk + (size_t)t * ldd, 0, sizeof(float) * dh);
        memset(dv + (size_t)t * ldd, 0, sizeof(float) * dh);
    }
    for (int i0 = 0; i0 < n; i0 += TQ) {
        int R = n - i0 < TQ ? n - i0 : TQ;
        for (int r = 0; r < R; r++) {
            const float *dor = dout + (size_t)(i0 + r) * ldo, *orow = o + (size_t)(i0 + r) * ldo;
            float dot = 0.0f;
            for (int c = 0; c < dh; c++) dot += dor[c] * orow[c];
            delta[r] = dot;
        }
        int jlo = key_lo(mask, i0), jhi = key_hi(mask, n, i0 + R - 1);
        for (int j0 = jlo; j0 < jhi; j0 += TK) {
            int C = jhi - j0 < TK ? jhi - j0 : TK;
            score_tile(g, R, C, dh, scale, q, k, ld, i0, j0, P);
            for (int r = 0; r < R; r++) {
                int a, b;
                row_span(mask, n, i0 + r, j0, C, &a, &b);
                zero_outside(P + (size_t)r * TK, a, b, C);
                exp_shift_sum(P + (size_t)r * TK + a, b - a, lse[i0 + r]);
            }
            matmul(g, 1, 0, C, dh, R, 1.0f, P, TK, dout + (size_t)i0 * ldo, ldo, 1.0f, dv + (size_t)j0 * ldd, ldd);
            matmul(g, 0, 1, R, C, dh, 1.0f, dout + (size_t)i0 * ldo, ldo, v + (size_t)j0 * ld, ld, 0.0f, dS, TK);
            /* A weight of exactly 1 is a query whose other keys weigh under
               float32's rounding of 1 (a lone key: swa's window=1, position
               0): its dS is 0 to that rounding, and 0 it is made, since
               dP - delta there is only the difference of two summation
               orders (sgemm's and the dot above), which AdamW would
               otherwise take for a gradient and step by lr. */
            for (int r = 0; r < R; r++) {
                const float *p = P + (size_t)r * TK;
                float *ds = dS + (size_t)r * TK;
                for (int c = 0; c < C; c++) ds[c] = p[c] == 1.0f ? 0.0f : p[c] * (ds[c] - delta[r]);
            }
            matmul(g, 0, 0, R, dh, C, scale, dS, TK, k + (size_t)j0 * ld, ld, 1.0f, dq + (size_t)i0 * ldd, ldd);
            matmul(g, 1, 0, C, dh, R, scale, dS, TK, q + (size_t)i0 * ld, ld, 1.0f, dk + (size_t)j0 * ldd, ldd);
        }
    }
}
