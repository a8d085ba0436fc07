/*
 * blas_core.h — which OpenBLAS kernels run (app/blas_core.c).
 */
#ifndef MIXBENCH_BLAS_CORE_H
#define MIXBENCH_BLAS_CORE_H

#include <stddef.h>

/* "OpenBLAS core NAME" and ", set by OPENBLAS_CORETYPE" when the
   environment chose it; written to buf, which is returned. */
const char *blas_core_describe(char *buf, size_t cap);

#endif
