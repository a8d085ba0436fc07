/*
 * test_incremental.c — incremental decoding: for every registered mixer with
 * forward_step, feeding positions one at a time must give the full causal
 * forward pass's outputs.  Also the Dispatcher's level count per n and its
 * level dropout (p = 1 leaves V Wout^T; evaluation ignores p; backward
 * drops the same levels as forward).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/mixer.h"
#include "engine/model.h"
#include "engine/ops.h"
#include "engine/rng.h"
#include "tests/check.h"
#include "tests/test_util.h"

/* arch with n_ctx = n (d 12, h 3) and B samples, random weights; extra is
   one more key=value or NULL. */
static int rig_open(MixerRig *r, const char *arch, int n, int B, const char *extra, uint64_t seed)
{
    char a_arg[64], n_arg[32];
    snprintf(a_arg, sizeof a_arg, "arch=%s", arch);
    snprintf(n_arg, sizeof n_arg, "n_ctx=%d", n);
    memset(r, 0, sizeof *r);
    if (tm_build(&r->m, &r->c, a_arg, n_arg, "d=12", "heads=3", extra, NULL) ||
        rig_alloc_random(r, B, n, 1, seed))
        return -1;
    for (int i = 0; i < B * n; i++) r->w.inputs[i] = 2 + i % 9;
    return 0;
}

/* Full forward of one random sequence vs forward_step at t = 0..n-1; the
   cache starts as NaN so a read of a position not yet written shows. */
static void check_steps(const char *arch, int n, const char *extra, int training, uint64_t rng_key)
{
    MixerRig r;
    if (rig_open(&r, arch, n, 1, extra, 3 + n)) {
        CHECK(0, "build %s n=%d", arch, n);
        return;
    }
    const MixerOps *ops = r.m.mixer;
    int d = r.c.d;
    size_t nd = (size_t)n * d, cache_n = ops->cache_floats(&r.m.cfg);
    float *x = malloc(sizeof(float) * nd), *full = malloc(sizeof(float) * nd), *step = malloc(sizeof(float) * nd);
    float *cache = malloc(sizeof(float) * (cache_n ? cache_n : 1));
    memset(cache, 0xff, sizeof(float) * cache_n);
    Rng rng;
    rng_seed(&rng, 17 + n);
    fill(x, nd, &rng, 1.0f);
    r.a.training = training;
    r.a.rng_key = rng_key;
    ops->forward(&r.a, x, full);
    for (int t = 0; t < n; t++) ops->forward_step(&r.a, t, x + (size_t)t * d, step + (size_t)t * d, cache);
    double scale = max_abs(full, nd), diff = max_diff(full, step, nd);
    CHECK(scale > 0 && diff <= 1e-5 * scale, "%s n=%d %s: steps differ from the full pass by %g (output scale %g)",
          arch, n, extra ? extra : "", diff, scale);
    free(x);
    free(full);
    free(step);
    free(cache);
    rig_close(&r);
}

static void test_steps_match_forward(void)
{
    int tested = 0;
    for (int i = 0; i < mixer_count(); i++) {
        const MixerOps *ops = mixer_at(i);
        if (!ops->forward_step || !ops->has_causal) continue;
        CHECK(ops->cache_floats != NULL, "%s has forward_step but no cache_floats", ops->name);
        if (!ops->cache_floats) continue;
        int ns[] = {1, 6, 9};
        for (int k = 0; k < 3; k++) check_steps(ops->name, ns[k], NULL, 0, 0);
        tested++;
    }
    CHECK(tested >= 4, "only %d mixers have forward_step", tested);
}

/* linattn's recurrent state over several chunks (LINEAR_CHUNK = 64; the
   full pass carries a state across them, the steps one per position), for
   both feature maps; its cache is the same size at any n_ctx (constant
   memory per token). */
static void test_linattn_recurrent(void)
{
    check_steps("linattn", 150, "feature_map=elu1", 0, 0);
    check_steps("linattn", 150, "feature_map=taylor", 0, 0);
    const MixerOps *ops = mixer_find("linattn");
    Config c;
    config_defaults(&c);
    config_set_arg(&c, "arch=linattn", NULL);
    size_t at64 = ops->cache_floats(&c);
    c.n_ctx = 4096;
    CHECK(at64 > 0 && ops->cache_floats(&c) == at64, "linattn cache %zu floats at n 64, %zu at n 4096", at64,
          ops->cache_floats(&c));
}

/* swa keeps a ring of min(window, n_ctx) keys and values: window 1, and 3
   and 7 at n 20 (the ring wraps), against the full windowed pass; the
   cache starts NaN, so a slot read before it is written shows. */
static void test_swa_ring(void)
{
    check_steps("swa", 20, "window=1", 0, 0);
    check_steps("swa", 20, "window=3", 0, 0);
    check_steps("swa", 20, "window=7", 0, 0);
}

static void test_dispatcher_levels(void)
{
    int ns[] = {1, 2, 5, 8, 9, 16, 17}, want[] = {1, 1, 3, 3, 4, 4, 5};
    for (int k = 0; k < 7; k++) {
        MixerRig r;
        if (rig_open(&r, "dispatcher", ns[k], 1, NULL, 1)) {
            CHECK(0, "build dispatcher n=%d", ns[k]);
            continue;
        }
        int wc = model_find_param(&r.m, "blocks.0.mix.wc");
        CHECK(wc >= 0, "no blocks.0.mix.wc");
        if (wc >= 0) {
            const Param *p = &r.m.params[wc];
            CHECK(p->ndim == 2 && p->shape[0] == want[k] && p->shape[1] == 4, "n=%d: wc [%lld, %lld], want [%d, 4]",
                  ns[k], (long long)p->shape[0], (long long)p->shape[1], want[k]);
        }
        rig_close(&r);
        check_steps("dispatcher", ns[k], NULL, 0, 0);
    }
}

/* level_dropout=1 in training: y = (x Win^T) Wout^T exactly, and wc gets no
   gradient; out of training the option changes nothing. */
static void test_dispatcher_level_dropout(void)
{
    int n = 8;
    MixerRig r;
    if (rig_open(&r, "dispatcher", n, 1, "level_dropout=1", 5)) {
        CHECK(0, "build");
        return;
    }
    int d = r.c.d, h = r.c.heads, dh = d / h;
    size_t nd = (size_t)n * d;
    float *x = malloc(sizeof(float) * nd), *y = malloc(sizeof(float) * nd), *v = malloc(sizeof(float) * nd),
          *plain = malloc(sizeof(float) * nd), *eval_p0 = malloc(sizeof(float) * nd),
          *dx = malloc(sizeof(float) * nd);
    Rng rng;
    rng_seed(&rng, 23);
    fill(x, nd, &rng, 1.0f);
    linear_forward(NULL, v, x, r.wp[0], NULL, n * h, dh, dh);
    linear_forward(NULL, plain, v, r.wp[2], NULL, n * h, dh, dh);

    r.a.training = 1;
    r.a.rng_key = 77;
    r.m.cfg.level_dropout = 1.0;
    r.m.mixer->forward(&r.a, x, y);
    CHECK(memcmp(y, plain, sizeof(float) * nd) == 0, "p=1 in training: max diff from V Wout^T %g",
          max_diff(y, plain, nd));
    r.m.mixer->backward(&r.a, x, y, dx);
    int wc = model_find_param(&r.m, "blocks.0.mix.wc");
    CHECK(max_abs(r.w.grads + r.m.params[wc].offset, r.m.params[wc].numel) == 0.0, "p=1: wc has gradient");

    r.a.training = 0;
    r.m.cfg.level_dropout = 0.0;
    r.m.mixer->forward(&r.a, x, eval_p0);
    CHECK(max_diff(eval_p0, plain, nd) > 1e-3 * max_abs(plain, nd), "levels mix nothing without dropout");
    r.m.cfg.level_dropout = 1.0;
    r.m.mixer->forward(&r.a, x, y);
    CHECK(memcmp(y, eval_p0, sizeof(float) * nd) == 0, "p=1 out of training changed the output by %g",
          max_diff(y, eval_p0, nd));
    free(x);
    free(y);
    free(v);
    free(plain);
    free(eval_p0);
    free(dx);
    rig_close(&r);
}

/* level_dropout=0.5 in training: one draw per level for the whole step
   (every sample and slice agrees), different steps draw differently, and
   backward drops what forward dropped (finite differences). */
static void test_dispatcher_dropout_consistent(void)
{
    int n = 8, B = 2, patterns = 0;
    MixerRig r;
    if (rig_open(&r, "dispatcher", n, B, "level_dropout=0.5", 9)) {
        CHECK(0, "build");
        return;
    }
    const MixerOps *ops = r.m.mixer;
    int d = r.c.d;
    size_t nd = (size_t)n * d, N = (size_t)B * nd;
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N), *y1 = malloc(sizeof(float) * nd),
          *first = malloc(sizeof(float) * N), *rr = malloc(sizeof(float) * N), *dx = malloc(sizeof(float) * N);
    Rng rng;
    rng_seed(&rng, 29);
    fill(x, N, &rng, 1.0f);
    fill(rr, N, &rng, 1.0f);
    r.a.training = 1;
    for (uint64_t key = 1; key <= 6; key++) {
        r.a.rng_key = key;
        ops->forward(&r.a, x, y);
        if (key == 1) memcpy(first, y, sizeof(float) * N);
        else patterns += max_diff(first, y, N) > 0;
        /* the second sample alone, as another thread's slice would run it */
        MixArgs one = r.a;
        one.B = 1;
        ops->forward(&one, x + nd, y1);
        CHECK(max_diff(y1, y + nd, nd) <= 1e-6 * max_abs(y1, nd), "key %llu: a slice drew other levels",
              (unsigned long long)key);
        check_steps("dispatcher", n, "level_dropout=0.5", 1, key);
    }
    CHECK(patterns > 0, "six steps all dropped the same levels");

    r.a.rng_key = 3;
    memset(r.w.grads, 0, sizeof(float) * r.m.n_floats);
    ops->forward(&r.a, x, y);
    ops->backward(&r.a, x, rr, dx);
    const BlockParams *bp = &r.m.stacks[0].blocks[0];
    float hstep = 1e-2f;
    int bad = 0;
    for (int k = -1; k < bp->n_mix; k++) {
        float *v = k < 0 ? x : model_param(&r.m, bp->mix0 + k);
        const float *ana = k < 0 ? dx : r.w.grads + r.m.params[bp->mix0 + k].offset;
        size_t count = k < 0 ? N : r.m.params[bp->mix0 + k].numel;
        for (size_t i = 0; i < count; i++) {
            float keep = v[i];
            v[i] = keep + hstep;
            ops->forward(&r.a, x, y);
            double lp = dotd(y, rr, N);
            v[i] = keep - hstep;
            ops->forward(&r.a, x, y);
            double lm = dotd(y, rr, N);
            v[i] = keep;
            double num = (lp - lm) / (2 * hstep);
            if (fabs(num - ana[i]) > 1e-2 * fmax(fabs(num), fabs(ana[i])) + 2e-3 && bad++ < 5)
                CHECK(0, "param %d [%zu]: numeric %g analytic %g", k, i, num, ana[i]);
        }
    }
    free(x);
    free(y);
    free(y1);
    free(first);
    free(rr);
    free(dx);
    rig_close(&r);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_steps_match_forward);
    RUN(test_swa_ring);
    RUN(test_dispatcher_levels);
    RUN(test_dispatcher_level_dropout);
    RUN(test_linattn_recurrent);
    RUN(test_dispatcher_dropout_consistent);
    CHECK_EXIT();
}
