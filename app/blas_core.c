/*
 * blas_core.c — names the core whose kernels OpenBLAS runs, and whether
 * the environment chose it, for the bench's header line.
 *
 * OpenBLAS (Debian's is built with DYNAMIC_ARCH) picks its kernels once,
 * when it loads, from the CPU, unless OPENBLAS_CORETYPE names a core.  On
 * this machine OpenBLAS picks Cooperlake (AVX-512 with BF16) by itself,
 * but the session's environment sets OPENBLAS_CORETYPE=Haswell (AVX2),
 * which makes every sgemm about 1.7x slower; mixbench never overrides a
 * user's choice, so the bench says which core ran and who chose it.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cblas.h>

#include "app/blas_core.h"

const char *blas_core_describe(char *buf, size_t cap)
{
    const char *core = openblas_get_corename();
    const char *env = getenv("OPENBLAS_CORETYPE");
    snprintf(buf, cap, "OpenBLAS core %s%s", core ? core : "unknown",
             env && *env ? ", set by OPENBLAS_CORETYPE" : "");
    return buf;
}
