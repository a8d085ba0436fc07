/*
 * test_fft.c — the FFT-based mixers against direct double-precision sums:
 * fft (nd: orthonormal, so it keeps the L2 norm, and equals the direct DFT;
 * fnet: equals Re DFT2; both backward passes are the transposes), conv
 * (its FFT and direct paths agree, forward and both gradients, at sizes
 * around the measured threshold; it is causal; incremental decoding equals
 * the full forward at every t), and FFTW from several threads (two threads
 * running one fft block at once give the sequential numbers; two threads
 * making and freeing plans at once).
 * Finite-difference gradients of every mixer are in test_grad.c.
 *
 * `test_fft bench-conv D H N...` instead times the two conv paths (the
 * measurement behind conv.c's threshold); it is not part of the suite.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/fft_plans.h"
#include "engine/mixer.h"
#include "engine/rng.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <cblas.h>

/* One block of a mixer outside any model: its config, state, parameters,
   gradients and scratch for B samples. */
typedef struct {
    const MixerOps *ops;
    Config cfg;
    void *state;
    float *w[MIX_MAX_PARAMS], *dw[MIX_MAX_PARAMS];
    int n_w;
    size_t numel[MIX_MAX_PARAMS];
    float *scratch;
    MixArgs a;
} Block;

static int block_open(Block *bk, const char *arch, int n, int d, int h, int fft_mode, int B, uint64_t seed)
{
    char err[512];
    memset(bk, 0, sizeof *bk);
    bk->ops = mixer_find(arch);
    if (!bk->ops) {
        CHECK(0, "mixer %s is not registered", arch);
        return -1;
    }
    config_defaults(&bk->cfg);
    snprintf(bk->cfg.arch, sizeof bk->cfg.arch, "%s", arch);
    bk->cfg.n_ctx = n;
    bk->cfg.d = d;
    bk->cfg.heads = h;
    bk->cfg.fft_mode = fft_mode;
    if (bk->ops->check_config && bk->ops->check_config(&bk->cfg, err)) {
        CHECK(0, "%s", err);
        return -1;
    }
    bk->state = bk->ops->create ? bk->ops->create(&bk->cfg, err) : NULL;
    if (bk->ops->create && !bk->state) {
        CHECK(0, "%s", err);
        return -1;
    }
    ParamDecl decl[MIX_MAX_PARAMS];
    bk->n_w = bk->ops->declare(&bk->cfg, decl);
    Rng r;
    rng_seed(&r, seed);
    for (int k = 0; k < bk->n_w; k++) {
        bk->numel[k] = (size_t)decl[k].shape[0] * (decl[k].ndim == 2 ? (size_t)decl[k].shape[1] : 1);
        bk->w[k] = malloc(sizeof(float) * bk->numel[k]);
        bk->dw[k] = calloc(bk->numel[k], sizeof(float));
        fill(bk->w[k], bk->numel[k], &r, 0.5f);
    }
    bk->scratch = malloc(sizeof(float) * (bk->ops->scratch_floats(&bk->cfg, B) + 1));
    MixArgs *a = &bk->a;
    a->cfg = &bk->cfg;
    a->B = B;
    a->n = n;
    a->d = d;
    a->heads = h;
    a->causal = bk->ops->has_causal;
    a->w = (const float *const *)bk->w;
    a->dw = bk->dw;
    a->scratch = bk->scratch;
    a->state = bk->state;
    return 0;
}

static void block_close(Block *bk)
{
    for (int k = 0; k < bk->n_w; k++) {
        free(bk->w[k]);
        free(bk->dw[k]);
    }
    free(bk->scratch);
    if (bk->state) bk->ops->destroy(bk->state);
}

static void zero_grads(Block *bk)
{
    for (int k = 0; k < bk->n_w; k++) memset(bk->dw[k], 0, sizeof(float) * bk->numel[k]);
}

/* max |a - b| / max |b| */
static double rel_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs((double)a[i] - b[i]));
    double scale = max_abs(b, n);
    return scale > 0 ? m / scale : m;
}

/* The transpose check shared by both fft modes: <F x, r> = <x, F^T r>. */
static void check_adjoint(Block *bk, const float *x, const float *rr, float *y, float *dx, size_t N, const char *what)
{
    bk->ops->forward(&bk->a, x, y);
    bk->ops->backward(&bk->a, x, rr, dx);
    double lhs = dotd(y, rr, N), rhs = dotd(x, dx, N);
    CHECK(fabs(lhs - rhs) <= 1e-5 * (fabs(lhs) + sqrt(N)), "%s: <Fx, r> %.9g vs <x, F^T r> %.9g", what, lhs, rhs);
}

/* ---- fft, mode nd ---- */

static void check_nd(int n, int d)
{
    enum { B = 2 };
    Block bk;
    if (block_open(&bk, "fft", n, d, 1, FFT_ND, B, 1)) return;
    size_t nd = (size_t)n * d, N = (size_t)B * nd;
    int Nc = (int)(nd / 2);
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N), *dx = malloc(sizeof(float) * N),
          *rr = malloc(sizeof(float) * N), *ref = malloc(sizeof(float) * N);
    Rng r;
    rng_seed(&r, 2);
    fill(x, N, &r, 1);
    fill(rr, N, &r, 1);
    bk.ops->forward(&bk.a, x, y);
    for (int b = 0; b < B; b++) {
        const float *z = x + b * nd;
        double in2 = 0, out2 = 0;
        for (size_t i = 0; i < nd; i++) {
            in2 += (double)z[i] * z[i];
            out2 += (double)y[b * nd + i] * y[b * nd + i];
        }
        CHECK(fabs(sqrt(out2) - sqrt(in2)) < 1e-5 * sqrt(in2), "n=%d d=%d: |y| %.9g vs |x| %.9g", n, d, sqrt(out2),
              sqrt(in2));
        for (int k = 0; k < Nc; k++) {
            double re = 0, im = 0;
            for (int j = 0; j < Nc; j++) {
                double ang = -2.0 * M_PI * (double)((int64_t)j * k % Nc) / Nc;
                re += z[2 * j] * cos(ang) - z[2 * j + 1] * sin(ang);
                im += z[2 * j] * sin(ang) + z[2 * j + 1] * cos(ang);
            }
            ref[b * nd + 2 * k] = (float)(re / sqrt(Nc));
            ref[b * nd + 2 * k + 1] = (float)(im / sqrt(Nc));
        }
    }
    CHECK(rel_diff(y, ref, N) < 1e-5, "n=%d d=%d: nd vs direct DFT: %g", n, d, rel_diff(y, ref, N));
    /* backward of the forward gives x back (unitary: the transpose is the inverse) */
    bk.ops->backward(&bk.a, x, y, dx);
    CHECK(rel_diff(dx, x, N) < 1e-5, "n=%d d=%d: F^T F x vs x: %g", n, d, rel_diff(dx, x, N));
    check_adjoint(&bk, x, rr, y, dx, N, "nd");
    free(x); free(y); free(dx); free(rr); free(ref);
    block_close(&bk);
}

static void test_fft_nd(void)
{
    check_nd(6, 8);      /* N = 24 */
    check_nd(5, 6);      /* N = 15, not a power of two */
    check_nd(7, 2);      /* N = 7, prime */
    check_nd(16, 32);
}

/* ---- fft, mode fnet ---- */

static void check_fnet(int n, int d)
{
    enum { B = 2 };
    Block bk;
    if (block_open(&bk, "fft", n, d, 1, FFT_FNET, B, 1)) return;
    size_t nd = (size_t)n * d, N = (size_t)B * nd;
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N), *dx = malloc(sizeof(float) * N),
          *rr = malloc(sizeof(float) * N), *ref = malloc(sizeof(float) * N);
    Rng r;
    rng_seed(&r, 3);
    fill(x, N, &r, 1);
    fill(rr, N, &r, 1);
    bk.ops->forward(&bk.a, x, y);
    for (int b = 0; b < B; b++)
        for (int k = 0; k < n; k++)
            for (int l = 0; l < d; l++) {
                double s = 0;
                for (int t = 0; t < n; t++)
                    for (int f = 0; f < d; f++)
                        s += x[b * nd + (size_t)t * d + f] *
                             cos(2.0 * M_PI * ((double)(k * t % n) / n + (double)(l * f % d) / d));
                ref[b * nd + (size_t)k * d + l] = (float)s;
            }
    CHECK(rel_diff(y, ref, N) < 1e-5, "n=%d d=%d: fnet vs direct Re DFT2: %g", n, d, rel_diff(y, ref, N));
    check_adjoint(&bk, x, rr, y, dx, N, "fnet");
    free(x); free(y); free(dx); free(rr); free(ref);
    block_close(&bk);
}

static void test_fft_fnet(void)
{
    check_fnet(6, 8);
    check_fnet(5, 7);    /* odd d: the mirrored half of the spectrum */
    check_fnet(1, 4);
    check_fnet(12, 10);
}

static void test_fft_check_config(void)
{
    const MixerOps *ops = mixer_find("fft");
    if (!ops) { CHECK(0, "fft is not registered"); return; }
    Config c;
    char err[512] = "";
    config_defaults(&c);
    c.n_ctx = 5;
    c.d = 3;
    c.fft_mode = FFT_ND;
    CHECK(ops->check_config(&c, err) == -1 && strstr(err, "even"), "odd n*d accepted: %s", err);
    c.fft_mode = FFT_FNET;
    CHECK(ops->check_config(&c, err) == 0, "fnet refused odd n*d: %s", err);
    CHECK(!ops->has_causal && ops->has_bidir && ops->default_pos == POS_NONE, "fft: bidirectional only, pos none");
}

/* ---- two threads on one fft block ---- */

typedef struct {
    const Block *bk;
    int B;
    const float *x;
    float *y, *dx, *scratch;
} Job;

static void *run_job(void *arg)
{
    Job *j = arg;
    MixArgs a = j->bk->a;   /* same state (plans), own scratch */
    a.B = j->B;
    a.scratch = j->scratch;
    for (int rep = 0; rep < 20; rep++) {
        j->bk->ops->forward(&a, j->x, j->y);
        j->bk->ops->backward(&a, j->x, j->y, j->dx);
    }
    return NULL;
}

static void test_fft_threads(void)
{
    for (int mode = FFT_ND; mode <= FFT_FNET; mode++) {
        enum { B = 3, n = 32, d = 48 };
        Block bk;
        if (block_open(&bk, "fft", n, d, 1, mode, B, 1)) return;
        size_t N = (size_t)B * n * d, S = bk.ops->scratch_floats(&bk.cfg, B) + 1;
        float *x[2], *y[2], *dx[2], *ys[2], *dxs[2], *scr[2];
        Rng r;
        rng_seed(&r, 4);
        for (int i = 0; i < 2; i++) {
            x[i] = malloc(sizeof(float) * N); y[i] = malloc(sizeof(float) * N); dx[i] = malloc(sizeof(float) * N);
            ys[i] = malloc(sizeof(float) * N); dxs[i] = malloc(sizeof(float) * N);
            scr[i] = malloc(sizeof(float) * S);
            fill(x[i], N, &r, 1);
        }
        /* sequential: the first scratch is offset by one float (alignment is the mixer's job) */
        for (int i = 0; i < 2; i++) {
            Job j = {&bk, B, x[i], ys[i], dxs[i], bk.scratch + 1};
            run_job(&j);
        }
        Job jobs[2];
        pthread_t th[2];
        for (int i = 0; i < 2; i++) {
            jobs[i] = (Job){&bk, B, x[i], y[i], dx[i], scr[i]};
            pthread_create(&th[i], NULL, run_job, &jobs[i]);
        }
        for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
        for (int i = 0; i < 2; i++) {
            CHECK(memcmp(y[i], ys[i], sizeof(float) * N) == 0, "mode %d thread %d: forward differs", mode, i);
            CHECK(memcmp(dx[i], dxs[i], sizeof(float) * N) == 0, "mode %d thread %d: backward differs", mode, i);
            free(x[i]); free(y[i]); free(dx[i]); free(ys[i]); free(dxs[i]); free(scr[i]);
        }
        block_close(&bk);
    }
}

/* ---- planning from several threads (two jobs build models at once) ---- */

static void *build_states(void *arg)
{
    (void)arg;
    for (int rep = 0; rep < 10; rep++) {
        Block nd, fnet, conv;
        if (block_open(&nd, "fft", 16, 24, 1, FFT_ND, 1, 1)) return NULL;
        if (block_open(&fnet, "fft", 12, 10, 1, FFT_FNET, 1, 1)) return NULL;
        if (block_open(&conv, "conv", 300, 8, 2, FFT_ND, 1, 1)) return NULL;
        block_close(&conv);
        block_close(&fnet);
        block_close(&nd);
    }
    return NULL;
}

static void test_plan_threads(void)
{
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, build_states, NULL);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
}

/* ---- conv ---- */

/* y [B, n, d] by the direct sum in double, for kernels w[k] [n]. */
static void conv_reference(double *y, const float *x, float *const *w, int B, int n, int d, int h)
{
    int dk = d / h;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < n; t++)
            for (int f = 0; f < d; f++) {
                double s = 0;
                for (int j = 0; j <= t; j++) s += (double)w[f / dk][j] * x[((size_t)b * n + t - j) * d + f];
                y[((size_t)b * n + t) * d + f] = s / sqrt(t + 1.0);
            }
}

/* Both paths at one size: forward, dx and dw agree, and match the double
   reference. */
static void check_conv_paths(int n, int d, int h)
{
    enum { B = 2 };
    Block bk;
    if (block_open(&bk, "conv", n, d, h, FFT_ND, B, 5)) return;
    size_t N = (size_t)B * n * d;
    float *x = malloc(sizeof(float) * N), *dy = malloc(sizeof(float) * N), *y[2], *dx[2], *dw[2];
    double *ref = malloc(sizeof(double) * N);
    Rng r;
    rng_seed(&r, 6);
    fill(x, N, &r, 1);
    fill(dy, N, &r, 1);
    for (int p = 0; p < 2; p++) {
        CHECK(conv_force_path(bk.state, p ? CONV_FFT : CONV_DIRECT) == 0, "force path");
        y[p] = malloc(sizeof(float) * N);
        dx[p] = malloc(sizeof(float) * N);
        dw[p] = malloc(sizeof(float) * (size_t)h * n);
        zero_grads(&bk);
        bk.ops->forward(&bk.a, x, y[p]);
        bk.ops->backward(&bk.a, x, dy, dx[p]);
        for (int k = 0; k < h; k++) memcpy(dw[p] + (size_t)k * n, bk.dw[k], sizeof(float) * n);
    }
    conv_reference(ref, x, bk.w, B, n, d, h);
    double scale = 0, err_ref = 0;
    for (size_t i = 0; i < N; i++) scale = fmax(scale, fabs(ref[i]));
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < N; i++) err_ref = fmax(err_ref, fabs(y[p][i] - ref[i]) / scale);
    CHECK(err_ref < 2e-5, "n=%d d=%d h=%d: forward vs double reference %g", n, d, h, err_ref);
    CHECK(rel_diff(y[1], y[0], N) < 2e-5, "n=%d: forward fft vs direct %g", n, rel_diff(y[1], y[0], N));
    CHECK(rel_diff(dx[1], dx[0], N) < 2e-5, "n=%d: dx fft vs direct %g", n, rel_diff(dx[1], dx[0], N));
    CHECK(rel_diff(dw[1], dw[0], (size_t)h * n) < 2e-5, "n=%d: dw fft vs direct %g", n,
          rel_diff(dw[1], dw[0], (size_t)h * n));
    /* the gradients are the transpose of the forward: <y(x), dy> = <x, dx>,
       and y is linear in w: <y, dy> = <w, dw> */
    double ydy = dotd(y[0], dy, N), xdx = dotd(x, dx[0], N), wdw = 0;
    for (int k = 0; k < h; k++) wdw += dotd(bk.w[k], dw[0] + (size_t)k * n, n);
    CHECK(fabs(ydy - xdx) < 1e-4 * (fabs(ydy) + sqrt(N)), "n=%d: <y,dy> %g vs <x,dx> %g", n, ydy, xdx);
    CHECK(fabs(ydy - wdw) < 1e-4 * (fabs(ydy) + sqrt(N)), "n=%d: <y,dy> %g vs <w,dw> %g", n, ydy, wdw);
    for (int p = 0; p < 2; p++) { free(y[p]); free(dx[p]); free(dw[p]); }
    free(x); free(dy); free(ref);
    block_close(&bk);
}

static void test_conv_paths(void)
{
    int threshold = 1;
    while (conv_auto_path(threshold) != CONV_FFT && threshold < 1 << 20) threshold++;
    CHECK(conv_auto_path(threshold - 1) == CONV_DIRECT, "auto path is not a threshold on n");
    int sizes[] = {1, 2, 3, 7, 16, threshold / 2 + 1, threshold - 1, threshold, threshold + 1, 2 * threshold - 3};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i] >= 1) check_conv_paths(sizes[i], 12, 3);
    check_conv_paths(threshold, 64, 2);
}

/* Changing x at position s changes nothing before s. */
static void test_conv_causal(void)
{
    enum { B = 1, n = 9, d = 4, h = 2 };
    for (int p = CONV_DIRECT; p <= CONV_FFT; p++) {
        Block bk;
        if (block_open(&bk, "conv", n, d, h, FFT_ND, B, 7)) return;
        conv_force_path(bk.state, p);
        float x[n * d], y0[n * d], y1[n * d];
        Rng r;
        rng_seed(&r, 8);
        fill(x, n * d, &r, 1);
        bk.ops->forward(&bk.a, x, y0);
        for (int s = 0; s < n; s++) {
            float keep = x[s * d + 1];
            x[s * d + 1] = keep + 1.0f;
            bk.ops->forward(&bk.a, x, y1);
            x[s * d + 1] = keep;
            double before = 0, after = 0;
            for (int i = 0; i < s * d; i++) before = fmax(before, fabs(y1[i] - y0[i]));
            for (int i = s * d; i < n * d; i++) after = fmax(after, fabs(y1[i] - y0[i]));
            /* the FFT path spreads rounding everywhere: "nothing" is float noise */
            CHECK(before <= (p == CONV_FFT ? 1e-5 : 0.0), "path %d: x[%d] moved y before it by %g", p, s, before);
            CHECK(after > 1e-3, "path %d: x[%d] changed nothing after it", p, s);
        }
        block_close(&bk);
    }
}

/* forward_step at every t equals row t of the full forward (either path). */
static void test_conv_step(void)
{
    int sizes[][3] = {{1, 4, 1}, {7, 6, 3}, {40, 16, 4}, {160, 8, 2}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i][0], d = sizes[i][1], h = sizes[i][2];
        for (int p = CONV_DIRECT; p <= CONV_FFT; p++) {
            Block bk;
            if (block_open(&bk, "conv", n, d, h, FFT_ND, 1, 9)) return;
            conv_force_path(bk.state, p);
            size_t N = (size_t)n * d;
            float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N),
                  *cache = malloc(sizeof(float) * bk.ops->cache_floats(&bk.cfg)), yt[16];
            Rng r;
            rng_seed(&r, 10);
            fill(x, N, &r, 1);
            bk.ops->forward(&bk.a, x, y);
            double worst = 0, scale = max_abs(y, N);
            for (int t = 0; t < n; t++) {
                bk.ops->forward_step(&bk.a, t, x + (size_t)t * d, yt, cache);
                for (int f = 0; f < d; f++) worst = fmax(worst, fabs(yt[f] - y[(size_t)t * d + f]) / scale);
            }
            CHECK(worst < 2e-5, "n=%d d=%d path %d: forward_step vs forward %g", n, d, p, worst);
            free(x); free(y); free(cache);
            block_close(&bk);
        }
    }
}

static void test_conv_decl(void)
{
    const MixerOps *ops = mixer_find("conv");
    if (!ops) { CHECK(0, "conv is not registered"); return; }
    Config c;
    config_defaults(&c);
    c.n_ctx = 10;
    c.heads = 3;
    ParamDecl decl[MIX_MAX_PARAMS];
    int count = ops->declare(&c, decl);
    CHECK(count == 3, "conv declares %d tensors", count);
    for (int k = 0; k < count; k++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", k);
        CHECK(strcmp(decl[k].name, name) == 0 && decl[k].ndim == 1 && decl[k].shape[0] == 10 &&
                  decl[k].init == INIT_ZERO && decl[k].decay == 0,
              "conv w%d declaration", k);
    }
    CHECK(ops->has_causal && !ops->has_bidir && ops->default_pos == POS_NONE, "conv: causal only, pos none");
    /* far above the threshold the direct path's n^2 scratch is not reserved */
    int big = 2;
    while (conv_auto_path(big / 2) != CONV_FFT) big *= 2;
    Block bk;
    if (block_open(&bk, "conv", big, 2, 1, FFT_ND, 1, 1)) return;
    CHECK(conv_force_path(bk.state, CONV_DIRECT) == -1, "direct path forced at n=%d", big);
    CHECK(conv_force_path(bk.state, CONV_FFT) == 0, "fft path refused");
    block_close(&bk);
}

/* Times forward + backward of both conv paths, B = 8 samples, best of 5. */
static void bench_conv(int d, int h, int argc, char **argv)
{
    enum { B = 8 };
    for (int i = 0; i < argc; i++) {
        int n = atoi(argv[i]);
        Block bk;
        if (n < 1 || block_open(&bk, "conv", n, d, h, FFT_ND, B, 1)) return;
        size_t N = (size_t)B * n * d;
        float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N), *dx = malloc(sizeof(float) * N);
        Rng r;
        rng_seed(&r, 1);
        fill(x, N, &r, 1);
        double best[2] = {1e30, 1e30};
        for (int p = 0; p < 2; p++) {
            if (conv_force_path(bk.state, p ? CONV_FFT : CONV_DIRECT)) continue;
            for (int rep = 0; rep < 5; rep++) {
                double t0 = now_seconds();
                bk.ops->forward(&bk.a, x, y);
                bk.ops->backward(&bk.a, x, y, dx);
                best[p] = fmin(best[p], now_seconds() - t0);
            }
        }
        char direct[32];
        if (best[0] < 1e30) snprintf(direct, sizeof direct, "%8.3f ms", 1e3 * best[0]);
        else snprintf(direct, sizeof direct, "%11s", "n/a");
        printf("n=%5d d=%d h=%d  direct %s  fft %8.3f ms  (auto: %s)\n", n, d, h, direct, 1e3 * best[1],
               conv_auto_path(n) == CONV_FFT ? "fft" : "direct");
        free(x); free(y); free(dx);
        block_close(&bk);
    }
}

int main(int argc, char **argv)
{
    openblas_set_num_threads(1);
    if (argc > 3 && strcmp(argv[1], "bench-conv") == 0) {
        bench_conv(atoi(argv[2]), atoi(argv[3]), argc - 4, argv + 4);
        return 0;
    }
    RUN(test_fft_nd);
    RUN(test_fft_fnet);
    RUN(test_fft_check_config);
    RUN(test_fft_threads);
    RUN(test_plan_threads);
    RUN(test_conv_decl);
    RUN(test_conv_paths);
    RUN(test_conv_causal);
    RUN(test_conv_step);
    CHECK_EXIT();
}
