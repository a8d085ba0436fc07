/*
 * tests/engine/bench_gemm_libs.c — a standalone measurement, not part of the build: the
 * float32 products of mixbench's training step (configs P, S, M of `mixbench
 * bench`) through OpenBLAS sgemm as the engine calls it, oneDNN's matmul
 * with post-ops, libxsmm's JIT kernels and BLIS's sgemm (no epilogues: the
 * engine's passes around it), one thread, each shape's four
 * timed alternately (median of 31 rounds, the other three as the median of
 * their per-round ratio to OpenBLAS), with each result's largest relative
 * difference from OpenBLAS's.  docs/speed.md ("Libraries for fused
 * epilogues") holds what it gave and what was adopted.
 *
 *   F  y = x W^T + b            (OpenBLAS: bias rows, sgemm beta 1; oneDNN:
 *                                bias argument; libxsmm: W^T copied, then
 *                                32-row tiles, bias per tile)
 *   R  y = r + x W^T + b        (OpenBLAS: F then a residual pass; oneDNN:
 *                                a binary-add post-op; libxsmm: r + b per tile)
 *   DX dx = dy W                (NN; libxsmm: 32-row tiles)
 *   DW dW += dy^T x             (oneDNN: a sum post-op; libxsmm: one kernel, B
 *                                transposed)
 *
 * Build and run (needs libdnnl-dev, libxsmm-dev and libblis-dev):
 *   cc -O2 -march=native -o /tmp/bench_gemm_libs tests/engine/bench_gemm_libs.c -lopenblas -ldnnl \
 *      -lxsmm -lxsmmnoblas -lblis -lpthread -lrt -ldl -lm
 *   env -u OPENBLAS_CORETYPE OMP_NUM_THREADS=1 BLIS_NUM_THREADS=1 /tmp/bench_gemm_libs
 */
#include <cblas.h>
#include <libxsmm.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* BLIS's typed API (libblis-dev ships no header): general strides, so a
   transposed operand is its strides swapped; trans_t 0 = no transpose */
void bli_sgemm(int transa, int transb, int64_t m, int64_t n, int64_t k, const float *alpha, const float *a,
               int64_t rsa, int64_t csa, const float *b, int64_t rsb, int64_t csb, const float *beta, float *c,
               int64_t rsc, int64_t csc);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
#define REPS 31
static double tA[REPS], tB[REPS], tC[REPS], tD[REPS];
static double med(double *v) { double c[REPS]; memcpy(c, v, sizeof c); qsort(c, REPS, 8, cmpd); return c[REPS / 2]; }
static double medratio(double *a, double *b) { double c[REPS]; for (int i = 0; i < REPS; i++) c[i] = a[i] / b[i]; qsort(c, REPS, 8, cmpd); return c[REPS / 2]; }
#define T1(arr, stmt) do { double t0_ = now(); stmt; if (r_ >= 0) arr[r_] = now() - t0_; } while (0)
static float *rnd(size_t n) { float *p = aligned_alloc(64, ((n * 4 + 63) / 64) * 64); for (size_t i = 0; i < n; i++) p[i] = (float)rand() / RAND_MAX - 0.5f; return p; }
static dnnl_engine_t eng; static dnnl_stream_t strm;
typedef struct { dnnl_primitive_t p; dnnl_memory_t a, b, c, bias, r; } Dn;
/* C[M,N] = op(A) op(B) (+bias[N]) (+R[M,N]) (+= C if acc), row-major; ta: A stored [K,M] */
static void dn_make(Dn *d, int ta, int tb, int M, int N, int K, int bias, int resid, int acc)
{
    dnnl_memory_desc_t am, bm, cm, biasm, rm;
    dnnl_dims_t ad = {M, K}, as = {ta ? 1 : K, ta ? M : 1}, bd = {K, N}, bs = {tb ? 1 : N, tb ? K : 1}, cd = {M, N}, cs = {N, 1};
    dnnl_memory_desc_init_by_strides(&am, 2, ad, dnnl_f32, as);
    dnnl_memory_desc_init_by_strides(&bm, 2, bd, dnnl_f32, bs);
    dnnl_memory_desc_init_by_strides(&cm, 2, cd, dnnl_f32, cs);
    dnnl_dims_t bid = {1, N}, bis = {N, 1};
    dnnl_memory_desc_init_by_strides(&biasm, 2, bid, dnnl_f32, bis);
    dnnl_memory_desc_init_by_strides(&rm, 2, cd, dnnl_f32, cs);
    dnnl_matmul_desc_t md;
    dnnl_matmul_desc_init(&md, &am, &bm, bias ? &biasm : NULL, &cm);
    dnnl_primitive_attr_t attr; dnnl_primitive_attr_create(&attr);
    dnnl_post_ops_t po; dnnl_post_ops_create(&po);
    if (acc) dnnl_post_ops_append_sum(po, 1.0f);
    if (resid) dnnl_post_ops_append_binary(po, dnnl_binary_add, &rm);
    dnnl_primitive_attr_set_post_ops(attr, po);
    dnnl_primitive_desc_t pd;
    if (dnnl_primitive_desc_create(&pd, &md, attr, eng, NULL) != dnnl_success) { puts("onednn pd fail"); exit(1); }
    dnnl_primitive_create(&d->p, pd);
    dnnl_memory_create(&d->a, &am, eng, DNNL_MEMORY_NONE); dnnl_memory_create(&d->b, &bm, eng, DNNL_MEMORY_NONE);
    dnnl_memory_create(&d->c, &cm, eng, DNNL_MEMORY_NONE); dnnl_memory_create(&d->bias, &biasm, eng, DNNL_MEMORY_NONE);
    dnnl_memory_create(&d->r, &rm, eng, DNNL_MEMORY_NONE);
}
static void dn_run(Dn *d, const float *A, const float *B, float *C, const float *bias, const float *R)
{
    dnnl_memory_set_data_handle(d->a, (void *)A); dnnl_memory_set_data_handle(d->b, (void *)B);
    dnnl_memory_set_data_handle(d->c, C);
    dnnl_exec_arg_t args[5] = {{DNNL_ARG_SRC, d->a}, {DNNL_ARG_WEIGHTS, d->b}, {DNNL_ARG_DST, d->c}};
    int n = 3;
    if (bias) { dnnl_memory_set_data_handle(d->bias, (void *)bias); args[n++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, d->bias}; }
    if (R) { dnnl_memory_set_data_handle(d->r, (void *)R); args[n++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, d->r}; }
    dnnl_primitive_execute(d->p, strm, n, args);
}
static void transpose(float *dst, const float *src, int R, int C) /* src [R,C] -> dst [C,R] */
{
    for (int i0 = 0; i0 < R; i0 += 32) for (int j0 = 0; j0 < C; j0 += 32)
        for (int i = i0; i < i0 + 32 && i < R; i++) for (int j = j0; j < j0 + 32 && j < C; j++) dst[(size_t)j * R + i] = src[(size_t)i * C + j];
}
static double maxrel(const float *a, const float *b, size_t n) { double m = 0; for (size_t i = 0; i < n; i++) { double e = fabs(a[i] - b[i]) / (1 + fabs(b[i])); if (e > m) m = e; } return m; }
int main(int argc, char **argv)
{
    openblas_set_num_threads(1); libxsmm_init();
    dnnl_engine_create(&eng, dnnl_cpu, 0); dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    int shapes[][4] = { /* config, N rows, n_in, n_out */
        {'P', 512, 128, 512}, {'P', 512, 512, 128}, {'P', 512, 128, 128}, {'P', 512, 128, 4096}, {'P', 64, 128, 512},
        {'S', 2048, 256, 1024}, {'S', 2048, 1024, 256}, {'S', 2048, 256, 256},
        {'M', 2048, 512, 2048}, {'M', 2048, 2048, 512}, {'M', 2048, 512, 512}};
    printf("cfg  N      in   out | op  openblas_us  onednn_us (x)  libxsmm_us (x)  blis_us (x) | maxrel dnn xsmm blis\n");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int N = shapes[s][1], NI = shapes[s][2], NO = shapes[s][3];
        float *x = rnd((size_t)N * NI), *w = rnd((size_t)NO * NI), *b = rnd(NO), *res = rnd((size_t)N * NO), *dy = rnd((size_t)N * NO);
        float *y0 = rnd((size_t)N * NO), *y1 = rnd((size_t)N * NO), *y2 = rnd((size_t)N * NO), *wt = rnd((size_t)NO * NI);
        float *dx0 = rnd((size_t)N * NI), *dx1 = rnd((size_t)N * NI), *dx2 = rnd((size_t)N * NI), *dx3 = rnd((size_t)N * NI);
        float *y3 = rnd((size_t)N * NO), *dw3 = calloc((size_t)NO * NI, 4);
        float *dw0 = calloc((size_t)NO * NI, 4), *dw1 = calloc((size_t)NO * NI, 4), *dw2 = calloc((size_t)NO * NI, 4);
        double tb, td, tx;
        /* F: y = x W^T + b, then s = res + y (R) */
        const char *ops[] = {"F", "R", "DX", "DW"};
        for (int op = 0; op < 4; op++) {
            Dn d;
            int bn = 32; /* libxsmm row tile */
            libxsmm_smmfunction kx = NULL;
            float one = 1, zero = 0; int fl = 0, pf = LIBXSMM_PREFETCH_NONE;
            if (op <= 1) {
                dn_make(&d, 0, 1, N, NO, NI, 1, op == 1, 0);
                libxsmm_blasint m = NO, n = bn, k = NI, lda = NO, ldb = NI, ldc = NO;
                kx = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &one, &one, &fl, &pf);
                for (int r_ = -3; r_ < REPS; r_++) {
                T1(tA, { for (int i = 0; i < N; i++) memcpy(y0 + (size_t)i * NO, b, 4 * NO);
                           cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, NO, NI, 1, x, NI, w, NI, 1, y0, NO);
                           if (op == 1) for (size_t i = 0; i < (size_t)N * NO; i++) y0[i] += res[i]; });
                T1(tB, dn_run(&d, x, w, y1, b, op == 1 ? res : NULL));
                if (kx) T1(tC, { transpose(wt, w, NO, NI);
                    for (int r0 = 0; r0 < N; r0 += bn) { float *yt = y2 + (size_t)r0 * NO;
                        for (int i = 0; i < bn; i++) { float *yr = yt + (size_t)i * NO; const float *rr = res + ((size_t)r0 + i) * NO;
                            if (op == 1) for (int o = 0; o < NO; o++) yr[o] = b[o] + rr[o]; else memcpy(yr, b, 4 * NO); }
                        kx(wt, x + (size_t)r0 * NI, yt); } });
                T1(tD, { for (int i = 0; i < N; i++) memcpy(y3 + (size_t)i * NO, b, 4 * NO);
                         bli_sgemm(0, 0, N, NO, NI, &one, x, NI, 1, w, 1, NI, &one, y3, NO, 1);
                         if (op == 1) for (size_t i = 0; i < (size_t)N * NO; i++) y3[i] += res[i]; });
                }
            } else if (op == 2) {
                dn_make(&d, 0, 0, N, NI, NO, 0, 0, 0);
                libxsmm_blasint m = NI, n = bn, k = NO, lda = NI, ldb = NO, ldc = NI; int f0 = LIBXSMM_GEMM_FLAG_BETA_0;
                kx = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &one, &zero, &f0, &pf);
                for (int r_ = -3; r_ < REPS; r_++) {
                T1(tA, cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, NI, NO, 1, dy, NO, w, NI, 0, dx0, NI));
                T1(tB, dn_run(&d, dy, w, dx1, NULL, NULL));
                if (kx) T1(tC, { for (int r0 = 0; r0 < N; r0 += bn) kx(w, dy + (size_t)r0 * NO, dx2 + (size_t)r0 * NI); });
                T1(tD, bli_sgemm(0, 0, N, NI, NO, &one, dy, NO, 1, w, NI, 1, &zero, dx3, NI, 1));
                }
            } else {
                dn_make(&d, 1, 0, NO, NI, N, 0, 0, 1);
                /* dW_cm [NI x NO] += x_cm [NI x N] . dy_cm^T [N x NO]: trans B */
                libxsmm_blasint m = NI, n = NO, k = N, lda = NI, ldb = NO, ldc = NI; int ft = LIBXSMM_GEMM_FLAG_TRANS_B;
                kx = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &one, &one, &ft, &pf);
                memset(dw0, 0, 4 * (size_t)NO * NI); memset(dw1, 0, 4 * (size_t)NO * NI); memset(dw2, 0, 4 * (size_t)NO * NI); memset(dw3, 0, 4 * (size_t)NO * NI);
                for (int r_ = -3; r_ < REPS; r_++) {
                T1(tA, cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, NO, NI, N, 1, dy, NO, x, NI, 1, dw0, NI));
                T1(tB, dn_run(&d, dy, x, dw1, NULL, NULL));
                if (kx) T1(tC, kx(x, dy, dw2));
                T1(tD, bli_sgemm(0, 0, NO, NI, N, &one, dy, 1, NO, x, NI, 1, &one, dw3, NI, 1));
                }
            }
            tb = med(tA); td = tb / medratio(tA, tB); tx = kx ? tb / medratio(tA, tC) : 0;
            double tl = tb / medratio(tA, tD);
            float *r0 = op <= 1 ? y0 : op == 2 ? dx0 : dw0, *r1 = op <= 1 ? y1 : op == 2 ? dx1 : dw1, *r2 = op <= 1 ? y2 : op == 2 ? dx2 : dw2;
            float *r3 = op <= 1 ? y3 : op == 2 ? dx3 : dw3;
            size_t n = op <= 1 ? (size_t)N * NO : op == 2 ? (size_t)N * NI : (size_t)NO * NI;
            printf("%c %5d %5d %5d | %-3s %10.1f %10.1f (%.2f) %10.1f (%.2f) %10.1f (%.2f) | %.1e %.1e %.1e\n", shapes[s][0], N,
                   NI, NO, ops[op], tb * 1e6, td * 1e6, tb / td, kx ? tx * 1e6 : 0.0, kx ? tb / tx : 0.0, tl * 1e6, tb / tl,
                   maxrel(r1, r0, n), kx ? maxrel(r2, r0, n) : -1.0, maxrel(r3, r0, n));
            fflush(stdout);
            dnnl_primitive_destroy(d.p);
        }
    }
    return 0;
}
