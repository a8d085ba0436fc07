/*
 * blas_choice.c — the core of blas_choice.h: a fallback of OpenBLAS's
 * kernel choice recognised, and the core the CPU's features allow.
 */
#include "engine/blas_choice.h"

#include <string.h>

unsigned blas_cpu_features(void)
{
    unsigned f = 0;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) f |= CPU_AVX2_FMA;
    if ((f & CPU_AVX2_FMA) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        f |= CPU_AVX512;
    if ((f & CPU_AVX512) && __builtin_cpu_supports("avx512bf16")) f |= CPU_AVX512_BF16;
    return f;
}

const char *blas_core_upgrade(const char *picked, unsigned features)
{
    /* the cores without AVX: what OpenBLAS falls back to, never a fit for
       a CPU with AVX2 */
    static const char *const PRE_AVX[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom"};
    if (!picked || !(features & CPU_AVX2_FMA)) return NULL;
    int generic = 0;
    for (size_t i = 0; i < sizeof PRE_AVX / sizeof PRE_AVX[0]; i++) generic |= !strcmp(picked, PRE_AVX[i]);
    if (!generic) return NULL;
    if (features & CPU_AVX512_BF16) return "Cooperlake";
    if (features & CPU_AVX512) return "SkylakeX";
    return "Haswell";
}
