/*
 * test_bf16_train.c — training with precision=bf16 (engine/gemm.h): every
 * architecture on builtin:markov learns (valid loss 0.25 nats or more below
 * the first step's) and ends within 1% of the same run in float32; the first step's loss and
 * gradient norm agree with float32's within bf16 rounding; the same seed
 * and thread count give the same numbers bit for bit.  Skipped when
 * precision=bf16 cannot run here (no AVX512-BF16, or no oneDNN).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/gemm.h"
#include "engine/model.h"
#include "engine/trainer.h"
#include "tests/check.h"

#define STEPS 120

static Dataset markov;   /* builtin:markov, loaded once by main */

/* Trains arch on ds in `precision`; losses[STEPS] and the first step's
   gradient norm out; returns the final valid loss (NAN on error). */
static double train(const char *arch, const char *task, int precision, int threads, const Dataset *ds,
                    double *losses, double *grad_norm0)
{
    Config c;
    char err[ERR_LEN], a[48], t[32], th[32];
    config_defaults(&c);
    snprintf(a, sizeof a, "arch=%s", arch);
    snprintf(t, sizeof t, "task=%s", task);
    snprintf(th, sizeof th, "threads=%d", threads);
    const char *args[] = {a, t, th, "d=32", "layers=2", "heads=2", "n_ctx=32", "batch=16", "lr=0.003", "warmup=10",
                          "eval_tokens=4096", "hash_size=200", NULL};
    for (int i = 0; args[i]; i++)
        if (config_set_arg(&c, args[i], err)) {
            printf("  %s\n", err);
            return NAN;
        }
    c.steps = STEPS;
    c.vocab = ds->vocab;
    c.precision = precision;
    Model m;
    Trainer *tr = NULL;
    if (config_validate(&c, err) || model_build(&m, &c, err)) {
        printf("  %s\n", err);
        return NAN;
    }
    double valid = NAN;
    if (trainer_create(&tr, &m, ds, threads, 1, err) == 0) {
        TrainProgress p = {0};
        while (!trainer_done(tr) && trainer_step(tr, &p, err) == 0) {
            losses[p.step - 1] = p.loss;
            if (p.step == 1) *grad_norm0 = p.grad_norm;
        }
        EvalResult r;
        if (p.step == STEPS && trainer_evaluate(tr, SPLIT_VALID, &r, err) == 0) valid = r.loss;
        trainer_free(tr);
    }
    if (isnan(valid)) printf("  %s\n", err);
    model_free(&m);
    return valid;
}

static void every_arch_learns_and_tracks_f32(void)
{
    const Dataset *ds = &markov;
    const char *cases[][2] = {{"attention", "clm"}, {"mixer", "clm"},   {"pairconnect", "mlm"}, {"dispatcher", "clm"},
                              {"cumsum", "clm"},    {"fft", "mlm"},     {"conv", "clm"},        {"attention", "mlm"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double l32[STEPS], l16[STEPS], g32 = 0, g16 = 0;
        double v32 = train(cases[i][0], cases[i][1], PRECISION_F32, 1, ds, l32, &g32);
        double v16 = train(cases[i][0], cases[i][1], PRECISION_BF16, 1, ds, l16, &g16);
        printf("  %s %s: valid f32 %.4f bf16 %.4f (log V %.3f); step 1 loss %.6f vs %.6f, grad norm %.5f vs %.5f\n",
               cases[i][0], cases[i][1], v32, v16, log(ds->vocab), l32[0], l16[0], g32, g16);
        CHECK(v16 < l16[0] - 0.25, "%s %s: bf16 valid %.4f is not 0.25 nats below the first loss %.4f",
              cases[i][0], cases[i][1], v16, l16[0]);
        CHECK(fabs(v16 - v32) < 0.01 * v32, "%s %s: bf16 valid %.4f vs f32 %.4f", cases[i][0], cases[i][1], v16, v32);
        /* the first step: the same weights and batch, products rounded to bf16 */
        CHECK(fabs(l16[0] - l32[0]) < 1e-3 * l32[0], "%s %s: first loss %.6f vs %.6f", cases[i][0], cases[i][1],
              l16[0], l32[0]);
        CHECK(fabs(g16 - g32) < 0.03 * g32, "%s %s: first gradient norm %.6f vs %.6f", cases[i][0], cases[i][1], g16,
              g32);
        CHECK(memcmp(l16, l32, sizeof l16) != 0, "%s %s: bf16 gave float32's numbers bit for bit: not in bf16?",
              cases[i][0], cases[i][1]);
    }
}

static void same_seed_same_bits(void)
{
    const Dataset *ds = &markov;
    const char *archs[] = {"attention", "pairconnect"};
    for (int a = 0; a < 2; a++) {
        double l1[STEPS], l2[STEPS], g1, g2;
        const char *task = a ? "mlm" : "clm";
        double v1 = train(archs[a], task, PRECISION_BF16, 2, ds, l1, &g1);
        double v2 = train(archs[a], task, PRECISION_BF16, 2, ds, l2, &g2);
        CHECK(memcmp(l1, l2, sizeof l1) == 0 && v1 == v2, "%s: two bf16 runs on 2 threads differ (valid %.9g %.9g)",
              archs[a], v1, v2);
    }
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    char why[ERR_LEN] = "";
    int bf16 = gemm_bf16_available(why);
    DataOptions o = {0};
    if (bf16 && dataset_load("builtin:markov", &o, &markov, why)) {
        printf("FAIL builtin:markov: %s\n", why);
        return 1;
    }
    RUN_IF(bf16, why, every_arch_learns_and_tracks_f32);
    RUN_IF(bf16, why, same_seed_same_bits);
    if (bf16) dataset_free(&markov);
    return check_failures_ ? 1 : 0;
}
