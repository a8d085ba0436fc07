/*
 * conv.c — the learned causal convolution ("weighted-sum") mixer of Backurs
 * et al. (Appendix B), SPEC section 2.  Causal only.  Per block h kernels
 * w_k [n] (initialised to zero), kernel k acting on feature slice k (width
 * dk = d/h), c_t = (t+1)^(-1/2):
 *
 *   y[t, f] = c_t * sum_{s<=t} w_k[t-s] x[s, f]             x, y [B, n, d]
 *   backward, with g[t, f] = c_t dy[t, f]:
 *   dx[s, f] = sum_{t>=s} w_k[t-s] g[t, f]
 *   dw_k[j] += sum_{b, f in slice k} sum_{t>=j} g[t, f] x[t-j, f]
 *
 * Two paths give the same numbers up to float rounding:
 *   direct: T_k [n, n], T[t, s] = c_t w_k[t-s] (s <= t), applied with a
 *     triangular BLAS product (strmm, as the masked mixer); dw from
 *     dT = sum_b dy_k x_k^T (sgemm), summed along its diagonals.
 *   fft: real DFTs of length L = fft_good_size(2n) >= 2n of every feature's
 *     sequence (zero padding makes the circular products linear ones):
 *     y = c * IDFT(X W), dx = IDFT(G conj W), dw = IDFT(sum G conj X).
 *     Features are transposed into contiguous rows, a cache-sized chunk of
 *     them at a time (FFTW ran contiguous rows ~14x faster than strided
 *     columns).
 *
 * The path is chosen by n: fft from CONV_FFT_MIN_N = 256 positions.
 * Measured with `build/tests/engine/test_fft bench-conv D H N...` (forward +
 * backward of B = 8 samples, one thread, best of 5, ms; AMD EPYC, 2 cores
 * shared with other jobs, so +-20% noise; n/a: the direct path is not
 * offered from n = 512, see CONV_DIRECT_MAX_N):
 *
 *     n  |  d=256 h=4    |  d=64 h=4     |  d=128 h=8    |  d=512 h=8    |  d=128 h=1
 *        |  direct  fft  |  direct  fft  |  direct  fft  |  direct  fft  |  direct  fft
 *    128 |   1.39  2.37  |   0.43  0.54  |   0.90  1.10  |   4.84  9.04  |   0.66  1.08
 *    192 |   2.86  4.11  |   0.91  1.00  |   1.84  2.03  |   8.43  8.82  |   1.34  1.98
 *    224 |   4.01  4.33  |   1.25  1.07  |   2.52  2.15  |  10.54 11.77  |   1.86  2.16
 *    256 |   5.11  4.49  |   1.67  1.09  |   3.46  2.25  |  14.82 11.22  |   2.48  2.15
 *    384 |  15.69  7.71  |   3.66  1.80  |               |  33.85 22.63  |   5.41  3.55
 *    511 |  25.87 12.81  |   6.65  2.63  |               |               |  13.22  5.68
 *   1024 |   n/a  37.84  |               |               |               |
 *
 * From n = 256 the FFT wins at every width tried; below it the direct
 * product wins except with narrow slices (d/h = 16) at n = 224 (by 1.2x),
 * too small a band to justify a second rule.
 *
 * Incremental decoding (forward_step) keeps the inputs x_s [n, d] of the
 * positions seen so far and sums them directly: O(t d) per token.
 * Not for: bidirectional use (the sum is causal by construction).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/fft_plans.h"
#include "engine/fft_rows.h"
#include "engine/mixer.h"
#include "engine/ops.h"

#define MAX_HEADS 64

/* From this many positions the FFT path is cheaper (header comment). */
#define CONV_FFT_MIN_N 256
/* The direct path's scratch (2 n^2 floats) is reserved only below this n,
   so a forced direct path is possible around the threshold but a long
   context does not pay n^2 scratch it never uses. */
#define CONV_DIRECT_MAX_N (2 * CONV_FFT_MIN_N)
/* A chunk of feature rows and its spectra stay within this many bytes
   (a quarter of this machine's 1 MB L2 per core): at n = 1024, d = 256 the
   FFT path took 31 ms chunked vs 44 ms with all d rows at once. */
#define CHUNK_BYTES (256 * 1024)

typedef struct {
    int n, d, h, L;
    int chunk;           /* feature rows per transform batch (divides d) */
    int path;            /* CONV_DIRECT or CONV_FFT */
    FftPlan rows_r2c;    /* [chunk, L] real -> [chunk, L/2+1] complex */
    FftPlan rows_c2r;    /* [chunk, L/2+1] complex -> [chunk, L] real */
    FftPlan kernels_r2c; /* [h, L] -> [h, L/2+1] */
    FftPlan kernels_c2r; /* [h, L/2+1] -> [h, L] */
} ConvState;

int conv_auto_path(int n) { return n >= CONV_FFT_MIN_N ? CONV_FFT : CONV_DIRECT; }

int conv_force_path(void *conv_state, int path)
{
    ConvState *s = conv_state;
    if (path != CONV_AUTO && path != CONV_DIRECT && path != CONV_FFT) return -1;
    if (path == CONV_DIRECT && s->n >= CONV_DIRECT_MAX_N) return -1;
    s->path = path == CONV_AUTO ? conv_auto_path(s->n) : path;
    return 0;
}

static int conv_check(const Config *c, char *err)
{
    if (c->heads > MAX_HEADS)
        return err_set(err, "conv: heads=%d exceeds the maximum of %d", c->heads, MAX_HEADS);
    return 0;
}

static int conv_declare(const Config *c, ParamDecl *decl)
{
    for (int k = 0; k < c->heads; k++) {
        ParamDecl *w = &decl[k];
        memset(w, 0, sizeof *w);
        snprintf(w->name, sizeof w->name, "w%d", k);
        w->ndim = 1;
        w->shape[0] = c->n_ctx;
        w->init = INIT_ZERO;
    }
    return c->heads;
}

static size_t conv_saved(const Config *c)
{
    (void)c;
    return 0;
}

static int conv_length(int n) { return fft_good_size(2 * n); }

/* Feature rows transformed together: the largest divisor of d whose rows
   and two spectra (about 5 L floats a row) fit in CHUNK_BYTES, so a chunk
   stays in the L2 cache through its transforms. */
static int conv_chunk(int d, int L)
{
    int want = MB_MAX(1, CHUNK_BYTES / (5 * (int)sizeof(float) * L)), best = 1;
    for (int r = 1; r <= d && r <= want; r++)
        if (d % r == 0) best = r;
    return best;
}

/* The scratch of each path (room for both below CONV_DIRECT_MAX_N, so a
   test may switch paths):
   direct: T [n, n] and dT [n, n];
   fft: rows [chunk, L], two spectra [chunk, L/2+1] complex, kernel spectra
   and dw accumulators [h, L/2+1] complex, kernel rows [h, L]. */
static size_t conv_scratch(const Config *c, int B)
{
    (void)B;
    size_t n = c->n_ctx, h = c->heads, L = conv_length(c->n_ctx), spec = (L / 2 + 1) * 2;
    size_t R = conv_chunk(c->d, (int)L);
    size_t direct = c->n_ctx < CONV_DIRECT_MAX_N ? 2 * fft_floats(n * n) : 0;
    size_t fft = fft_floats(R * L) + 2 * fft_floats(R * spec) + 2 * fft_floats(h * spec) + fft_floats(h * L);
    return MB_MAX(direct, fft) + FFT_ALIGN_FLOATS;
}

static void conv_destroy(void *state)
{
    ConvState *s = state;
    if (!s) return;
    fft_plan_free(&s->rows_r2c);
    fft_plan_free(&s->rows_c2r);
    fft_plan_free(&s->kernels_r2c);
    fft_plan_free(&s->kernels_c2r);
    free(s);
}

static void *conv_create(const Config *c, char *err)
{
    ConvState *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "conv: out of memory");
        return NULL;
    }
    s->n = c->n_ctx;
    s->d = c->d;
    s->h = c->heads;
    s->L = conv_length(s->n);
    s->chunk = conv_chunk(s->d, s->L);
    s->path = conv_auto_path(s->n);
    if (fft_plan_r2c_rows(&s->rows_r2c, s->L, s->chunk, err) || fft_plan_c2r_rows(&s->rows_c2r, s->L, s->chunk, err) ||
        fft_plan_r2c_rows(&s->kernels_r2c, s->L, s->h, err) || fft_plan_c2r_rows(&s->kernels_c2r, s->L, s->h, err)) {
        conv_destroy(s);
        return NULL;
    }
    return s;
}

static float inv_sqrt_pos(int t) { return (float)(1.0 / sqrt((double)(t + 1))); }

/* ---- direct path ---- */

/* T [n, n] lower triangle: T[t, s] = c_t w[t-s]. */
static void toeplitz(float *T, const float *w, int n)
{
    for (int t = 0; t < n; t++) {
        float c = inv_sqrt_pos(t);
        float *row = T + (size_t)t * n;
        for (int s = 0; s <= t; s++) row[s] = c * w[t - s];
    }
}

static void direct_forward(const MixArgs *a, const float *x, float *y)
{
    int n = a->n, d = a->d, h = a->heads, dk = d / h;
    float *cursor = a->scratch, *T = fft_carve(&cursor, (size_t)n * n);
    for (int k = 0; k < h; k++) {
        toeplitz(T, a->w[k], n);
        for (int b = 0; b < a->B; b++) {
            size_t off = (size_t)b * n * d + (size_t)k * dk;
            trmm_lower(a->gemm, 0, n, dk, T, y + off, x + off, d);
        }
    }
}

static void direct_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    int n = a->n, d = a->d, h = a->heads, dk = d / h;
    float *cursor = a->scratch;
    float *T = fft_carve(&cursor, (size_t)n * n), *dT = fft_carve(&cursor, (size_t)n * n);
    for (int k = 0; k < h; k++) {
        toeplitz(T, a->w[k], n);
        for (int b = 0; b < a->B; b++) {
            size_t off = (size_t)b * n * d + (size_t)k * dk;
            trmm_lower(a->gemm, 1, n, dk, T, dx + off, dy + off, d);
            /* dT[t, s] (+)= sum_f dy[t, f] x[s, f] */
            matmul(a->gemm, 0, 1, n, n, dk, 1.0f, dy + off, d, x + off, d, b ? 1.0f : 0.0f, dT, n);
        }
        /* dw[j] += sum_t c_t dT[t, t-j] */
        float *dw = a->dw[k];
        for (int t = 0; t < n; t++) {
            float c = inv_sqrt_pos(t);
            const float *row = dT + (size_t)t * n;
            for (int j = 0; j <= t; j++) dw[j] += c * row[t - j];
        }
    }
}

/* ---- FFT path ----
   Each feature's sequence is transformed as one contiguous row: a sample
   x [n, d] is transposed, `chunk` features at a time, into rows [chunk, L]
   (zero past n), so the spectra are [chunk, L/2+1] and feature f meets
   kernel k = f / dk. */

typedef struct {
    float *rows;         /* [chunk, L] real */
    float *spec, *spec2; /* [chunk, L/2+1] complex */
    float *wspec;        /* [h, L/2+1] complex: kernel spectra / L */
    float *acc;          /* [h, L/2+1] complex: dw accumulators */
    float *kernel;       /* [h, L] real */
} FftBufs;

static FftBufs fft_bufs(const MixArgs *a, const ConvState *s)
{
    FftBufs f;
    size_t L = s->L, spec = (L / 2 + 1) * 2;
    float *cursor = a->scratch;
    f.rows = fft_carve(&cursor, s->chunk * L);
    f.spec = fft_carve(&cursor, s->chunk * spec);
    f.spec2 = fft_carve(&cursor, s->chunk * spec);
    f.wspec = fft_carve(&cursor, a->heads * spec);
    f.acc = fft_carve(&cursor, a->heads * spec);
    f.kernel = fft_carve(&cursor, a->heads * L);
    return f;
}

/* wspec [h, L/2+1] = DFT_L(w_k zero-padded) / L: the 1/L of the inverse
   transform is folded into the kernel. */
static void kernel_spectra(const MixArgs *a, const ConvState *s, FftBufs *f)
{
    int n = a->n, L = s->L, h = a->heads;
    size_t spec = (size_t)(L / 2 + 1) * 2;
    float inv_L = 1.0f / (float)L;
    for (int k = 0; k < h; k++) {
        memcpy(f->kernel + (size_t)k * L, a->w[k], sizeof(float) * n);
        memset(f->kernel + (size_t)k * L + n, 0, sizeof(float) * (size_t)(L - n));
    }
    fft_exec(&s->kernels_r2c, f->kernel, f->wspec);
    for (size_t i = 0; i < h * spec; i++) f->wspec[i] *= inv_L;
}

static void spectral_forward(const MixArgs *a, const float *x, float *y)
{
    const ConvState *s = a->state;
    int n = a->n, d = a->d, L = s->L, half = L / 2 + 1, R = s->chunk, dk = d / a->heads;
    FftBufs f = fft_bufs(a, s);
    kernel_spectra(a, s, &f);
    for (int b = 0; b < a->B; b++)
        for (int f0 = 0; f0 < d; f0 += R) {
            size_t off = (size_t)b * n * d + f0;
            fft_rows_load(f.rows, x + off, n, R, d, L, NULL);
            fft_exec(&s->rows_r2c, f.rows, f.spec);
            fft_rows_multiply(f.spec, f.wspec, half, f0, R, dk, 0);
            fft_exec(&s->rows_c2r, f.spec, f.rows);
            fft_rows_store(y + off, f.rows, n, R, d, L, inv_sqrt_pos);
        }
}

static void spectral_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    const ConvState *s = a->state;
    int n = a->n, d = a->d, h = a->heads, L = s->L, half = L / 2 + 1, R = s->chunk, dk = d / h;
    FftBufs f = fft_bufs(a, s);
    kernel_spectra(a, s, &f);
    memset(f.acc, 0, sizeof(float) * (size_t)h * half * 2);
    for (int b = 0; b < a->B; b++)
        for (int f0 = 0; f0 < d; f0 += R) {
            size_t off = (size_t)b * n * d + f0;
            fft_rows_load(f.rows, x + off, n, R, d, L, NULL);
            fft_exec(&s->rows_r2c, f.rows, f.spec);           /* X */
            fft_rows_load(f.rows, dy + off, n, R, d, L, inv_sqrt_pos);
            fft_exec(&s->rows_r2c, f.rows, f.spec2);          /* G */
            /* acc_k += sum_{f in slice k} G conj X */
            fft_rows_cross(f.acc, f.spec, f.spec2, half, f0, R, dk);
            fft_rows_multiply(f.spec2, f.wspec, half, f0, R, dk, 1);
            fft_exec(&s->rows_c2r, f.spec2, f.rows);
            fft_rows_store(dx + off, f.rows, n, R, d, L, NULL);
        }
    fft_exec(&s->kernels_c2r, f.acc, f.kernel);
    float inv_L = 1.0f / (float)L;
    for (int k = 0; k < h; k++) {
        float *dw = a->dw[k];
        const float *sum = f.kernel + (size_t)k * L;
        for (int j = 0; j < n; j++) dw[j] += sum[j] * inv_L;
    }
}

/* ---- the mixer ---- */

static void conv_forward(const MixArgs *a, const float *x, float *y)
{
    const ConvState *s = a->state;
    if (s->path == CONV_FFT) spectral_forward(a, x, y);
    else direct_forward(a, x, y);
}

static void conv_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    const ConvState *s = a->state;
    if (s->path == CONV_FFT) spectral_backward(a, x, dy, dx);
    else direct_backward(a, x, dy, dx);
}

static size_t conv_cache(const Config *c) { return (size_t)c->n_ctx * c->d; }

/* cache [n, d] holds x_s for s < t; x_t [d] -> y_t [d]. */
static void conv_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    int d = a->d, dk = d / a->heads;
    memcpy(cache + (size_t)t * d, x_t, sizeof(float) * d);
    memset(y_t, 0, sizeof(float) * d);
    for (int s = 0; s <= t; s++) { /* the cache in order, row by row */
        const float *xs = cache + (size_t)s * d;
        for (int k = 0; k < a->heads; k++) {
            float ws = a->w[k][t - s];
            float *yk = y_t + k * dk;
            for (int f = 0; f < dk; f++) yk[f] += ws * xs[k * dk + f];
        }
    }
    float c = inv_sqrt_pos(t);
    for (int f = 0; f < d; f++) y_t[f] *= c;
}

/* FLOPs per token, forward + backward, of the path n selects.
   direct: forward strmm n^2/2 multiply-adds per feature and sample, the
   dx strmm the same, the dT sgemm n^2: 4 n d per token (building T, h n^2
   per call, is not counted).
   fft (L = fft_good_size(2n), a real transform of L points ~2.5 L log2 L):
   5 transforms of the d feature sequences per sample (forward r2c + c2r;
   backward r2c of x and of g, c2r of dx) plus complex products (6 FLOPs forward; 6 + 8
   backward) on (L/2+1) d bins, all / n.  The h kernel transforms per call
   are shared by the batch and not counted. */
static double conv_flops(const Config *c, int causal)
{
    (void)causal;
    double n = c->n_ctx, d = c->d;
    if (conv_auto_path(c->n_ctx) == CONV_DIRECT) return 4.0 * n * d;
    double L = conv_length(c->n_ctx);
    return (5.0 * d * 2.5 * L * log2(L) + 20.0 * (L / 2 + 1) * d) / n;
}

const MixerOps mixer_conv = {
    .name = "conv",
    .summary = "learned causal convolution, (t+1)^-1/2 scaled (Backurs et al.)",
    .has_causal = 1,
    .has_bidir = 0,
    .default_pos = POS_NONE,
    .check_config = conv_check,
    .declare = conv_declare,
    .saved_per_sample = conv_saved,
    .scratch_floats = conv_scratch,
    .create = conv_create,
    .destroy = conv_destroy,
    .forward = conv_forward,
    .backward = conv_backward,
    .cache_floats = conv_cache,
    .forward_step = conv_step,
    .extra_flops_per_token = conv_flops,
};
