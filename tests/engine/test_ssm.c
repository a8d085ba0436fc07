/*
 * test_ssm.c — what the state-space mixers (mamba; docs/mixers-ssm.md)
 * promise beyond the checks every registered mixer gets elsewhere (finite
 * differences in test_grad, causality there too, steps equal to the full
 * pass in test_incremental, generation in test_generate, the PyTorch
 * cross-check in test_crosscheck.sh):
 *   - bad keys are refused in one line naming the key;
 *   - the initialisation the page states (S4D-real A, dt in [1e-3, 1e-1],
 *     D = 1, the short convolution within +-1/2);
 *   - the generation cache is the same size at every n_ctx (constant
 *     memory per token), and a recurrent step at position t gives the full
 *     forward's position t;
 *   - a checkpoint round trip keeps state, expand and every weight bit for
 *     bit, and the reloaded model gives the same logits;
 *   - a run is bit-identical when repeated (1 and 2 threads), and 2 threads
 *     give 1 thread's losses to float32 rounding;
 *   - the loss falls: one batch is learned by heart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/model.h"
#include "engine/rng.h"
#include "engine/trainer.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <cblas.h>

/* The key refused with one line that names it. */
static void check_refused(const char *arch, const char *arg, const char *key)
{
    Config c;
    char err[ERR_LEN] = "";
    config_defaults(&c);
    config_set(&c, "arch", arch, err);
    int rc = config_set_arg(&c, arg, err);
    CHECK(rc != 0 && strstr(err, key) && !strchr(err, '\n'), "%s %s: rc %d, message '%s'", arch, arg, rc, err);
}

static void test_refusals(void)
{
    check_refused("mamba", "state=100000", "state");
    check_refused("mamba", "state=0", "state");
    check_refused("mamba", "expand=0", "expand");
    check_refused("mamba", "state=1.5", "state");
    /* a shape too large for the saved states, from the mixer's own check */
    Config c;
    char err[ERR_LEN] = "";
    const char *args[] = {"arch=mamba", "vocab=20", "n_ctx=65536", "d=4096", "expand=16", "state=256", NULL};
    CHECK(tm_config(&c, args) == 0, "setup");
    CHECK(config_validate(&c, err) != 0 && strstr(err, "mamba") && !strchr(err, '\n'), "huge mamba: '%s'", err);
}

static const float *param_of(const Model *m, const char *name)
{
    int i = model_find_param(m, name);
    CHECK(i >= 0, "no %s", name);
    return i >= 0 ? model_param(m, i) : NULL;
}

static void test_init(void)
{
    Model m;
    Config c;
    if (tm_build(&m, &c, "arch=mamba", "d=32", "state=8", "expand=2", NULL)) { CHECK(0, "build"); return; }
    int E = 64, N = 8;
    const float *A_log = param_of(&m, "blocks.0.mix.A_log"), *D = param_of(&m, "blocks.0.mix.D");
    const float *b_dt = param_of(&m, "blocks.1.mix.dt_proj.b"), *cw = param_of(&m, "blocks.0.mix.conv.w");
    if (!A_log || !D || !b_dt || !cw) { model_free(&m); return; }
    int bad = 0;
    for (int e = 0; e < E; e++)
        for (int s = 0; s < N; s++) bad += fabsf(A_log[e * N + s] - logf((float)(s + 1))) > 1e-6f;
    CHECK(bad == 0, "%d A_log entries are not log(1..N)", bad);
    double lo = 1, hi = 0, cmax = 0;
    for (int e = 0; e < E; e++) {
        double dt = log1p(exp((double)b_dt[e]));
        lo = fmin(lo, dt);
        hi = fmax(hi, dt);
        bad += D[e] != 1.0f;
        for (int k = 0; k < 4; k++) cmax = fmax(cmax, fabs(cw[e * 4 + k]));
    }
    CHECK(bad == 0, "D is not 1");
    CHECK(lo >= 0.999e-3 && hi <= 0.1001 && hi / lo > 5, "dt at init spans [%g, %g], want inside [1e-3, 0.1]", lo, hi);
    CHECK(cmax <= 0.5 && cmax > 0.3, "conv.w max |w| %g, want U(-1/2, 1/2)", cmax);
    model_free(&m);
}

/* The cache does not grow with the context; a step at t equals the full
   forward's position t (every t: test_incremental; here at n 64, state 4). */
static void test_constant_cache(void)
{
    const MixerOps *ops = mixer_find("mamba");
    Config a, b;
    config_defaults(&a);
    config_defaults(&b);
    a.n_ctx = 64;
    b.n_ctx = 4096;
    CHECK(ops->cache_floats(&a) == ops->cache_floats(&b), "cache %zu floats at n 64, %zu at n 4096",
          ops->cache_floats(&a), ops->cache_floats(&b));
    CHECK(ops->cache_floats(&a) == (size_t)(3 + a.state) * a.expand * a.d, "cache %zu floats, want (3 + N) E",
          ops->cache_floats(&a));

    MixerRig r;
    const char *args[] = {"arch=mamba", "vocab=13", "d=16", "n_ctx=64", "state=4", "layers=1", NULL};
    if (tm_config(&r.c, args) || config_validate(&r.c, NULL) || model_build(&r.m, &r.c, NULL)) {
        CHECK(0, "build");
        return;
    }
    char err[ERR_LEN];
    if (work_alloc(&r.w, &r.m, 1, 0, err)) { CHECK(0, "%s", err); model_free(&r.m); return; }
    rig_wire(&r, 1, 64, 1);
    Rng rng;
    rng_seed(&rng, 4);
    tm_randomize(&r.m, &rng, 0.3f);
    size_t nd = (size_t)64 * 16;
    float *x = malloc(sizeof(float) * nd), *full = malloc(sizeof(float) * nd), *y_t = malloc(sizeof(float) * 16);
    float *cache = malloc(sizeof(float) * ops->cache_floats(&r.c));
    fill(x, nd, &rng, 1.0f);
    ops->forward(&r.a, x, full);
    double worst = 0;
    for (int t = 0; t < 64; t++) {
        ops->forward_step(&r.a, t, x + (size_t)t * 16, y_t, cache);
        worst = fmax(worst, max_diff(y_t, full + (size_t)t * 16, 16));
    }
    double scale = max_abs(full, nd);
    CHECK(scale > 0 && worst <= 1e-5 * scale, "recurrent steps differ from the full pass by %g (scale %g)", worst,
          scale);
    free(x);
    free(full);
    free(y_t);
    free(cache);
    rig_close(&r);
}

static void test_checkpoint_round_trip(void)
{
    Model m, back;
    Config c, cb;
    char err[ERR_LEN], path[320];
    if (tmp_dir_make("ssm")) { CHECK(0, "tmp dir"); return; }
    snprintf(path, sizeof path, "%.255s/mamba.safetensors", tmp_dir);
    if (tm_build(&m, &c, "arch=mamba", "state=5", "expand=3", NULL)) { CHECK(0, "build"); return; }
    Rng rng;
    rng_seed(&rng, 9);
    tm_randomize(&m, &rng, 0.3f);
    CHECK(checkpoint_save(path, &m, NULL, NULL, 0, err) == 0, "save: %s", err);
    config_defaults(&cb);
    if (checkpoint_load(path, &cb, &back, NULL, err)) {
        CHECK(0, "load: %s", err);
        model_free(&m);
        return;
    }
    CHECK(back.cfg.state == 5 && back.cfg.expand == 3 && !strcmp(back.cfg.arch, "mamba"), "state %d expand %d arch %s",
          back.cfg.state, back.cfg.expand, back.cfg.arch);
    CHECK(back.n_floats == m.n_floats && memcmp(back.w, m.w, sizeof(float) * m.n_floats) == 0,
          "weights differ after the round trip");
    Work w1, w2;
    if (work_alloc(&w1, &m, 2, 0, err) || work_alloc(&w2, &back, 2, 0, err)) { CHECK(0, "%s", err); return; }
    tm_batch(&m, &w1, 2, 5);
    tm_batch(&back, &w2, 2, 5);
    double l1 = tm_run(&m, &w1, 2, 0, 0), l2 = tm_run(&back, &w2, 2, 0, 0);
    CHECK(l1 == l2, "loss %.9g before, %.9g after the round trip", l1, l2);
    work_free(&w1);
    work_free(&w2);
    model_free(&back);
    model_free(&m);
    tmp_dir_remove();
}

/* Trains c for c->steps on ds; losses[] gets every step's loss.  Returns
   the final train loss (NAN on error). */
static double train(const Config *c, const Dataset *ds, double *losses)
{
    Model m;
    char err[ERR_LEN];
    Config cc = *c;
    cc.vocab = ds->vocab;
    if (config_validate(&cc, err) || model_build(&m, &cc, err)) {
        printf("  %s\n", err);
        return NAN;
    }
    Trainer *t;
    if (trainer_create(&t, &m, ds, cc.threads, 1, err)) {
        printf("  %s\n", err);
        model_free(&m);
        return NAN;
    }
    TrainProgress p = {0};
    while (!trainer_done(t)) {
        if (trainer_step(t, &p, err)) {
            printf("  %s\n", err);
            p.loss = NAN;
            break;
        }
        if (losses) losses[p.step - 1] = p.loss;
    }
    trainer_free(t);
    model_free(&m);
    return p.loss;
}

#define DET_STEPS 8

static void test_threads(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 4000, 5);
    double runs[3][2][DET_STEPS];
    for (int threads = 1; threads <= 2; threads++) {
        char th[32];
        snprintf(th, sizeof th, "threads=%d", threads);
        const char *args[] = {"arch=mamba", "d=16", "layers=2", "n_ctx=12", "batch=6", "state=4", "steps=8", th, NULL};
        Config c;
        if (tm_config(&c, args)) { CHECK(0, "setup"); continue; }
        for (int k = 0; k < 2; k++) train(&c, &ds, runs[threads][k]);
        CHECK(memcmp(runs[threads][0], runs[threads][1], sizeof runs[threads][0]) == 0,
              "threads=%d: two identical runs differ", threads);
    }
    double worst = 0;
    for (int s = 0; s < DET_STEPS; s++) worst = fmax(worst, fabs(runs[2][0][s] - runs[1][0][s]) / runs[1][0][s]);
    printf("  2 threads vs 1: largest relative loss difference over %d steps %.3g\n", DET_STEPS, worst);
    CHECK(isfinite(runs[1][0][0]) && worst <= 1e-5, "2 threads' losses differ from 1 thread's by %g", worst);
    tm_free_dataset(&ds);
}

/* One batch of 4 windows learned by heart, as test_train's overfit check
   for attention and the masked mixer: loss from ~ln 50 to below 0.05. */
static void test_learns_one_batch(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 50, 4 * 16 + 1, 7);
    const char *args[] = {"arch=mamba", "d=32", "layers=2", "n_ctx=16", "batch=4", "order=sequential", "steps=300",
                          "lr=0.01", "warmup=10", "decay=constant", "weight_decay=0", "threads=1", NULL};
    Config c;
    if (tm_config(&c, args)) { CHECK(0, "setup"); tm_free_dataset(&ds); return; }
    double losses[300];
    double last = train(&c, &ds, losses);
    printf("  mamba on one batch: loss %.4f at step 1, %.4f at step 300\n", losses[0], last);
    CHECK(losses[0] > 3.5 && last < 0.05, "mamba: loss %.4f at step 1, %.4f after 300 steps on one batch", losses[0],
          last);
    tm_free_dataset(&ds);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_refusals);
    RUN(test_init);
    RUN(test_constant_cache);
    RUN(test_checkpoint_round_trip);
    RUN(test_threads);
    RUN(test_learns_one_batch);
    CHECK_EXIT();
}
