/*
 * test_bf16_gemm.c — engine/bf16_gemm.c against a reference: every
 * transposition, edge sizes (odd K, M and N off the 12 x 32 tile, more than
 * one K, M and N block), beta 0, 1 and 0.5, leading dimensions larger than
 * the matrix.  The reference is the double-precision product of the inputs
 * rounded to bf16 (bf16_round), which bf16_gemm must match to float32
 * summation error; and matmul (OpenBLAS sgemm) on the unrounded inputs,
 * which it must match within bf16's rounding (2^-8 relative per product).
 * Skipped on a CPU without AVX512-BF16.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/bf16_gemm.h"
#include "engine/ops.h"
#include "engine/rng.h"
#include "tests/check.h"

/* One product of the given shape; returns the number of elements off. */
static int check_shape(int ta, int tb, int M, int N, int K, float beta, void *scratch)
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
    bf16_gemm(ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc, scratch);
    matmul(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, sg, ldc);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc; j++) {
            size_t at = (size_t)i * ldc + j;
            if (j >= N) {   /* past the last column: untouched */
                bad += C[at] != C0[at];
                continue;
            }
            double exact = (double)beta * C0[at], mag = fabs((double)beta * C0[at]);
            for (int k = 0; k < K; k++) {
                float a = ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
                float b = tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
                exact += (double)bf16_round(a) * bf16_round(b);
                mag += fabs((double)a * b);
            }
            /* float32 sums of exact products; bf16 rounds each input by
               at most 2^-9 relative, a product by about 2^-8 */
            double off_exact = fabs(C[at] - exact), off_sgemm = fabs(C[at] - sg[at]);
            if (off_exact > 1e-6 * (mag + 1) * (1 + K / 64.0) || off_sgemm > mag / 128.0 + 1e-5) {
                if (bad < 3)
                    printf("  %s%s M %d N %d K %d beta %g: C[%d][%d] = %.7g, bf16 reference %.7g, sgemm %.7g\n",
                           ta ? "T" : "N", tb ? "T" : "N", M, N, K, beta, i, j, C[at], exact, sg[at]);
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
    void *scratch = aligned_alloc(64, bf16_gemm_scratch_bytes());
    int shapes[][3] = {{1, 1, 1}, {12, 32, 2}, {13, 33, 3}, {7, 100, 257}, {97, 65, 513}, {40, 3100, 20}, {25, 17, 600}};
    float betas[] = {0.0f, 1.0f, 0.5f};
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
        for (int t = 0; t < 4; t++) {
            int bad = check_shape(t & 1, t >> 1, shapes[s][0], shapes[s][1], shapes[s][2], betas[(s + t) % 3], scratch);
            CHECK(bad == 0, "%d elements off", bad);
        }
    free(scratch);
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

int main(void)
{
    RUN(rounding_is_to_nearest_even);
    RUN_IF(bf16_gemm_supported(), "this CPU has no AVX512-BF16", products_match_the_references);
    return check_failures_ ? 1 : 0;
}
