/*
 * test_alloc.c — a training step allocates nothing: malloc, calloc, realloc
 * and aligned_alloc are wrapped at link time (see the Makefile) and counted
 * while steps run, for attention, mixer and pairconnect (sparse-row
 * gradients), one and two threads, with dropout, and with precision=bf16
 * (after a first step and evaluation: oneDNN's own allocations inside
 * libdnnl are not wrapped, only ours); and generation and the
 * batch-1 inference forward allocate nothing per token or per window, for
 * every causal mixer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/gemm.h"
#include "engine/generate.h"
#include "engine/infer.h"
#include "engine/model.h"
#include "engine/rng.h"
#include "engine/trainer.h"
#include "tests/check.h"

#include <cblas.h>

static volatile long allocations;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t s);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void *__wrap_malloc(size_t n) { __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED); return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t s) { __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED); return __real_calloc(n, s); }
void *__wrap_realloc(void *p, size_t n) { __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED); return __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t a, size_t n) { __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED); return __real_aligned_alloc(a, n); }

/* extra: one more key=value (the table optimizer), or "" */
static void check_steps(const char *arch, const char *threads, const char *extra)
{
    Config c;
    char err[512], a1[40], a2[40];
    config_defaults(&c);
    snprintf(a1, sizeof a1, "arch=%s", arch);
    snprintf(a2, sizeof a2, "threads=%s", threads);
    const char *args[] = {a1, a2, "vocab=40", "d=32", "layers=2", "heads=2", "n_ctx=16", "batch=4",
                          "dropout=0.1", "steps=100", NULL};
    for (int i = 0; args[i]; i++) config_set_arg(&c, args[i], err);
    if (*extra) config_set_arg(&c, extra, err);
    Dataset ds;
    memset(&ds, 0, sizeof ds);
    ds.vocab = 40;
    Rng r;
    rng_seed(&r, 1);
    for (int s = 0; s < SPLIT_COUNT; s++) {
        ds.split[s].len = 2000;
        ds.split[s].ids = malloc(sizeof(int32_t) * 2000);
        for (int i = 0; i < 2000; i++) ds.split[s].ids[i] = 2 + (int32_t)rng_below(&r, 38);
    }
    Model m;
    Trainer *t = NULL;
    long setup = allocations;
    if (config_validate(&c, err) || model_build(&m, &c, err) || trainer_create(&t, &m, &ds, c.threads, 1, err)) {
        CHECK(0, "%s", err);
        return;
    }
    CHECK(allocations > setup, "the allocation counter does not count (link without --wrap?)");
    TrainProgress p;
    trainer_step(t, &p, err); /* warm-up: OpenBLAS sets up its buffers on first use */
    EvalResult e;
    /* precision=bf16 sizes its operand buffers and oneDNN primitives on the
       first use of each product shape: an evaluation's too */
    if (c.precision == PRECISION_BF16) trainer_evaluate(t, SPLIT_VALID, &e, err);
    long before = allocations;
    for (int i = 0; i < 5; i++) CHECK(trainer_step(t, &p, err) == 0, "%s", err);
    long during = allocations - before;
    CHECK(during == 0, "%s threads=%s %s: %ld allocations in 5 training steps", arch, threads, extra, during);
    before = allocations;
    CHECK(trainer_evaluate(t, SPLIT_VALID, &e, err) == 0, "%s", err);
    CHECK(allocations == before, "%s: evaluation allocated %ld times", arch, allocations - before);
    trainer_free(t);
    model_free(&m);
    for (int s = 0; s < SPLIT_COUNT; s++) free(ds.split[s].ids);
}

static void test_step_allocates_nothing(void)
{
    check_steps("attention", "1", "");
    check_steps("attention", "2", "");
    check_steps("attention", "1", "n_ctx=200");   /* several tiles of engine/attn_tiles.c */
    check_steps("mixer", "1", "");
    check_steps("mixer", "2", "");
    /* sparse table gradients, both table optimizers */
    check_steps("pairconnect", "1", "table_optim=adamw");
    check_steps("pairconnect", "2", "table_optim=adamw");
    check_steps("pairconnect", "2", "table_optim=lazy");
}

/* Tokens through a generator (past n_ctx too) and windows through
   infer_window, after one warm-up of each. */
static void test_bf16_step_allocates_nothing(void)
{
    check_steps("attention", "2", "precision=bf16");
    check_steps("pairconnect", "1", "precision=bf16");
}

static void check_inference(const char *arch)
{
    Config c;
    char err[512], a1[40];
    config_defaults(&c);
    snprintf(a1, sizeof a1, "arch=%s", arch);
    const char *args[] = {a1, "task=clm", "vocab=40", "d=32", "layers=2", "heads=2", "n_ctx=16", NULL};
    for (int i = 0; args[i]; i++) config_set_arg(&c, args[i], err);
    Model m;
    Generator *g = NULL;
    Infer *inf = NULL;
    if (config_validate(&c, err) || model_build(&m, &c, err) || generator_create(&g, &m, 1, err) ||
        infer_create(&inf, &m, c.n_ctx, err)) {
        CHECK(0, "%s: %s", arch, err);
        return;
    }
    int32_t ids[16];
    float *logits = malloc(sizeof(float) * 16 * 40);
    for (int t = 0; t < 16; t++) ids[t] = 2 + t;
    generator_push(g, 2);
    infer_window(inf, ids, 0, 16, logits);
    long before = allocations;
    for (int t = 0; t < 40; t++) generator_push(g, 2 + t % 30);
    for (int k = 0; k < 3; k++) infer_window(inf, ids, 0, 16, logits);
    CHECK(allocations == before, "%s: generation and inference allocated %ld times", arch, allocations - before);
    free(logits);
    infer_free(inf);
    generator_free(g);
    model_free(&m);
}

static void test_inference_allocates_nothing(void)
{
    for (int i = 0; i < mixer_count(); i++)
        if (mixer_at(i)->has_causal) check_inference(mixer_at(i)->name);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_step_allocates_nothing);
    RUN(test_inference_allocates_nothing);
    char why[512] = "";
    RUN_IF(gemm_bf16_available(why), why, test_bf16_step_allocates_nothing);
    CHECK_EXIT();
}
