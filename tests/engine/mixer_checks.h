/*
 * mixer_checks.h — the checks every mixer must pass (the contract of
 * engine/mixer.h), each callable on any MixerOps, registered or not:
 *   check_gradient   finite differences (the loss sum(y r) in double) of the
 *                    mixer alone against its backward, every input and
 *                    every parameter element
 *   check_causality  causal mode: changing position t (its input and its
 *                    token id) leaves the mixer's outputs before t bit for
 *                    bit, and a whole model's logits before t, in float32
 *                    and (where it runs) with precision=bf16
 *   check_threads    a batch split over two threads running at once gives
 *                    one thread's outputs and input gradients bit for bit,
 *                    its parameter gradients to float32 rounding; a short
 *                    training run repeats bit for bit on 1 and on 2
 *                    threads, and 2 give 1 thread's losses to float32
 *                    rounding
 *   check_checkpoint a model saved and loaded back has the same keys, the
 *                    same weights bit for bit and the same loss bit for bit
 *   check_learns     one batch of random windows: learned by heart (causal),
 *                    the loss below half its first value (bidirectional)
 * Each returns 0 when the mixer passes, else 1 with the reason in why.
 * Used by tests/engine/test_mixer_contract.c (docs/adding-a-mixer.md).
 *
 * A mixer that is not registered is built as the registered mixer of the
 * same name (its parameter layout, config checks and task pairs), with its
 * ops put in place of that mixer's: a test's altered copy of a mixer keeps
 * its original's name.
 */
#ifndef MIXBENCH_MIXER_CHECKS_H
#define MIXBENCH_MIXER_CHECKS_H

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checkpoint.h"
#include "engine/gemm.h"
#include "engine/mixer.h"
#include "engine/model.h"
#include "engine/sparse.h"
#include "engine/trainer.h"
#include "tests/test_util.h"

/* A mixer under test: its ops, its mode and the settings it runs under. */
typedef struct {
    const MixerOps *ops;
    int causal;            /* 1 causal (task clm), 0 bidirectional (mlm) */
    const char *variant;   /* space-separated key=value on top of a check's
                              own settings ("": the defaults) */
} MixCase;

/* "linattn causal feature_map=elu1" into buf; returns buf. */
static inline const char *mc_name(const MixCase *mc, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s %s%s%s", mc->ops->name, mc->causal ? "causal" : "bidirectional",
             mc->variant[0] ? " " : "", mc->variant);
    return buf;
}

/* c = the defaults, arch and task of mc, then base (NULL-terminated
   key=value), then mc's variant; validated.  0, or -1 with why. */
static inline int mc_config(const MixCase *mc, const char *const *base, Config *c, char *why, size_t cap)
{
    char err[ERR_LEN], words[512];
    config_defaults(c);
    int rc = config_set(c, "arch", mc->ops->name, err) || config_set(c, "task", mc->causal ? "clm" : "mlm", err);
    for (int i = 0; !rc && base[i]; i++) rc = config_set_arg(c, base[i], err);
    snprintf(words, sizeof words, "%s", mc->variant);
    char *save = NULL;
    for (char *w = strtok_r(words, " ", &save); !rc && w; w = strtok_r(NULL, " ", &save))
        rc = config_set_arg(c, w, err);
    rc = rc || config_validate(c, err);
    if (rc) snprintf(why, cap, "config: %s", err);
    return rc ? -1 : 0;
}

/* Builds c's model with mc's ops as its mixer.  0, or -1 with why. */
static inline int mc_build(const MixCase *mc, const Config *c, Model *m, char *why, size_t cap)
{
    char err[ERR_LEN];
    if (model_build(m, c, err)) {
        snprintf(why, cap, "build: %s", err);
        return -1;
    }
    m->mixer = mc->ops;
    return 0;
}

/* The mixer-level checks' model: V 13, d 8, h 2, n 6, one block. */
static const char *const MC_SMALL[] = {"vocab=13", "d=8", "heads=2", "n_ctx=6", "layers=1", "batch=3", NULL};

/* r: mc's model (settings MC_SMALL), a work space for B windows with
   gradients, and its first block's mixer wired for B windows.  0, or -1
   with why (nothing left to free). */
static inline int mc_rig(const MixCase *mc, MixerRig *r, int B, char *why, size_t cap)
{
    char err[ERR_LEN];
    memset(r, 0, sizeof *r);   /* the rig sets what it names: gemm NULL, sample0 0 */
    if (mc_config(mc, MC_SMALL, &r->c, why, cap) || mc_build(mc, &r->c, &r->m, why, cap)) return -1;
    if (work_alloc(&r->w, &r->m, B, 1, err)) {
        snprintf(why, cap, "work: %s", err);
        model_free(&r->m);
        return -1;
    }
    rig_wire(r, B, r->c.n_ctx, mc->causal);
    for (int i = 0; i < B * r->c.n_ctx; i++) r->w.inputs[i] = 2 + i % 9;
    return 0;
}

/* The rig's mixer parameters drawn from N(0, scale^2) (biases and gains
   too, so that no term is trivial). */
static inline void mc_fill_mixer(MixerRig *r, Rng *rng, float scale)
{
    const BlockParams *bp = &r->m.stacks[0].blocks[0];
    for (int k = 0; k < bp->n_mix; k++)
        fill(model_param(&r->m, bp->mix0 + k), r->m.params[bp->mix0 + k].numel, rng, scale);
}

/* The size of the outputs the gradient check allows: the central
   difference of a float32 loss is off by about its rounding / h, which
   grows with the outputs (mamba at state 16 and hyena at weights N(0,
   0.5) give outputs of 20 to 50, their differences then off by ~5e-3). */
#define GRAD_MAX_RMS 4.0

/* ---- gradient ----------------------------------------------------------- */

static inline double mc_loss(const MixerRig *r, const float *x, float *y, const float *rr, size_t N)
{
    r->m.mixer->forward(&r->a, x, y);
    return dotd(y, rr, N);
}

/* Whether the central difference of the loss in *at (an input or a weight)
   matches the analytic derivative ana (within 1e-2 relative + 2e-3): at
   h = 1e-2 and, on a miss, at h/4 and h/16 (strong curvature needs a
   smaller step; float32 rounding stays far below the tolerance there);
   *num gets the last difference. */
static inline int mc_diff_matches(const MixerRig *r, float *at, double ana, const float *x, float *y,
                                  const float *rr, size_t N, double *num)
{
    for (float h = 1e-2f; h > 1e-2f / 20; h /= 4) {
        float keep = *at;
        *at = keep + h; double lp = mc_loss(r, x, y, rr, N);
        *at = keep - h; double lm = mc_loss(r, x, y, rr, N);
        *at = keep;
        *num = (lp - lm) / (2 * h);
        if (fabs(*num - ana) <= 1e-2 * fmax(fabs(*num), fabs(ana)) + 2e-3) return 1;
    }
    return 0;
}

/* Weights N(0, s^2), s the first of s0, s0/2, s0/4 (s0: the mixer's
   check_weight_scale, else 0.5) that keeps the outputs' RMS within
   GRAD_MAX_RMS; x, r N(0, 1); each numerical derivative as
   mc_diff_matches says. */
static inline int check_gradient(const MixCase *mc, char *why, size_t cap)
{
    MixerRig r;
    if (mc_rig(mc, &r, 3, why, cap)) return 1;
    const MixerOps *ops = r.m.mixer;
    const BlockParams *bp = &r.m.stacks[0].blocks[0];
    size_t N = (size_t)3 * r.c.n_ctx * r.c.d;
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N), *rr = malloc(sizeof(float) * N);
    float *dx = malloc(sizeof(float) * N), *grads = malloc(sizeof(float) * r.m.n_floats);
    Rng rng;
    rng_seed(&rng, 7);
    fill(x, N, &rng, 1);
    fill(rr, N, &rng, 1);
    float scale = ops->check_weight_scale > 0 ? ops->check_weight_scale : 0.5f, floor_scale = scale / 3;
    for (;; scale /= 2) {
        Rng wr;
        rng_seed(&wr, 8);
        mc_fill_mixer(&r, &wr, scale);
        ops->forward(&r.a, x, y);
        if (sqrt(dotd(y, y, N) / N) <= GRAD_MAX_RMS || scale < floor_scale) break;
    }
    work_zero_grads(&r.w, &r.m);
    ops->forward(&r.a, x, y);
    ops->backward(&r.a, x, rr, dx);
    work_dense_grads(&r.w, &r.m, grads);
    int bad = 0;
    size_t checked = 0;
    double num;
    for (size_t i = 0; i < N; i++, checked++)
        if (!mc_diff_matches(&r, &x[i], dx[i], x, y, rr, N, &num) && !bad++)
            snprintf(why, cap, "dx[%zu] numeric %.6g analytic %.6g (weights N(0, %g^2))", i, num, dx[i], scale);
    for (int k = 0; k < bp->n_mix; k++) {
        const Param *p = &r.m.params[bp->mix0 + k];
        float *v = model_param(&r.m, bp->mix0 + k);
        for (size_t i = 0; i < p->numel; i++, checked++) {
            double ana = grads[p->offset + i];
            if (!mc_diff_matches(&r, &v[i], ana, x, y, rr, N, &num) && !bad++)
                snprintf(why, cap, "%s[%zu] numeric %.6g analytic %.6g (weights N(0, %g^2))", p->name, i, num, ana,
                         scale);
        }
    }
    if (bad) {
        size_t len = strlen(why);
        snprintf(why + len, cap - len, "; %d of %zu derivatives off", bad, checked);
    } else {
        snprintf(why, cap, "%zu derivatives, weights N(0, %g^2)", checked, scale);
    }
    free(x); free(y); free(rr); free(dx); free(grads);
    rig_close(&r);
    return bad != 0;
}

/* ---- causality ---------------------------------------------------------- */

/* The mixer alone: position t of every window changed (its input by +1,
   its token id to another) moves no output before t, bit for bit, and
   moves some output at or after it. */
static inline int causal_mixer(const MixCase *mc, char *why, size_t cap)
{
    MixerRig r;
    if (mc_rig(mc, &r, 2, why, cap)) return 1;
    int n = r.c.n_ctx, d = r.c.d, fail = 0;
    size_t N = (size_t)2 * n * d;
    float *x0 = malloc(sizeof(float) * N), *x = malloc(sizeof(float) * N), *ref = malloc(sizeof(float) * N);
    float *y = malloc(sizeof(float) * N);
    int32_t *ids = malloc(sizeof(int32_t) * 2 * n);
    Rng rng;
    rng_seed(&rng, 5);
    mc_fill_mixer(&r, &rng, 0.3f);
    fill(x0, N, &rng, 1);
    memcpy(ids, r.w.inputs, sizeof(int32_t) * 2 * n);
    r.m.mixer->forward(&r.a, x0, ref);
    for (int t = 0; t < n && !fail; t++) {
        memcpy(x, x0, sizeof(float) * N);
        memcpy(r.w.inputs, ids, sizeof(int32_t) * 2 * n);
        for (int b = 0; b < 2; b++) {
            for (int f = 0; f < d; f++) x[((size_t)b * n + t) * d + f] += 1.0f;
            r.w.inputs[b * n + t] = 2 + (ids[b * n + t] - 2 + 5) % (r.c.vocab - 2);
        }
        r.m.mixer->forward(&r.a, x, y);
        for (int b = 0; b < 2 && !fail; b++) {
            const float *yb = y + (size_t)b * n * d, *rb = ref + (size_t)b * n * d;
            if (memcmp(yb, rb, sizeof(float) * t * d)) {
                fail = 1;
                snprintf(why, cap, "the mixer alone: changing position %d moved outputs before it by %g", t,
                         max_diff(yb, rb, (size_t)t * d));
            } else if (!memcmp(yb + (size_t)t * d, rb + (size_t)t * d, sizeof(float) * (n - t) * d)) {
                fail = 1;
                snprintf(why, cap, "the mixer alone: changing position %d changed nothing at or after it", t);
            }
        }
    }
    free(x0); free(x); free(ref); free(y); free(ids);
    rig_close(&r);
    return fail;
}

/* A whole clm model (2 blocks, n 8, weights N(0, 0.3^2)): changing token t
   leaves every logit before t bit for bit and changes some at or after it. */
static inline int causal_model(const MixCase *mc, const char *precision, char *why, size_t cap)
{
    const char *base[] = {"vocab=13", "d=8", "heads=2", "n_ctx=8", "layers=2", precision, NULL};
    Config c;
    Model m;
    Work w;
    char err[ERR_LEN];
    if (mc_config(mc, base, &c, why, cap) || mc_build(mc, &c, &m, why, cap)) return 1;
    if (work_alloc(&w, &m, 1, 0, err)) {
        snprintf(why, cap, "work: %s", err);
        model_free(&m);
        return 1;
    }
    Rng rng;
    rng_seed(&rng, 5);
    for (int p = 0; p < m.n_params; p++)
        if (m.params[p].init != INIT_ONE) fill(model_param(&m, p), m.params[p].numel, &rng, 0.3f);
    int n = c.n_ctx, V = c.vocab, fail = 0;
    float *ref = malloc(sizeof(float) * (size_t)n * V);
    for (int t = 0; t < n && !fail; t++) {
        for (int k = 0; k < n; k++) {
            w.inputs[k] = 2 + k % (V - 2);
            w.targets[k] = 3;
        }
        tm_run(&m, &w, 1, 0, 0);
        memcpy(ref, w.logits, sizeof(float) * (size_t)n * V);
        w.inputs[t] = 2 + (t + 5) % (V - 2);
        tm_run(&m, &w, 1, 0, 0);
        if (memcmp(w.logits, ref, sizeof(float) * (size_t)t * V)) {
            fail = 1;
            snprintf(why, cap, "a model, %s: changing token %d moved logits before it by %g", precision, t,
                     max_diff(w.logits, ref, (size_t)t * V));
        } else if (!memcmp(w.logits + (size_t)t * V, ref + (size_t)t * V, sizeof(float) * (size_t)(n - t) * V)) {
            fail = 1;
            snprintf(why, cap, "a model, %s: changing token %d changed nothing at or after it", precision, t);
        }
    }
    free(ref);
    work_free(&w);
    model_free(&m);
    return fail;
}

/* Causal mode only (a bidirectional mixer sees every position: passes). */
static inline int check_causality(const MixCase *mc, char *why, size_t cap)
{
    char no_bf16[ERR_LEN];
    if (!mc->causal) return 0;
    return causal_mixer(mc, why, cap) || causal_model(mc, "precision=f32", why, cap) ||
           (gemm_bf16_available(no_bf16) && causal_model(mc, "precision=bf16", why, cap));
}

/* ---- threads ------------------------------------------------------------ */

/* One thread's share: its args (its slice of the batch), and the slice's
   rows of x, dy, y, dx. */
typedef struct {
    const MixerOps *ops;
    MixArgs a;
    const float *x, *dy;
    float *y, *dx;
} MixJob;

static inline void *mix_job(void *p)
{
    MixJob *j = p;
    j->ops->forward(&j->a, j->x, j->y);
    j->ops->backward(&j->a, j->x, j->dy, j->dx);
    return NULL;
}

/* Trains c's model with mc's ops for steps steps on ds; losses[] gets each
   step's loss.  0, or -1 with why. */
static inline int mc_train(const MixCase *mc, Config c, const Dataset *ds, double *losses, int steps, char *why,
                           size_t cap)
{
    Model m;
    Trainer *t;
    char err[ERR_LEN];
    c.vocab = ds->vocab;
    if (mc_build(mc, &c, &m, why, cap)) return -1;
    if (trainer_create(&t, &m, ds, c.threads, 1, err)) {
        snprintf(why, cap, "trainer: %s", err);
        model_free(&m);
        return -1;
    }
    TrainProgress p = {0};
    int rc = 0;
    for (int s = 0; s < steps && !rc; s++) {
        rc = trainer_step(t, &p, err);
        if (rc) snprintf(why, cap, "step %d: %s", s + 1, err);
        losses[s] = p.loss;
    }
    trainer_free(t);
    model_free(&m);
    return rc ? -1 : 0;
}

#define THREAD_STEPS 4

/* Training THREAD_STEPS steps (d 16, n 12, batch 6) twice on 1 thread and
   twice on 2: each pair the same losses bit for bit, and 2 threads 1
   thread's to 1e-5 relative. */
static inline int threads_training(const MixCase *mc, char *why, size_t cap)
{
    Dataset ds;
    double runs[4][THREAD_STEPS];   /* threads 1, 1, 2, 2 */
    int fail = 0;
    tm_random_dataset(&ds, 40, 4000, 5);
    for (int k = 0; k < 4 && !fail; k++) {
        const char *base[] = {"vocab=40", "d=16", "heads=2", "layers=2", "n_ctx=12", "batch=6", "steps=100",
                              k < 2 ? "threads=1" : "threads=2", NULL};
        Config c;
        fail = mc_config(mc, base, &c, why, cap) || mc_train(mc, c, &ds, runs[k], THREAD_STEPS, why, cap);
    }
    for (int k = 0; k < 4 && !fail; k += 2)
        if (memcmp(runs[k], runs[k + 1], sizeof runs[k])) {
            fail = 1;
            snprintf(why, cap, "training on %d thread(s) twice: step %d's loss %.9g, then %.9g", k ? 2 : 1,
                     THREAD_STEPS, runs[k][THREAD_STEPS - 1], runs[k + 1][THREAD_STEPS - 1]);
        }
    for (int s = 0; s < THREAD_STEPS && !fail; s++)
        if (!(fabs(runs[2][s] - runs[0][s]) <= 1e-5 * fabs(runs[0][s]))) {
            fail = 1;
            snprintf(why, cap, "training: step %d's loss %.9g on 2 threads, %.9g on 1", s + 1, runs[2][s],
                     runs[0][s]);
        }
    tm_free_dataset(&ds);
    return fail;
}

/* The mixer alone on a batch of 4 windows: once on this thread, then its
   samples 0-1 and 2-3 on two threads at once, each with its own work space
   (saved values, scratch, gradients) as the trainer gives them. */
static inline int threads_mixer(const MixCase *mc, char *why, size_t cap)
{
    MixerRig one, half[2];
    char err[ERR_LEN];
    if (mc_rig(mc, &one, 4, why, cap)) return 1;
    int fail = 0, n = one.c.n_ctx, d = one.c.d;
    for (int k = 0; k < 2 && !fail; k++) {
        memset(&half[k], 0, sizeof half[k]);
        half[k].m = one.m;   /* the same model: only its work space is the half's */
        half[k].c = one.c;
        fail = work_alloc(&half[k].w, &one.m, 2, 1, err);
        if (fail) {
            snprintf(why, cap, "work: %s", err);
            if (k) work_free(&half[0].w);
        }
    }
    if (fail) {
        rig_close(&one);
        return 1;
    }
    size_t N = (size_t)4 * n * d, H = N / 2;
    float *x = malloc(sizeof(float) * N), *dy = malloc(sizeof(float) * N), *y1 = malloc(sizeof(float) * N);
    float *dx1 = malloc(sizeof(float) * N), *y2 = malloc(sizeof(float) * N), *dx2 = malloc(sizeof(float) * N);
    float *g1 = malloc(sizeof(float) * one.m.n_floats), *g2 = malloc(sizeof(float) * one.m.n_floats);
    float *gh = malloc(sizeof(float) * one.m.n_floats);
    Rng rng;
    rng_seed(&rng, 3);
    mc_fill_mixer(&one, &rng, 0.3f);
    fill(x, N, &rng, 1);
    fill(dy, N, &rng, 1);
    work_zero_grads(&one.w, &one.m);
    one.m.mixer->forward(&one.a, x, y1);
    one.m.mixer->backward(&one.a, x, dy, dx1);
    work_dense_grads(&one.w, &one.m, g1);
    MixJob jobs[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        rig_wire(&half[k], 2, n, mc->causal);
        half[k].a.sample0 = 2 * k;
        memcpy(half[k].w.inputs, one.w.inputs + (size_t)2 * k * n, sizeof(int32_t) * 2 * n);
        work_zero_grads(&half[k].w, &one.m);
        jobs[k] = (MixJob){one.m.mixer, half[k].a, x + k * H, dy + k * H, y2 + k * H, dx2 + k * H};
    }
    for (int k = 0; k < 2; k++) pthread_create(&th[k], NULL, mix_job, &jobs[k]);
    for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
    work_dense_grads(&half[0].w, &one.m, g2);
    work_dense_grads(&half[1].w, &one.m, gh);
    double worst = 0, top = 0;
    for (size_t i = 0; i < one.m.n_floats; i++) {
        top = fmax(top, fabs(g1[i]));
        worst = fmax(worst, fabs((double)g1[i] - ((double)g2[i] + gh[i])));
    }
    if (memcmp(y1, y2, sizeof(float) * N)) {
        fail = 1;
        snprintf(why, cap, "the mixer alone: two threads' outputs differ from one thread's by %g", max_diff(y1, y2, N));
    } else if (memcmp(dx1, dx2, sizeof(float) * N)) {
        fail = 1;
        snprintf(why, cap, "the mixer alone: two threads' input gradients differ from one thread's by %g",
                 max_diff(dx1, dx2, N));
    } else if (worst > 1e-5 * top) {
        fail = 1;
        snprintf(why, cap,
                 "the mixer alone: two threads' parameter gradients differ from one thread's by %g (largest %g)",
                 worst, top);
    }
    free(x); free(dy); free(y1); free(dx1); free(y2); free(dx2); free(g1); free(g2); free(gh);
    work_free(&half[0].w);
    work_free(&half[1].w);
    rig_close(&one);
    return fail;
}

static inline int check_threads(const MixCase *mc, char *why, size_t cap)
{
    return threads_mixer(mc, why, cap) || threads_training(mc, why, cap);
}

/* ---- checkpoint --------------------------------------------------------- */

/* mc's model (d 12, n 10, weights N(0, 0.3^2)) saved to dir/NAME and loaded
   back: every model key reads the same, every tensor has the same name,
   shape and bits, and a batch gives the same loss bit for bit. */
static inline int check_checkpoint(const MixCase *mc, const char *dir, char *why, size_t cap)
{
    const char *base[] = {"vocab=13", "d=12", "heads=2", "n_ctx=10", "layers=2", NULL};
    Config c, cb;
    Model m, back;
    char err[ERR_LEN], path[512];
    if (mc_config(mc, base, &c, why, cap) || mc_build(mc, &c, &m, why, cap)) return 1;
    snprintf(path, sizeof path, "%s/%s-%d.safetensors", dir, mc->ops->name, mc->causal);
    Rng rng;
    rng_seed(&rng, 9);
    tm_randomize(&m, &rng, 0.3f);
    config_defaults(&cb);
    if (checkpoint_save(path, &m, NULL, NULL, 0, err) || checkpoint_load(path, &cb, &back, NULL, err)) {
        snprintf(why, cap, "%s", err);
        model_free(&m);
        return 1;
    }
    back.mixer = mc->ops;
    int fail = 0;
    for (int i = 0; i < config_key_count() && !fail; i++) {
        char a[256], b[256];
        if (config_key_group(i) != KEY_MODEL) continue;
        config_get(&m.cfg, config_key_name(i), a, sizeof a);
        config_get(&back.cfg, config_key_name(i), b, sizeof b);
        if (strcmp(a, b)) {
            fail = 1;
            snprintf(why, cap, "%s=%s reads back as %s", config_key_name(i), a, b);
        }
    }
    if (!fail && (back.n_params != m.n_params || back.n_floats != m.n_floats)) {
        fail = 1;
        snprintf(why, cap, "%d tensors of %zu floats read back as %d of %zu", m.n_params, m.n_floats, back.n_params,
                 back.n_floats);
    }
    for (int p = 0; p < m.n_params && !fail; p++) {
        const Param *a = &m.params[p], *b = &back.params[p];
        if (strcmp(a->name, b->name) || a->numel != b->numel ||
            memcmp(model_param(&m, p), model_param(&back, p), sizeof(float) * a->numel)) {
            fail = 1;
            snprintf(why, cap, "tensor %s reads back as %s, %s", a->name, b->name,
                     a->numel != b->numel ? "another size" : "other values");
        }
    }
    Work w1, w2;
    if (!fail && work_alloc(&w1, &m, 2, 0, err)) fail = -1;
    if (!fail && work_alloc(&w2, &back, 2, 0, err)) {
        work_free(&w1);
        fail = -1;
    }
    if (fail < 0) snprintf(why, cap, "work: %s", err);
    if (!fail) {
        tm_batch(&m, &w1, 2, 5);
        tm_batch(&back, &w2, 2, 5);
        double l1 = tm_run(&m, &w1, 2, 0, 0), l2 = tm_run(&back, &w2, 2, 0, 0);
        if (memcmp(&l1, &l2, sizeof l1)) {
            fail = 1;
            snprintf(why, cap, "loss %.9g before the round trip, %.9g after", l1, l2);
        }
        work_free(&w1);
        work_free(&w2);
    }
    model_free(&back);
    model_free(&m);
    return fail != 0;
}

/* ---- learning ----------------------------------------------------------- */

#define LEARN_STEPS 300

/* One batch (4 windows of random ids, vocab 50) trained on for LEARN_STEPS
   steps on one thread, d 32, 2 blocks, n 16, lr 0.01 constant after 10
   warm-up steps; *first: the first step's loss (~ln 50), *last: the mean of
   the last 10.  Causal (clm): the batch learned by heart, *last below
   0.05; bidirectional (mlm, whose masks change every step): *last below
   half of *first. */
static inline int check_learns(const MixCase *mc, double *first, double *last, char *why, size_t cap)
{
    const char *base[] = {"vocab=50", "d=32", "heads=2", "layers=2", "n_ctx=16", "batch=4", "order=sequential",
                          "steps=1000", "lr=0.01", "warmup=10", "decay=constant", "weight_decay=0", "threads=1", NULL};
    Config c;
    Dataset ds;
    double losses[LEARN_STEPS];
    if (mc_config(mc, base, &c, why, cap)) return 1;
    tm_random_dataset(&ds, 50, (size_t)4 * c.n_ctx + 1, 7);
    int fail = mc_train(mc, c, &ds, losses, LEARN_STEPS, why, cap) != 0;
    tm_free_dataset(&ds);
    if (fail) return 1;
    *first = losses[0];
    *last = 0;
    for (int s = LEARN_STEPS - 10; s < LEARN_STEPS; s++) *last += losses[s] / 10;
    if (!(mc->causal ? *last < 0.05 : *last < 0.5 * *first)) {
        snprintf(why, cap, "loss %.4f at step 1, %.4f over the last 10 of %d steps (wanted below %.4g)", *first, *last,
                 LEARN_STEPS, mc->causal ? 0.05 : 0.5 * *first);
        return 1;
    }
    return 0;
}

#endif
