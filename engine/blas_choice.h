/*
 * blas_choice.h — the OpenBLAS core to ask for when OpenBLAS did not know
 * this CPU.  Debian's OpenBLAS (built with DYNAMIC_ARCH) picks its kernels
 * from the CPU's model number when it loads; a model newer than the
 * library (0.3.21 and a current Intel Xeon with AVX-512) falls back to the
 * generic Prescott kernels, SSE3 only, about 5x slower at sgemm.  The
 * CPU's feature bits say what it can run, so a pre-AVX pick on a CPU with
 * AVX2 and FMA is that fallback, and the core matching the features is the
 * one OpenBLAS would have picked had it known the model.
 */
#ifndef MIXBENCH_BLAS_CHOICE_H
#define MIXBENCH_BLAS_CHOICE_H

enum {
    CPU_AVX2_FMA = 1,   /* AVX2 and FMA: Haswell's kernels */
    CPU_AVX512 = 2,     /* AVX-512 F, BW, DQ, VL: SkylakeX's */
    CPU_AVX512_BF16 = 4 /* and AVX512-BF16: Cooperlake's */
};

/* This CPU's bits of the above (the OS's support of the registers included). */
unsigned blas_cpu_features(void);

/* The core to ask for instead of picked (openblas_get_corename()), or NULL
   to keep it: only a pre-AVX core (Prescott, Core2, Penryn, Dunnington,
   Nehalem, Atom) on a CPU with at least AVX2 and FMA is replaced, by
   Cooperlake, SkylakeX or Haswell as its features allow. */
const char *blas_core_upgrade(const char *picked, unsigned features);

#endif
