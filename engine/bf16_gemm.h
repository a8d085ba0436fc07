/*
 * bf16_gemm.h — a matrix product with bfloat16 inputs and float32
 * accumulation (AVX512-BF16 `vdpbf16ps`), for measuring whether bf16 would
 * speed training up (`mixbench bench --bf16`).  The operands are float32;
 * each call rounds them to bf16 (round to nearest even) while packing them
 * into cache-sized panels, so its time includes the conversion a bf16
 * training step would pay on its activations.  One thread, no allocation
 * (the caller gives the scratch).
 *
 * Not for: training.  No part of the model runs in bf16 (README, "Beyond
 * float32", says why); matmul (engine/ops.h) is the product the engine uses.
 */
#ifndef MIXBENCH_BF16_GEMM_H
#define MIXBENCH_BF16_GEMM_H

#include <stddef.h>

/* 1 when this CPU executes AVX512-BF16 (and AVX512F/BW/VL), else 0:
   bf16_gemm must not be called then. */
int bf16_gemm_supported(void);

/* Bytes of scratch bf16_gemm needs (any shape: the panels are fixed-size). */
size_t bf16_gemm_scratch_bytes(void);

/* As matmul: row-major C = op(A) op(B) + beta C with op(A) [M, K], op(B)
   [K, N], C [M, N] (alpha is 1); op(A) and op(B) rounded to bf16, products
   summed in float32.  scratch: bf16_gemm_scratch_bytes(), 64-byte aligned. */
void bf16_gemm(int trans_a, int trans_b, int M, int N, int K, const float *A, int lda, const float *B, int ldb,
               float beta, float *C, int ldc, void *scratch);

/* x rounded to the nearest bfloat16 (ties to even) and back to float: the
   value bf16_gemm multiplies (tests build their reference from it). */
float bf16_round(float x);

#endif
