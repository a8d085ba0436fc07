/*
 * test_gemm.c — precision=bf16's product (engine/gemm.c, oneDNN) against a
 * reference: every transposition, edge sizes (1 x 1 x 1, odd K, sizes off
 * any tile), beta 0, 1 and 0.5, alpha 1 and 0.125, leading dimensions larger
 * than the matrix (C's columns past N untouched), and a context reused for
 * more shapes than its cache holds.  The reference is the double-precision
 * product of the inputs rounded to bf16 (bf16_round), which it must match
 * to float32 summation error; and matmul(NULL, ...) (OpenBLAS sgemm) on the
 * unrounded inputs, which it must match within bf16's rounding (2^-8
 * relative per product).  No product may fall back to float32.  Skipped
 * when precision=bf16 cannot run here (no AVX512-BF16, or no oneDNN).
 * Also, on every machine: the counts every context keeps of its products'
 * time and FLOPs, trmm_lower, and what precision=auto resolves to.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bf16.h"
#include "engine/common.h"
#include "engine/gemm.h"
#include "engine/ops.h"
#include "engine/rng.h"
#include "tests/check.h"

/* One product of the given shape; returns the number of elements off. */
static int check_shape(Gemm *g, int ta, int tb, int M, int N, int K, float alpha, float beta)
{
    int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 5, ldc = N + 7;
    size_t na = (size_t)(ta ? K : M) * lda, nb = (size_t)(tb ? N : K) * ldb, nc = (size_t)M * ldc;
    float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb);
    float *C = malloc(sizeof(float) * nc), *C0 = malloc(sizeof(float) * nc), *sg = malloc(sizeof(float) * nc);
    Rng r;
    rng_seed(&r, (uint64_t)(M * 7919 + N * 31 + K));
    for (size_t i = 0; i < na; i++) A[i] = 2.0f * rng_float(&r) - 1.0f;
    for (size_t i = 0; i < nb; i++) B[i] = 2.0f * rng_float(&r) - 1.0f;
    for (size_t i = 0; i < nc; i++) C[i] = C0[i] = sg[i] = 2.0f * rng_float(&r) - 1.0f;
    matmul(g, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    matmul(NULL, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, sg, ldc);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc; j++) {
            size_t at = (size_t)i * ldc + j;
            if (j >= N) {   /* past the last column: untouched */
                bad += C[at] != C0[at];
                continue;
            }
            double exact = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                float a = ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
                float b = tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
                exact += (double)bf16_round(a) * bf16_round(b);
                mag += fabs((double)a * b);
            }
            exact = alpha * exact + (double)beta * C0[at];
            mag = fabs(alpha) * mag + fabs((double)beta * C0[at]);
            /* float32 sums of exact products; bf16 rounds each input by
               at most 2^-9 relative, a product by about 2^-8 */
            double off_exact = fabs(C[at] - exact), off_sgemm = fabs(C[at] - sg[at]);
            if (off_exact > 1e-6 * (mag + 1) * (1 + K / 64.0) || off_sgemm > mag / 128.0 + 1e-5) {
                if (bad < 3)
                    printf("  %s%s M %d N %d K %d alpha %g beta %g: C[%d][%d] = %.7g, bf16 reference %.7g, sgemm %.7g\n",
                           ta ? "T" : "N", tb ? "T" : "N", M, N, K, alpha, beta, i, j, C[at], exact, sg[at]);
                bad++;
            }
        }
    free(A);
    free(B);
    free(C);
    free(C0);
    free(sg);
    return bad;
}

static void products_match_the_references(void)
{
    Gemm *g = NULL;
    char err[ERR_LEN];
    CHECK(gemm_create(&g, PRECISION_BF16, err) == 0, "%s", err);
    if (!g) return;
    int shapes[][3] = {{1, 1, 1}, {12, 32, 2}, {13, 33, 3}, {7, 100, 257}, {97, 65, 513}, {40, 3100, 20}, {25, 17, 600}};
    float betas[] = {0.0f, 1.0f, 0.5f}, alphas[] = {1.0f, 0.125f};
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
        for (int t = 0; t < 4; t++) {
            int bad = check_shape(g, t & 1, t >> 1, shapes[s][0], shapes[s][1], shapes[s][2], alphas[(s + t) % 2],
                                  betas[(s + t) % 3]);
            CHECK(bad == 0, "%d elements off", bad);
        }
    CHECK(gemm_fallbacks(g) == 0, "%ld products fell back to float32", gemm_fallbacks(g));
    gemm_free(g);
}

/* More shapes than the context caches (the oldest primitives are replaced)
   and every shape again: the same bits as the first time. */
static void cache_replacement_keeps_results(void)
{
    Gemm *g = NULL;
    char err[ERR_LEN];
    CHECK(gemm_create(&g, PRECISION_BF16, err) == 0, "%s", err);
    if (!g) return;
    enum { SHAPES = 130, K = 24 };
    float *A = malloc(sizeof(float) * SHAPES * K), *B = malloc(sizeof(float) * K * 8);
    float *first = malloc(sizeof(float) * SHAPES * SHAPES * 8), *again = malloc(sizeof(float) * SHAPES * 8);
    Rng r;
    rng_seed(&r, 5);
    for (int i = 0; i < SHAPES * K; i++) A[i] = rng_float(&r) - 0.5f;
    for (int i = 0; i < K * 8; i++) B[i] = rng_float(&r) - 0.5f;
    for (int m = 1; m <= SHAPES; m++) /* M = m rows: a new shape each */
        matmul(g, 0, 0, m, 8, K, 1.0f, A, K, B, 8, 0.0f, first + (size_t)(m - 1) * SHAPES * 8, 8);
    int diff = 0;
    for (int m = 1; m <= SHAPES; m++) {
        matmul(g, 0, 0, m, 8, K, 1.0f, A, K, B, 8, 0.0f, again, 8);
        diff += memcmp(again, first + (size_t)(m - 1) * SHAPES * 8, sizeof(float) * m * 8) != 0;
    }
    CHECK(diff == 0, "%d shapes gave other bits the second time", diff);
    CHECK(gemm_fallbacks(g) == 0, "%ld products fell back to float32", gemm_fallbacks(g));
    free(A);
    free(B);
    free(first);
    free(again);
    gemm_free(g);
}

static void rounding_is_to_nearest_even(void)
{
    /* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even 1 */
    CHECK(bf16_round(1.0f + 1.0f / 256) == 1.0f, "%.9g", bf16_round(1.0f + 1.0f / 256));
    CHECK(bf16_round(1.0f + 3.0f / 256) == 1.0f + 4.0f / 256, "%.9g", bf16_round(1.0f + 3.0f / 256));
    CHECK(bf16_round(-2.5f) == -2.5f, "exact values stay");
    CHECK(isnan(bf16_round(NAN)), "NaN stays NaN");
    CHECK(isinf(bf16_round(INFINITY)), "inf stays inf");
}

/* Every context counts its products (engine/gemm.h): a float32 context's
   product is sgemm's, bit for bit, and adds 2 M N K FLOPs; trmm_lower is
   the lower-triangular product (against a double loop) and adds n (n + 1) w;
   gemm_take_counts hands them over once; NULL counts nothing. */
static void products_are_counted(void)
{
    char err[ERR_LEN];
    Gemm *g = NULL;
    CHECK(gemm_create(&g, PRECISION_F32, err) == 0 && g, "float32 context: %s", err);
    if (!g) return;
    enum { M = 37, N = 29, K = 70, n = 11, w = 5, ld = 9 };
    float A[M * K], B[N * K], C[M * N], C0[M * N], T[n * n], x[n * ld], y[n * ld];
    Rng r;
    rng_seed(&r, 5);
    for (int i = 0; i < M * K; i++) A[i] = rng_normal(&r);
    for (int i = 0; i < N * K; i++) B[i] = rng_normal(&r);
    for (int i = 0; i < n * n; i++) T[i] = rng_normal(&r);
    for (int i = 0; i < n * ld; i++) x[i] = rng_normal(&r), y[i] = 7.0f;
    matmul(g, 0, 1, M, N, K, 1.0f, A, K, B, K, 0.0f, C, N);
    matmul(NULL, 0, 1, M, N, K, 1.0f, A, K, B, K, 0.0f, C0, N);
    CHECK(!memcmp(C, C0, sizeof C), "a float32 context's product differs from sgemm's");
    double s, f;
    gemm_take_counts(g, &s, &f);
    CHECK(f == 2.0 * M * N * K && s > 0, "matmul counted %.0f FLOPs (want %d) in %g s", f, 2 * M * N * K, s);
    gemm_take_counts(g, &s, &f);
    CHECK(f == 0 && s == 0, "counts not zeroed: %.0f FLOPs, %g s", f, s);
    for (int trans = 0; trans < 2; trans++) {
        trmm_lower(g, trans, n, w, T, y, x, ld);
        int off = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < ld; j++) {
                double want = 7.0;   /* columns past w untouched */
                if (j < w) {
                    want = 0;
                    for (int k = 0; k < n; k++) {
                        double t = trans ? (i <= k ? T[k * n + i] : 0) : (k <= i ? T[i * n + k] : 0);
                        want += t * x[k * ld + j];
                    }
                }
                off += fabs(y[i * ld + j] - want) > 1e-5 * (1 + fabs(want));
            }
        CHECK(off == 0, "trmm_lower trans=%d: %d elements off", trans, off);
        gemm_take_counts(g, &s, &f);
        CHECK(f == (double)n * (n + 1) * w, "trmm_lower counted %.0f FLOPs (want %d)", f, n * (n + 1) * w);
    }
    gemm_take_counts(NULL, &s, &f);
    CHECK(f == 0 && s == 0, "NULL counted something");
    gemm_free(g);
}

/* precision=auto (engine/gemm.h): bf16 exactly where bf16 can run (on
   every machine: the fallback's reason is the bf16 refusal's), f32 and
   bf16 unchanged; a context asked for auto is one of the resolved kind. */
static void precision_auto_resolves(void)
{
    char why[ERR_LEN], reason[ERR_LEN] = "";
    int bf16 = gemm_bf16_available(reason);
    int p = gemm_precision_resolve(PRECISION_AUTO, why);
    CHECK(p == (bf16 ? PRECISION_BF16 : PRECISION_F32), "auto gave %d with bf16 %s", p, bf16 ? "here" : "absent");
    CHECK(!strcmp(why, reason), "auto's reason '%s', bf16's refusal '%s'", why, reason);
    CHECK(gemm_precision_resolve(PRECISION_F32, NULL) == PRECISION_F32, "f32 changed");
    CHECK(gemm_precision_resolve(PRECISION_BF16, NULL) == PRECISION_BF16, "bf16 changed");
    Gemm *g = NULL;
    CHECK(gemm_create(&g, PRECISION_AUTO, why) == 0 && g, "an auto context: %s", why);
    gemm_free(g);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(rounding_is_to_nearest_even);
    RUN(products_are_counted);
    RUN(precision_auto_resolves);
    char why[ERR_LEN] = "";
    int bf16 = gemm_bf16_available(why);
    RUN_IF(bf16, why, products_match_the_references);
    RUN_IF(bf16, why, cache_replacement_keeps_results);
    return check_failures_ ? 1 : 0;
}
