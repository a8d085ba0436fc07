/*
 * blas_core.c — names the core whose kernels OpenBLAS runs, and whether
 * the environment chose it, for the bench's header line.
 *
 * OpenBLAS (Debian's is built with DYNAMIC_ARCH) picks its kernels once,
 * when it loads, from the CPU, unless OPENBLAS_CORETYPE names a core.  On
 * this machine OpenBLAS picks Cooperlake (AVX-512 with BF16) by itself,
 * but the session's environment sets OPENBLAS_CORETYPE=Haswell (AVX2),
 * which makes every sgemm about 1.7x slower; mixbench never overrides a
 * user's choice, so the bench says which core ran and who chose it.  On a
 * CPU OpenBLAS did not know (an Intel Xeon with AVX-512 and 0.3.21) it
 * falls back to Prescott; app/main.c then chose the core itself
 * (engine/blas_choice.h) and left MIXBENCH_BLAS_FALLBACK naming the
 * fallback, which the line says too.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cblas.h>

#include "app/blas_core.h"

const char *blas_core_describe(char *buf, size_t cap)
{
    const char *core = openblas_get_corename();
    const char *env = getenv("OPENBLAS_CORETYPE"), *fallback = getenv("MIXBENCH_BLAS_FALLBACK");
    if (env && *env && fallback && *fallback)
        snprintf(buf, cap, "OpenBLAS core %s, chosen by mixbench from the CPU's features: OpenBLAS picked %s",
                 core ? core : "unknown", fallback);
    else
        snprintf(buf, cap, "OpenBLAS core %s%s", core ? core : "unknown",
                 env && *env ? ", set by OPENBLAS_CORETYPE" : "");
    return buf;
}
