/*
 * bf16.h — bfloat16 rounding for precision=bf16 (engine/gemm.h): the
 * conversion of float32 operands before oneDNN multiplies them, and the
 * scalar rounding tests build their references from.
 */
#ifndef MIXBENCH_BF16_H
#define MIXBENCH_BF16_H

#include <stddef.h>
#include <stdint.h>

/* 1 when this CPU executes AVX512-BF16 (and AVX512F/BW/VL), else 0:
   bf16_convert must not be called then. */
int bf16_supported(void);

/* x rounded to the nearest bfloat16 (ties to even; NaN stays NaN) and
   back to float. */
float bf16_round(float x);

/* dst[i] = the bits of bf16_round(src[i]) (the upper half of its float32),
   for i < n.  Only when bf16_supported(). */
void bf16_convert(uint16_t *dst, const float *src, size_t n);

#endif
