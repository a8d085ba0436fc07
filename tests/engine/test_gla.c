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
 *   - init=fan_in draws its linear weights N(0, 1/fan_in), and a checkpoint
 *     keeps gate and gate_rank;
 *   - the loss falls: one batch learned, with each gate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "engine/checkpoint.h"
#include "engine/config.h"
#include "engine/mixers/linear_chunks.h"
#include "engine/model.h"
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

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_refusals);
    RUN(test_kernels_match_recurrence);
    CHECK_EXIT();
}
