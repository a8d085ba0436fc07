/*
 * ops.c — kernels of ops.h: linear layers on OpenBLAS sgemm, LayerNorm,
 * activations, softmax cross-entropy, dropout and a vectorisable exp.
 *
 * Not for: anything mixer-specific (engine/mixers/) or the model's wiring
 * (engine/model.c).
 */
#include "engine/ops.h"

#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/gemm.h"
#include "engine/rng.h"

#ifdef __AVX512F__
#include <immintrin.h>
#endif

void matmul(Gemm *g, int trans_a, int trans_b, int M, int N, int K, float alpha,
            const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    /* row-major leading dimensions: at least the columns stored per row */
    assert(M >= 0 && N >= 0 && K >= 0);
    assert(lda >= (trans_a ? M : K) && ldb >= (trans_b ? K : N) && ldc >= N);
    gemm_product(g, trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void trmm_lower(Gemm *g, int trans, int n, int w, const float *T, float *y, const float *x, int ld)
{
    assert(n >= 0 && w >= 0 && ld >= w);
    for (int t = 0; t < n; t++) memcpy(y + (size_t)t * ld, x + (size_t)t * ld, sizeof(float) * w);
    double start = now_seconds();
    cblas_strmm(CblasRowMajor, CblasLeft, CblasLower, trans ? CblasTrans : CblasNoTrans, CblasNonUnit, n, w, 1.0f,
                T, n, y, ld);
    gemm_count(g, start, (double)n * (n + 1) * w);   /* row t: t + 1 multiply-adds per column */
}

void linear_forward(Gemm *g, float *y, const float *x, const float *w, const float *b, int N, int n_in, int n_out)
{
    assert(y && x && w && N >= 0 && n_in > 0 && n_out > 0);
    if (b) {
        for (int i = 0; i < N; i++) memcpy(y + (size_t)i * n_out, b, sizeof(float) * n_out);
    }
    matmul(g, 0, 1, N, n_out, n_in, 1.0f, x, n_in, w, n_in, b ? 1.0f : 0.0f, y, n_out);
}

void linear_forward_residual(Gemm *g, float *y, const float *x, const float *w, const float *b, const float *r,
                             int N, int n_in, int n_out)
{
    assert(y && x && w && r && N >= 0 && n_in > 0 && n_out > 0);
    for (int i = 0; i < N; i++) {
        float *yi = y + (size_t)i * n_out;
        const float *ri = r + (size_t)i * n_out;
        if (b)
            for (int o = 0; o < n_out; o++) yi[o] = ri[o] + b[o];
        else if (yi != ri)
            memcpy(yi, ri, sizeof(float) * n_out);
    }
    matmul(g, 0, 1, N, n_out, n_in, 1.0f, x, n_in, w, n_in, 1.0f, y, n_out);
}

void linear_backward(Gemm *g, float *dx, float *dw, float *db, const float *dy, const float *x,
                     const float *w, int N, int n_in, int n_out, int accumulate)
{
    if (dx) matmul(g, 0, 0, N, n_in, n_out, 1.0f, dy, n_out, w, n_in, accumulate ? 1.0f : 0.0f, dx, n_in);
    if (dw) matmul(g, 1, 0, n_out, n_in, N, 1.0f, dy, n_out, x, n_in, 1.0f, dw, n_in);
    if (db) {
        for (int i = 0; i < N; i++) {
            const float *row = dy + (size_t)i * n_out;
            for (int o = 0; o < n_out; o++) db[o] += row[o];
        }
    }
}

/* Sum of x[0..n) as 16 interleaved partial sums added pairwise at the end
   (vectorises; the rounding differs from a serial sum in the last bits). */
static float sum_lanes(const float *x, int n)
{
    float lane[16] = {0};
    int i = 0;
    for (; i + 16 <= n; i += 16)
        for (int l = 0; l < 16; l++) lane[l] += x[i + l];
    for (int w = 8; w > 0; w /= 2)
        for (int l = 0; l < w; l++) lane[l] += lane[l + w];
    float sum = lane[0];
    for (; i < n; i++) sum += x[i];
    return sum;
}

void layernorm_forward(float *y, float *mean, float *rstd, const float *x,
                       const float *w, const float *b, int N, int C)
{
    assert(N >= 0 && C > 0);
    for (int i = 0; i < N; i++) {
        const float *xi = x + (size_t)i * C;
        float *yi = y + (size_t)i * C;
        float m = sum_lanes(xi, C) / C;
        float lane[16] = {0};   /* the squared deviations, in sum_lanes' order */
        int c = 0;
        for (; c + 16 <= C; c += 16)
            for (int l = 0; l < 16; l++) lane[l] += (xi[c + l] - m) * (xi[c + l] - m);
        for (int k = 8; k > 0; k /= 2)
            for (int l = 0; l < k; l++) lane[l] += lane[l + k];
        float var = lane[0];
        for (; c < C; c++) var += (xi[c] - m) * (xi[c] - m);
        var /= C;
        float r = 1.0f / sqrtf(var + 1e-5f);
        for (c = 0; c < C; c++) yi[c] = (xi[c] - m) * r * w[c] + b[c];
        mean[i] = m;
        rstd[i] = r;
    }
}

void layernorm_backward(float *dx, float *dw, float *db, const float *dy, const float *x,
                        const float *mean, const float *rstd, const float *w, int N, int C,
                        int accumulate)
{
    for (int i = 0; i < N; i++) {
        const float *xi = x + (size_t)i * C;
        const float *dyi = dy + (size_t)i * C;
        float *dxi = dx + (size_t)i * C;
        float m = mean[i], r = rstd[i];
        /* dxhat = dy * w; dx = r * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) */
        float lane_dxhat[16] = {0}, lane_dxhat_xhat[16] = {0};   /* sum_lanes' order */
        int c = 0;
#ifdef __AVX512F__
        /* the loops below on 16 lanes, each operation as they round it */
        __m512 vm = _mm512_set1_ps(m), vr = _mm512_set1_ps(r);
        __m512 s1 = _mm512_setzero_ps(), s2 = _mm512_setzero_ps();
        for (; c + 16 <= C; c += 16) {
            __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(xi + c), vm), vr);
            __m512 dxhat = _mm512_mul_ps(_mm512_loadu_ps(dyi + c), _mm512_loadu_ps(w + c));
            s1 = _mm512_add_ps(s1, dxhat);
            s2 = _mm512_add_ps(s2, _mm512_mul_ps(dxhat, xhat));
        }
        _mm512_storeu_ps(lane_dxhat, s1);
        _mm512_storeu_ps(lane_dxhat_xhat, s2);
#endif
        for (; c + 16 <= C; c += 16)
            for (int l = 0; l < 16; l++) {
                float xhat = (xi[c + l] - m) * r;
                float dxhat = dyi[c + l] * w[c + l];
                lane_dxhat[l] += dxhat;
                lane_dxhat_xhat[l] += dxhat * xhat;
            }
        for (int k = 8; k > 0; k /= 2)
            for (int l = 0; l < k; l++) {
                lane_dxhat[l] += lane_dxhat[l + k];
                lane_dxhat_xhat[l] += lane_dxhat_xhat[l + k];
            }
        float sum_dxhat = lane_dxhat[0], sum_dxhat_xhat = lane_dxhat_xhat[0];
        for (; c < C; c++) {
            float xhat = (xi[c] - m) * r;
            float dxhat = dyi[c] * w[c];
            sum_dxhat += dxhat;
            sum_dxhat_xhat += dxhat * xhat;
        }
        float mean_dxhat = sum_dxhat / C, mean_dxhat_xhat = sum_dxhat_xhat / C;
        /* one pass for dw, db and dx (dx may be dy: each element is read
           before it is written) */
        c = 0;
#ifdef __AVX512F__
        __m512 md = _mm512_set1_ps(mean_dxhat), mdx = _mm512_set1_ps(mean_dxhat_xhat);
        for (; c + 16 <= C; c += 16) {
            __m512 dyv = _mm512_loadu_ps(dyi + c);
            __m512 xhat = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(xi + c), vm), vr);
            _mm512_storeu_ps(dw + c, _mm512_add_ps(_mm512_loadu_ps(dw + c), _mm512_mul_ps(dyv, xhat)));
            _mm512_storeu_ps(db + c, _mm512_add_ps(_mm512_loadu_ps(db + c), dyv));
            __m512 g = _mm512_sub_ps(_mm512_sub_ps(_mm512_mul_ps(dyv, _mm512_loadu_ps(w + c)), md),
                                     _mm512_mul_ps(xhat, mdx));
            g = _mm512_mul_ps(vr, g);
            _mm512_storeu_ps(dxi + c, accumulate ? _mm512_add_ps(_mm512_loadu_ps(dxi + c), g) : g);
        }
#endif
        for (; c < C; c++) {
            float xhat = (xi[c] - m) * r;
            dw[c] += dyi[c] * xhat;
            db[c] += dyi[c];
            float g = r * (dyi[c] * w[c] - mean_dxhat - xhat * mean_dxhat_xhat);
            dxi[c] = accumulate ? dxi[c] + g : g;
        }
    }
}

/* The standard normal density and distribution: GELU(x) = x Phi(x). */
#define INV_SQRT2 0.70710678118654752440f
#define INV_SQRT_2PI 0.39894228040143267794f

/* exp(x) by range reduction x = k ln2 + r and a degree-7 polynomial
   (Cephes expf coefficients); written without branches so that the
   compiler vectorises the loop. */
static inline float exp_approx(float x)
{
    x = x < -87.3f ? -87.3f : x;
    x = x > 88.7f ? 88.7f : x;
    /* round to nearest by the 1.5 * 2^23 trick: vectorises, unlike floorf */
    float k = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = fmaf(k, -0.693359375f, x);
    r = fmaf(k, 2.12194440e-4f, r);
    float p = 1.9875691500E-4f;
    p = fmaf(p, r, 1.3981999507E-3f);
    p = fmaf(p, r, 8.3334519073E-3f);
    p = fmaf(p, r, 4.1665795894E-2f);
    p = fmaf(p, r, 1.6666665459E-1f);
    p = fmaf(p, r, 5.0000001201E-1f);
    p = fmaf(p * r, r, r) + 1.0f;
    /* a NaN x leaves k NaN, and converting NaN to an integer is undefined
       (UBSan): use 0 there; r and so p are NaN, and NaN comes out */
    float k_int = k == k ? k : 0.0f;
    int32_t bits = ((int32_t)k_int + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* Phi(x) = P(N(0,1) <= x) = erfc(-x / sqrt 2) / 2, with erfc from the
   Chebyshev fit of Numerical Recipes (erfcc: fractional error below 1.2e-7
   for every argument), so GELU(x) = x Phi(x) keeps float32 accuracy in the
   far tails too, and the loop vectorises (no libm call). */
static inline float normal_cdf(float x)
{
    float z = -x * INV_SQRT2;
    float az = z < 0.0f ? -z : z;
    float t = 1.0f / fmaf(0.5f, az, 1.0f);
    float p = 0.17087277f;
    p = fmaf(p, t, -0.82215223f);
    p = fmaf(p, t, 1.48851587f);
    p = fmaf(p, t, -1.13520398f);
    p = fmaf(p, t, 0.27886807f);
    p = fmaf(p, t, -0.18628806f);
    p = fmaf(p, t, 0.09678418f);
    p = fmaf(p, t, 0.37409196f);
    p = fmaf(p, t, 1.00002368f);
    p = fmaf(p, t, -1.26551223f);
    float erfc_az = t * exp_approx(fmaf(-az, az, p));
    float erfc_z = z >= 0.0f ? erfc_az : 2.0f - erfc_az;
    return 0.5f * erfc_z;
}

#ifdef __AVX512F__
/* exp_approx and normal_cdf on 16 lanes, operation for operation the same
   roundings (so the same bits as the scalar loop, which the compiler
   vectorises less tightly): GELU is the one transcendental pass of every
   FFN, forward and backward.  NaN propagates as in the scalar code (max_ps
   and min_ps return their second operand when one is NaN). */
static inline __m512 exp_approx16(__m512 x)
{
    x = _mm512_max_ps(_mm512_set1_ps(-87.3f), x);
    x = _mm512_min_ps(_mm512_set1_ps(88.7f), x);
    __m512 big = _mm512_set1_ps(12582912.0f);
    __m512 k = _mm512_sub_ps(_mm512_add_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), big), big);
    __m512 r = _mm512_fmadd_ps(k, _mm512_set1_ps(-0.693359375f), x);
    r = _mm512_fmadd_ps(k, _mm512_set1_ps(2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500E-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507E-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073E-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894E-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459E-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201E-1f));
    p = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.0f));
    /* a NaN k converts to INT_MIN; p is NaN then and so is the product */
    __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvttps_epi32(k), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(bits));
}

static inline __m512 normal_cdf16(__m512 x)
{
    __m512 z = _mm512_mul_ps(x, _mm512_set1_ps(-INV_SQRT2)), az = _mm512_abs_ps(z);
    __m512 t = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_set1_ps(0.5f), az, _mm512_set1_ps(1.0f)));
    static const float c[9] = {-0.82215223f, 1.48851587f,  -1.13520398f, 0.27886807f, -0.18628806f,
                               0.09678418f,  0.37409196f, 1.00002368f,  -1.26551223f};
    __m512 p = _mm512_set1_ps(0.17087277f);
    for (int i = 0; i < 9; i++) p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(c[i]));
    __m512 e = _mm512_mul_ps(t, exp_approx16(_mm512_fnmadd_ps(az, az, p)));
    __mmask16 ge = _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_GE_OQ);
    e = _mm512_mask_blend_ps(ge, _mm512_sub_ps(_mm512_set1_ps(2.0f), e), e);
    return _mm512_mul_ps(_mm512_set1_ps(0.5f), e);
}
#endif

/* GELU'(v) = Phi(v) + v phi(v), given cdf = Phi(v). */
static inline float gelu_slope(float v, float cdf)
{
    float pdf = INV_SQRT_2PI * exp_approx(-0.5f * v * v);
    return cdf + v * pdf;
}

#ifdef __AVX512F__
static inline __m512 gelu_slope16(__m512 v, __m512 cdf)
{
    __m512 e = exp_approx16(_mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), v), v));
    __m512 pdf = _mm512_mul_ps(_mm512_set1_ps(INV_SQRT_2PI), e);
    return _mm512_add_ps(cdf, _mm512_mul_ps(v, pdf));
}
#endif

static void gelu_forward(float *y, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __AVX512F__
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        _mm512_storeu_ps(y + i, _mm512_mul_ps(v, normal_cdf16(v)));
    }
#endif
    for (; i < n; i++) y[i] = x[i] * normal_cdf(x[i]);
}

/* y = GELU(x) and slope = GELU'(x) from one Phi (slope may be x). */
static void gelu_forward_slope(float *y, float *slope, const float *x, size_t n)
{
    size_t i = 0;
#ifdef __AVX512F__
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i), cdf = normal_cdf16(v);
        _mm512_storeu_ps(y + i, _mm512_mul_ps(v, cdf));
        _mm512_storeu_ps(slope + i, gelu_slope16(v, cdf));
    }
#endif
    for (; i < n; i++) {
        float v = x[i], cdf = normal_cdf(v);
        y[i] = v * cdf;
        slope[i] = gelu_slope(v, cdf);
    }
}

static void gelu_backward(float *dx, const float *dy, const float *x, size_t n, int accumulate)
{
    size_t i = 0;
#ifdef __AVX512F__
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        __m512 g = _mm512_mul_ps(_mm512_loadu_ps(dy + i), gelu_slope16(v, normal_cdf16(v)));
        _mm512_storeu_ps(dx + i, accumulate ? _mm512_add_ps(_mm512_loadu_ps(dx + i), g) : g);
    }
#endif
    for (; i < n; i++) {
        float g = dy[i] * gelu_slope(x[i], normal_cdf(x[i]));
        dx[i] = accumulate ? dx[i] + g : g;
    }
}

void act_forward(float *y, const float *x, size_t n, int act)
{
    switch (act) {
    case ACT_GELU:
        gelu_forward(y, x, n);
        break;
    case ACT_RELU:
        for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
        break;
    default:
        if (y != x) memcpy(y, x, n * sizeof(float));
    }
}

void act_backward(float *dx, const float *dy, const float *x, size_t n, int act, int accumulate)
{
    /* written as select, not keep * dx, so that uninitialised dx never leaks NaN */
    switch (act) {
    case ACT_GELU:
        gelu_backward(dx, dy, x, n, accumulate);
        break;
    case ACT_RELU:
        for (size_t i = 0; i < n; i++) {
            float g = x[i] > 0.0f ? dy[i] : 0.0f;
            dx[i] = accumulate ? dx[i] + g : g;
        }
        break;
    default:
        for (size_t i = 0; i < n; i++) dx[i] = accumulate ? dx[i] + dy[i] : dy[i];
    }
}

void bias_act_forward(float *y, float *h, const float *b, int N, int C, int act)
{
    for (int i = 0; i < N; i++) {
        float *hi = h + (size_t)i * C;
        if (b)
            for (int c = 0; c < C; c++) hi[c] += b[c];
        act_forward(y + (size_t)i * C, hi, (size_t)C, act); /* the row is still in cache */
    }
}

void bias_act_forward_slope(float *y, float *h, const float *b, int N, int C, int act)
{
    if (act != ACT_GELU) {
        bias_act_forward(y, h, b, N, C, act);
        return;
    }
    for (int i = 0; i < N; i++) {
        float *hi = h + (size_t)i * C;
        if (b)
            for (int c = 0; c < C; c++) hi[c] += b[c];
        gelu_forward_slope(y + (size_t)i * C, hi, hi, (size_t)C);
    }
}

/* db [C] += row [C] (rows summed in order, linear_backward's order). */
static void bias_grad_row(float *db, const float *row, int C)
{
    if (db)
        for (int c = 0; c < C; c++) db[c] += row[c];
}

void act_backward_bias(float *dh, const float *h, float *db, int N, int C, int act)
{
    for (int i = 0; i < N; i++) {
        float *di = dh + (size_t)i * C;
        act_backward(di, di, h + (size_t)i * C, (size_t)C, act, 0);
        bias_grad_row(db, di, C);
    }
}

void act_backward_slope(float *dh, const float *slope, float *db, int N, int C, int act)
{
    if (act != ACT_GELU) {
        act_backward_bias(dh, slope, db, N, C, act);
        return;
    }
    for (int i = 0; i < N; i++) {
        float *di = dh + (size_t)i * C;
        const float *si = slope + (size_t)i * C;
        for (int c = 0; c < C; c++) di[c] *= si[c];
        bias_grad_row(db, di, C);
    }
}

void vec_exp(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = exp_approx(x[i]);
}

void vec_sigmoid(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = 1.0f / (1.0f + exp_approx(-x[i]));
}

/* Sum over v of exp(x[v] - mx), in sum_lanes' order; store: x[v] becomes
   exp(x[v] - mx), in the same pass. */
static float sum_exp_lanes(float *x, int n, float mx, int store)
{
    float lane[16] = {0};
    int i = 0;
#ifdef __AVX512F__
    __m512 acc = _mm512_setzero_ps(), m = _mm512_set1_ps(mx);
    for (; i + 16 <= n; i += 16) {
        __m512 e = exp_approx16(_mm512_sub_ps(_mm512_loadu_ps(x + i), m));
        if (store) _mm512_storeu_ps(x + i, e);
        acc = _mm512_add_ps(acc, e);
    }
    _mm512_storeu_ps(lane, acc);
#endif
    for (; i + 16 <= n; i += 16)
        for (int l = 0; l < 16; l++) {
            float e = exp_approx(x[i + l] - mx);
            if (store) x[i + l] = e;
            lane[l] += e;
        }
    for (int w = 8; w > 0; w /= 2)
        for (int l = 0; l < w; l++) lane[l] += lane[l + w];
    float sum = lane[0];
    for (; i < n; i++) {
        float e = exp_approx(x[i] - mx);
        if (store) x[i] = e;
        sum += e;
    }
    return sum;
}

/* The first v with x[v] == mx (n - 1 when none is), 16 at a time. */
static int first_equal(const float *x, int n, float mx)
{
    int i = 0;
#ifdef __AVX512F__
    for (__m512 m = _mm512_set1_ps(mx); i + 16 <= n; i += 16)
        if (_mm512_cmp_ps_mask(_mm512_loadu_ps(x + i), m, _CMP_EQ_OQ)) break;
#else
    for (; i + 16 <= n; i += 16) {
        int hit = 0;
        for (int l = 0; l < 16; l++) hit |= x[i + l] == mx;
        if (hit) break;
    }
#endif
    while (i < n - 1 && !(x[i] == mx)) i++;
    return i;
}

/* The largest of x[0..n), n > 0 -- of x + b, stored in x, when b is not
   NULL -- as 16 running maxima `v > m ? v : m` (max_ps is exactly that,
   NaN and signed zeros included), merged in lane order. */
static float max_lanes(float *x, const float *b, int n)
{
    float lane[16], first = b ? x[0] + b[0] : x[0];
    int i = 0;
#ifdef __AVX512F__
    __m512 acc = _mm512_set1_ps(first);
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        if (b) {
            v = _mm512_add_ps(v, _mm512_loadu_ps(b + i));
            _mm512_storeu_ps(x + i, v);
        }
        acc = _mm512_max_ps(v, acc);
    }
    _mm512_storeu_ps(lane, acc);
#else
    for (int l = 0; l < 16; l++) lane[l] = first;
    for (; i + 16 <= n; i += 16)
        for (int l = 0; l < 16; l++) {
            float v = b ? x[i + l] + b[i + l] : x[i + l];
            if (b) x[i + l] = v;
            lane[l] = v > lane[l] ? v : lane[l];
        }
#endif
    float mx = lane[0];
    for (int l = 1; l < 16; l++) mx = lane[l] > mx ? lane[l] : mx;
    for (; i < n; i++) {
        if (b) x[i] += b[i];
        mx = x[i] > mx ? x[i] : mx;
    }
    return mx;
}

double xent_head(float *logits, const float *bias, float *dbias, const int32_t *targets, int N, int V, float scale,
                 int want_grad, int64_t *correct)
{
    double loss = 0.0;
    int64_t hits = 0;
    for (int i = 0; i < N; i++) {
        float *row = logits + (size_t)i * V;
        int32_t t = targets[i];
        if (t < 0) {
            if (want_grad) memset(row, 0, sizeof(float) * V);
            continue;
        }
        assert(t < V);   /* the data loader keeps every id below the vocabulary */
        float mx = max_lanes(row, bias, V);
        /* the first maximum, as a scan keeping strictly larger ones finds */
        hits += first_equal(row, V, mx) == t;
        float target_logit = row[t];
        float sum = sum_exp_lanes(row, V, mx, want_grad);
        if (want_grad) {
            float inv = scale / sum;
            if (dbias) /* the bias gradient in linear_backward's order: row after row */
                for (int v = 0; v < V; v++) {
                    float g = row[v] * inv - (v == t ? scale : 0.0f);
                    row[v] = g;
                    dbias[v] += g;
                }
            else {
                for (int v = 0; v < V; v++) row[v] *= inv;
                row[t] -= scale;
            }
        }
        loss += (double)(logf(sum) + mx - target_logit);
    }
    if (correct) *correct += hits;
    return loss;
}

double xent_forward_backward(float *logits, const int32_t *targets, int N, int V, float scale, int want_grad,
                             int64_t *correct)
{
    return xent_head(logits, NULL, NULL, targets, N, V, scale, want_grad, correct);
}

float exp_shift_sum(float *x, int n, float mx)
{
    assert(n >= 0);
    return sum_exp_lanes(x, n, mx, 1);
}

void softmax_rows(float *x, int N, int C, int causal)
{
    assert(N >= 0 && C > 0);
    for (int i = 0; i < N; i++) {
        float *row = x + (size_t)i * C;
        int len = causal ? (i + 1 < C ? i + 1 : C) : C;
        float mx = row[0];
        for (int c = 1; c < len; c++) mx = row[c] > mx ? row[c] : mx;
        float sum = 0.0f;
        for (int c = 0; c < len; c++) {
            row[c] = exp_approx(row[c] - mx);
            sum += row[c];
        }
        float inv = 1.0f / sum;
        for (int c = 0; c < len; c++) row[c] *= inv;
        for (int c = len; c < C; c++) row[c] = 0.0f;
    }
}

void vec_add(float *y, const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = a[i] + b[i];
}

void vec_acc(float *y, const float *a, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] += a[i];
}

void rows_pick_add(float *y, const float *a, const float *b, const int32_t *rows, int M, int d)
{
    for (int r = 0; r < M; r++)
        vec_add(y + (size_t)r * d, a + (size_t)rows[r] * d, b + (size_t)rows[r] * d, (size_t)d);
}

void rows_spread(float *x, const int32_t *rows, int M, int N, int d)
{
    /* from the end: row r moves to rows[r] >= r, so every source not yet
       moved lies below the row being written */
    int r = M - 1;
    for (int i = N - 1; i >= 0; i--) {
        float *dst = x + (size_t)i * d;
        if (r >= 0 && rows[r] == i) {
            assert(rows[r] >= r);
            if (i != r) memcpy(dst, x + (size_t)r * d, sizeof(float) * (size_t)d);
            r--;
        } else {
            memset(dst, 0, sizeof(float) * (size_t)d);
        }
    }
    assert(r < 0);
}

void sumsq_blocks(double lane[8], const float *x, size_t n)
{
    assert(n % 8 == 0);
    for (size_t i = 0; i < n; i += 8)
        for (int l = 0; l < 8; l++) lane[l] += (double)x[i + l] * (double)x[i + l];
}

double sumsq_finish(const double lane[8], const float *tail, size_t n)
{
    double s = 0.0;
    for (int l = 0; l < 8; l++) s += lane[l];
    for (size_t i = 0; i < n; i++) s += (double)tail[i] * (double)tail[i];
    return s;
}

double vec_sumsq(const float *x, size_t n)
{
    double lane[8] = {0};
    size_t full = n & ~(size_t)7;
    sumsq_blocks(lane, x, full);
    return sumsq_finish(lane, x + full, n - full);
}

void dropout_apply(float *y, const float *x, size_t n, float p, uint64_t key, uint64_t index0)
{
    assert(p >= 0.0f && p < 1.0f);
    float keep_scale = 1.0f / (1.0f - p);
    uint32_t threshold = (uint32_t)((double)p * 4294967296.0);
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)(rng_hash(key, index0 + i) >> 32);
        y[i] = u >= threshold ? x[i] * keep_scale : 0.0f;
    }
}

void dwconv_forward(float *y, const float *x, const float *w, const float *b, int B, int n, int C, int K, int ldx,
                    int ldy)
{
    for (int s = 0; s < B; s++)
        for (int t = 0; t < n; t++) {
            const float *xs = x + (size_t)s * n * ldx;
            float *row = y + ((size_t)s * n + t) * ldy;
            for (int c = 0; c < C; c++) {
                float v = b[c];
                for (int k = 0; k < K; k++) {
                    int src = t - (K - 1) + k;
                    if (src >= 0) v += w[(size_t)c * K + k] * xs[(size_t)src * ldx + c];
                }
                row[c] = v;
            }
        }
}

void dwconv_backward(float *dx, float *dw, float *db, const float *dy, const float *x, const float *w, int B, int n,
                     int C, int K, int ldx, int lddy, int lddx)
{
    for (int s = 0; s < B; s++)
        for (int t = 0; t < n; t++) {
            const float *xs = x + (size_t)s * n * ldx, *dys = dy + (size_t)s * n * lddy;
            const float *g = dys + (size_t)t * lddy;
            float *dxt = dx + ((size_t)s * n + t) * lddx;
            for (int c = 0; c < C; c++) {
                float v = 0.0f;
                for (int k = 0; k < K; k++) {
                    int dst = t + (K - 1) - k;    /* the output x[t] feeds with weight k */
                    if (dst < n) v += w[(size_t)c * K + k] * dys[(size_t)dst * lddy + c];
                    int src = t - (K - 1) + k;    /* the input weight k meets at output t */
                    if (src >= 0) dw[(size_t)c * K + k] += g[c] * xs[(size_t)src * ldx + c];
                }
                db[c] += g[c];
                dxt[c] = v;
            }
        }
}
