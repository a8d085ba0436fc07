/*
 * hyena.c — the order-2 Hyena operator (Poli et al. 2023, "Hyena Hierarchy:
 * Towards Larger Convolutional Language Models", Section 3 and Algorithms
 * 1-3; docs/mixers-ssm.md has the exact definition and every choice the
 * paper leaves open).  Causal only.
 *
 *   u = x W_in^T + b_in                                 x [B, n, d] -> [n, 3d]
 *   [x0, x1, v] = dwconv_3(u)         (short causal depthwise convolution)
 *   p = v * x1
 *   q[t, c] = sum_{s<=t} k[t-s, c] p[s, c] + D[c] p[t, c]   (long convolution)
 *   y = (q * x0) W_out^T + b_out
 *
 * with the implicit filter k [n, d] = (FFN(z) W4^T) * decay, FFN three
 * layers a = h W^T + b, h = sin(freq * a) of width F = 64 over the fixed
 * positional features z [n, 33] (t, then cos and -sin of 16 bands), and
 * decay[t, c] = exp(-t/(n-1) |delta_c|) (the paper's window).
 *
 * The long convolution has two paths with the same numbers up to float
 * rounding, chosen by n as the conv mixer's (HYENA_FFT_MIN_N):
 *   direct: the causal sums themselves, position by position (bit-exactly
 *     causal: an output reads nothing after its position);
 *   fft: FFTW plans from engine/fft_plans.h, rows and spectral products
 *     from engine/fft_rows.h, as the conv mixer: q = IDFT_L(DFT_L(p)
 *     DFT_L(k)) with L = fft_good_size(2n) >= 2n, so the circular products
 *     are linear; backward dp = IDFT(DFT(dq) conj DFT(k)) and
 *     dk = IDFT(sum_b DFT(dq) conj DFT(p)).  Causal up to float rounding
 *     (a transform mixes every position's rounding into every output).  The filter is computed once per
 * call (each thread its own, the same numbers) and again in backward, so
 * the saved buffer holds only per-sample rows: u, [x0, x1, v], p, q
 * (8 n d floats).
 *
 * Generation recomputes the window (forward_step NULL): the filter is as
 * long as the context, so a recurrent form would not be smaller.
 * Not for: bidirectional use (the convolution is causal by construction).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/fft_plans.h"
#include "engine/fft_rows.h"
#include "engine/mixer.h"
#include "engine/ops.h"

#define SHORT_K 3       /* the short convolution's width (the paper's code) */
#define FILTER_F 64     /* the filter FFN's width (the code's filter_order) */
#define POS_Z 33        /* positional features: t and 16 bands (emb_dim) */
/* ExponentialModulation: decays from ln(target)/slow to ln(target)/fast */
#define DECAY_TARGET 1e-2
#define DECAY_FAST 0.3
#define DECAY_SLOW 1.5
/* From this many positions the long convolution runs by FFT.  Measured
   (forward + backward of the whole mixer, d 128, B 8, one thread, best of
   9, ms; 2 shared cores at load 12, so +-10%):
       n      32    64    96   128   192   256   384
   direct   12.8  24.6  44.1  61.4  94.7 125.9 234.9
   fft      11.8  23.1  45.4  65.7  93.3 133.5 219.1
   the paths are within the noise up to n 256 (the projections and the
   filter dominate), so the direct one, exactly causal, is kept up to the
   conv mixer's threshold. */
#define HYENA_FFT_MIN_N 256
/* A chunk of feature rows and its spectra stay within this many bytes (the
   conv mixer's measured choice, engine/mixers/conv.c). */
#define CHUNK_BYTES (256 * 1024)

enum { W_IN, B_IN, SHORT_W, SHORT_B, F_W1, F_B1, F_W2, F_B2, F_W3, F_B3, F_W4, F_FREQ, F_D, W_OUT, B_OUT, N_PARAMS };

typedef struct {
    int n, d, L, chunk;
    int path;            /* CONV_DIRECT or CONV_FFT (fft_plans.h) */
    float *z;            /* [n, POS_Z] positional features */
    float *decay;        /* [n, d] */
    FftPlan rows_r2c, rows_c2r;        /* [chunk, L] <-> [chunk, L/2+1] */
    FftPlan kernels_r2c, kernels_c2r;  /* [d, L] <-> [d, L/2+1] */
} HyenaState;

static void set_decl(ParamDecl *p, const char *name, int64_t rows, int64_t cols, int init, int dense)
{
    mix_decl(p, name, rows, cols, init);
    p->decay = cols != 0;   /* SPEC section 5: 2-D weights */
    p->dense = dense;
}

static int hyena_declare(const Config *c, ParamDecl *decl)
{
    int d = c->d, F = FILTER_F;
    set_decl(&decl[W_IN], "in_proj.w", 3 * d, d, INIT_LINEAR, 1);
    set_decl(&decl[B_IN], "in_proj.b", 3 * d, 0, INIT_ZERO, 0);
    set_decl(&decl[SHORT_W], "short.w", 3 * d, SHORT_K, INIT_UNIFORM_INV_SQRT_FAN, 1);
    set_decl(&decl[SHORT_B], "short.b", 3 * d, 0, INIT_ZERO, 0);
    set_decl(&decl[F_W1], "filter.w1", F, POS_Z, INIT_UNIFORM_INV_SQRT_FAN, 0);
    set_decl(&decl[F_B1], "filter.b1", F, 0, INIT_ZERO, 0);
    set_decl(&decl[F_W2], "filter.w2", F, F, INIT_UNIFORM_INV_SQRT_FAN, 0);
    set_decl(&decl[F_B2], "filter.b2", F, 0, INIT_ZERO, 0);
    set_decl(&decl[F_W3], "filter.w3", F, F, INIT_UNIFORM_INV_SQRT_FAN, 0);
    set_decl(&decl[F_B3], "filter.b3", F, 0, INIT_ZERO, 0);
    set_decl(&decl[F_W4], "filter.w4", d, F, INIT_UNIFORM_INV_SQRT_FAN, 0);
    set_decl(&decl[F_FREQ], "filter.freq", F, 0, INIT_ONE, 0);
    set_decl(&decl[F_D], "filter.D", d, 0, INIT_ONE, 0);
    set_decl(&decl[W_OUT], "out_proj.w", d, d, INIT_LINEAR, 1);
    set_decl(&decl[B_OUT], "out_proj.b", d, 0, INIT_ZERO, 0);
    return N_PARAMS;
}

static size_t hyena_saved(const Config *c) { return (size_t)c->n_ctx * 8 * c->d; }

static int hyena_length(int n) { return fft_good_size(2 * n); }

/* Feature rows transformed together: the largest divisor of d whose rows
   and two spectra (about 5 L floats a row) fit in CHUNK_BYTES. */
static int hyena_chunk(int d, int L)
{
    int want = MB_MAX(1, CHUNK_BYTES / (5 * (int)sizeof(float) * L)), best = 1;
    for (int r = 1; r <= d && r <= want; r++)
        if (d % r == 0) best = r;
    return best;
}

/* The scratch, in carve order (fft_bufs): the filter's activations a1 h1
   a2 h2 a3 h3 [n, F] and its gradients' two rows [n, F]; k [n, d] and
   dk [n, d]; kernel rows [d, L]; kernel spectra and dk's [d, L/2+1]
   complex; a chunk's rows [R, L] and two spectra [R, L/2+1]; then per row
   (B n rows): y0 or dy0 [d], dq [d], dp [d], duc [3d], du [3d]. */
static size_t hyena_scratch(const Config *c, int B)
{
    size_t n = c->n_ctx, d = c->d, L = hyena_length(c->n_ctx), spec = (L / 2 + 1) * 2;
    size_t R = hyena_chunk(c->d, (int)L), rows = (size_t)B * n;
    return fft_floats(6 * n * FILTER_F) + 2 * fft_floats(n * FILTER_F) + 2 * fft_floats(n * d) + fft_floats(d * L) +
           2 * fft_floats(d * spec) + fft_floats(R * L) + 2 * fft_floats(R * spec) + 3 * fft_floats(rows * d) +
           2 * fft_floats(rows * 3 * d) + FFT_ALIGN_FLOATS;
}

typedef struct {
    float *act;          /* a1 h1 a2 h2 a3 h3, each [n, F] */
    float *dh, *da;      /* [n, F] */
    float *k, *dk;       /* [n, d] */
    float *kernel;       /* [d, L] real */
    float *kspec, *acc;  /* [d, L/2+1] complex */
    float *rows;         /* [R, L] */
    float *spec, *spec2; /* [R, L/2+1] complex */
    float *y0, *dq, *dp; /* [B n, d] */
    float *duc, *du;     /* [B n, 3d] */
} Bufs;

static Bufs hyena_bufs(const MixArgs *a, const HyenaState *s)
{
    Bufs f;
    size_t n = s->n, d = s->d, L = s->L, spec = (L / 2 + 1) * 2, rows = (size_t)a->B * n;
    float *cursor = a->scratch;
    f.act = fft_carve(&cursor, 6 * n * FILTER_F);
    f.dh = fft_carve(&cursor, n * FILTER_F);
    f.da = fft_carve(&cursor, n * FILTER_F);
    f.k = fft_carve(&cursor, n * d);
    f.dk = fft_carve(&cursor, n * d);
    f.kernel = fft_carve(&cursor, d * L);
    f.kspec = fft_carve(&cursor, d * spec);
    f.acc = fft_carve(&cursor, d * spec);
    f.rows = fft_carve(&cursor, s->chunk * L);
    f.spec = fft_carve(&cursor, s->chunk * spec);
    f.spec2 = fft_carve(&cursor, s->chunk * spec);
    f.y0 = fft_carve(&cursor, rows * d);
    f.dq = fft_carve(&cursor, rows * d);
    f.dp = fft_carve(&cursor, rows * d);
    f.duc = fft_carve(&cursor, rows * 3 * d);
    f.du = fft_carve(&cursor, rows * 3 * d);
    return f;
}

static void hyena_destroy(void *state)
{
    HyenaState *s = state;
    if (!s) return;
    fft_plan_free(&s->rows_r2c);
    fft_plan_free(&s->rows_c2r);
    fft_plan_free(&s->kernels_r2c);
    fft_plan_free(&s->kernels_c2r);
    free(s->z);
    free(s->decay);
    free(s);
}

/* z [n, POS_Z]: t/(n-1) (0 when n = 1), then cos(f_b w_t) for the 16
   bands, then -sin(f_b w_t), with w_t = 2 pi t / n and f_b spaced evenly
   from 1e-4 to 15 (the paper code's PositionalEmbedding); decay [n, d]. */
static void fixed_tables(HyenaState *s)
{
    int n = s->n, d = s->d, bands = (POS_Z - 1) / 2;
    for (int t = 0; t < n; t++) {
        double tl = n > 1 ? (double)t / (n - 1) : 0.0, w = 2.0 * 3.14159265358979323846 * t / n;
        float *row = s->z + (size_t)t * POS_Z;
        row[0] = (float)tl;
        for (int b = 0; b < bands; b++) {
            double f = 1e-4 + (bands - 1 - 1e-4) * b / (bands - 1);
            row[1 + b] = (float)cos(f * w);
            row[1 + bands + b] = (float)-sin(f * w);
        }
        double lo = log(DECAY_TARGET) / DECAY_SLOW, hi = log(DECAY_TARGET) / DECAY_FAST;
        for (int c = 0; c < d; c++) {
            double delta = d > 1 ? lo + (hi - lo) * c / (d - 1) : lo;
            s->decay[(size_t)t * d + c] = (float)exp(-tl * fabs(delta));
        }
    }
}

static void *hyena_create(const Config *c, char *err)
{
    HyenaState *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "hyena: out of memory");
        return NULL;
    }
    s->n = c->n_ctx;
    s->d = c->d;
    s->L = hyena_length(s->n);
    s->chunk = hyena_chunk(s->d, s->L);
    s->path = s->n >= HYENA_FFT_MIN_N ? CONV_FFT : CONV_DIRECT;
    s->z = malloc(sizeof(float) * (size_t)s->n * POS_Z);
    s->decay = malloc(sizeof(float) * (size_t)s->n * s->d);
    if (!s->z || !s->decay) {
        err_set(err, "hyena: out of memory");
        hyena_destroy(s);
        return NULL;
    }
    fixed_tables(s);
    if (fft_plan_r2c_rows(&s->rows_r2c, s->L, s->chunk, err) || fft_plan_c2r_rows(&s->rows_c2r, s->L, s->chunk, err) ||
        fft_plan_r2c_rows(&s->kernels_r2c, s->L, s->d, err) || fft_plan_c2r_rows(&s->kernels_c2r, s->L, s->d, err)) {
        hyena_destroy(s);
        return NULL;
    }
    return s;
}

/* ---- the implicit filter ---- */

/* act: a1 h1 a2 h2 a3 h3 [n, F]; k [n, d] = (h3 W4^T) * decay. */
static void filter_forward(const MixArgs *a, const HyenaState *s, Bufs *f)
{
    int n = s->n, F = FILTER_F;
    const float *freq = a->w[F_FREQ], *in = s->z;
    int in_dim = POS_Z;
    for (int l = 0; l < 3; l++) {
        float *pre = f->act + (size_t)2 * l * n * F, *h = pre + (size_t)n * F;
        linear_forward(NULL, pre, in, a->w[F_W1 + 2 * l], a->w[F_B1 + 2 * l], n, in_dim, F);
        for (size_t i = 0; i < (size_t)n * F; i++) h[i] = sinf(freq[i % F] * pre[i]);
        in = h;
        in_dim = F;
    }
    linear_forward(NULL, f->k, in, a->w[F_W4], NULL, n, F, s->d);
    for (size_t i = 0; i < (size_t)n * s->d; i++) f->k[i] *= s->decay[i];
}

/* dk [n, d] (overwritten) -> the filter's parameter gradients. */
static void filter_backward(const MixArgs *a, const HyenaState *s, Bufs *f)
{
    int n = s->n, F = FILTER_F;
    const float *freq = a->w[F_FREQ];
    float *dfreq = a->dw[F_FREQ];
    for (size_t i = 0; i < (size_t)n * s->d; i++) f->dk[i] *= s->decay[i];
    const float *h3 = f->act + (size_t)5 * n * F;
    linear_backward(NULL, f->dh, a->dw[F_W4], NULL, f->dk, h3, a->w[F_W4], n, F, s->d, 0);
    for (int l = 2; l >= 0; l--) {
        const float *pre = f->act + (size_t)2 * l * n * F;
        const float *in = l ? f->act + (size_t)(2 * l - 1) * n * F : s->z;
        int in_dim = l ? F : POS_Z;
        /* h = sin(freq a): da = dh cos(freq a) freq, dfreq += dh cos(freq a) a */
        for (size_t i = 0; i < (size_t)n * F; i++) {
            float g = f->dh[i] * cosf(freq[i % F] * pre[i]);
            f->da[i] = g * freq[i % F];
            dfreq[i % F] += g * pre[i];
        }
        linear_backward(NULL, l ? f->dh : NULL, a->dw[F_W1 + 2 * l], a->dw[F_B1 + 2 * l], f->da, in,
                        a->w[F_W1 + 2 * l], n, in_dim, F, 0);
    }
}

/* kspec [d, L/2+1] = DFT_L(k zero-padded) / L (the inverse's 1/L folded in). */
static void kernel_spectra(const HyenaState *s, Bufs *f)
{
    int n = s->n, d = s->d, L = s->L;
    float inv_L = 1.0f / (float)L;
    for (int c = 0; c < d; c++) {
        float *row = f->kernel + (size_t)c * L;
        for (int t = 0; t < n; t++) row[t] = f->k[(size_t)t * d + c];
        memset(row + n, 0, sizeof(float) * (size_t)(L - n));
    }
    fft_exec(&s->kernels_r2c, f->kernel, f->kspec);
    for (size_t i = 0; i < (size_t)d * (L / 2 + 1) * 2; i++) f->kspec[i] *= inv_L;
}

int hyena_force_path(void *hyena_state, int path)
{
    HyenaState *s = hyena_state;
    if (path != CONV_AUTO && path != CONV_DIRECT && path != CONV_FFT) return -1;
    s->path = path == CONV_AUTO ? (s->n >= HYENA_FFT_MIN_N ? CONV_FFT : CONV_DIRECT) : path;
    return 0;
}

/* ---- the long convolution, direct ---- */

/* q [B n, d] = sum_{s<=t} k[t-s] * p[s], row by row (k [n_k, d]). */
static void direct_conv(float *q, const float *k, const float *p, int B, int n, int d)
{
    for (int b = 0; b < B; b++)
        for (int t = 0; t < n; t++) {
            float *qt = q + ((size_t)b * n + t) * d;
            memset(qt, 0, sizeof(float) * d);
            for (int s = 0; s <= t; s++) {
                const float *kr = k + (size_t)(t - s) * d, *ps = p + ((size_t)b * n + s) * d;
                for (int c = 0; c < d; c++) qt[c] += kr[c] * ps[c];
            }
        }
}

/* dp [B n, d] = sum_{t>=s} k[t-s] * dq[t]; dk [n, d] += sum_b sum_t
   dq[t] * p[t-j] (dk's rows from n on untouched). */
static void direct_conv_backward(float *dp, float *dk, const float *k, const float *p, const float *dq, int B, int n,
                                 int d)
{
    for (int b = 0; b < B; b++)
        for (int s = 0; s < n; s++) {
            float *dps = dp + ((size_t)b * n + s) * d;
            memset(dps, 0, sizeof(float) * d);
            for (int t = s; t < n; t++) {
                const float *kr = k + (size_t)(t - s) * d, *g = dq + ((size_t)b * n + t) * d;
                for (int c = 0; c < d; c++) dps[c] += kr[c] * g[c];
            }
        }
    for (int b = 0; b < B; b++)
        for (int t = 0; t < n; t++) {
            const float *g = dq + ((size_t)b * n + t) * d;
            for (int j = 0; j <= t; j++) {
                const float *pr = p + ((size_t)b * n + t - j) * d;
                float *dkj = dk + (size_t)j * d;
                for (int c = 0; c < d; c++) dkj[c] += g[c] * pr[c];
            }
        }
}

/* ---- the mixer ---- */

/* The saved slice of a B-sample batch (T = B n rows). */
typedef struct {
    float *u;    /* [T, 3d] in_proj's output */
    float *uc;   /* [T, 3d] after the short convolution: x0, x1, v */
    float *p;    /* [T, d] v * x1 */
    float *q;    /* [T, d] the long convolution's output with D */
} Saved;

static Saved saved_split(const MixArgs *a)
{
    size_t T = (size_t)a->B * a->n, d = a->d;
    Saved s;
    s.u = a->saved;
    s.uc = s.u + T * 3 * d;
    s.p = s.uc + T * 3 * d;
    s.q = s.p + T * d;
    return s;
}

static void hyena_forward(const MixArgs *a, const float *x, float *y)
{
    const HyenaState *st = a->state;
    int n = a->n, d = a->d, T = a->B * n, L = st->L, half = L / 2 + 1, R = st->chunk;
    assert(a->causal && n <= st->n);
    Saved s = saved_split(a);
    Bufs f = hyena_bufs(a, st);
    linear_forward(a->gemm, s.u, x, a->w[W_IN], a->w[B_IN], T, d, 3 * d);
    dwconv_forward(s.uc, s.u, a->w[SHORT_W], a->w[SHORT_B], a->B, n, 3 * d, SHORT_K, 3 * d, 3 * d);
    for (size_t r = 0; r < (size_t)T; r++)
        for (int c = 0; c < d; c++) s.p[r * d + c] = s.uc[r * 3 * d + 2 * d + c] * s.uc[r * 3 * d + d + c];
    filter_forward(a, st, &f);
    if (st->path == CONV_DIRECT) direct_conv(s.q, f.k, s.p, a->B, n, d);
    else {
        kernel_spectra(st, &f);
        for (int b = 0; b < a->B; b++)
            for (int f0 = 0; f0 < d; f0 += R) {
                size_t off = (size_t)b * n * d + f0;
                fft_rows_load(f.rows, s.p + off, n, R, d, L, NULL);
                fft_exec(&st->rows_r2c, f.rows, f.spec);
                fft_rows_multiply(f.spec, f.kspec, half, f0, R, 1, 0);
                fft_exec(&st->rows_c2r, f.spec, f.rows);
                fft_rows_store(s.q + off, f.rows, n, R, d, L, NULL);
            }
    }
    const float *D = a->w[F_D];
    for (size_t r = 0; r < (size_t)T; r++)
        for (int c = 0; c < d; c++) {
            size_t i = r * d + c;
            s.q[i] += D[c] * s.p[i];
            f.y0[i] = s.q[i] * s.uc[r * 3 * d + c];
        }
    linear_forward(a->gemm, y, f.y0, a->w[W_OUT], a->w[B_OUT], T, d, d);
}

static void hyena_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    const HyenaState *st = a->state;
    int n = a->n, d = a->d, T = a->B * n, L = st->L, half = L / 2 + 1, R = st->chunk;
    Saved s = saved_split(a);
    Bufs f = hyena_bufs(a, st);
    /* y = y0 W_out^T + b_out, y0 = q * x0 */
    for (size_t r = 0; r < (size_t)T; r++)
        for (int c = 0; c < d; c++) f.y0[r * d + c] = s.q[r * d + c] * s.uc[r * 3 * d + c];
    linear_backward(a->gemm, f.dq, a->dw[W_OUT], a->dw[B_OUT], dy, f.y0, a->w[W_OUT], T, d, d, 0);
    for (size_t r = 0; r < (size_t)T; r++)
        for (int c = 0; c < d; c++) {
            size_t i = r * d + c;
            float dy0 = f.dq[i];
            f.dq[i] = dy0 * s.uc[r * 3 * d + c];
            f.duc[r * 3 * d + c] = dy0 * s.q[i];            /* dx0 */
        }
    /* the long convolution: dp, dk, dD */
    filter_forward(a, st, &f);
    if (st->path == CONV_DIRECT) {
        memset(f.dk, 0, sizeof(float) * (size_t)st->n * d);
        direct_conv_backward(f.dp, f.dk, f.k, s.p, f.dq, a->B, n, d);
    } else {
        kernel_spectra(st, &f);
        memset(f.acc, 0, sizeof(float) * (size_t)d * half * 2);
        for (int b = 0; b < a->B; b++)
            for (int f0 = 0; f0 < d; f0 += R) {
                size_t off = (size_t)b * n * d + f0;
                fft_rows_load(f.rows, s.p + off, n, R, d, L, NULL);
                fft_exec(&st->rows_r2c, f.rows, f.spec);           /* P */
                fft_rows_load(f.rows, f.dq + off, n, R, d, L, NULL);
                fft_exec(&st->rows_r2c, f.rows, f.spec2);          /* G */
                fft_rows_cross(f.acc, f.spec, f.spec2, half, f0, R, 1);
                fft_rows_multiply(f.spec2, f.kspec, half, f0, R, 1, 1);
                fft_exec(&st->rows_c2r, f.spec2, f.rows);
                fft_rows_store(f.dp + off, f.rows, n, R, d, L, NULL);
            }
        fft_exec(&st->kernels_c2r, f.acc, f.kernel);
        float inv_L = 1.0f / (float)L;
        for (int t = 0; t < st->n; t++) /* every lag of the filter (0 from n on) */
            for (int c = 0; c < d; c++) f.dk[(size_t)t * d + c] = f.kernel[(size_t)c * L + t] * inv_L;
    }
    const float *D = a->w[F_D];
    float *dD = a->dw[F_D];
    for (size_t r = 0; r < (size_t)T; r++)
        for (int c = 0; c < d; c++) {
            size_t i = r * d + c;
            float dp = f.dp[i] + D[c] * f.dq[i];
            dD[c] += f.dq[i] * s.p[i];
            float *duc = f.duc + r * 3 * d;
            const float *uc = s.uc + r * 3 * d;
            duc[d + c] = dp * uc[2 * d + c];                 /* dx1 */
            duc[2 * d + c] = dp * uc[d + c];                 /* dv */
        }
    filter_backward(a, st, &f);
    dwconv_backward(f.du, a->dw[SHORT_W], a->dw[SHORT_B], f.duc, s.u, a->w[SHORT_W], a->B, n, 3 * d, SHORT_K, 3 * d,
                    3 * d, 3 * d);
    linear_backward(a->gemm, dx, a->dw[W_IN], a->dw[B_IN], f.du, x, a->w[W_IN], T, d, 3 * d, 0);
}

/* FLOPs per token, forward + backward, beyond 6 x the dense weights
   (in_proj, short.w, out_proj): the long convolution directly, 3 sums
   (q, dp, dk) of n/2 multiply-adds per feature; by FFT as the conv mixer's
   FFT path counts it (5 real transforms of the d feature rows per sample,
   2.5 L log2 L each, and 20 FLOPs per complex bin), divided by n; the
   gating products about 12 per feature.  The filter FFN and the kernel
   transforms are made once per call for the whole batch and not counted. */
static double hyena_flops(const Config *c, int causal)
{
    (void)causal;
    double n = c->n_ctx, d = c->d, L = hyena_length(c->n_ctx);
    if (c->n_ctx < HYENA_FFT_MIN_N) return 3.0 * n * d + 12.0 * d; /* 3 sums of n/2 multiply-adds */
    return (5.0 * d * 2.5 * L * log2(L) + 20.0 * (L / 2 + 1) * d) / n + 12.0 * d;
}

const MixerOps mixer_hyena = {
    .name = "hyena",
    .summary = "order-2 Hyena: short convs, implicit long filter by FFT, gating (Poli et al.)",
    .has_causal = 1,
    .has_bidir = 0,
    .default_pos = POS_NONE,
    .declare = hyena_declare,
    .saved_per_sample = hyena_saved,
    .scratch_floats = hyena_scratch,
    .create = hyena_create,
    .destroy = hyena_destroy,
    .forward = hyena_forward,
    .backward = hyena_backward,
    .extra_flops_per_token = hyena_flops,
};
