/*
 * model_util.h — helpers shared by the model tests: build a small model from
 * key=value strings, run a task forward (and backward) on fixed inputs.
 */
#ifndef MIXBENCH_TEST_MODEL_UTIL_H
#define MIXBENCH_TEST_MODEL_UTIL_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/model.h"
#include "engine/rng.h"
#include "engine/sparse.h"
#include "engine/task.h"

/* Builds a model from a NULL-terminated list of "key=value" settings on top
   of a tiny default (V 13, d 8, h 2, n 6, L 2). */
static inline int tm_build(Model *m, Config *c, ...)
{
    char err[512];
    config_defaults(c);
    const char *base[] = {"vocab=13", "d=8", "heads=2", "n_ctx=6", "layers=2", "batch=3", NULL};
    for (int i = 0; base[i]; i++) config_set_arg(c, base[i], err);
    va_list ap;
    va_start(ap, c);
    const char *arg;
    while ((arg = va_arg(ap, const char *))) {
        if (config_set_arg(c, arg, err)) {
            printf("  config: %s\n", err);
            va_end(ap);
            return -1;
        }
    }
    va_end(ap);
    if (config_validate(c, err) || model_build(m, c, err)) {
        printf("  build: %s\n", err);
        return -1;
    }
    return 0;
}

/* Random tokens (ids >= 2) and clm-style targets for B windows. */
static inline void tm_batch(const Model *m, Work *w, int B, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    int n = m->cfg.n_ctx, V = m->cfg.vocab;
    int32_t *win = malloc(sizeof(int32_t) * (size_t)B * (m->task->window_len(&m->cfg)));
    for (int i = 0; i < B * m->task->window_len(&m->cfg); i++) win[i] = 2 + (int32_t)rng_below(&r, V - 2);
    Rng r2;
    rng_seed(&r2, seed + 1);
    int64_t *idx = malloc(sizeof(int64_t) * B);
    for (int b = 0; b < B; b++) idx[b] = b;
    m->task->prepare(&m->cfg, B, win, NULL, w->inputs, w->targets, 0, &r2, idx);
    (void)n;
    free(win);
    free(idx);
}

/* Forward (+ backward when want_grad) over the batch already in w; returns
   the mean loss. */
static inline double tm_run(const Model *m, Work *w, int B, int want_grad, int training)
{
    int64_t count = 0;
    for (int i = 0; i < B * m->cfg.n_ctx; i++) count += w->targets[i] >= 0;
    TaskCall t;
    memset(&t, 0, sizeof t);
    t.m = m;
    t.w = w;
    t.B = B;
    t.training = training;
    t.want_grad = want_grad;
    t.step_key = 12345;
    t.loss_scale = 1.0f / (float)count;
    if (want_grad) work_zero_grads(w, m);
    m->task->run(&t);
    return t.loss_sum / (double)count;
}

/* A dataset of random ids (2..vocab-1) held in memory, every split len long. */
static inline void tm_random_dataset(Dataset *ds, int vocab, size_t len, uint64_t seed)
{
    memset(ds, 0, sizeof *ds);
    Rng r;
    rng_seed(&r, seed);
    for (int s = 0; s < SPLIT_COUNT; s++) {
        ds->split[s].ids = malloc(sizeof(int32_t) * len);
        ds->split[s].len = len;
        for (size_t i = 0; i < len; i++) ds->split[s].ids[i] = 2 + (int32_t)rng_below(&r, vocab - 2);
    }
    ds->vocab = vocab;
    ds->loss_floor = NAN;
}

static inline void tm_free_dataset(Dataset *ds)
{
    for (int s = 0; s < SPLIT_COUNT; s++) free(ds->split[s].ids);
}

/* Every parameter but the ones initialised to 1 (norm gains) drawn from
   N(0, scale^2), so that no layer is trivial. */
static inline void tm_randomize(Model *m, Rng *r, float scale)
{
    for (int p = 0; p < m->n_params; p++)
        if (m->params[p].init != INIT_ONE)
            for (size_t j = 0; j < m->params[p].numel; j++) model_param(m, p)[j] = scale * (float)rng_normal(r);
}

#endif
