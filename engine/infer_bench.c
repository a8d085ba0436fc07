/*
 * infer_bench.c — batch-1, one-thread inference samples/s of a built model
 * (infer_bench.h), timed on the caller's thread over a fixed window of
 * random ids: clm and mlm (one stack, plain wiring) through engine/infer.c's
 * forward pass (packed FFN and head), the other tasks through their own
 * forward pass.
 */
#include "engine/infer_bench.h"

#include <string.h>

#include "engine/common.h"
#include "engine/infer.h"
#include "engine/rng.h"
#include "engine/task.h"

/* One sample of a single-stack task: the window, every row through the
   head, then softmax cross-entropy at every position. */
static void infer_sample(Infer *inf, const Model *m, const Work *w)
{
    int n = m->cfg.n_ctx;
    infer_window(inf, w->inputs, 0, n, w->logits);
    infer_xent(w->logits, w->targets, n, m->cfg.vocab);
}

int infer_bench(const Model *m, const InferBenchLimits *limits, InferBenchResult *out, char *err)
{
    Work w;
    Infer *inf = NULL;
    if (work_alloc(&w, m, 1, 0, err)) return -1;
    int plain = m->n_stacks == 1 && (!strcmp(m->task->name, "clm") || !strcmp(m->task->name, "mlm"));
    /* without room for the packed copies, the task's own forward pass */
    if (plain && infer_create(&inf, m, m->cfg.n_ctx, err)) inf = NULL;
    int n = m->cfg.n_ctx, V = m->cfg.vocab;
    /* ids past the reserved PAD and MASK; every position a target */
    Rng r;
    rng_seed(&r, 3);
    for (int t = 0; t < n; t++) {
        w.inputs[t] = 2 + (int32_t)rng_below(&r, (uint32_t)(V - 2));
        w.targets[t] = 2 + (int32_t)rng_below(&r, (uint32_t)(V - 2));
    }
    TaskCall call = {.m = m, .w = &w, .B = 1, .sample0 = 0, .training = 0, .want_grad = 0,
                     .loss_scale = 1.0f / (float)n};
    double t0 = 0, elapsed = 0;
    int samples = 0;
    for (int i = -limits->warmup;; i++) {
        if (i == 0) t0 = now_seconds();
        call.loss_sum = 0;
        call.n_targets = call.correct = 0;
        if (inf) infer_sample(inf, m, &w);
        else m->task->run(&call);
        if (i < 0) continue;
        samples++;
        elapsed = now_seconds() - t0;
        if (elapsed >= limits->min_seconds && samples >= limits->min_samples) break;
        if (limits->max_seconds > 0 && elapsed >= limits->max_seconds) break;
    }
    infer_free(inf);
    work_free(&w);
    out->samples = samples;
    out->seconds = elapsed;
    out->samples_per_s = elapsed > 0 ? samples / elapsed : 0;
    return 0;
}
