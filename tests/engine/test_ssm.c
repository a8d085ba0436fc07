/*
 * test_ssm.c — what the state-space mixers (mamba, hyena; docs/mixers-ssm.md)
 * promise beyond the checks every registered mixer gets elsewhere (finite
 * differences, causality, threads, checkpoint round trips and learning in
 * test_mixer_contract, whole models in test_grad, steps equal to the full
 * pass in test_incremental, generation in test_generate, the PyTorch
 * cross-check in test_crosscheck.sh):
 *   - bad keys are refused in one line naming the key;
 *   - the initialisation the page states (mamba: S4D-real A, dt in
 *     [1e-3, 1e-1], D = 1, the short convolution within +-1/2; hyena: the
 *     filter's frequencies and D 1, its FFN and short convolution uniform
 *     within 1/sqrt(fan_in));
 *   - the generation cache is the same size at every n_ctx (constant
 *     memory per token), and a recurrent step at position t gives the full
 *     forward's position t;
 *   - hyena's long convolution (FFT) equals the direct causal sum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/fft_plans.h"
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

/* |w| of every entry, at most bound, and the largest above 0.6 bound. */
static void check_uniform(const Model *m, const char *name, double bound)
{
    int i = model_find_param(m, name);
    CHECK(i >= 0, "no %s", name);
    if (i < 0) return;
    double mx = max_abs(model_param(m, i), m->params[i].numel);
    CHECK(mx <= bound && mx > 0.6 * bound, "%s: max |w| %g, want U(-%g, %g)", name, mx, bound, bound);
}

static void test_hyena_init(void)
{
    Model m;
    Config c;
    if (tm_build(&m, &c, "arch=hyena", "d=16", "n_ctx=12", NULL)) { CHECK(0, "build"); return; }
    const float *freq = param_of(&m, "blocks.0.mix.filter.freq"), *D = param_of(&m, "blocks.1.mix.filter.D");
    if (!freq || !D) { model_free(&m); return; }
    int bad = 0;
    for (int i = 0; i < 64; i++) bad += freq[i] != 1.0f;
    for (int i = 0; i < 16; i++) bad += D[i] != 1.0f;
    CHECK(bad == 0, "%d of filter.freq and filter.D are not 1", bad);
    check_uniform(&m, "blocks.0.mix.short.w", 1 / sqrt(3.0));
    check_uniform(&m, "blocks.0.mix.filter.w1", 1 / sqrt(33.0));
    check_uniform(&m, "blocks.1.mix.filter.w3", 1 / sqrt(64.0));
    check_uniform(&m, "blocks.1.mix.filter.w4", 1 / sqrt(64.0));
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
    memset(&r, 0, sizeof r);   /* rig_wire sets only what it names: gemm NULL */
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

/* hyena's long convolution, both paths: the mixer's output equals the
   page's formula evaluated here in double (the filter from the weights, q
   by the causal sum over the saved p and x0), on each path forced, at n 5,
   40 (L = 80, a factor 5), 70 (L = 160) and 130; the two paths' gradients
   agree to float32 rounding. */
static void test_hyena_fft_equals_direct(void)
{
    int ns[] = {5, 40, 70, 130};
    for (int i = 0; i < 8; i++) {
        MixerRig r;
    memset(&r, 0, sizeof r);   /* rig_wire sets only what it names: gemm NULL */
        memset(&r, 0, sizeof r);   /* rig_wire sets only what it names: gemm NULL */
        char nk[32];
        snprintf(nk, sizeof nk, "n_ctx=%d", ns[i / 2]);
        const char *args[] = {"arch=hyena", "vocab=13", "d=6", "heads=2", nk, "layers=1", NULL};
        if (tm_config(&r.c, args) || config_validate(&r.c, NULL) || model_build(&r.m, &r.c, NULL)) {
            CHECK(0, "build");
            return;
        }
        char err[ERR_LEN];
        int n = ns[i / 2], d = 6, B = 2, path = i % 2 ? CONV_FFT : CONV_DIRECT;
        if (work_alloc(&r.w, &r.m, B, 1, err)) { CHECK(0, "%s", err); model_free(&r.m); return; }
        rig_wire(&r, B, n, 1);
        CHECK(hyena_force_path(r.a.state, path) == 0, "force path");
        Rng rng;
        rng_seed(&rng, 12);
        tm_randomize(&r.m, &rng, 0.3f);
        size_t N = (size_t)B * n * d;
        float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N), *want = malloc(sizeof(float) * N);
        fill(x, N, &rng, 1.0f);
        r.m.mixer->forward(&r.a, x, y);
        /* the filter from the page's formula, in double */
        const float *const *w = r.a.w;
        enum { W1 = 4, W4 = 10, FREQ = 11, DD = 12, WOUT = 13, BOUT = 14 };
        double *k = calloc((size_t)n * d, sizeof(double));
        for (int t = 0; t < n; t++) {
            double z[33], h[64], g[64], tl = n > 1 ? (double)t / (n - 1) : 0.0, wt = 2 * M_PI * t / n;
            z[0] = tl;
            for (int b = 0; b < 16; b++) {
                double f = 1e-4 + b * (15 - 1e-4) / 15;
                z[1 + b] = cos(f * wt);
                z[17 + b] = -sin(f * wt);
            }
            const double *in = z;
            int in_dim = 33;
            for (int l = 0; l < 3; l++) {
                const float *W = w[W1 + 2 * l], *bias = w[W1 + 2 * l + 1];
                for (int o = 0; o < 64; o++) {
                    double v = bias[o];
                    for (int j = 0; j < in_dim; j++) v += (double)W[o * in_dim + j] * in[j];
                    g[o] = sin((double)w[FREQ][o] * v);
                }
                memcpy(h, g, sizeof h);
                in = h;
                in_dim = 64;
            }
            for (int c = 0; c < d; c++) {
                double v = 0, lo = log(1e-2) / 1.5, hi = log(1e-2) / 0.3, delta = lo + (hi - lo) * c / (d - 1);
                for (int j = 0; j < 64; j++) v += (double)w[W4][c * 64 + j] * h[j];
                k[(size_t)t * d + c] = v * exp(-tl * fabs(delta));
            }
        }
        /* q by the direct sum from the saved p and x0, then out_proj */
        const float *uc = r.a.saved + (size_t)B * n * 3 * d, *p = uc + (size_t)B * n * 3 * d;
        for (int b = 0; b < B; b++)
            for (int t = 0; t < n; t++) {
                double y0[6];
                for (int c = 0; c < d; c++) {
                    double q = (double)w[DD][c] * p[((size_t)b * n + t) * d + c];
                    for (int s = 0; s <= t; s++) q += k[(size_t)(t - s) * d + c] * p[((size_t)b * n + s) * d + c];
                    y0[c] = q * uc[((size_t)b * n + t) * 3 * d + c];
                }
                for (int o = 0; o < d; o++) {
                    double v = w[BOUT][o];
                    for (int c = 0; c < d; c++) v += (double)w[WOUT][o * d + c] * y0[c];
                    want[((size_t)b * n + t) * d + o] = (float)v;
                }
            }
        double diff = max_diff(y, want, N), scale = max_abs(want, N);
        CHECK(scale > 0 && diff <= 1e-5 * scale, "hyena n=%d %s: output differs from the direct sum by %g (scale %g)", n,
              path == CONV_FFT ? "fft" : "direct", diff, scale);
        /* backward: the two paths' gradients, dx and every weight */
        float *dx = malloc(sizeof(float) * N), *grads[2], *dxs[2];
        for (int k2 = 0; k2 < 2; k2++) {
            hyena_force_path(r.a.state, k2 ? CONV_FFT : CONV_DIRECT);
            work_zero_grads(&r.w, &r.m);
            r.m.mixer->forward(&r.a, x, y);
            r.m.mixer->backward(&r.a, x, want, dx);   /* want as dy */
            grads[k2] = malloc(sizeof(float) * r.m.n_floats);
            memcpy(grads[k2], r.w.grads, sizeof(float) * r.m.n_floats);
            dxs[k2] = malloc(sizeof(float) * N);
            memcpy(dxs[k2], dx, sizeof(float) * N);
        }
        double gd = max_diff(grads[0], grads[1], r.m.n_floats), gs = max_abs(grads[0], r.m.n_floats);
        double xd = max_diff(dxs[0], dxs[1], N), xs = max_abs(dxs[0], N);
        CHECK(gs > 0 && gd <= 1e-5 * gs && xd <= 1e-5 * xs, "hyena n=%d: direct and fft gradients differ by %g of %g, dx by %g of %g",
              n, gd, gs, xd, xs);
        for (int k2 = 0; k2 < 2; k2++) {
            free(grads[k2]);
            free(dxs[k2]);
        }
        free(dx);
        free(k);
        free(x);
        free(y);
        free(want);
        rig_close(&r);
    }
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_refusals);
    RUN(test_init);
    RUN(test_hyena_init);
    RUN(test_constant_cache);
    RUN(test_hyena_fft_equals_direct);
    CHECK_EXIT();
}
