/*
 * mamba.c — the Mamba block's mixer: a selective state-space layer (S6) with
 * its short causal convolution and SiLU gate (Gu and Dao 2023, "Mamba:
 * Linear-Time Sequence Modeling with Selective State Spaces", Algorithm 2
 * and Figure 3; docs/mixers-ssm.md has the exact definition and every
 * choice the paper leaves open).  Causal only.
 *
 * With E = expand d inner channels, N = state, R = ceil(d / 16), K = 4:
 *
 *   [xi, z]  = x W_in^T                                x [B, n, d] -> [n, 2E]
 *   c[t, e]  = cb[e] + sum_k cw[e, k] xi[t - K+1 + k, e]  (zero before t = 0)
 *   u        = silu(c)                                        [n, E]
 *   [q, Bt, Ct] = u W_x^T                                     [n, R + 2N]
 *   delta    = softplus(q W_dt^T + b_dt)                      [n, E]
 *   h_t[e, s] = exp(delta[t, e] A[e, s]) h_{t-1}[e, s] + delta[t, e] Bt[t, s] u[t, e]
 *   yss[t, e] = sum_s Ct[t, s] h_t[e, s] + D[e] u[t, e],   A = -exp(A_log)
 *   y        = (yss * silu(z)) W_out^T                        [n, d]
 *
 * The scan runs position by position over each sample (the paper's GPU
 * kernel fuses it), a position's E N decays exp(delta A) in one vectorised
 * pass (vec_exp).  Its state is kept state-major, h_t [N, E] (the
 * transpose of A's [E, N]), so that every loop of the scan runs over the E
 * channels, which are independent: the compiler vectorises them without
 * reordering any sum over the state.  Forward carries one state [N, E]
 * and saves none (a batch's states, B n E N floats, would not stay in
 * cache); backward runs one sample's scan again, keeping its states
 * h_t [n, N, E] and decays [n, N, E] in scratch, then walks its positions
 * in reverse carrying dh [N, E].  Saved per sample: n (7E + R + 2N)
 * floats.
 *
 * Incremental decoding (forward_step) keeps the last K-1 convolution inputs
 * and the state h [E, N]: constant memory and O(E (N + d)) work per token.
 * Not for: bidirectional use (the scan is causal by construction).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/common.h"
#include "engine/infer.h"
#include "engine/mixer.h"
#include "engine/ops.h"

#define CONV_K 4   /* the short convolution's width (the paper's d_conv) */

enum { W_IN, CONV_W, CONV_B, W_X, W_DT, B_DT, A_LOG, D_SKIP, W_OUT, N_PARAMS };

typedef struct {
    int d, E, N, R, P;   /* model width, inner width, state, dt rank, R + 2N */
} Dims;

static Dims dims_of(const Config *c)
{
    Dims m;
    m.d = c->d;
    m.E = c->expand * c->d;
    m.N = c->state;
    m.R = (c->d + 15) / 16;
    m.P = m.R + 2 * m.N;
    return m;
}

/* d silu / dv at v, from sig = sigmoid(v) (silu(v) = v sigmoid(v);
   every sigmoid comes from vec_sigmoid, in vectorised passes) */
static inline float silu_slope(float v, float sig) { return sig * (1.0f + v * (1.0f - sig)); }
/* PyTorch's softplus (threshold 20: the identity above it) */
static inline float softplusf(float v) { return v > 20.0f ? v : log1pf(expf(v)); }

/* Refuses inner widths whose saved states could not be indexed. */
static int mamba_check(const Config *c, char *err)
{
    double floats = (double)c->n_ctx * c->expand * c->d * c->state;
    if (floats > 1e10)
        return err_set(err, "mamba: n_ctx x expand x d x state = %.3g saved state floats per sample is too many",
                       floats);
    return 0;
}

static void set_decl(ParamDecl *p, const char *name, int64_t rows, int64_t cols, int init, int decay, int dense)
{
    mix_decl(p, name, rows, cols, init);
    p->decay = decay;
    p->dense = dense;
}

static int mamba_declare(const Config *c, ParamDecl *decl)
{
    Dims m = dims_of(c);
    set_decl(&decl[W_IN], "in_proj.w", 2 * m.E, m.d, INIT_LINEAR, 1, 1);
    set_decl(&decl[CONV_W], "conv.w", m.E, CONV_K, INIT_UNIFORM_INV_SQRT_FAN, 1, 1);
    set_decl(&decl[CONV_B], "conv.b", m.E, 0, INIT_ZERO, 0, 0);
    set_decl(&decl[W_X], "x_proj.w", m.P, m.E, INIT_LINEAR, 1, 1);
    set_decl(&decl[W_DT], "dt_proj.w", m.E, m.R, INIT_LINEAR, 1, 1);
    set_decl(&decl[B_DT], "dt_proj.b", m.E, 0, INIT_DT_BIAS, 0, 0);
    /* the paper's code keeps A_log and D out of weight decay */
    set_decl(&decl[A_LOG], "A_log", m.E, m.N, INIT_S4D_REAL, 0, 0);
    set_decl(&decl[D_SKIP], "D", m.E, 0, INIT_ONE, 0, 0);
    set_decl(&decl[W_OUT], "out_proj.w", m.d, m.E, INIT_LINEAR, 1, 1);
    return N_PARAMS;
}

static size_t mamba_saved(const Config *c)
{
    Dims m = dims_of(c);
    size_t n = c->n_ctx, E = m.E;
    return n * (7 * E + m.P);
}

/* A^T [N, E], one position's decays exp(delta A) [N, E], dh [N, E] and
   the gradient of A^T [N, E] (forward: the state), three per-channel rows
   [E] (delta u; the backward's two sums over the state), one sample's
   states and decays [n, N, E] each, then per row (B n rows): gated output or its gradient
   dyg [E], dxz [2E], du [E], ddbl [P], ddt [E].  forward_step uses the
   first 7E + P + 2 E N of it. */
static size_t mamba_scratch(const Config *c, int B)
{
    Dims m = dims_of(c);
    size_t rows = (size_t)B * c->n_ctx, EN = (size_t)m.E * m.N;
    return 4 * EN + 3 * (size_t)m.E + 2 * (size_t)c->n_ctx * EN + rows * (6 * (size_t)m.E + m.P);
}

/* The saved slice of a B-sample batch (T = B n rows). */
typedef struct {
    float *xz;     /* [T, 2E]: xi, z */
    float *conv;   /* [T, E]: c, before silu */
    float *u;      /* [T, E] */
    float *dbl;    /* [T, P]: q, Bt, Ct */
    float *dtp;    /* [T, E]: q W_dt^T + b_dt, before softplus */
    float *delta;  /* [T, E] */
    float *yss;    /* [T, E]: the scan's output with the D skip, before the gate */
} Saved;

static Saved saved_split(const MixArgs *a, const Dims *m)
{
    size_t T = (size_t)a->B * a->n, E = m->E;
    Saved s;
    s.xz = a->saved;
    s.conv = s.xz + T * 2 * E;
    s.u = s.conv + T * E;
    s.dbl = s.u + T * E;
    s.dtp = s.dbl + T * m->P;
    s.delta = s.dtp + T * E;
    s.yss = s.delta + T * E;
    return s;
}

/* At [N, E] = -exp(A_log)^T: A state-major, as the scan reads it */
static void state_matrix(float *At, const float *A_log, int E, int N)
{
    for (int e = 0; e < E; e++)
        for (int s = 0; s < N; s++) At[(size_t)s * E + e] = -expf(A_log[(size_t)e * N + s]);
}

/* decay [N, E] = exp(delta[e] A[e, s]) of one position (vec_exp: the
   scan's exponentials in one vectorised pass). */
static void decays(float *decay, const float *At, const float *delta, int E, int N)
{
    for (int s = 0; s < N; s++)
        for (int e = 0; e < E; e++) decay[(size_t)s * E + e] = delta[e] * At[(size_t)s * E + e];
    vec_exp(decay, decay, (size_t)E * N);
}

/* One position of the scan, every channel: h_t [N, E] from h_prev [N, E]
   (NULL: the zero state; h_t may be h_prev) with decay [N, E] and
   du[e] = delta[e] u[e]; out[e] = sum_s Ct[s] h_t[s, e], summed over s in
   order (out NULL: not wanted). */
static void scan_step(float *h_t, const float *h_prev, const float *decay, const float *Bt, const float *Ct,
                      const float *du, float *out, int E, int N)
{
    if (out)
        for (int e = 0; e < E; e++) out[e] = 0.0f;
    for (int s = 0; s < N; s++) {
        float *hs = h_t + (size_t)s * E;
        const float *ds = decay + (size_t)s * E, *ps = h_prev ? h_prev + (size_t)s * E : NULL;
        float b = Bt[s];
        if (ps)
            for (int e = 0; e < E; e++) hs[e] = ds[e] * ps[e] + du[e] * b;
        else
            for (int e = 0; e < E; e++) hs[e] = du[e] * b;
        if (out)
            for (int e = 0; e < E; e++) out[e] += Ct[s] * hs[e];
    }
}

static void mamba_forward(const MixArgs *a, const float *x, float *y)
{
    Dims m = dims_of(a->cfg);
    int n = a->n, E = m.E, N = m.N, P = m.P, T = a->B * n;
    assert(a->causal);
    Saved s = saved_split(a, &m);
    size_t EN = (size_t)E * N;
    float *At = a->scratch, *decay = At + EN, *h = At + 3 * EN, *du = At + 4 * EN;
    float *gated = du + 3 * (size_t)E + 2 * (size_t)n * EN;
    state_matrix(At, a->w[A_LOG], E, N);
    linear_forward(a->gemm, s.xz, x, a->w[W_IN], NULL, T, m.d, 2 * E);
    dwconv_forward(s.conv, s.xz, a->w[CONV_W], a->w[CONV_B], a->B, n, E, CONV_K, 2 * E, E);
    vec_sigmoid(s.u, s.conv, (size_t)T * E);
    for (size_t i = 0; i < (size_t)T * E; i++) s.u[i] *= s.conv[i];
    linear_forward(a->gemm, s.dbl, s.u, a->w[W_X], NULL, T, E, P);
    /* dtp = q W_dt^T + b_dt, q the first R columns of dbl */
    matmul(a->gemm, 0, 1, T, E, m.R, 1.0f, s.dbl, P, a->w[W_DT], m.R, 0.0f, s.dtp, E);
    for (size_t r = 0; r < (size_t)T; r++)
        for (int e = 0; e < E; e++) {
            size_t i = r * E + e;
            s.dtp[i] += a->w[B_DT][e];
            s.delta[i] = softplusf(s.dtp[i]);
        }
    const float *D = a->w[D_SKIP];
    for (size_t r = 0; r < (size_t)T; r++) {
        int t = (int)(r % n);
        const float *Bt = s.dbl + r * P + m.R, *Ct = Bt + N;
        const float *delta = s.delta + r * E, *u = s.u + r * E;
        float *yss = s.yss + r * E;
        decays(decay, At, delta, E, N);
        for (int e = 0; e < E; e++) du[e] = delta[e] * u[e];
        scan_step(h, t ? h : NULL, decay, Bt, Ct, du, yss, E, N);
        const float *z = s.xz + r * 2 * E + E;
        vec_sigmoid(du, z, E);
        for (int e = 0; e < E; e++) {
            yss[e] += D[e] * u[e];
            gated[r * E + e] = yss[e] * (z[e] * du[e]);
        }
    }
    linear_forward(a->gemm, y, gated, a->w[W_OUT], NULL, T, E, m.d);
}

static void mamba_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    Dims m = dims_of(a->cfg);
    int n = a->n, E = m.E, N = m.N, P = m.P, R = m.R, T = a->B * n;
    Saved s = saved_split(a, &m);
    float *At = a->scratch, *dh = At + 2 * (size_t)E * N; /* the decay block is forward's */
    float *dAt = dh + (size_t)E * N, *ddelta = dAt + (size_t)E * N, *dhB = ddelta + E, *hs = dhB + E;
    float *hd = hs + (size_t)n * E * N, *dyg = hd + (size_t)n * E * N, *dxz = dyg + (size_t)T * E, *du = dxz + (size_t)T * 2 * E;
    float *ddbl = du + (size_t)T * E, *ddt = ddbl + (size_t)T * P;
    state_matrix(At, a->w[A_LOG], E, N);
    memset(dAt, 0, sizeof(float) * (size_t)E * N);
    /* sigmoid(z) (into dz's place in dxz), the gated output again (into
       dyg), then d(gated) = dy W_out over it */
    for (size_t r = 0; r < (size_t)T; r++) {
        const float *z = s.xz + r * 2 * E + E;
        float *sig = dxz + r * 2 * E + E;
        vec_sigmoid(sig, z, E);
        for (int e = 0; e < E; e++) dyg[r * E + e] = s.yss[r * E + e] * (z[e] * sig[e]);
    }
    linear_backward(a->gemm, du, a->dw[W_OUT], NULL, dy, dyg, a->w[W_OUT], T, E, m.d, 0);
    /* the gate: dyss = dg silu(z) (into dyg), dz = dg yss silu'(z) */
    for (size_t r = 0; r < (size_t)T; r++)
        for (int e = 0; e < E; e++) {
            size_t i = r * E + e;
            float z = s.xz[r * 2 * E + E + e], dg = du[i], sig = dxz[r * 2 * E + E + e];
            dyg[i] = dg * (z * sig);
            dxz[r * 2 * E + E + e] = dg * s.yss[i] * silu_slope(z, sig);
        }
    /* the scan in reverse, carrying dh [N, E]; per channel e, the sums over
       the state s run in order */
    const float *D = a->w[D_SKIP];
    float *dD = a->dw[D_SKIP];
    for (int b = 0; b < a->B; b++) {
        /* the sample's states and decays again, h_t at hs + t E N and its
           decays at hd + t E N (ddelta holds delta u) */
        for (int t = 0; t < n; t++) {
            size_t r = (size_t)b * n + t;
            const float *dl = s.delta + r * E, *uu = s.u + r * E, *Bt = s.dbl + r * P + R;
            float *h_t = hs + (size_t)t * E * N, *decay = hd + (size_t)t * E * N;
            decays(decay, At, dl, E, N);
            for (int e = 0; e < E; e++) ddelta[e] = dl[e] * uu[e];
            scan_step(h_t, t ? h_t - (size_t)E * N : NULL, decay, Bt, NULL, ddelta, NULL, E, N);
        }
        memset(dh, 0, sizeof(float) * (size_t)E * N);
        for (int t = n - 1; t >= 0; t--) {
            size_t r = (size_t)b * n + t;
            const float *Bt = s.dbl + r * P + R, *Ct = Bt + N;
            const float *dys = dyg + r * E, *uu = s.u + r * E, *dl = s.delta + r * E;
            const float *h_t = hs + (size_t)t * E * N, *h_prev = t ? h_t - (size_t)E * N : NULL;
            float *dBt = ddbl + r * P + R, *dCt = dBt + N;
            const float *decay = hd + (size_t)t * E * N;
            for (int e = 0; e < E; e++) {
                dD[e] += dys[e] * uu[e];
                ddelta[e] = 0.0f;
                dhB[e] = 0.0f;
            }
            for (int k = 0; k < N; k++) {
                const float *hk = h_t + (size_t)k * E, *dk = decay + (size_t)k * E, *Ak = At + (size_t)k * E;
                float *dhk = dh + (size_t)k * E, *dAk = dAt + (size_t)k * E;
                float bk = Bt[k], ck = Ct[k], dc = 0.0f, db = 0.0f;
#pragma omp simd reduction(+ : dc, db)
                for (int e = 0; e < E; e++) {
                    float g = dhk[e] + dys[e] * ck;  /* dL/dh_t */
                    dc += dys[e] * hk[e];
                    if (h_prev) {
                        float dgrow = g * h_prev[(size_t)k * E + e] * dk[e]; /* dL/d(delta A) */
                        ddelta[e] += dgrow * Ak[e];
                        dAk[e] += dgrow * dl[e] * Ak[e];                   /* dA/dA_log = A */
                    }
                    ddelta[e] += g * bk * uu[e];
                    db += g * dl[e] * uu[e];
                    dhB[e] += g * bk;
                    dhk[e] = g * dk[e];
                }
                dCt[k] = dc;
                dBt[k] = db;
            }
            for (int e = 0; e < E; e++) du[r * E + e] = dys[e] * D[e] + dl[e] * dhB[e];
            vec_sigmoid(dhB, s.dtp + r * E, E); /* softplus' slope */
            for (int e = 0; e < E; e++) ddt[r * E + e] = ddelta[e] * dhB[e];
        }
    }
    for (int e = 0; e < E; e++)
        for (int k = 0; k < N; k++) a->dw[A_LOG][(size_t)e * N + k] += dAt[(size_t)k * E + e];
    /* delta = softplus(q W_dt^T + b_dt): dq (the first R columns of ddbl),
       dW_dt, db_dt */
    matmul(a->gemm, 0, 0, T, R, E, 1.0f, ddt, E, a->w[W_DT], R, 0.0f, ddbl, P);
    matmul(a->gemm, 1, 0, E, R, T, 1.0f, ddt, E, s.dbl, P, 1.0f, a->dw[W_DT], R);
    for (size_t r = 0; r < (size_t)T; r++)
        for (int e = 0; e < E; e++) a->dw[B_DT][e] += ddt[r * E + e];
    /* [q, Bt, Ct] = u W_x^T: du += ddbl W_x; then through silu */
    linear_backward(a->gemm, du, a->dw[W_X], NULL, ddbl, s.u, a->w[W_X], T, E, P, 1);
    vec_sigmoid(dyg, s.conv, (size_t)T * E); /* dyg is free: sigmoid(c) */
    for (size_t i = 0; i < (size_t)T * E; i++) du[i] *= silu_slope(s.conv[i], dyg[i]);
    /* the short convolution: dxi (into dxz's first E columns), dcw, dcb */
    dwconv_backward(dxz, a->dw[CONV_W], a->dw[CONV_B], du, s.xz, a->w[CONV_W], a->B, n, E, CONV_K, 2 * E, E, 2 * E);
    linear_backward(a->gemm, dx, a->dw[W_IN], NULL, dxz, x, a->w[W_IN], T, m.d, 2 * E, 0);
}

/* Cache: the last K-1 convolution inputs xi [K-1, E] (oldest first), then
   the state h [N, E]. */
static size_t mamba_cache_floats(const Config *c)
{
    Dims m = dims_of(c);
    return (size_t)(CONV_K - 1) * m.E + (size_t)m.E * m.N;
}

/* x_t [d] -> y_t [d]: the forward's arithmetic for one position, with the
   products as matrix-vector ones (so equal to float32 rounding). */
static void mamba_forward_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    Dims m = dims_of(a->cfg);
    int E = m.E, N = m.N;
    float *window = cache, *h = cache + (size_t)(CONV_K - 1) * E;
    if (t == 0) memset(cache, 0, sizeof(float) * mamba_cache_floats(a->cfg));
    float *xz = a->scratch, *c = xz + 2 * E, *dbl = c + E, *delta = dbl + m.P, *gated = delta + E;
    float *At = gated + E, *decay = At + (size_t)E * N, *du = decay + (size_t)E * N, *yss = du + E;
    state_matrix(At, a->w[A_LOG], E, N);
    linear_row(xz, x_t, a->w[W_IN], NULL, m.d, 2 * E);
    /* the window rows then xi_t: positions t-K+1 .. t (zeros before 0) */
    const float *cw = a->w[CONV_W], *cb = a->w[CONV_B];
    for (int e = 0; e < E; e++) {
        float v = cb[e];
        for (int k = 0; k < CONV_K - 1; k++) v += cw[e * CONV_K + k] * window[(size_t)k * E + e];
        v += cw[e * CONV_K + CONV_K - 1] * xz[e];
        c[e] = v;
    }
    vec_sigmoid(du, c, E);
    for (int e = 0; e < E; e++) c[e] *= du[e];
    memmove(window, window + E, sizeof(float) * (size_t)(CONV_K - 2) * E);
    memcpy(window + (size_t)(CONV_K - 2) * E, xz, sizeof(float) * E);
    linear_row(dbl, c, a->w[W_X], NULL, E, m.P);
    linear_row(delta, dbl, a->w[W_DT], a->w[B_DT], m.R, E);
    const float *Bt = dbl + m.R, *Ct = Bt + N, *D = a->w[D_SKIP];
    for (int e = 0; e < E; e++) delta[e] = softplusf(delta[e]);
    decays(decay, At, delta, E, N);
    for (int e = 0; e < E; e++) du[e] = delta[e] * c[e];
    scan_step(h, t ? h : NULL, decay, Bt, Ct, du, yss, E, N);
    vec_sigmoid(gated, xz + E, E);
    for (int e = 0; e < E; e++) gated[e] = (yss[e] + D[e] * c[e]) * (xz[E + e] * gated[e]);
    linear_row(y_t, gated, a->w[W_OUT], NULL, E, m.d);
}

/* The mixer's own work per token, forward + backward, beyond its dense
   weights (counted as 6 x params): the scan's E N (state, channel) pairs,
   about 6 FLOPs each forward (a multiply into the exponent, the decay, the
   update, the read-out; the exp counted as one) and 14 backward; the gate,
   silu and softplus, about 40 per channel. */
static double mamba_flops(const Config *c, int causal)
{
    (void)causal;
    Dims m = dims_of(c);
    return 20.0 * m.E * m.N + 40.0 * m.E;
}

/* tests/engine/test_mixer_contract.c checks these besides the defaults: other
   sizes of the state and the inner width */
static const char *const MAMBA_CHECK_VARIANTS[] = {"state=5 expand=3", NULL};

const MixerOps mixer_mamba = {
    .name = "mamba",
    .summary = "selective state-space layer S6 with short conv and gate (Mamba, Gu & Dao)",
    .has_causal = 1,
    .has_bidir = 0,
    .default_pos = POS_NONE,
    .check_config = mamba_check,
    .declare = mamba_declare,
    .saved_per_sample = mamba_saved,
    .scratch_floats = mamba_scratch,
    .forward = mamba_forward,
    .backward = mamba_backward,
    .cache_floats = mamba_cache_floats,
    .forward_step = mamba_forward_step,
    .extra_flops_per_token = mamba_flops,
    .check_variants = MAMBA_CHECK_VARIANTS,
};
