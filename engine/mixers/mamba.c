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
 * kernel fuses it; here correctness first), a position's E N decays
 * exp(delta A) in one vectorised pass (vec_exp): forward keeps every state
 * h_t [n, E, N] in the saved buffer, and backward walks the positions in
 * reverse carrying dh [E, N], recomputing only the decays.  Saved per
 * sample: n (7E + R + 2N + E N) floats.
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

static inline float sigmoidf(float v) { return 1.0f / (1.0f + expf(-v)); }
static inline float siluf(float v) { return v * sigmoidf(v); }
/* d silu / dv */
static inline float silu_slope(float v)
{
    float s = sigmoidf(v);
    return s * (1.0f + v * (1.0f - s));
}
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
    return n * (7 * E + m.P + E * m.N);
}

/* A [E, N], one position's decays exp(delta A) [E, N] and dh [E, N], then
   per row (B n rows): gated output or its gradient dyg [E], dxz [2E],
   du [E], ddbl [P], ddt [E].  forward_step uses the first 5E + P + 2 E N
   of it. */
static size_t mamba_scratch(const Config *c, int B)
{
    Dims m = dims_of(c);
    size_t rows = (size_t)B * c->n_ctx;
    return 3 * (size_t)m.E * m.N + rows * (6 * (size_t)m.E + m.P);
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
    float *h;      /* [T, E, N]: every state */
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
    s.h = s.yss + T * E;
    return s;
}

/* A [E, N] = -exp(A_log) */
static void state_matrix(float *A, const float *A_log, size_t count)
{
    for (size_t i = 0; i < count; i++) A[i] = -expf(A_log[i]);
}

/* decay [E, N] = exp(delta[e] A[e, s]) of one position (vec_exp: the
   scan's exponentials in one vectorised pass). */
static void decays(float *decay, const float *A, const float *delta, int E, int N)
{
    for (int e = 0; e < E; e++)
        for (int s = 0; s < N; s++) decay[(size_t)e * N + s] = delta[e] * A[(size_t)e * N + s];
    vec_exp(decay, decay, (size_t)E * N);
}

/* One position of one channel's scan: h_t [N] from h_prev [N] (NULL: zero
   state) with decay_e [N] = exp(delta A_e), returns C_t . h_t. */
static inline float scan_step(float *h_t, const float *h_prev, const float *decay_e, const float *Bt, const float *Ct,
                              float delta, float u, int N)
{
    float du = delta * u, out = 0.0f;
    for (int s = 0; s < N; s++) {
        float prev = h_prev ? decay_e[s] * h_prev[s] : 0.0f;
        float v = prev + du * Bt[s];
        h_t[s] = v;
        out += Ct[s] * v;
    }
    return out;
}

static void mamba_forward(const MixArgs *a, const float *x, float *y)
{
    Dims m = dims_of(a->cfg);
    int n = a->n, E = m.E, N = m.N, P = m.P, T = a->B * n;
    assert(a->causal);
    Saved s = saved_split(a, &m);
    float *A = a->scratch, *decay = A + (size_t)E * N, *gated = A + 3 * (size_t)E * N;
    state_matrix(A, a->w[A_LOG], (size_t)E * N);
    linear_forward(a->gemm, s.xz, x, a->w[W_IN], NULL, T, m.d, 2 * E);
    dwconv_forward(s.conv, s.xz, a->w[CONV_W], a->w[CONV_B], a->B, n, E, CONV_K, 2 * E, E);
    for (size_t i = 0; i < (size_t)T * E; i++) s.u[i] = siluf(s.conv[i]);
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
        decays(decay, A, s.delta + r * E, E, N);
        for (int e = 0; e < E; e++) {
            size_t i = r * E + e;
            float *h_t = s.h + i * N;
            const float *h_prev = t ? h_t - (size_t)E * N : NULL;
            s.yss[i] = scan_step(h_t, h_prev, decay + (size_t)e * N, Bt, Ct, s.delta[i], s.u[i], N) + D[e] * s.u[i];
            gated[i] = s.yss[i] * siluf(s.xz[r * 2 * E + E + e]);
        }
    }
    linear_forward(a->gemm, y, gated, a->w[W_OUT], NULL, T, E, m.d);
}

static void mamba_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    Dims m = dims_of(a->cfg);
    int n = a->n, E = m.E, N = m.N, P = m.P, R = m.R, T = a->B * n;
    Saved s = saved_split(a, &m);
    float *A = a->scratch, *decay = A + (size_t)E * N, *dh = decay + (size_t)E * N;
    float *dyg = dh + (size_t)E * N, *dxz = dyg + (size_t)T * E, *du = dxz + (size_t)T * 2 * E;
    float *ddbl = du + (size_t)T * E, *ddt = ddbl + (size_t)T * P;
    state_matrix(A, a->w[A_LOG], (size_t)E * N);
    /* the gated output again (into dyg), then d(gated) = dy W_out over it */
    for (size_t r = 0; r < (size_t)T; r++)
        for (int e = 0; e < E; e++) dyg[r * E + e] = s.yss[r * E + e] * siluf(s.xz[r * 2 * E + E + e]);
    linear_backward(a->gemm, du, a->dw[W_OUT], NULL, dy, dyg, a->w[W_OUT], T, E, m.d, 0);
    /* the gate: dyss = dg silu(z) (into dyg), dz = dg yss silu'(z) */
    for (size_t r = 0; r < (size_t)T; r++)
        for (int e = 0; e < E; e++) {
            size_t i = r * E + e;
            float z = s.xz[r * 2 * E + E + e], dg = du[i];
            dyg[i] = dg * siluf(z);
            dxz[r * 2 * E + E + e] = dg * s.yss[i] * silu_slope(z);
        }
    /* the scan in reverse, carrying dh [E, N] */
    const float *D = a->w[D_SKIP];
    float *dA_log = a->dw[A_LOG], *dD = a->dw[D_SKIP];
    for (int b = 0; b < a->B; b++) {
        memset(dh, 0, sizeof(float) * (size_t)E * N);
        for (int t = n - 1; t >= 0; t--) {
            size_t r = (size_t)b * n + t;
            const float *Bt = s.dbl + r * P + R, *Ct = Bt + N;
            float *dBt = ddbl + r * P + R, *dCt = dBt + N;
            memset(dBt, 0, sizeof(float) * 2 * N);
            decays(decay, A, s.delta + r * E, E, N);
            for (int e = 0; e < E; e++) {
                size_t i = r * E + e;
                const float *A_e = A + (size_t)e * N, *h_t = s.h + i * N;
                const float *h_prev = t ? h_t - (size_t)E * N : NULL;
                float *dh_e = dh + (size_t)e * N, *dA_e = dA_log + (size_t)e * N;
                float dys = dyg[i], uu = s.u[i], dl = s.delta[i];
                float ddelta = 0.0f, dh_dot_B = 0.0f;
                dD[e] += dys * uu;
                for (int k = 0; k < N; k++) {
                    float g = dh_e[k] + dys * Ct[k];        /* dL/dh_t */
                    float decay_k = decay[(size_t)e * N + k];
                    dCt[k] += dys * h_t[k];
                    if (h_prev) {
                        float dgrow = g * h_prev[k] * decay_k; /* dL/d(delta A) */
                        ddelta += dgrow * A_e[k];
                        dA_e[k] += dgrow * dl * A_e[k];     /* dA/dA_log = A */
                    }
                    ddelta += g * Bt[k] * uu;
                    dBt[k] += g * dl * uu;
                    dh_dot_B += g * Bt[k];
                    dh_e[k] = g * decay_k;
                }
                du[i] = dys * D[e] + dl * dh_dot_B;
                ddt[i] = ddelta * sigmoidf(s.dtp[i]);
            }
        }
    }
    /* delta = softplus(q W_dt^T + b_dt): dq (the first R columns of ddbl),
       dW_dt, db_dt */
    matmul(a->gemm, 0, 0, T, R, E, 1.0f, ddt, E, a->w[W_DT], R, 0.0f, ddbl, P);
    matmul(a->gemm, 1, 0, E, R, T, 1.0f, ddt, E, s.dbl, P, 1.0f, a->dw[W_DT], R);
    for (size_t r = 0; r < (size_t)T; r++)
        for (int e = 0; e < E; e++) a->dw[B_DT][e] += ddt[r * E + e];
    /* [q, Bt, Ct] = u W_x^T: du += ddbl W_x; then through silu */
    linear_backward(a->gemm, du, a->dw[W_X], NULL, ddbl, s.u, a->w[W_X], T, E, P, 1);
    for (size_t i = 0; i < (size_t)T * E; i++) du[i] *= silu_slope(s.conv[i]);
    /* the short convolution: dxi (into dxz's first E columns), dcw, dcb */
    dwconv_backward(dxz, a->dw[CONV_W], a->dw[CONV_B], du, s.xz, a->w[CONV_W], a->B, n, E, CONV_K, 2 * E, E, 2 * E);
    linear_backward(a->gemm, dx, a->dw[W_IN], NULL, dxz, x, a->w[W_IN], T, m.d, 2 * E, 0);
}

/* Cache: the last K-1 convolution inputs xi [K-1, E] (oldest first), then
   the state h [E, N]. */
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
    float *A = gated + E, *decay = A + (size_t)E * N;
    state_matrix(A, a->w[A_LOG], (size_t)E * N);
    linear_row(xz, x_t, a->w[W_IN], NULL, m.d, 2 * E);
    /* the window rows then xi_t: positions t-K+1 .. t (zeros before 0) */
    const float *cw = a->w[CONV_W], *cb = a->w[CONV_B];
    for (int e = 0; e < E; e++) {
        float v = cb[e];
        for (int k = 0; k < CONV_K - 1; k++) v += cw[e * CONV_K + k] * window[(size_t)k * E + e];
        v += cw[e * CONV_K + CONV_K - 1] * xz[e];
        c[e] = siluf(v);
    }
    memmove(window, window + E, sizeof(float) * (size_t)(CONV_K - 2) * E);
    memcpy(window + (size_t)(CONV_K - 2) * E, xz, sizeof(float) * E);
    linear_row(dbl, c, a->w[W_X], NULL, E, m.P);
    linear_row(delta, dbl, a->w[W_DT], a->w[B_DT], m.R, E);
    const float *Bt = dbl + m.R, *Ct = Bt + N, *D = a->w[D_SKIP];
    for (int e = 0; e < E; e++) delta[e] = softplusf(delta[e]);
    decays(decay, A, delta, E, N);
    for (int e = 0; e < E; e++) {
        float dl = delta[e];
        float *h_e = h + (size_t)e * N;
        float yss = scan_step(h_e, t ? h_e : NULL, decay + (size_t)e * N, Bt, Ct, dl, c[e], N) + D[e] * c[e];
        gated[e] = yss * siluf(xz[E + e]);
    }
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
