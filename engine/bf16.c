/*
 * bf16.c — float32 to bfloat16, round to nearest even (bf16.h).  Only
 * bf16_convert's loop carries the AVX512-BF16 target (`vcvtne2ps2bf16`),
 * so the rest of the build keeps its flags; bf16_supported says whether
 * the CPU has it.
 */
#include "engine/bf16.h"

#include <immintrin.h>
#include <string.h>

int bf16_supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
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

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
void bf16_convert(uint16_t *dst, const float *src, size_t n)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 lo = _mm512_loadu_ps(src + i), hi = _mm512_loadu_ps(src + i + 16);
        _mm512_storeu_si512((void *)(dst + i), (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
    }
    for (; i < n; i++) {
        float r = bf16_round(src[i]);
        uint32_t bits;
        memcpy(&bits, &r, sizeof bits);
        dst[i] = (uint16_t)(bits >> 16);
    }
}
