/*
 * gemm.h — the one matrix product of the engine, in the precision a run
 * asks for (config key `precision`).
 *
 * precision=f32 (the default) is OpenBLAS sgemm.  precision=bf16 rounds both
 * operands to bfloat16 (round to nearest even) and multiplies them with
 * oneDNN's AVX512-BF16 matmul, summing in float32 into a float32 C: the
 * weights, their gradients, the moments and every other operation stay
 * float32 (mixed precision with float32 master weights).  Only the dense
 * products change; which products those are is the same for every
 * architecture: every call of matmul / linear_forward / linear_backward
 * (engine/ops.h) made with a Gemm context.
 *
 * oneDNN (Debian's libdnnl2) is loaded with dlopen when a bf16 context is
 * created, so neither the binary nor an f32 run depends on it.  A context
 * belongs to one thread (the trainer gives each worker its own): it caches
 * one oneDNN primitive per product shape and grows its bf16 operand buffers
 * to the largest product it has seen, so after the first step (and the
 * first evaluation) a step allocates nothing.  oneDNN runs single-threaded
 * inside it: the engine owns the threads.
 *
 * Every context, float32's too, counts the wall time and the FLOPs of the
 * products made through it (gemm_product, and the triangular products
 * that report with gemm_count), so the trainer can say how much of a step
 * is matrix products and at what rate they ran (`mixbench bench`'s
 * "in prods", "prod rate" and "bound" columns).  Two clock reads per
 * product.
 */
#ifndef MIXBENCH_GEMM_H
#define MIXBENCH_GEMM_H

/* PRECISION_AUTO (`precision=auto`) is a request, not a precision: bf16
   where it can run, float32 elsewhere (gemm_precision_resolve).  A job
   resolves it before it records its start, so the store's config_json and
   checkpoint metadata say which one ran. */
enum { PRECISION_F32, PRECISION_BF16, PRECISION_AUTO };

typedef struct Gemm Gemm;

/* A context for `precision`, one per thread.  A PRECISION_F32 context only
   counts (its products are sgemm, as with no context at all: NULL is
   accepted everywhere and counts nothing).  PRECISION_BF16 fails with one
   line when the CPU lacks AVX512-BF16 or libdnnl.so.2 cannot be loaded.
   PRECISION_AUTO is resolved first (gemm_precision_resolve). */
int gemm_create(Gemm **out, int precision, char *err);
void gemm_free(Gemm *g);

/* 1 when precision=bf16 can run here (CPU and oneDNN), else 0 with the
   reason in err. */
int gemm_bf16_available(char *err);

/* The precision `precision` runs in here: PRECISION_AUTO gives
   PRECISION_BF16 when gemm_bf16_available (a CPU with AVX512-BF16, which
   every AMX CPU also has, and libdnnl.so.2) and PRECISION_F32 otherwise;
   f32 and bf16 are returned as they are.  When auto falls back to float32
   and why is non-NULL, the reason goes there (else it is set to ""). */
int gemm_precision_resolve(int precision, char *why);

/* Row-major C = alpha op(A) op(B) + beta C, op(A) [M, K], op(B) [K, N],
   C [M, N], in float32 (OpenBLAS sgemm). */
void gemm_f32(int trans_a, int trans_b, int M, int N, int K, float alpha, const float *A, int lda,
              const float *B, int ldb, float beta, float *C, int ldc);

/* The same with bf16 operands (matmul in engine/ops.h calls it for a
   non-NULL context). */
void gemm_bf16(Gemm *g, int trans_a, int trans_b, int M, int N, int K, float alpha, const float *A, int lda,
              const float *B, int ldb, float beta, float *C, int ldc);

/* Row-major C = alpha op(A) op(B) + beta C in g's precision (sgemm when g
   is NULL or float32), its time and 2 M N K FLOPs counted in g. */
void gemm_product(Gemm *g, int trans_a, int trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc);

/* Counts a product made outside gemm_product: the time from `start`
   (now_seconds()) to now, and `flops`.  NULL g: nothing. */
void gemm_count(Gemm *g, double start, double flops);

/* The seconds and FLOPs counted since the last call (0 for NULL), then
   zeroes them. */
void gemm_take_counts(Gemm *g, double *seconds, double *flops);

/* Products of this context that ran in float32 because oneDNN could not
   make or run their matmul (tests expect 0). */
long gemm_fallbacks(const Gemm *g);

#endif
