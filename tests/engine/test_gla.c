/*
 * test_gla.c — the gla mixer's own checks (docs/mixers.md, "gla") beyond
 * those every mixer gets from the registry (test_grad's finite differences
 * and causality, test_incremental, test_generate, test_tasks, test_alloc,
 * the crosscheck):
 *   - its keys refused in one line each (gate=foo names the choices), and
 *     the bidirectional task;
 *   - the chunked kernels (linear_chunks.c: the scalar decay of gate=fixed,
 *     the gated form of gate=data) equal the plain recurrence evaluated in
 *     double, at n below one chunk, at a multiple of it and past one, with
 *     gates strong enough that exp(-sum of log gates) would overflow; their
 *     gradients equal central differences of that recurrence in double;
 *   - the mixer's recurrent steps (generation) give its chunked forward
 *     over several chunks, with a cache whose size does not grow with n;
 *   - perturbing token t leaves every logit before t bit-identical, over
 *     several chunks, both gates;
 *   - the batch split as two threads split it gives the same outputs and
 *     input gradients bit for bit; a repeated 2-thread run is bit-identical,
 *     and 1 and 2 threads agree to float32 rounding;
 *   - init=fan_in draws its linear weights N(0, 1/fan_in) (checkpoints keep
 *     gate and gate_rank: test_resume, test_gla_cli.sh);
 *   - the loss falls: one batch learned, with each gate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/mixers/linear_chunks.h"
#include "engine/model.h"
#include "engine/ops.h"
#include "engine/rng.h"
#include "engine/trainer.h"
#include "tests/check.h"
#include "tests/test_util.h"

/* ---- refusals ---- */

static void check_refused(const char *arg, const char *want)
{
    Config c;
    char err[ERR_LEN] = "";
    config_defaults(&c);
    config_set(&c, "arch", "gla", err);
    int rc = config_set_arg(&c, arg, err);
    CHECK(rc != 0 && strstr(err, want) && !strchr(err, '\n'), "%s: rc %d, message '%s'", arg, rc, err);
}

static void test_refusals(void)
{
    check_refused("gate=foo", "fixed|data");
    check_refused("gate=", "gate");
    check_refused("gate_rank=0", "gate_rank");
    check_refused("gate_rank=257", "gate_rank");
    check_refused("gate_rank=2.5", "gate_rank");
    /* a head's state too large for the cache, from the mixer's check */
    Config c;
    char err[ERR_LEN] = "";
    const char *big[] = {"arch=gla", "vocab=13", "d=65536", "heads=1", NULL};
    CHECK(tm_config(&c, big) == 0, "setup");
    CHECK(config_validate(&c, err) != 0 && strstr(err, "gla") && !strchr(err, '\n'), "big state: '%s'", err);
    /* causal only: mlm refused in one line naming the task */
    const char *mlm[] = {"arch=gla", "task=mlm", "vocab=13", NULL};
    CHECK(tm_config(&c, mlm) == 0, "setup");
    CHECK(config_validate(&c, err) != 0 && strstr(err, "mlm") && !strchr(err, '\n'), "gla mlm: '%s'", err);
}

/* ---- the kernels against the recurrence ---- */

/* The recurrence of linear_chunks.h in double: S_t = diag(decay_t) S_{t-1}
   + b_t (x) v_t, out_t = a_t^T S_t; decay exp(lg) (lg non-NULL) or gamma.
   Returns sum(out * r). */
static double recurrence(double *out, const double *a, const double *b, const double *lg, double gamma,
                         const double *v, const double *r, int n, int F, int E)
{
    double *S = calloc((size_t)F * E, sizeof(double)), loss = 0;
    for (int t = 0; t < n; t++) {
        for (int f = 0; f < F; f++) {
            double decay = lg ? exp(lg[(size_t)t * F + f]) : gamma;
            for (int e = 0; e < E; e++)
                S[(size_t)f * E + e] = decay * S[(size_t)f * E + e] + b[(size_t)t * F + f] * v[(size_t)t * E + e];
        }
        for (int e = 0; e < E; e++) {
            double o = 0;
            for (int f = 0; f < F; f++) o += a[(size_t)t * F + f] * S[(size_t)f * E + e];
            if (out) out[(size_t)t * E + e] = o;
            loss += o * r[(size_t)t * E + e];
        }
    }
    free(S);
    return loss;
}

static void to_double(double *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = x[i];
}

/* max |analytic - numeric| over count entries, relative to the largest
   numeric one; the numeric one by central differences of the recurrence
   in double at h = 1e-6 (which[] is the array perturbed). */
static double grad_error(const float *analytic, double *which, size_t count, double *const in[4], double gamma,
                         const double *r, int n, int F, int E)
{
    double worst = 0, scale = 0, h = 1e-6;
    for (size_t i = 0; i < count; i++) {
        double keep = which[i];
        which[i] = keep + h;
        double lp = recurrence(NULL, in[0], in[1], in[2], gamma, in[3], r, n, F, E);
        which[i] = keep - h;
        double lm = recurrence(NULL, in[0], in[1], in[2], gamma, in[3], r, n, F, E);
        which[i] = keep;
        double num = (lp - lm) / (2 * h);
        worst = fmax(worst, fabs(num - analytic[i]));
        scale = fmax(scale, fabs(num));
    }
    return scale > 0 ? worst / scale : INFINITY;
}

/* One case: the kernel's forward against the recurrence (relative 1e-5 of
   the output's scale) and its gradients against central differences
   (relative 1e-4: float32 sums of up to n terms). */
static void check_kernel(int gated, int n, int F, int E, float lg_lo, uint64_t seed)
{
    Rng rng;
    rng_seed(&rng, seed);
    size_t nF = (size_t)n * F, nE = (size_t)n * E;
    float *a = malloc(sizeof(float) * nF), *b = malloc(sizeof(float) * nF), *lg = malloc(sizeof(float) * nF);
    float *v = malloc(sizeof(float) * nE), *out = malloc(sizeof(float) * nE), *dout = malloc(sizeof(float) * nE);
    float *da = malloc(sizeof(float) * nF), *db = malloc(sizeof(float) * nF), *dlg = malloc(sizeof(float) * nF);
    float *dv = malloc(sizeof(float) * nE);
    fill(a, nF, &rng, 1.0f);
    fill(b, nF, &rng, 1.0f);
    fill(v, nE, &rng, 1.0f);
    fill(dout, nE, &rng, 1.0f);
    /* log gates in [lg_lo, 0): a few positions far below, where the decay
       since the chunk's start leaves float range */
    for (size_t i = 0; i < nF; i++) lg[i] = lg_lo * (float)rng_double(&rng);
    float gamma = 0.9f;
    size_t work_n = gated ? chunks_gated_scratch(F, E) : chunks_scratch(F, E);
    float *work = malloc(sizeof(float) * work_n);
    if (gated) {
        GatedWork w = chunks_gated_carve(work, F, E);
        chunks_gated_forward(NULL, &w, a, b, lg, v, out, n, F, E);
        chunks_gated_backward(NULL, &w, a, b, lg, v, dout, da, db, dlg, dv, n, F, E);
    } else {
        ChunkWork w = chunks_carve(work, F, E);
        chunks_forward(NULL, &w, 1, gamma, a, b, v, out, n, F, E);
        chunks_backward(NULL, &w, 1, gamma, a, b, v, dout, da, db, dv, n, F, E);
    }
    double *ad = malloc(sizeof(double) * nF), *bd = malloc(sizeof(double) * nF), *lgd = malloc(sizeof(double) * nF);
    double *vd = malloc(sizeof(double) * nE), *rd = malloc(sizeof(double) * nE), *want = malloc(sizeof(double) * nE);
    to_double(ad, a, nF);
    to_double(bd, b, nF);
    to_double(lgd, lg, nF);
    to_double(vd, v, nE);
    to_double(rd, dout, nE);
    double *in[4] = {ad, bd, gated ? lgd : NULL, vd};
    recurrence(want, ad, bd, in[2], gamma, vd, rd, n, F, E);
    double worst = 0, scale = 0;
    int finite = 1;
    for (size_t i = 0; i < nE; i++) {
        worst = fmax(worst, fabs(out[i] - want[i]));
        scale = fmax(scale, fabs(want[i]));
        finite &= isfinite(out[i]);
    }
    const char *what = gated ? "gated" : "fixed";
    CHECK(finite && worst <= 1e-5 * scale, "%s n=%d F=%d E=%d lg>=%g: chunked output differs from the recurrence by %g "
          "(scale %g)", what, n, F, E, lg_lo, worst, scale);
    double ea = grad_error(da, ad, nF, in, gamma, rd, n, F, E), eb = grad_error(db, bd, nF, in, gamma, rd, n, F, E);
    double ev = grad_error(dv, vd, nE, in, gamma, rd, n, F, E);
    double el = gated ? grad_error(dlg, lgd, nF, in, gamma, rd, n, F, E) : 0;
    CHECK(ea <= 1e-4 && eb <= 1e-4 && ev <= 1e-4 && el <= 1e-4,
          "%s n=%d F=%d E=%d lg>=%g: gradients off by da %g db %g dv %g dlg %g (relative)", what, n, F, E, lg_lo, ea,
          eb, ev, el);
    free(a); free(b); free(lg); free(v); free(out); free(dout); free(da); free(db); free(dlg); free(dv);
    free(ad); free(bd); free(lgd); free(vd); free(rd); free(want); free(work);
}

/* n below a sub-chunk, below a chunk, a chunk exactly, past one (ragged)
   and several; F and E not multiples of anything. */
static void test_kernels_match_recurrence(void)
{
    int ns[] = {5, 40, LINEAR_CHUNK, 70, 150};
    for (int i = 0; i < 5; i++) {
        check_kernel(0, ns[i], 3, 4, 0, 10 + i);
        check_kernel(1, ns[i], 3, 4, -0.3f, 20 + i);
    }
    /* gates down to exp(-8) per position: the log gates of a chunk sum to
       about -250, far below exp's range of -87, where the decays relative
       to a chunk's start underflow and their inverses overflow */
    check_kernel(1, 150, 3, 4, -8.0f, 31);
    check_kernel(1, 70, 5, 2, -8.0f, 32);
}

/* ---- the mixer ---- */

/* gla at n_ctx n (d 12, h 3: dh 4, dk 2) with B samples, one block, weights
   N(0, 0.3); gate is "gate=fixed" or "gate=data". */
static int rig_open(MixerRig *r, const char *gate, int n, int B)
{
    char nk[32], err[ERR_LEN];
    snprintf(nk, sizeof nk, "n_ctx=%d", n);
    memset(r, 0, sizeof *r);
    if (tm_build(&r->m, &r->c, "arch=gla", gate, nk, "d=12", "heads=3", "layers=1", "gate_rank=5", NULL)) return -1;
    if (work_alloc(&r->w, &r->m, B, 1, err)) {
        printf("  work: %s\n", err);
        model_free(&r->m);
        return -1;
    }
    Rng rng;
    rng_seed(&rng, 40 + n);
    tm_randomize(&r->m, &rng, 0.3f);
    work_zero_grads(&r->w, &r->m);
    rig_wire(r, B, n, 1);
    return 0;
}

/* The recurrent steps (generation's path) against the chunked forward over
   three chunks, and the cache the same size at any n_ctx. */
static void test_steps_match_forward(void)
{
    const char *gates[] = {"gate=fixed", "gate=data"};
    for (int g = 0; g < 2; g++) {
        int n = 150;
        MixerRig r;
        if (rig_open(&r, gates[g], n, 1)) { CHECK(0, "build %s", gates[g]); continue; }
        const MixerOps *ops = r.m.mixer;
        int d = r.c.d;
        size_t nd = (size_t)n * d, cache_n = ops->cache_floats(&r.m.cfg);
        float *x = malloc(sizeof(float) * nd), *full = malloc(sizeof(float) * nd), *step = malloc(sizeof(float) * nd);
        float *cache = malloc(sizeof(float) * cache_n);
        memset(cache, 0xff, sizeof(float) * cache_n);   /* NaN: step 0 must not read it */
        Rng rng;
        rng_seed(&rng, 5);
        fill(x, nd, &rng, 1.0f);
        ops->forward(&r.a, x, full);
        for (int t = 0; t < n; t++) ops->forward_step(&r.a, t, x + (size_t)t * d, step + (size_t)t * d, cache);
        double scale = max_abs(full, nd), diff = max_diff(full, step, nd);
        printf("  %s: steps vs chunked forward over %d positions: %.3g of %.3g\n", gates[g], n, diff, scale);
        CHECK(scale > 0 && diff <= 1e-5 * scale, "%s: steps differ from the chunked forward by %g (scale %g)",
              gates[g], diff, scale);
        /* constant memory per token: h dk dh floats at any n_ctx */
        Config big = r.m.cfg;
        big.n_ctx = 65536;
        CHECK(cache_n == 3 * 2 * 4 && ops->cache_floats(&big) == cache_n, "%s: cache %zu floats, %zu at n 65536",
              gates[g], cache_n, ops->cache_floats(&big));
        free(x);
        free(full);
        free(step);
        free(cache);
        rig_close(&r);
    }
}

/* Changing token t leaves every logit before t bit-identical and changes
   some at or after it, over three chunks (test_grad checks n 8). */
static void test_causality_over_chunks(void)
{
    const char *gates[] = {"gate=fixed", "gate=data"};
    int ts[] = {0, 1, 15, 16, 17, 63, 64, 65, 100, 128, 149};
    for (int g = 0; g < 2; g++) {
        Model m;
        Config c;
        if (tm_build(&m, &c, "arch=gla", gates[g], "n_ctx=150", "layers=2", NULL)) { CHECK(0, "build"); continue; }
        Rng rng;
        rng_seed(&rng, 6);
        tm_randomize(&m, &rng, 0.3f);
        Work w;
        char err[ERR_LEN];
        if (work_alloc(&w, &m, 1, 0, err)) { CHECK(0, "%s", err); model_free(&m); continue; }
        int n = c.n_ctx, V = c.vocab;
        float *ref = malloc(sizeof(float) * (size_t)n * V);
        for (int k = 0; k < n; k++) { w.inputs[k] = 2 + k % (V - 2); w.targets[k] = 3; }
        tm_run(&m, &w, 1, 0, 0);
        memcpy(ref, w.logits, sizeof(float) * (size_t)n * V);
        for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
            int t = ts[i];
            int32_t keep = w.inputs[t];
            w.inputs[t] = 2 + (keep - 2 + 5) % (V - 2);
            tm_run(&m, &w, 1, 0, 0);
            w.inputs[t] = keep;
            int same = !memcmp(w.logits, ref, sizeof(float) * (size_t)t * V);
            double after = max_diff(w.logits + (size_t)t * V, ref + (size_t)t * V, (size_t)(n - t) * V);
            CHECK(same && after > 0, "%s: token %d changed logits before it (%s) or none after (%g)", gates[g], t,
                  same ? "no" : "yes", after);
        }
        free(ref);
        work_free(&w);
        model_free(&m);
    }
}

/* The batch split as two threads split it (two calls on halves) gives the
   one call's outputs and input gradients bit for bit. */
static void test_split_batch(void)
{
    const char *gates[] = {"gate=fixed", "gate=data"};
    for (int g = 0; g < 2; g++) {
        int n = 70, B = 4;
        MixerRig r;
        if (rig_open(&r, gates[g], n, B)) { CHECK(0, "build"); continue; }
        const MixerOps *ops = r.m.mixer;
        size_t per = (size_t)n * r.c.d, N = B * per, saved = ops->saved_per_sample(&r.m.cfg);
        float *x = malloc(sizeof(float) * N), *dy = malloc(sizeof(float) * N);
        float *y1 = malloc(sizeof(float) * N), *dx1 = malloc(sizeof(float) * N);
        float *y2 = malloc(sizeof(float) * N), *dx2 = malloc(sizeof(float) * N);
        Rng rng;
        rng_seed(&rng, 8);
        fill(x, N, &rng, 1.0f);
        fill(dy, N, &rng, 1.0f);
        ops->forward(&r.a, x, y1);
        ops->backward(&r.a, x, dy, dx1);
        for (int half = 0; half < 2; half++) {
            MixArgs a = r.a;
            a.B = B / 2;
            a.sample0 = half * B / 2;
            a.saved = r.a.saved + (size_t)half * (B / 2) * saved;
            size_t off = (size_t)half * (B / 2) * per;
            ops->forward(&a, x + off, y2 + off);
            ops->backward(&a, x + off, dy + off, dx2 + off);
        }
        CHECK(!memcmp(y1, y2, sizeof(float) * N) && !memcmp(dx1, dx2, sizeof(float) * N),
              "%s: halves differ from the whole batch (y by %g, dx by %g)", gates[g], max_diff(y1, y2, N),
              max_diff(dx1, dx2, N));
        free(x); free(dy); free(y1); free(dx1); free(y2); free(dx2);
        rig_close(&r);
    }
}

#define DET_STEPS 8

/* A run repeated on 2 threads is bit-identical; 1 and 2 threads agree to
   float32 rounding (the threads' gradients are summed in another order). */
static void test_threads(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 4000, 5);
    const char *gates[] = {"gate=fixed", "gate=data"};
    for (int g = 0; g < 2; g++) {
        double runs[3][2][DET_STEPS];
        for (int threads = 1; threads <= 2; threads++) {
            char th[32];
            snprintf(th, sizeof th, "threads=%d", threads);
            const char *args[] = {"arch=gla", gates[g], "d=16", "layers=2", "n_ctx=70", "batch=6", "steps=8", th,
                                  NULL};
            Config c;
            if (tm_config(&c, args)) { CHECK(0, "setup"); continue; }
            for (int k = 0; k < 2; k++) tm_train(&c, &ds, runs[threads][k], NULL);
            CHECK(!memcmp(runs[threads][0], runs[threads][1], sizeof runs[threads][0]),
                  "%s threads=%d: two identical runs differ", gates[g], threads);
        }
        double worst = 0;
        for (int s = 0; s < DET_STEPS; s++) worst = fmax(worst, fabs(runs[2][0][s] - runs[1][0][s]) / runs[1][0][s]);
        printf("  %s, 2 threads vs 1: largest relative loss difference over %d steps %.3g (step 1 %s)\n", gates[g],
               DET_STEPS, worst, runs[2][0][0] == runs[1][0][0] ? "equal" : "differs");
        CHECK(isfinite(runs[1][0][0]) && worst <= 1e-5, "%s: 2 threads' losses differ from 1 thread's by %g",
              gates[g], worst);
    }
    tm_free_dataset(&ds);
}

/* The std of a parameter's values, NAN when it is missing. */
static double param_std(const Model *m, const char *name, int *init)
{
    int i = model_find_param(m, name);
    CHECK(i >= 0, "no %s", name);
    if (i < 0) return NAN;
    *init = m->params[i].init;
    return sqrt(vec_sumsq(model_param(m, i), m->params[i].numel) / (double)m->params[i].numel);
}

/* init=fan_in: every linear weight N(0, 1/fan_in), as SPEC section 5 says
   of linear layers; gpt2: N(0, 0.02). */
static void test_init(void)
{
    const char *inits[] = {"init=gpt2", "init=fan_in"};
    const char *names[] = {"blocks.0.mix.wqkvg", "blocks.0.mix.wo", "blocks.0.mix.gate.w1", "blocks.1.mix.gate.w2"};
    double fan[] = {64, 64, 64, 16};
    for (int k = 0; k < 2; k++) {
        Model m;
        Config c;
        if (tm_build(&m, &c, "arch=gla", "d=64", "heads=4", inits[k], NULL)) { CHECK(0, "build"); continue; }
        for (int i = 0; i < 4; i++) {
            int init = -1;
            double got = param_std(&m, names[i], &init), want = k ? 1.0 / sqrt(fan[i]) : 0.02;
            CHECK(init == INIT_LINEAR && fabs(got / want - 1) < 0.1, "%s %s: std %.4g (init %d), want %.4g", inits[k],
                  names[i], got, init, want);
        }
        model_free(&m);
    }
}

/* builtin:markov, 120 steps of a small model: the valid loss ends at least
   0.25 nats below the first step's loss (test_bf16_train's bar), with each
   gate. */
static void test_learns(void)
{
    Dataset ds;
    DataOptions o = {0};
    char err[ERR_LEN];
    if (dataset_load("builtin:markov", &o, &ds, err)) { CHECK(0, "builtin:markov: %s", err); return; }
    const char *gates[] = {"gate=fixed", "gate=data"};
    for (int g = 0; g < 2; g++) {
        const char *args[] = {"arch=gla", gates[g], "d=32", "layers=2", "heads=2", "n_ctx=32", "batch=16",
                              "lr=0.003", "warmup=10", "steps=120", "eval_tokens=4096", "threads=1", NULL};
        Config c;
        double losses[120] = {0};
        if (tm_config(&c, args)) { CHECK(0, "setup"); continue; }
        double valid = tm_train(&c, &ds, losses, NULL);
        printf("  %s on builtin:markov: loss %.4f at step 1, valid %.4f after 120 steps (log V %.3f)\n", gates[g],
               losses[0], valid, log(ds.vocab));
        CHECK(isfinite(valid) && valid < losses[0] - 0.25, "%s: valid %.4f is not 0.25 nats below the first loss %.4f",
              gates[g], valid, losses[0]);
    }
    dataset_free(&ds);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_refusals);
    RUN(test_kernels_match_recurrence);
    RUN(test_steps_match_forward);
    RUN(test_causality_over_chunks);
    RUN(test_split_batch);
    RUN(test_threads);
    RUN(test_init);
    RUN(test_learns);
    CHECK_EXIT();
}
