/*
 * bf16_gemm.c — C = op(A) op(B) + beta C with bf16 inputs and float32 sums
 * (bf16_gemm.h), blocked the BLIS way: B is packed in KC x NC blocks of
 * 32-column panels, A in MC x KC blocks of 12-row panels, and a 12 x 32
 * micro-kernel keeps 24 zmm accumulators.
 *
 * `vdpbf16ps acc, a, b` adds a[2i] b[2i] + a[2i+1] b[2i+1] to float lane i,
 * so both operands are packed as k-pairs: one 32-bit word holds the bf16 of
 * (k, k+1) for one row (A) or column (B), k even, the lower k in the low
 * half.  A packed B panel is [K/2][32] words (two zmm loads per k-pair), a
 * packed A panel [K/2][12] words (one broadcast per row and k-pair).  Odd K
 * and the edges of M and N are padded with zeros in the panels.
 *
 * Only the functions below that carry BF16_TARGET use AVX-512 instructions,
 * so the rest of the build keeps its flags; bf16_gemm_supported says
 * whether the CPU has them.
 */
#include "engine/bf16_gemm.h"

#include <assert.h>
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

enum {
    MR = 12,     /* rows of a micro-tile */
    NR = 32,     /* columns of a micro-tile: two zmm of float32 */
    KC = 256,    /* k per block: a B micro-panel is 16 kB, in L1 */
    MC = 96,     /* rows per A block: 48 kB, in L2 */
    NC = 3072,   /* columns per B block: 1.5 MB */
};

int bf16_gemm_supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
}

size_t bf16_gemm_scratch_bytes(void)
{
    return sizeof(uint32_t) * ((size_t)(KC / 2) * NC + (size_t)(KC / 2) * MC);
}

float bf16_round(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7f800000u) == 0x7f800000u) {
        if (bits & 0x007fffffu) bits |= 0x00400000u;   /* NaN stays NaN (quiet) */
    } else {
        bits += 0x7fffu + ((bits >> 16) & 1u);
    }
    bits &= 0xffff0000u;
    memcpy(&x, &bits, sizeof bits);
    return x;
}

/* 16 words, word i = (bf16(lo[i]) low half, bf16(hi[i]) high half). */
BF16_TARGET static inline __m512i pair_words(__m512 lo, __m512 hi)
{
    __m512i l = _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(lo));
    __m512i h = _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(hi));
    return _mm512_or_si512(l, _mm512_slli_epi32(h, 16));
}

static inline __mmask16 first_bits(int n) { return n >= 16 ? 0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1); }

/* One panel of W lines (rows of op(A) or columns of op(B)), lines j0 ..
   j0+valid-1 (the rest zeros), k in [k0, k0+kc) (K ends the data):
   out[p][j] = pair(x(k0+2p, j0+j), x(k0+2p+1, j0+j)), p < ceil(kc/2).
   x(k, j) = src[k ld + j] when k_major, else src[j ld + k]. */
BF16_TARGET static void pack_panel(const float *src, int ld, int k_major, int j0, int valid, int W, int k0, int kc,
                                   int K, uint32_t *out)
{
    int pairs = (kc + 1) / 2;
    if (k_major) {
        for (int p = 0; p < pairs; p++) {
            int k = k0 + 2 * p;
            for (int jj = 0; jj < W; jj += 16) {
                __mmask16 load = first_bits(valid - jj), store = first_bits(W - jj);
                __m512 lo = _mm512_maskz_loadu_ps(load, src + (size_t)k * ld + j0 + jj);
                __m512 hi = k + 1 < K ? _mm512_maskz_loadu_ps(load, src + (size_t)(k + 1) * ld + j0 + jj)
                                      : _mm512_setzero_ps();
                _mm512_mask_storeu_epi32(out + (size_t)p * W + jj, store, pair_words(lo, hi));
            }
        }
        return;
    }
    /* lines along k: 32 floats of one line become 16 words, spread over p */
    uint32_t words[16];
    for (int j = 0; j < W; j++) {
        if (j >= valid) {
            for (int p = 0; p < pairs; p++) out[(size_t)p * W + j] = 0;
            continue;
        }
        const float *line = src + (size_t)(j0 + j) * ld;
        for (int p = 0; p < pairs; p += 16) {
            int k = k0 + 2 * p, left = (k0 + kc < K ? k0 + kc : K) - k;
            __m512 a = _mm512_maskz_loadu_ps(first_bits(left), line + k);
            __m512 b = _mm512_maskz_loadu_ps(first_bits(left - 16), line + k + 16);
            _mm512_storeu_si512(words, (__m512i)_mm512_cvtne2ps_pbh(b, a));
            int n = pairs - p < 16 ? pairs - p : 16;
            for (int i = 0; i < n; i++) out[(size_t)(p + i) * W + j] = words[i];
        }
    }
}

/* c [mr, nr] (mr <= MR, nr <= NR) = a-panel [pairs][MR] . b-panel
   [pairs][NR] + beta c. */
BF16_TARGET static void micro_kernel(int pairs, const uint32_t *a, const uint32_t *b, float *c, int ldc, int mr,
                                     int nr, float beta)
{
    __m512 acc[MR][2];
#pragma GCC unroll 12
    for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int p = 0; p < pairs; p++) {
        __m512bh b0 = (__m512bh)_mm512_load_si512(b + (size_t)p * NR);
        __m512bh b1 = (__m512bh)_mm512_load_si512(b + (size_t)p * NR + 16);
#pragma GCC unroll 12
        for (int r = 0; r < MR; r++) {
            __m512bh av = (__m512bh)_mm512_set1_epi32((int)a[(size_t)p * MR + r]);
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, b1);
        }
    }
    __mmask16 m0 = first_bits(nr), m1 = first_bits(nr - 16);
    __m512 vbeta = _mm512_set1_ps(beta);
    for (int r = 0; r < mr; r++) {
        float *row = c + (size_t)r * ldc;
        __m512 c0 = acc[r][0], c1 = acc[r][1];
        if (beta != 0.0f) {
            c0 = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(m0, row), c0);
            c1 = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(m1, row + 16), c1);
        }
        _mm512_mask_storeu_ps(row, m0, c0);
        _mm512_mask_storeu_ps(row + 16, m1, c1);
    }
}

BF16_TARGET void bf16_gemm(int trans_a, int trans_b, int M, int N, int K, const float *A, int lda, const float *B,
                           int ldb, float beta, float *C, int ldc, void *scratch)
{
    assert(M >= 0 && N >= 0 && K >= 0 && scratch);
    assert(lda >= (trans_a ? M : K) && ldb >= (trans_b ? K : N) && ldc >= N);
    if (K == 0) {
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) C[(size_t)i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[(size_t)i * ldc + j];
        return;
    }
    uint32_t *bpack = scratch, *apack = bpack + (size_t)(KC / 2) * NC;
    for (int jc = 0; jc < N; jc += NC) {
        int nc = N - jc < NC ? N - jc : NC;
        for (int pc = 0; pc < K; pc += KC) {
            int kc = K - pc < KC ? K - pc : KC, pairs = (kc + 1) / 2;
            float block_beta = pc == 0 ? beta : 1.0f;
            /* op(B)[k][j] is B[k ldb + j] (k-major) unless transposed */
            for (int jr = 0; jr < nc; jr += NR)
                pack_panel(B, ldb, !trans_b, jc + jr, nc - jr < NR ? nc - jr : NR, NR, pc, kc, K,
                           bpack + (size_t)jr * pairs);
            for (int ic = 0; ic < M; ic += MC) {
                int mc = M - ic < MC ? M - ic : MC;
                for (int ir = 0; ir < mc; ir += MR)
                    pack_panel(A, lda, trans_a, ic + ir, mc - ir < MR ? mc - ir : MR, MR, pc, kc, K,
                               apack + (size_t)ir * pairs);
                for (int jr = 0; jr < nc; jr += NR)
                    for (int ir = 0; ir < mc; ir += MR)
                        micro_kernel(pairs, apack + (size_t)ir * pairs, bpack + (size_t)jr * pairs,
                                     C + (size_t)(ic + ir) * ldc + jc + jr, ldc, mc - ir < MR ? mc - ir : MR,
                                     nc - jr < NR ? nc - jr : NR, block_beta);
            }
        }
    }
}
