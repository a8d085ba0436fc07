/*
 * gemm.c — precision=bf16 products through oneDNN (gemm.h).
 *
 * Each product converts op(A)'s and op(B)'s stored float32 rows to bf16
 * (engine/bf16.c, round to nearest even) into compact buffers that keep
 * the storage order, so a transposed operand stays a transposed operand:
 * oneDNN reads it through the strides of its memory descriptor.  alpha is oneDNN's output scale and beta a sum post-op, so
 * C = alpha op(A) op(B) + beta C in one pass with float32 sums.
 *
 * Creating a oneDNN matmul costs about a millisecond, so a context keeps one
 * per product shape (GEMM_CACHE of them, the oldest replaced when full) with
 * its memory objects, whose data pointers are set on every call.  The
 * scratchpad is the context's (oneDNN's user mode), grown like the operand
 * buffers to the largest need seen.  The oneDNN functions are looked up
 * with dlsym in libdnnl.so.2 and kept per context (no global state).
 */
#include "engine/gemm.h"

#include <assert.h>
#include <cblas.h>
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bf16.h"
#include "engine/common.h"

#define GEMM_CACHE 96

typedef struct {
    dnnl_status_t (*engine_create)(dnnl_engine_t *, dnnl_engine_kind_t, size_t);
    dnnl_status_t (*engine_destroy)(dnnl_engine_t);
    dnnl_status_t (*stream_create)(dnnl_stream_t *, dnnl_engine_t, unsigned);
    dnnl_status_t (*stream_destroy)(dnnl_stream_t);
    dnnl_status_t (*desc_by_strides)(dnnl_memory_desc_t *, int, const dnnl_dims_t, dnnl_data_type_t,
                                     const dnnl_dims_t);
    size_t (*desc_size)(const dnnl_memory_desc_t *);
    dnnl_status_t (*attr_create)(dnnl_primitive_attr_t *);
    dnnl_status_t (*attr_destroy)(dnnl_primitive_attr_t);
    dnnl_status_t (*attr_scratchpad)(dnnl_primitive_attr_t, dnnl_scratchpad_mode_t);
    dnnl_status_t (*attr_scales)(dnnl_primitive_attr_t, dnnl_dim_t, int, const float *);
    dnnl_status_t (*attr_post_ops)(dnnl_primitive_attr_t, const_dnnl_post_ops_t);
    dnnl_status_t (*post_ops_create)(dnnl_post_ops_t *);
    dnnl_status_t (*post_ops_destroy)(dnnl_post_ops_t);
    dnnl_status_t (*post_ops_sum)(dnnl_post_ops_t, float);
    dnnl_status_t (*matmul_desc)(dnnl_matmul_desc_t *, const dnnl_memory_desc_t *, const dnnl_memory_desc_t *,
                                 const dnnl_memory_desc_t *, const dnnl_memory_desc_t *);
    dnnl_status_t (*pd_create)(dnnl_primitive_desc_t *, const_dnnl_op_desc_t, const_dnnl_primitive_attr_t,
                               dnnl_engine_t, const_dnnl_primitive_desc_t);
    dnnl_status_t (*pd_destroy)(dnnl_primitive_desc_t);
    const dnnl_memory_desc_t *(*pd_query_md)(const_dnnl_primitive_desc_t, dnnl_query_t, int);
    dnnl_status_t (*prim_create)(dnnl_primitive_t *, const_dnnl_primitive_desc_t);
    dnnl_status_t (*prim_destroy)(dnnl_primitive_t);
    dnnl_status_t (*prim_execute)(const_dnnl_primitive_t, dnnl_stream_t, int, const dnnl_exec_arg_t *);
    dnnl_status_t (*mem_create)(dnnl_memory_t *, const dnnl_memory_desc_t *, dnnl_engine_t, void *);
    dnnl_status_t (*mem_destroy)(dnnl_memory_t);
    dnnl_status_t (*mem_set_handle)(dnnl_memory_t, void *);
    void (*omp_set_num_threads)(int);
} DnnlFns;

typedef struct {
    int key[6];                 /* trans_a, trans_b, M, N, K, ldc */
    float alpha, beta;
    dnnl_primitive_t prim;
    dnnl_memory_t a, b, c, scratch;
    size_t scratch_bytes;
    unsigned long used;         /* call counter at last use (oldest is replaced) */
} Entry;

struct Gemm {
    int precision;
    double seconds, flops;      /* in this context's products since gemm_take_counts */
    void *lib;
    DnnlFns f;
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    Entry cache[GEMM_CACHE];
    int n_cache;
    unsigned long calls;
    long fallbacks;
    uint16_t *a16, *b16;        /* bf16 operands */
    size_t a_cap, b_cap;        /* their capacities, elements */
    void *scratch;
    size_t scratch_cap;
};

static int load(Gemm *g, char *err)
{
    g->lib = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!g->lib)
        return err_set(err, "precision=bf16 needs oneDNN, and libdnnl.so.2 cannot be loaded (%s): "
                            "install libdnnl2 (make deps)", dlerror());
    const DlSym syms[] = {
        {"dnnl_engine_create", (void **)&g->f.engine_create},
        {"dnnl_engine_destroy", (void **)&g->f.engine_destroy},
        {"dnnl_stream_create", (void **)&g->f.stream_create},
        {"dnnl_stream_destroy", (void **)&g->f.stream_destroy},
        {"dnnl_memory_desc_init_by_strides", (void **)&g->f.desc_by_strides},
        {"dnnl_memory_desc_get_size", (void **)&g->f.desc_size},
        {"dnnl_primitive_attr_create", (void **)&g->f.attr_create},
        {"dnnl_primitive_attr_destroy", (void **)&g->f.attr_destroy},
        {"dnnl_primitive_attr_set_scratchpad_mode", (void **)&g->f.attr_scratchpad},
        {"dnnl_primitive_attr_set_output_scales", (void **)&g->f.attr_scales},
        {"dnnl_primitive_attr_set_post_ops", (void **)&g->f.attr_post_ops},
        {"dnnl_post_ops_create", (void **)&g->f.post_ops_create},
        {"dnnl_post_ops_destroy", (void **)&g->f.post_ops_destroy},
        {"dnnl_post_ops_append_sum", (void **)&g->f.post_ops_sum},
        {"dnnl_matmul_desc_init", (void **)&g->f.matmul_desc},
        {"dnnl_primitive_desc_create", (void **)&g->f.pd_create},
        {"dnnl_primitive_desc_destroy", (void **)&g->f.pd_destroy},
        {"dnnl_primitive_desc_query_md", (void **)&g->f.pd_query_md},
        {"dnnl_primitive_create", (void **)&g->f.prim_create},
        {"dnnl_primitive_destroy", (void **)&g->f.prim_destroy},
        {"dnnl_primitive_execute", (void **)&g->f.prim_execute},
        {"dnnl_memory_create", (void **)&g->f.mem_create},
        {"dnnl_memory_destroy", (void **)&g->f.mem_destroy},
        {"dnnl_memory_set_data_handle", (void **)&g->f.mem_set_handle},
        /* oneDNN's OpenMP runtime (Debian builds it with libgomp) */
        {"omp_set_num_threads", (void **)&g->f.omp_set_num_threads},
    };
    const char *missing = dl_bind(g->lib, syms, sizeof syms / sizeof syms[0]);
    if (missing)
        return err_set(err, "libdnnl.so.2 has no %s: precision=bf16 needs oneDNN 2.x built with OpenMP", missing);
    return 0;
}

int gemm_bf16_available(char *err)
{
    Gemm *g = NULL;
    if (gemm_create(&g, PRECISION_BF16, err)) return 0;
    gemm_free(g);
    return 1;
}

int gemm_precision_resolve(int precision, char *why)
{
    assert(precision == PRECISION_F32 || precision == PRECISION_BF16 || precision == PRECISION_AUTO);
    char reason[ERR_LEN] = "";
    if (precision == PRECISION_AUTO) precision = gemm_bf16_available(reason) ? PRECISION_BF16 : PRECISION_F32;
    if (why) snprintf(why, ERR_LEN, "%s", reason);
    return precision;
}

int gemm_create(Gemm **out, int precision, char *err)
{
    *out = NULL;
    precision = gemm_precision_resolve(precision, NULL);
    if (precision == PRECISION_F32) {
        Gemm *g = calloc(1, sizeof *g);   /* counters only: the products are sgemm */
        if (!g) return err_set(err, "out of memory");
        *out = g;
        return 0;
    }
    if (!bf16_supported())
        return err_set(err, "precision=bf16 needs a CPU with AVX512-BF16, and this one has not");
    Gemm *g = calloc(1, sizeof *g);
    if (!g) return err_set(err, "out of memory");
    g->precision = PRECISION_BF16;
    if (load(g, err)) {
        gemm_free(g);
        return -1;
    }
    if (g->f.engine_create(&g->engine, dnnl_cpu, 0) != dnnl_success ||
        g->f.stream_create(&g->stream, g->engine, dnnl_stream_default_flags) != dnnl_success) {
        gemm_free(g);
        return err_set(err, "oneDNN cannot create its CPU engine");
    }
    *out = g;
    return 0;
}

static void entry_clear(Gemm *g, Entry *e)
{
    if (e->prim) g->f.prim_destroy(e->prim);
    dnnl_memory_t mems[4] = {e->a, e->b, e->c, e->scratch};
    for (int i = 0; i < 4; i++)
        if (mems[i]) g->f.mem_destroy(mems[i]);
    memset(e, 0, sizeof *e);
}

void gemm_free(Gemm *g)
{
    if (!g) return;
    for (int i = 0; i < g->n_cache; i++) entry_clear(g, &g->cache[i]);
    if (g->stream) g->f.stream_destroy(g->stream);
    if (g->engine) g->f.engine_destroy(g->engine);
    if (g->lib) dlclose(g->lib);
    free(g->a16);
    free(g->b16);
    free(g->scratch);
    free(g);
}

/* The matmul for one shape (key: trans_a, trans_b, M, N, K, ldc): op(A)
   [M, K] and op(B) [K, N] read from their compact bf16 copies through
   strides (a transposed copy is read column-wise), C [M, N] row-major with
   ldc; alpha and beta as given.  0 on success. */
static int entry_make(Gemm *g, Entry *e, const int key[6], float alpha, float beta)
{
    int ta = key[0], tb = key[1], M = key[2], N = key[3], K = key[4], ldc = key[5];
    int lda = ta ? M : K, ldb = tb ? K : N;   /* the compact bf16 copies */
    dnnl_dims_t ad = {M, K}, bd = {K, N}, cd = {M, N};
    dnnl_dims_t as = {ta ? 1 : lda, ta ? lda : 1}, bs = {tb ? 1 : ldb, tb ? ldb : 1}, cs = {ldc, 1};
    dnnl_memory_desc_t amd, bmd, cmd;
    if (g->f.desc_by_strides(&amd, 2, ad, dnnl_bf16, as) || g->f.desc_by_strides(&bmd, 2, bd, dnnl_bf16, bs) ||
        g->f.desc_by_strides(&cmd, 2, cd, dnnl_f32, cs))
        return -1;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd = NULL;
    int rc = -1;
    if (g->f.attr_create(&attr) || g->f.attr_scratchpad(attr, dnnl_scratchpad_mode_user)) goto done;
    if (alpha != 1.0f && g->f.attr_scales(attr, 1, 0, &alpha)) goto done;
    if (beta != 0.0f &&
        (g->f.post_ops_create(&po) || g->f.post_ops_sum(po, beta) || g->f.attr_post_ops(attr, po)))
        goto done;
    if (g->f.matmul_desc(&md, &amd, &bmd, NULL, &cmd) || g->f.pd_create(&pd, &md, attr, g->engine, NULL))
        goto done;
    const dnnl_memory_desc_t *smd = g->f.pd_query_md(pd, dnnl_query_scratchpad_md, 0);
    memcpy(e->key, key, sizeof e->key);
    e->alpha = alpha;
    e->beta = beta;
    e->scratch_bytes = smd ? g->f.desc_size(smd) : 0;
    if (g->f.prim_create(&e->prim, pd) || g->f.mem_create(&e->a, &amd, g->engine, DNNL_MEMORY_NONE) ||
        g->f.mem_create(&e->b, &bmd, g->engine, DNNL_MEMORY_NONE) ||
        g->f.mem_create(&e->c, &cmd, g->engine, DNNL_MEMORY_NONE) ||
        (e->scratch_bytes && g->f.mem_create(&e->scratch, smd, g->engine, DNNL_MEMORY_NONE)))
        goto done;
    rc = 0;
done:
    if (pd) g->f.pd_destroy(pd);
    if (po) g->f.post_ops_destroy(po);
    if (attr) g->f.attr_destroy(attr);
    if (rc) entry_clear(g, e);
    return rc;
}

static Entry *entry_find(Gemm *g, const int key[6], float alpha, float beta)
{
    g->calls++;
    for (int i = 0; i < g->n_cache; i++) {
        Entry *e = &g->cache[i];
        if (!memcmp(e->key, key, sizeof e->key) && e->alpha == alpha && e->beta == beta) {
            e->used = g->calls;
            return e;
        }
    }
    Entry *e = &g->cache[g->n_cache < GEMM_CACHE ? g->n_cache++ : 0];
    for (int i = 0; i < g->n_cache; i++)
        if (g->cache[i].used < e->used) e = &g->cache[i];
    entry_clear(g, e);
    if (entry_make(g, e, key, alpha, beta)) return NULL;
    e->used = g->calls;
    return e;
}

/* buf grown to hold n elements of size `size` (64-byte aligned); 0 on success */
static int grow(void **buf, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap) return 0;
    void *p = aligned_alloc(64, (n * size + 63) / 64 * 64);
    if (!p) return -1;
    free(*buf);
    *buf = p;
    *cap = n;
    return 0;
}

/* rows x cols stored with leading dimension ld -> compact bf16 [rows, cols] */
static void convert(uint16_t *dst, const float *src, int rows, int cols, int ld)
{
    if (ld == cols) {
        bf16_convert(dst, src, (size_t)rows * cols);
        return;
    }
    for (int r = 0; r < rows; r++) bf16_convert(dst + (size_t)r * cols, src + (size_t)r * ld, (size_t)cols);
}

void gemm_bf16(Gemm *g, int trans_a, int trans_b, int M, int N, int K, float alpha, const float *A, int lda,
               const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M == 0 || N == 0) return;
    /* stored A: trans_a ? [K, M] : [M, K]; stored B: trans_b ? [N, K] : [K, N] */
    int a_rows = trans_a ? K : M, a_cols = trans_a ? M : K;
    int b_rows = trans_b ? N : K, b_cols = trans_b ? K : N;
    int key[6] = {trans_a, trans_b, M, N, K, ldc};
    Entry *e = K > 0 ? entry_find(g, key, alpha, beta) : NULL;
    if (!e || grow((void **)&g->a16, &g->a_cap, (size_t)a_rows * a_cols, 2) ||
        grow((void **)&g->b16, &g->b_cap, (size_t)b_rows * b_cols, 2) ||
        grow(&g->scratch, &g->scratch_cap, e->scratch_bytes, 1)) {
        /* K == 0 (C = beta C), or oneDNN refused the shape, or no memory:
           the float32 product keeps the numbers right, and is counted */
        g->fallbacks += K > 0;
        gemm_f32(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    convert(g->a16, A, a_rows, a_cols, lda);
    convert(g->b16, B, b_rows, b_cols, ldb);
    g->f.mem_set_handle(e->a, g->a16);
    g->f.mem_set_handle(e->b, g->b16);
    g->f.mem_set_handle(e->c, C);
    int n_args = 3;
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, e->a}, {DNNL_ARG_WEIGHTS, e->b}, {DNNL_ARG_DST, e->c}};
    if (e->scratch) {
        g->f.mem_set_handle(e->scratch, g->scratch);
        args[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, e->scratch};
    }
    g->f.omp_set_num_threads(1);   /* this thread's OpenMP setting: oneDNN runs on the caller only */
    if (g->f.prim_execute(e->prim, g->stream, n_args, args) != dnnl_success) {
        g->fallbacks++;
        gemm_f32(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }
}

long gemm_fallbacks(const Gemm *g) { return g ? g->fallbacks : 0; }

void gemm_product(Gemm *g, int trans_a, int trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc)
{
    if (!g) {
        gemm_f32(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    double start = now_seconds();
    if (g->precision == PRECISION_BF16)
        gemm_bf16(g, trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        gemm_f32(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    gemm_count(g, start, 2.0 * M * N * K);
}

void gemm_count(Gemm *g, double start, double flops)
{
    if (!g) return;
    g->seconds += now_seconds() - start;
    g->flops += flops;
}

void gemm_take_counts(Gemm *g, double *seconds, double *flops)
{
    *seconds = g ? g->seconds : 0.0;
    *flops = g ? g->flops : 0.0;
    if (g) g->seconds = g->flops = 0.0;
}

void gemm_f32(int trans_a, int trans_b, int M, int N, int K, float alpha, const float *A, int lda,
              const float *B, int ldb, float beta, float *C, int ldc)
{
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, M, N, K,
                alpha, A, lda, B, ldb, beta, C, ldc);
}
